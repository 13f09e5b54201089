"""What lablang's LALR runtime (`lalr.py`) needs, derived once from lark's analysis.

Lark is the grammar analyser: `analyse` has it build its LALR(1) parser for the grammar and
serialize it with `Lark.memo_serialize`, lark's public serialization (the plain data its
`Lark.save` pickles for its cache and `python -m lark.tools.standalone` embeds; nothing is
unpickled here): the parse table, the
terminals with their patterns and priorities, the rules with their options (alias,
`keep_all_tokens`, `expand1`, `empty_indices`, `template_source`) and the lexer
configuration. `from_saved` turns that data into the runtime's tables with rules of ours,
each documented and tested where it is defined: the tree shaping of each rule
(`rule_shape`), and each contextual lexer's terminal order, line-spanning terminals and
keywords (`lexer_layout`, `may_span_lines`). No lark object is inspected beyond `save`, and
no private name of lark is used (tests/syntax/test_lark_public.py greps for them); what
the serialized format holds is lark's, versioned by lark: `LARK_VERSION` is the version the
build pins and the tests run against. `tables_file` writes the tables as the file the
wheel ships (made by `hatch_build.py` when the wheel is built) and the parser cache holds
(`grammar.py`); the runtime reads it; nothing here runs at parse time. This module imports
nothing of lablang (the build hook loads it by path) and lark only inside `analyse`; it
and `grammar.raw_parser`/`lark_parser` are the only places that import lark.

A tables file is `FORMAT`, the SHA-256 of the payload, and the payload: the tables in
`marshal` format 4 (readable by every supported Python) with two more keys, `grammar`
(the SHA-256 of the grammar text analysed: tables for another text are not used) and
`lark` (the version that analysed it). The bytes are canonical: states numbered by a
walk of the table, dictionaries in sorted order and each distinct string stored once and
interned, so the same grammar and lark version give the same file on every build.

The payload (its shape is checked by `grammar._validate`):

- `data.parser.parser`: the parse table in compact form, `tokens` (int -> symbol),
  `states` (state -> (token ints, codes): `2 * state` shifts, `2 * rule + 1` reduces),
  `start_states`, `end_states`; `data.ignore`: the ignored terminals.
- `memo`: the terminals (`TerminalDef`: name, pattern kind and text, priority) and the
  rules (`Rule`: origin, number of symbols, the callback name and shaping: which children
  are kept, which `_rule` children are inlined, where `[...]` leaves `None`, whether a
  `?rule` passes a single child up).
- `lexers`: per distinct terminal set (its sorted names joined by NUL): the terminals in
  the order they are tried, those that may span lines, the keywords folded into a
  pattern and, per pattern, the keywords it re-types (`lexer_layout`).
- `state_lexers`: the terminal-set key of each parser state's lexer (the terminals of
  the state's row and the ignored ones); `root`: the key of the lexer over all terminals
  (the fallback that names an unexpected token).
"""

from __future__ import annotations

import sys
from typing import Any

# the lark whose serialized parser `analyse` reads (the format is lark's, versioned by
# lark): `[build-system].requires` and the `test` extras pin this version
# (tests/core/test_wheel.py checks they agree)
LARK_VERSION = "1.3.1"
FORMAT = b"lablang-lalr-6\n"

OPTIONS: dict[str, Any] = dict(
    parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True
)


def lexer_key(names: Any) -> str:
    """The key of a lexer's terminal set."""
    return "\0".join(sorted(names))


def tables_file(text: str) -> bytes:
    """The tables file for grammar `text` (imports lark, which analyses it)."""
    import hashlib
    import marshal

    import lark

    tables = analyse(text)
    tables["grammar"] = grammar_digest(text)
    tables["lark"] = str(lark.__version__)
    # marshal marks an object as shared by its reference count, and a string as interned
    # when it is, both of which other owners (lark's objects awaiting collection, caches,
    # the compiler's interned constants) change from run to run: the tables are rebuilt
    # from an unshared copy with one interned object per distinct string, so sharing,
    # interning and the bytes follow from the tables alone
    strings: dict[str, str] = {}
    payload = marshal.dumps(_shared(marshal.loads(marshal.dumps(tables, 0)), strings), 4)
    del strings
    return FORMAT + hashlib.sha256(payload).digest() + payload


def grammar_digest(text: str) -> str:
    """The SHA-256 of a grammar text, in hex: what a tables file was made from."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _shared(value: Any, strings: dict[str, str]) -> Any:
    if isinstance(value, str):
        return strings.setdefault(value, sys.intern(value))
    if isinstance(value, tuple):
        return tuple(_shared(item, strings) for item in value)
    if isinstance(value, dict):
        return {_shared(k, strings): _shared(v, strings) for k, v in value.items()}
    return value


def analyse(text: str) -> dict[str, Any]:
    """The runtime's tables for grammar `text`, from lark's analysis (imports lark).

    Lark analyses the grammar and serializes what it found with its public
    `Lark.memo_serialize` (the plain data `Lark.save` pickles for its cache and lark's
    standalone generator writes out); everything below is read from that data, and nothing
    is unpickled."""
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = lark.Lark(text, **OPTIONS).memo_serialize([TerminalDef, Rule])
    return from_saved(data, memo)


def from_saved(data: dict[str, Any], memo: dict[int, Any]) -> dict[str, Any]:
    """The runtime's tables from lark's serialized parser (`Lark.memo_serialize`'s
    `data` and `memo`): the parse table renumbered, the rules' tree shaping, each contextual lexer's
    layout (`lexer_layout`)."""
    frontend = data["parser"]
    lexer_conf, options = frontend["lexer_conf"], data["options"]
    if lexer_conf["g_regex_flags"] or lexer_conf["use_bytes"] or options.get("postlex"):
        raise NotImplementedError("regex flags, bytes and a postlexer are not supported")
    terminals = [memo[ref["@"]] for ref in lexer_conf["terminals"]]
    rule_refs = [ref["@"] for ref in frontend["parser_conf"]["rules"]]
    ours: dict[int, Any] = {}
    for terminal in terminals:
        pattern = terminal["pattern"]
        if pattern["flags"]:
            raise NotImplementedError(f"terminal {terminal['name']}: regex flags are not supported")
        ours[len(ours)] = {
            "__type__": "TerminalDef",
            "name": terminal["name"],
            "pattern": {"__type__": pattern["__type__"], "value": pattern["value"]},
            "priority": terminal["priority"],
        }
    rule_ids = {ref: len(ours) + i for i, ref in enumerate(rule_refs)}
    for ref in rule_refs:
        ours[rule_ids[ref]] = {"__type__": "Rule", **rule_shape(memo[ref], options)}

    table = frontend["parser"]
    names = table["tokens"]
    rows = {
        state: {str(names[token]): action for token, action in row.items()}
        for state, row in table["states"].items()
    }
    number = _state_numbers(rows, table["start_states"])
    symbols = sorted({symbol for row in rows.values() for symbol in row})
    tokens = {name: i for i, name in enumerate(symbols)}
    states = {}
    for state in sorted(rows, key=number.__getitem__):
        row = sorted(rows[state].items())
        toks = tuple(tokens[symbol] for symbol, _ in row)
        codes = tuple(
            2 * number[arg] if kind == 0 else 2 * rule_ids[arg["@"]] + 1 for _, (kind, arg) in row
        )
        states[number[state]] = (toks, codes)

    by_name = {t["name"]: t for t in terminals}
    ignore = tuple(lexer_conf["ignore"])
    layouts = {}
    state_lexers = {}
    keys: dict[str, str] = {}
    sets = [(number[s], {n for n in row if n in by_name} | set(ignore)) for s, row in rows.items()]
    for state, accepts in [*sorted(sets, key=lambda item: item[0]), (None, set(by_name))]:
        key = lexer_key(accepts)
        key = keys.setdefault(key, key)  # one string per terminal set: marshal shares it
        if state is not None:
            state_lexers[state] = key
        if key not in layouts:
            layouts[key] = lexer_layout([by_name[name] for name in accepts])
    return {
        "data": {
            "parser": {
                "parser": {
                    "tokens": {i: name for name, i in tokens.items()},
                    "states": states,
                    "start_states": {
                        k: number[v] for k, v in sorted(table["start_states"].items())
                    },
                    "end_states": {k: number[v] for k, v in sorted(table["end_states"].items())},
                }
            },
            "ignore": ignore,
        },
        "memo": ours,
        "lexers": dict(sorted(layouts.items())),
        "state_lexers": dict(sorted(state_lexers.items())),
        "root": lexer_key(by_name),
    }


def _state_numbers(rows: dict[Any, dict[str, Any]], starts: dict[str, Any]) -> dict[Any, int]:
    """The parser states numbered in the order a breadth-first walk from the start states
    meets them, each state's shifts and gotos taken in symbol order: lark numbers its
    states in an order that varies between processes, and the tables must be the same
    bytes for the same grammar (reproducible wheels, comparable caches)."""
    number: dict[Any, int] = {}
    queue = [state for _, state in sorted(starts.items())]
    for state in queue:
        if state in number:
            continue
        number[state] = len(number)
        for _, (kind, arg) in sorted(rows[state].items()):
            if kind == 0 and arg not in number:
                queue.append(arg)
    if len(number) != len(rows):
        raise NotImplementedError("a parser state no start state reaches")
    return number


def rule_shape(rule: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """How a reduction of serialized `rule` shapes its children into its callback's
    argument, as lark's documented tree shaping says: a terminal the grammar filters out
    (an anonymous string, unless the rule keeps all tokens) is dropped, a `_rule` child is
    inlined, an absent `[...]` leaves `None` (`maybe_placeholders`: the rule's
    `empty_indices` mark where), a `?rule` without an alias passes a single child up; the
    callback is the alias, else the template the rule was made from, else the rule."""
    expansion, rule_options = rule["expansion"], rule["options"]
    keep_all = rule_options["keep_all_tokens"]
    empty = tuple(rule_options["empty_indices"] or ()) if options["maybe_placeholders"] else ()
    if empty and empty.count(False) != len(expansion):
        raise NotImplementedError(f"rule {rule['origin']['name']}: empty_indices do not fit")
    # the Nones before each symbol and after the last: the runs of True between the Falses
    nones = [len(run) for run in "".join("1" if b else "0" for b in empty).split("0")]
    nones = nones if empty else [0] * (len(expansion) + 1)
    include = []
    pending = 0
    for i, symbol in enumerate(expansion):
        pending += nones[i]
        terminal = symbol["__type__"] == "Terminal"
        if keep_all or not (terminal and symbol["filter_out"]):
            inline = not terminal and symbol["name"].startswith("_")
            include.append((i, inline, pending))
            pending = 0
    name = rule["alias"] or rule_options["template_source"] or rule["origin"]["name"]
    return {
        "origin": str(rule["origin"]["name"]),
        "size": len(expansion),
        "callback": str(name),
        "include": tuple(include),
        "append_none": pending + nones[len(expansion)],
        "expand1": bool(rule_options["expand1"]) and not rule["alias"],
    }


def may_span_lines(regexp: str) -> bool:
    """Whether a terminal's regexp may match a line break, by its text: a newline or `\\n`,
    `\\s`, a negated class `[^`, or `.` under `(?s`. Only such tokens are searched for line
    breaks (lark's rule, so lines and columns agree with lark's)."""
    return (
        "\n" in regexp
        or "\\n" in regexp
        or "\\s" in regexp
        or "[^" in regexp
        or ("(?s" in regexp and "." in regexp)
    )


def lexer_layout(terminals: list[dict[str, Any]]) -> tuple[Any, ...]:
    """One lexer's layout, from its serialized terminals: (the terminals in the order they
    are tried, those that may span lines, the keywords folded into a pattern, per pattern
    the keywords it re-types).

    Order: higher priority first, then the longer possible match (a regexp's widest match
    as lark's serialized `_width` gives it, a string's length), then the longer pattern
    text, then the name. Keywords: a string terminal is a keyword of a regexp terminal of
    the same priority when the regexp's leftmost match of the string is the whole string
    (`"if"` of `NAME: /[a-z]+/`); the keyword leaves the lexer's alternation, and a match
    of the regexp that is one of its keywords becomes that keyword's token."""
    import re

    def sort_key(terminal: dict[str, Any]) -> tuple[int, int, int, str]:
        pattern = terminal["pattern"]
        if pattern["__type__"] == "PatternStr":
            widest = len(pattern["value"])
        else:
            width = pattern.get("_width")
            if not width:
                raise NotImplementedError(
                    f"terminal {terminal['name']}: lark's serialized data lacks its width"
                )
            widest = width[1]
        return (-terminal["priority"], -widest, -len(pattern["value"]), terminal["name"])

    ordered = sorted(terminals, key=sort_key)
    strings = [t for t in ordered if t["pattern"]["__type__"] == "PatternStr"]
    embedded: set[str] = set()
    retypes: dict[str, tuple[str, ...]] = {}
    for regexp in ordered:
        if regexp["pattern"]["__type__"] != "PatternRE":
            continue
        keywords = []
        for string in strings:
            value = string["pattern"]["value"]
            if string["priority"] == regexp["priority"]:
                match = re.match(regexp["pattern"]["value"], value)
                if match is not None and match.group(0) == value:
                    keywords.append(string["name"])
        if keywords:
            retypes[regexp["name"]] = tuple(keywords)
            embedded.update(keywords)
    return (
        tuple(t["name"] for t in ordered),
        tuple(sorted(t["name"] for t in ordered if may_span_lines(_regexp(t["pattern"])))),
        tuple(t["name"] for t in ordered if t["name"] in embedded),
        retypes,
    )


def _regexp(pattern: dict[str, Any]) -> str:
    """A serialized pattern as a regexp (a string terminal's text escaped)."""
    import re

    value: str = pattern["value"]
    return re.escape(value) if pattern["__type__"] == "PatternStr" else value
