"""What lablang's LALR runtime (`lalr.py`) needs, derived once from lark's analysis.

Lark is the grammar analyser: it builds the LALR(1) table, the contextual lexer's
per-state terminal sets (ordered as lark orders them, with lark's keyword-vs-name
splits) and the tree-shaping callbacks of each rule (`ParseTreeBuilder`). `analyse`
records all of it as plain data (ints, strings, tuples, dicts) and `tables_file` writes
it as the file the wheel ships (made by `hatch_build.py` when the wheel is built, with
the lark `LARK_VERSION` names) and the parser cache holds (`grammar.py`); the runtime
reads it; nothing here runs at parse time. This module imports nothing of lablang (the
build hook loads it by path) and lark only inside `analyse`; it and
`grammar.raw_parser`/`lark_parser` are the only places that import lark.

A tables file is `FORMAT`, the SHA-256 of the payload, and the payload: the tables in
`marshal` format 4 (readable by every supported Python) with two more keys, `grammar`
(the SHA-256 of the grammar text analysed: tables for another text are not used) and
`lark` (the version that analysed it). The bytes are canonical: states numbered by a
walk of the table, dictionaries in sorted order and each distinct string stored once,
so the same grammar and lark version give the same file on every build.

The payload (its shape is checked by `grammar._validate`):

- `data.parser.parser`: the parse table in compact form, `tokens` (int -> symbol),
  `states` (state -> (token ints, codes): `2 * state` shifts, `2 * rule + 1` reduces),
  `start_states`, `end_states`; `data.ignore`: the ignored terminals.
- `memo`: the terminals (`TerminalDef`: name, pattern kind and text, priority) and the
  rules (`Rule`: origin, number of symbols, the callback name and shaping: which children
  are kept, which `_rule` children are inlined, where `[...]` leaves `None`, whether a
  `?rule` passes a single child up).
- `lexers`: per distinct terminal set (its sorted names joined by NUL): the terminals in
  lark's order, those whose pattern may span lines, the keywords folded into a pattern
  (`_create_unless`'s embedded strings) and, per pattern, the keywords it is re-typed to.
- `state_lexers`: the terminal-set key of each parser state's lexer; `root`: the key of
  the lexer over all terminals (lark's fallback to name an unexpected token).
"""

from __future__ import annotations

from typing import Any

# the lark whose internals `analyse` reads: `[build-system].requires` and the `test`
# extra pin this version (tests/core/test_wheel.py checks the three agree)
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
    # marshal marks an object as shared by its reference count, which other owners
    # (lark's objects awaiting collection, caches) change from run to run: the tables are
    # rebuilt from an unshared copy with one object per distinct string, so sharing, and
    # the bytes, follow from the tables alone
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
        return strings.setdefault(value, value)
    if isinstance(value, tuple):
        return tuple(_shared(item, strings) for item in value)
    if isinstance(value, dict):
        return {_shared(k, strings): _shared(v, strings) for k, v in value.items()}
    return value


def analyse(text: str) -> dict[str, Any]:
    """The runtime's tables for grammar `text`, from lark's analysis (imports lark)."""
    import lark
    from lark.lexer import PatternRE, PatternStr, _create_unless
    from lark.parse_tree_builder import (
        ChildFilterLALR,
        ChildFilterLALR_NoPlaceholders,
        ExpandSingleChild,
        PropagatePositions,
    )
    from lark.parsers.lalr_analysis import Shift

    parser = lark.Lark(text, **OPTIONS)
    memo: dict[int, Any] = {}
    for index, terminal in enumerate(parser.terminals):
        pattern = terminal.pattern
        if pattern.flags or parser.lexer_conf.g_regex_flags or parser.lexer_conf.use_bytes:
            raise NotImplementedError(f"terminal {terminal.name}: regex flags are not supported")
        kind = {PatternRE: "PatternRE", PatternStr: "PatternStr"}[type(pattern)]
        memo[index] = {
            "__type__": "TerminalDef",
            "name": terminal.name,
            "pattern": {"__type__": kind, "value": pattern.value},
            "priority": terminal.priority,
        }
    rule_ids: dict[Any, int] = {}
    builders = parser._parse_tree_builder.rule_builders
    for rule, chain in builders:
        rule_id = rule_ids[rule] = len(memo)
        for wrapper in chain:
            known = wrapper in (ExpandSingleChild, PropagatePositions) or getattr(
                wrapper, "func", None
            ) in (ChildFilterLALR, ChildFilterLALR_NoPlaceholders)
            if not known:
                raise NotImplementedError(f"rule {rule}: a tree-builder wrapper lablang lacks")
        memo[rule_id] = {"__type__": "Rule", **_shape(rule, chain, ExpandSingleChild)}

    table = parser.parser.parser._parse_table
    number = _state_numbers(table, Shift)
    names = sorted({str(symbol) for row in table.states.values() for symbol in row})
    tokens = {name: i for i, name in enumerate(names)}
    states = {}
    for state in sorted(table.states, key=number.__getitem__):
        row = sorted(table.states[state].items(), key=lambda item: str(item[0]))
        toks = tuple(tokens[str(symbol)] for symbol, _ in row)
        codes = tuple(
            2 * number[arg] if action is Shift else 2 * rule_ids[arg] + 1
            for _, (action, arg) in row
        )
        states[number[state]] = (toks, codes)

    contextual = parser.parser.lexer
    layouts = {}
    state_lexers = {}
    keys: dict[str, str] = {}
    by_state = sorted(contextual.lexers.items(), key=lambda item: number[item[0]])
    for state, basic in [*by_state, (None, contextual.root_lexer)]:
        key = lexer_key(t.name for t in basic.terminals)
        key = keys.setdefault(key, key)  # one string per terminal set: marshal shares it
        if state is not None:
            state_lexers[number[state]] = key
        if key not in layouts:
            kept, unless = _create_unless(basic.terminals, 0, basic.re, False)
            kept_names = {t.name for t in kept}
            layouts[key] = (
                tuple(t.name for t in basic.terminals),
                tuple(sorted(basic.newline_types)),
                tuple(t.name for t in basic.terminals if t.name not in kept_names),
                {name: tuple(t.name for t in cb.scanner.terminals) for name, cb in unless.items()},
            )
    return {
        "data": {
            "parser": {
                "parser": {
                    "tokens": {i: name for name, i in tokens.items()},
                    "states": states,
                    "start_states": {k: number[v] for k, v in sorted(table.start_states.items())},
                    "end_states": {k: number[v] for k, v in sorted(table.end_states.items())},
                }
            },
            "ignore": tuple(parser.ignore_tokens),
        },
        "memo": memo,
        "lexers": dict(sorted(layouts.items())),
        "state_lexers": state_lexers,
        "root": lexer_key(t.name for t in parser.terminals),
    }


def _state_numbers(table: Any, shift: Any) -> dict[Any, int]:
    """The parser states numbered in the order a breadth-first walk from the start states
    meets them, each state's shifts and gotos taken in symbol order: lark numbers its
    states in an order that varies between processes, and the tables must be the same
    bytes for the same grammar (reproducible wheels, comparable caches)."""
    number: dict[Any, int] = {}
    queue = [state for _, state in sorted(table.start_states.items())]
    for state in queue:
        if state in number:
            continue
        number[state] = len(number)
        row = sorted(table.states[state].items(), key=lambda item: str(item[0]))
        queue.extend(arg for _, (action, arg) in row if action is shift and arg not in number)
    if len(number) != len(table.states):
        raise NotImplementedError("a parser state no start state reaches")
    return number


def _shape(rule: Any, chain: list[Any], expand_single: Any) -> dict[str, Any]:
    """How lark's parse-tree builder turns a rule's children into its callback's argument:
    read from the wrapper chain `ParseTreeBuilder` made for it (child filter, `?rule`)."""
    include = tuple((i, False, 0) for i in range(len(rule.expansion)))
    append_none = 0
    for wrapper in chain:
        args = getattr(wrapper, "args", None)
        if args is None:
            continue
        if len(args) == 2:  # ChildFilterLALR(to_include, nones_to_add)
            include = tuple((i, bool(expand), nones) for i, expand, nones in args[0])
            append_none = args[1]
        else:  # ChildFilterLALR_NoPlaceholders(to_include)
            include = tuple((i, bool(expand), 0) for i, expand in args[0])
    name = rule.alias or rule.options.template_source or rule.origin.name
    return {
        "origin": str(rule.origin.name),
        "size": len(rule.expansion),
        "callback": str(name),
        "include": include,
        "append_none": append_none,
        "expand1": expand_single in chain,
    }
