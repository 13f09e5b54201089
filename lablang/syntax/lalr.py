"""lablang's LALR(1) runtime: the contextual lexer and the shift/reduce loop, run on the
tables lark analysed (`tables.py`), as the parser cache holds them (`grammar.py`).

It parses as `lark.Lark(grammar, **tables.OPTIONS)` with an inline transformer and
lexer callbacks does, token for token and error for error (tests/syntax/ holds the two
to that on every shipped file and on generated and damaged texts), without importing
lark, whose import alone costs more than a small `lablang check`:

- per parser state, a lexer over the terminals that state accepts plus the ignored ones,
  tried in the tables' order, keywords a pattern also matches re-typed after the match
  (`tables.lexer_layout` says which); lines and columns counted as lark counts them;
- where the state's lexer matches nothing, the lexer over all terminals names the token
  that is there (an `UnexpectedToken` expecting what the state's lexer allowed), else the
  error is an `UnexpectedCharacters`;
- each reduction shapes the children as lark's parse-tree builder does (tokens filtered
  out, `_rule`s inlined, `None` for an absent `[...]`, a `?rule` passing a single child
  up) and calls the transformer's method of the rule (or of its alias); a rule without one
  becomes a `Tree`, as with lark.

Regex programs are compiled by `re` (see `grammar.py`), each lexer's when it is first
needed; most tokens are matched by the lexer over all terminals (`_Scanner`), so a
file compiles a few alternations, not one per parser state it visits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


class Token(str):
    """A token: its text, terminal name and place (lark's `Token`, the fields lablang reads)."""

    __slots__ = ("column", "end_column", "end_line", "end_pos", "line", "start_pos", "type")

    type: str
    start_pos: int | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    end_pos: int | None

    def __new__(
        cls,
        type: str,
        value: str,
        start_pos: int | None = None,
        line: int | None = None,
        column: int | None = None,
        end_line: int | None = None,
        end_column: int | None = None,
        end_pos: int | None = None,
    ) -> Token:
        token = str.__new__(cls, value)
        token.type = type
        token.start_pos = start_pos
        token.line = line
        token.column = column
        token.end_line = end_line
        token.end_column = end_column
        token.end_pos = end_pos
        return token

    @property
    def value(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__


class Tree:
    """A rule's result when the transformer has no method for it (lark's default); a
    `_rule`'s is spliced into its parent."""

    __slots__ = ("children", "data")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


class UnexpectedInput(Exception):
    """A syntax error at `pos_in_stream` (line and column from 1), in parser `state`."""

    pos_in_stream: int | None
    line: int | None
    column: int | None
    state: int
    token_history: list[Token | None] | None


class UnexpectedToken(UnexpectedInput):
    """The parser, or a state's lexer, met `token` where it expected one of `expected`."""

    def __init__(
        self,
        token: Token,
        expected: set[str],
        state: int,
        token_history: list[Token | None] | None = None,
    ) -> None:
        super().__init__(token, expected)
        self.token = token
        self.expected = expected
        self.state = state
        self.token_history = token_history
        self.pos_in_stream = token.start_pos
        self.line = token.line
        self.column = token.column

    def __str__(self) -> str:
        return (
            f"unexpected token {self.token!r} at line {self.line}, column {self.column}; "
            f"expected one of {sorted(self.expected)}"
        )


class UnexpectedCharacters(UnexpectedInput):
    """No terminal matches at `pos_in_stream`; the state's lexer allowed `allowed`."""

    def __init__(
        self,
        text: str,
        pos: int,
        line: int,
        column: int,
        allowed: set[str],
        state: int,
        token_history: list[Token | None] | None,
    ) -> None:
        super().__init__(pos, allowed)
        self.char = text[pos]
        self.pos_in_stream = pos
        self.line = line
        self.column = column
        self.allowed = allowed
        self.state = state
        self.token_history = token_history

    def __str__(self) -> str:
        return f"no terminal matches {self.char!r} at line {self.line}, column {self.column}"


class _Retype:
    """A pattern's match that is one of the keywords it also matches becomes that keyword
    (`tables.lexer_layout`'s rule)."""

    __slots__ = ("keywords",)

    def __init__(self, keywords: dict[str, str]) -> None:
        self.keywords = keywords

    def __call__(self, token: Token) -> Token:
        keyword = self.keywords.get(token)
        if keyword is not None:
            token.type = keyword
        return token


class _Chain:
    """Re-type, then the user's callback if the type did not change (as lark chains a
    lexer callback after a re-typing)."""

    __slots__ = ("callback", "retype")

    def __init__(self, retype: _Retype, callback: Callable[[Token], Token]) -> None:
        self.retype = retype
        self.callback = callback

    def __call__(self, token: Token) -> Token:
        kind = token.type
        token = self.retype(token)
        return self.callback(token) if token.type == kind else token


class _Scanner:
    """One lexer: its alternation (compiled at first use), what it allows, its callbacks.

    `kept` names the terminals of its alternation, in the tables' order (`order`). Where the
    alternation over all terminals (the root lexer's, compiled once) matches one of those,
    that match is this lexer's too (see `Runtime.parse`), unless one of its own literals
    that the root lexer folds into a pattern (`shadowed[name]`, those ordered before
    `name`) is there: only then, or when the root's match is not one of `kept`, is this
    lexer's own alternation compiled and run."""

    __slots__ = ("allowed", "callbacks", "kept", "match", "newline", "order", "pattern", "shadowed")

    def __init__(
        self,
        order: list[str],
        pattern: str,
        allowed: set[str],
        callbacks: dict[str, Callable[[Token], Token]],
        newline: frozenset[str],
    ) -> None:
        self.order = order
        self.kept = frozenset(order)
        self.pattern = pattern
        self.allowed = allowed
        self.callbacks = callbacks
        self.newline = newline
        self.shadowed: dict[str, dict[str, tuple[str, ...]]] = {}
        self.match: Callable[[str, int], re.Match[str] | None] = self._first_match

    def _first_match(self, text: str, pos: int) -> re.Match[str] | None:
        self.match = re.compile(self.pattern).match
        return self.match(text, pos)

    def shadows(self, name: str, text: str, pos: int) -> bool:
        """Whether a literal of this lexer that the root's alternation lacks, ordered
        before `name`, matches at `pos` (then the root's match is not this lexer's)."""
        by_first = self.shadowed.get(name)
        literals = by_first.get(text[pos]) if by_first else None
        return literals is not None and any(text.startswith(lit, pos) for lit in literals)


# a rule as the loop uses it: (origin, number of symbols, reduce); reduce None: the
# rule's one child is its value (a `?rule` of one symbol)
_Rule = tuple[str, int, Callable[[list[Any]], Any] | None]


class Runtime:
    """The parser for one transformer and set of lexer callbacks, over the saved tables.

    Raises (ValueError, or the error of a value of the wrong kind) when the tables are not
    structurally sound, so that a damaged cache fails here rather than while parsing."""

    # where the tables came from: "shipped" (the package's file), "cache" or "analysed"
    lablang_tables = "analysed"

    def __init__(
        self,
        saved: dict[str, Any],
        transformer: Any,
        lexer_callbacks: dict[str, Callable[[Token], Token]],
    ) -> None:
        table = saved["data"]["parser"]["parser"]
        tokens, states, memo = table["tokens"], table["states"], saved["memo"]
        _require(isinstance(tokens, dict) and isinstance(states, dict) and isinstance(memo, dict))
        _require(all(isinstance(name, str) for name in tokens.values()))
        rule_index: dict[int, int] = {}
        self._rules: list[_Rule] = []
        self.patterns: dict[str, str] = {}
        regexps: dict[str, str] = {}
        keywords: dict[str, str] = {}  # the string terminals: name -> text
        for key, entry in memo.items():
            _require(isinstance(entry, dict))
            kind = entry.get("__type__")
            if kind == "Rule":
                rule_index[key] = len(self._rules)
                self._rules.append(_rule(entry, transformer))
            elif kind == "TerminalDef":
                name, pattern = entry["name"], entry["pattern"]
                value = pattern["value"]
                _require(isinstance(name, str) and isinstance(value, str))
                _require(pattern["__type__"] in ("PatternRE", "PatternStr"))
                self.patterns[name] = value
                if pattern["__type__"] == "PatternRE":
                    regexps[name] = value
                else:
                    regexps[name] = re.escape(value)
                    keywords[name] = value
            else:
                raise ValueError("a memo entry of unknown kind")
        actions: dict[int, int] = {}
        for code in {c for _, row in states.values() for c in row}:
            _require(isinstance(code, int) and code >= 0)
            if code & 1:
                _require(code >> 1 in rule_index)
                actions[code] = ~rule_index[code >> 1]
            else:
                _require(code >> 1 in states)
                actions[code] = code >> 1
        _require(all(isinstance(s, int) and len(t) == len(c) for s, (t, c) in states.items()))
        _require(set().union(*(toks for toks, _ in states.values())) <= tokens.keys())
        self._compact = states
        self._name_of, self._action_of = tokens.__getitem__, actions.__getitem__
        self._rows: dict[int, dict[str, int]] = {}  # decoded as states are entered (`_row`)
        self._start = table["start_states"]["start"]
        self._end = table["end_states"]["start"]
        _require(self._start in states and self._end in states)
        ignore = frozenset(saved["data"]["ignore"])
        _require(ignore <= regexps.keys())
        scanners = {
            key: _scanner(key, layout, regexps, keywords, ignore, lexer_callbacks)
            for key, layout in saved["lexers"].items()
        }
        state_lexers = saved["state_lexers"]
        _require(isinstance(state_lexers, dict) and state_lexers.keys() == states.keys())
        try:
            self._scanners = {state: scanners[key] for state, key in state_lexers.items()}
            self._root = scanners[saved["root"]]
        except (KeyError, TypeError) as error:
            raise ValueError("a parser state names no lexer") from error
        self._ignore = ignore
        root_kept = self._root.kept
        for scanner in scanners.values():
            # this lexer's literals that the root folds into a pattern, by first character
            extra: dict[str, tuple[str, ...]] = {}
            for name in scanner.order:
                if name not in root_kept:
                    _require(bool(keywords.get(name)))
                    literal = keywords[name]
                    extra[literal[0]] = (*extra.get(literal[0], ()), literal)
                elif extra:
                    scanner.shadowed[name] = dict(extra)

    def parse(self, text: str) -> Any:
        """The transformer's value for `text`; raises `UnexpectedInput` on a syntax error
        (and whatever a callback raises)."""
        rows, scanners, rules, ignore = self._rows, self._scanners, self._rules, self._ignore
        root = self._root
        stack = [self._start]
        values: list[Any] = []
        pos, line, line_start, end = 0, 1, 0, len(text)
        last: Token | None = None
        at_end = False
        # where the state's lexer matches nothing, lark's contextual lexer asks the lexer
        # over all terminals what is there: a token it names is unexpected (expecting
        # what the state's lexer allowed), else the characters are
        failed: UnexpectedCharacters | None = None
        while True:
            state = stack[-1]
            if pos < end:
                if failed is None:
                    scanner = scanners[state]
                    match = root.match(text, pos)
                    # the root's match is this lexer's when it is one of its terminals
                    # (the lexer's order is the root's, less terminals), unless a literal
                    # the root lacks is there
                    if (
                        match is None
                        or match.lastgroup not in scanner.kept
                        or (scanner.shadowed and scanner.shadows(match.lastgroup, text, pos))
                    ):
                        match = scanner.match(text, pos)
                else:
                    scanner = root
                    match = root.match(text, pos)
                if match is None:
                    if failed is not None:
                        raise failed
                    column = pos - line_start + 1
                    history: list[Token | None] | None = [last] if last else None
                    failed = UnexpectedCharacters(
                        text, pos, line, column, scanner.allowed, state, history
                    )
                    continue
                kind: str = match.lastgroup  # type: ignore[assignment]
                stop = match.end()
                value = text[pos:stop]
                start, start_line, column = pos, line, pos - line_start + 1
                if kind in scanner.newline:
                    newlines = value.count("\n")
                    if newlines:
                        line += newlines
                        line_start = pos + value.rindex("\n") + 1
                pos = stop
                end_column = stop - line_start + 1
                callback = scanner.callbacks.get(kind)
                if kind in ignore:
                    if callback is not None:
                        callback(
                            Token(kind, value, start, start_line, column, line, end_column, stop)
                        )
                    continue
                token = Token(kind, value, start, start_line, column, line, end_column, stop)
                if callback is not None:
                    token = callback(token)
                if failed is not None:
                    raise UnexpectedToken(token, failed.allowed, state, [last])
                last = token
                kind = token.type
            elif failed is not None:
                raise failed
            else:  # lark's end token: at the last token's place
                at_end, kind = True, "$END"
                if last is None:
                    token = Token(kind, "", 0, 1, 1)
                else:
                    token = Token(kind, "", last.start_pos, last.line, last.column, last.end_line,
                                  last.end_column, last.end_pos)  # fmt: skip
            try:
                row = rows[state]
            except KeyError:
                row = self._row(state)
            action = row.get(kind)
            while action is not None and action < 0:
                origin, size, reduce = rules[~action]
                if reduce is None:
                    del stack[-1]
                else:
                    if size:
                        children = values[-size:]
                        del stack[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(reduce(children))
                state = rows[stack[-1]][origin]  # a state on the stack: its row is decoded
                stack.append(state)
                if at_end and state == self._end:
                    return values[-1]
                try:
                    row = rows[state]
                except KeyError:
                    row = self._row(state)
                action = row.get(kind)
            if action is None:
                raise UnexpectedToken(token, _expected(row), state)
            if at_end:
                raise ValueError("the parse table shifts the end of input")
            stack.append(action)
            values.append(token)

    def _row(self, state: int) -> dict[str, int]:
        """A state's row of the table (symbol -> action), decoded when first entered."""
        toks, codes = self._compact[state]
        row = dict(zip(map(self._name_of, toks), map(self._action_of, codes), strict=True))
        self._rows[state] = row
        return row


def _require(condition: bool) -> None:
    if not condition:
        raise ValueError("the parser tables are not structurally sound")


def _expected(row: dict[str, int]) -> set[str]:
    """What lark's parser says it expected in a state: the terminals of its row."""
    return {symbol for symbol in row if symbol.isupper()}


def _rule(entry: dict[str, Any], transformer: Any) -> _Rule:
    """A rule's origin, size and reduce function, shaped as lark's parse-tree builder does."""
    origin, size, name = entry["origin"], entry["size"], entry["callback"]
    include, append_none, expand1 = entry["include"], entry["append_none"], entry["expand1"]
    _require(isinstance(origin, str) and isinstance(name, str) and isinstance(size, int))
    _require(size >= 0 and isinstance(append_none, int) and append_none >= 0)
    _require(all(0 <= i < size and nones >= 0 for i, _, nones in include))
    method = getattr(transformer, name, None) if transformer is not None else None
    if method is None:

        def method(children: list[Any], name: str = name) -> Tree:
            return Tree(name, children)

    plain = not append_none and all(not expand and not nones for _, expand, nones in include)
    if plain and tuple(i for i, _, _ in include) == tuple(range(size)):
        if not expand1:
            return origin, size, method
        if size == 1:
            return origin, size, None
    steps = tuple((i, bool(expand), nones) for i, expand, nones in include)

    def reduce(children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, expand, nones in steps:
            if nones:
                filtered += [None] * nones
            if expand:
                filtered += children[i].children
            else:
                filtered.append(children[i])
        if append_none:
            filtered += [None] * append_none
        if expand1 and len(filtered) == 1:
            return filtered[0]
        return method(filtered)

    return origin, size, reduce


def _scanner(
    key: str,
    layout: Any,
    regexps: dict[str, str],
    literals: dict[str, str],
    ignore: frozenset[str],
    lexer_callbacks: dict[str, Callable[[Token], Token]],
) -> _Scanner:
    order, newline, embedded, unless = layout
    _require(isinstance(unless, dict))
    names = set(key.split("\0")) if key else set()
    _require(names <= regexps.keys() and set(order) == names and len(order) == len(names))
    _require((set(newline) | set(embedded)) <= names)
    folded = set(embedded)
    kept = [name for name in order if name not in folded]
    retypes: dict[str, _Retype] = {}
    for name, keywords in unless.items():
        _require(name in names and set(keywords) <= names and set(keywords) <= literals.keys())
        retypes[name] = _Retype({literals[k]: k for k in keywords})
    callbacks: dict[str, Callable[[Token], Token]] = dict(retypes)
    for name, callback in lexer_callbacks.items():
        retype = retypes.get(name)
        callbacks[name] = callback if retype is None else _Chain(retype, callback)
    pattern = "|".join(f"(?P<{name}>{regexps[name]})" for name in kept)
    allowed = set(kept) - ignore or {"<END-OF-FILE>"}
    return _Scanner(kept, pattern, allowed, callbacks, frozenset(newline))
