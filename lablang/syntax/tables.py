"""What lablang's LALR runtime (`lalr.py`) needs, derived once from lark's analysis.

Lark is the grammar analyser: it builds the LALR(1) table, the contextual lexer's
per-state terminal sets (ordered as lark orders them, with lark's keyword-vs-name
splits) and the tree-shaping callbacks of each rule (`ParseTreeBuilder`). `analyse`
records all of it as plain data (ints, strings, tuples, dicts), which the parser cache
stores (`grammar.py`) and the runtime reads; nothing here runs at parse time. This and
`grammar.raw_parser`/`lark_parser` are the only places that import lark.

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

OPTIONS: dict[str, Any] = dict(
    parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True
)


def lexer_key(names: Any) -> str:
    """The key of a lexer's terminal set."""
    return "\0".join(sorted(names))


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
    tokens: dict[str, int] = {}
    states = {}
    for state, row in table.states.items():
        toks, codes = [], []
        for symbol, (action, arg) in row.items():
            toks.append(tokens.setdefault(str(symbol), len(tokens)))
            codes.append(2 * arg if action is Shift else 2 * rule_ids[arg] + 1)
        states[state] = (tuple(toks), tuple(codes))

    contextual = parser.parser.lexer
    layouts = {}
    state_lexers = {}
    keys: dict[str, str] = {}
    for state, basic in [*contextual.lexers.items(), (None, contextual.root_lexer)]:
        key = lexer_key(t.name for t in basic.terminals)
        key = keys.setdefault(key, key)  # one string per terminal set: marshal shares it
        if state is not None:
            state_lexers[state] = key
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
                    "start_states": dict(table.start_states),
                    "end_states": dict(table.end_states),
                }
            },
            "ignore": tuple(parser.ignore_tokens),
        },
        "memo": memo,
        "lexers": layouts,
        "state_lexers": state_lexers,
        "root": lexer_key(t.name for t in parser.terminals),
    }


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
