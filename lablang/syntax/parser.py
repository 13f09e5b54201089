"""Text to AST: lablang's LALR runtime (`lalr.py`) with an inline transformer, one method
per rule."""

from __future__ import annotations

import builtins
import contextlib
import re
import threading
from typing import Any

from attrs import evolve

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import Limits
from lablang.source import Source, Span
from lablang.syntax.lalr import Runtime, Token, UnexpectedInput, UnexpectedToken
from lablang.syntax.sequence import read_sequence
from lablang.syntax.strings import unquote


class _Abort(Exception):
    """A limit was exceeded; the diagnostic is already in the report."""


class _Params(tuple):
    pass


class _TypeClause:
    __slots__ = ("expr",)

    def __init__(self, expr: ast.Expr) -> None:
        self.expr = expr


class _Scope(tuple):
    pass


class _BodyValue:
    __slots__ = ("expr",)

    def __init__(self, expr: ast.Expr) -> None:
        self.expr = expr


_QUANTITY = re.compile(r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)[ \t]*(.+)")


def _child_span(child: Any) -> Span | None:
    if isinstance(child, Token):
        return Span(child.start_pos or 0, child.end_pos or 0)
    span = getattr(child, "span", None)
    if isinstance(span, Span):
        return span
    if isinstance(child, (_TypeClause, _BodyValue)):
        return child.expr.span
    if isinstance(child, tuple) and child:
        first, last = _child_span(child[0]), _child_span(child[-1])
        if first and last:
            return first.union(last)
    return None


def _span_of(children: list[Any]) -> Span:
    """The span from the first located child to the last (tokens and nodes)."""
    start = end = None
    for child in children:
        span = _child_span(child)
        if span is not None:
            start = span
            break
    for child in reversed(children):
        span = _child_span(child)
        if span is not None:
            end = span
            break
    if start is None or end is None:
        return Span(0, 0)
    return Span(start.start, end.end)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


_NUMBER_PARTS = re.compile(r"(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?")


def number_problem(text: str, limits: Limits) -> str | None:
    """Why a number literal (possibly followed by a unit) is out of bounds, or None.

    >>> number_problem("1e100000000 s", Limits())
    'exponent 100000000 is beyond ±100'
    >>> number_problem("98.5", Limits()) is None
    True
    """
    match = _NUMBER_PARTS.match(text)
    if match is None:
        return None
    whole, fraction, exponent = match.groups()
    digits = len(whole.lstrip("0") or "0") + len(fraction or "")
    if digits > limits.max_number_digits:
        return f"{digits} digits, more than {limits.max_number_digits}"
    if exponent is not None:
        bare = exponent.lstrip("+-").lstrip("0")
        if len(bare) > 6 or int(bare or "0") > limits.max_number_exponent:
            shown = exponent if len(exponent) <= 12 else exponent[:11] + "…"
            return f"exponent {shown} is beyond ±{limits.max_number_exponent}"
    return None


def _tspan(token: Token) -> Span:
    return Span(token.start_pos or 0, token.end_pos or 0)


def _header(children: list[Any]) -> dict[str, Any]:
    """The optional parts of a declaration or entry header, told apart by their type."""
    parts: dict[str, Any] = dict.fromkeys(
        ("name", "name_span", "params", "scope", "title", "type", "body", "value")
    )
    clauses: list[ast.Clause] = []
    for child in children:
        if isinstance(child, Token) and child.type == "NAME":
            parts["name"], parts["name_span"] = str(child), _tspan(child)
        elif isinstance(child, Token) and child.type == "STRING":
            parts["title"] = unquote(child)
        elif isinstance(child, _Params):
            parts["params"] = tuple(child)
        elif isinstance(child, _Scope):
            parts["scope"] = tuple(child)
        elif isinstance(child, _TypeClause):
            parts["type"] = child.expr
        elif isinstance(child, _BodyValue):
            parts["value"] = child.expr
        elif isinstance(child, ast.Clause):
            clauses.append(child)
        elif isinstance(child, ast.Block):
            parts["body"] = child
    parts["clauses"] = tuple(clauses)
    return parts


class _Context:
    """Per-parse state shared with the transformer and the lexer callbacks."""

    def __init__(self) -> None:
        self.reset(Source(""), Report(), Limits())

    def reset(self, source: Source, report: Report, limits: Limits) -> None:
        self.source = source
        self.report = report
        self.limits = limits
        self.comments: list[ast.Comment] = []
        self.depth = 0
        self.expr_depth: dict[int, int] = {}


class _ToAst:
    """The reduction callbacks: one method per rule (or alias), called with its children."""

    def __init__(self, context: _Context) -> None:
        self.ctx = context

    # ---------------------------------------------------------------- helpers
    def _deep(self, node: Any, *children: Any) -> Any:
        table = self.ctx.expr_depth
        depth = 1 + max((table.get(id(c), 0) for c in children), default=0)
        if depth > self.ctx.limits.max_expression_depth:
            self.ctx.report.add(
                "E0002",
                f"expression is nested more than {self.ctx.limits.max_expression_depth} levels deep",
                self.ctx.source,
                node.span,
                help="split the expression into named parts",
            )
            raise _Abort
        table[id(node)] = depth
        return node

    def _items(self, items: list[Any], what: str) -> tuple[Any, ...]:
        values = tuple(item for item in items if item is not None and not isinstance(item, Token))
        if len(values) > self.ctx.limits.max_list_items:
            self.ctx.report.add(
                "E0004",
                f"{what} has {len(values)} items",
                self.ctx.source,
                _span_of(items),
                label=f"at most {self.ctx.limits.max_list_items} allowed",
                help="split it, or keep large data in a separate data file",
            )
            raise _Abort
        return values

    # ---------------------------------------------------------------- top level
    def start(self, children: list[Any]) -> ast.Module:
        name = title = None
        uses: list[ast.Use] = []
        decls: list[ast.Decl] = []
        for child in children:
            if isinstance(child, tuple) and child and child[0] == "header":
                name, title = child[1], child[2]
            elif isinstance(child, ast.Use):
                uses.append(child)
            elif isinstance(child, ast.Decl):
                decls.append(child)
        return ast.Module(
            name=name,
            title=title,
            uses=tuple(uses),
            decls=tuple(decls),
            comments=tuple(self.ctx.comments),
            span=Span(0, len(self.ctx.source.text)),
        )

    def module_header(self, children: list[Any]) -> tuple[str, str, str | None]:
        # children: "module", dotted name, [title]
        title = unquote(children[2]) if len(children) > 2 and children[2] is not None else None
        return ("header", children[1], title)

    def dotted_name(self, children: list[Token]) -> str:
        # `use` keeps all its tokens (`!use`), which names the "." terminal DOT, and a named
        # terminal is kept everywhere: join the names only.
        return ".".join(str(c) for c in children if c.type == "NAME")

    def use(self, children: list[Token]) -> ast.Use:
        path: list[str] = []
        names: list[str] = []
        alias = None
        mode = "path"
        for token in children[1:]:
            value = str(token)
            if value == "{":
                mode = "names"
            elif value == "as":
                mode = "alias"
            elif token.type == "NAME":
                if mode == "path":
                    path.append(value)
                elif mode == "names":
                    names.append(value)
                else:
                    alias = value
        return ast.Use(path=tuple(path), names=tuple(names), alias=alias, span=_span_of(children))

    def decl(self, children: list[Any]) -> ast.Decl:
        kind, name_token, *rest = children
        parts = _header(rest)
        return ast.Decl(
            kind=str(kind),
            name=str(name_token),
            name_span=_tspan(name_token),
            params=parts["params"],
            scope=parts["scope"],
            title=parts["title"],
            type=parts["type"],
            clauses=parts["clauses"],
            body=parts["body"],
            value=parts["value"],
            span=_span_of(children),
        )

    def decl_kind(self, children: list[Token]) -> Token:
        return children[0]

    def in_scope(self, children: list[str]) -> _Scope:
        return _Scope(children[0].split("."))

    def type_clause(self, children: list[Any]) -> _TypeClause:
        return _TypeClause(children[0])

    def decl_body(self, children: list[Any]) -> Any:
        # `= expr` (a block body arrives as the Block itself)
        return _BodyValue(children[0])

    def params(self, children: list[Any]) -> _Params:
        return _Params(self._items(children, "parameter list"))

    def param(self, children: list[Any]) -> ast.Param:
        name = children[0]
        type_ = default = None
        for child in children[1:]:
            if isinstance(child, _TypeClause):
                type_ = child.expr
            elif isinstance(child, _BodyValue):
                default = child.expr
        return ast.Param(name=str(name), type=type_, default=default, span=_span_of(children))

    def param_type(self, children: list[Any]) -> _TypeClause:
        return _TypeClause(children[0])

    def param_default(self, children: list[Any]) -> _BodyValue:
        return _BodyValue(children[0])

    # ---------------------------------------------------------------- blocks
    def block(self, children: list[Any]) -> ast.Block:
        return ast.Block(members=self._items(children, "block"), span=_span_of(children))

    def field(self, children: list[Any]) -> ast.Field:
        key, value, *clauses = children
        key_text = unquote(key) if key.type == "STRING" else str(key)
        return ast.Field(
            key=key_text,
            key_span=_tspan(key),
            value=value,
            clauses=tuple(clauses),
            span=_span_of(children),
        )

    def binding(self, children: list[Any]) -> ast.Binding:
        name, value = children
        return ast.Binding(
            name=str(name), name_span=_tspan(name), value=value, span=_span_of(children)
        )

    def entry(self, children: list[Any]) -> ast.Entry:
        keyword, *rest = children
        parts = _header(rest)
        return ast.Entry(
            keyword=str(keyword),
            name=parts["name"],
            name_span=parts["name_span"],
            params=parts["params"],
            title=parts["title"],
            type=parts["type"],
            clauses=parts["clauses"],
            body=parts["body"],
            span=_span_of(children),
        )

    def expr_entry(self, children: list[Any]) -> ast.ExprEntry:
        keyword, value, *rest = children
        body = None
        clauses: list[ast.Clause] = []
        for child in rest:
            if isinstance(child, ast.Clause):
                clauses.append(child)
            elif isinstance(child, ast.Block):
                body = child
        return ast.ExprEntry(
            keyword=str(keyword),
            value=value,
            clauses=tuple(clauses),
            body=body,
            span=_span_of(children),
        )

    def expr_stmt(self, children: list[Any]) -> ast.ExprStmt:
        value, *clauses = children
        return ast.ExprStmt(value=value, clauses=tuple(clauses), span=_span_of(children))

    def clause(self, children: list[Any]) -> ast.Clause:
        keyword, value = children
        return ast.Clause(keyword=str(keyword), value=value, span=_span_of(children))

    def assignment(self, children: list[Any]) -> ast.Assignment:
        name, value = children
        return ast.Assignment(name=str(name), value=value, span=_span_of(children))

    def _keyword(self, children: list[Token]) -> Token:
        return children[0]

    entry_kw = expr_kw = clause_kw = quant_kw = comp_op = add_op = mul_op = unary_op = _keyword

    # ---------------------------------------------------------------- expressions
    def _binary(self, op: str, children: list[Any], left: Any, right: Any) -> ast.Binary:
        return self._deep(
            ast.Binary(op=op, left=left, right=right, span=_span_of(children)), left, right
        )

    def pipe(self, children: list[Any]) -> ast.Binary:
        return self._binary("|>", children, children[0], children[1])

    def implies(self, children: list[Any]) -> ast.Binary:
        return self._binary("->", children, children[0], children[1])

    def or_expr(self, children: list[Any]) -> ast.Binary:
        return self._binary("or", children, children[0], children[1])

    def and_expr(self, children: list[Any]) -> ast.Binary:
        return self._binary("and", children, children[0], children[1])

    def of_expr(self, children: list[Any]) -> ast.Binary:
        return self._binary("of", children, children[0], children[1])

    def range_expr(self, children: list[Any]) -> ast.Binary:
        return self._binary("..", children, children[0], children[1])

    def compare(self, children: list[Any]) -> ast.Binary:
        return self._binary(str(children[1]), children, children[0], children[2])

    sum = product = compare

    def not_expr_(self, children: list[Any]) -> ast.Unary:
        node = ast.Unary(op="not", operand=children[1], span=_span_of(children))
        return self._deep(node, children[1])

    def unary(self, children: list[Any]) -> ast.Unary:
        op = "±" if children[0] == "+/-" else str(children[0])
        return self._deep(
            ast.Unary(op=op, operand=children[1], span=_span_of(children)), children[1]
        )

    def quantifier(self, children: list[Any]) -> ast.Quantifier:
        kind, var, domain, body = children
        node = ast.Quantifier(
            kind=str(kind), var=str(var), domain=domain, body=body, span=_span_of(children)
        )
        return self._deep(node, domain, body)

    def call(self, children: list[Any]) -> ast.Call:
        func, *args = children
        items = self._items(args, "argument list")
        return self._deep(ast.Call(func=func, args=items, span=_span_of(children)), func, *items)

    def in_call(self, children: list[Any]) -> ast.Call:
        items = self._items(children, "argument list")
        start = children[0].start_pos or 0
        func = ast.Name(id="in", span=Span(start, start + 2))
        return self._deep(ast.Call(func=func, args=items, span=_span_of(children)), *items)

    def arg(self, children: list[Any]) -> ast.Arg:
        if len(children) == 2:
            return ast.Arg(name=str(children[0]), value=children[1], span=_span_of(children))
        return ast.Arg(name=None, value=children[0], span=_span_of(children))

    def attribute(self, children: list[Any]) -> ast.Attribute:
        node = ast.Attribute(value=children[0], name=str(children[1]), span=_span_of(children))
        return self._deep(node, children[0])

    def index(self, children: list[Any]) -> ast.Index:
        node = ast.Index(value=children[0], index=children[2], span=_span_of(children))
        return self._deep(node, children[0], children[2])

    def optional(self, children: list[Any]) -> ast.Optional:
        return self._deep(ast.Optional(value=children[0], span=_span_of(children)), children[0])

    def number(self, children: list[Token]) -> ast.Number:
        return ast.Number(text=str(children[0]), span=_span_of(children))

    def quantity(self, children: list[Token]) -> ast.Quantity:
        match = _QUANTITY.fullmatch(str(children[0]))
        assert match is not None
        unit = match.group(2).replace(" ", "")
        return ast.Quantity(number=match.group(1), unit=unit, span=_span_of(children))

    def string(self, children: list[Token]) -> ast.String:
        return ast.String(value=unquote(children[0]), span=_span_of(children))

    def paren(self, children: list[Any]) -> Any:
        # `(expr)`: the expression itself, its span widened to the parentheses. The new
        # node keeps the depth of the old one (else parentheses reset the depth bound).
        inner = children[1]
        node = evolve(inner, span=_span_of(children))
        table = self.ctx.expr_depth
        if id(inner) in table:
            table[id(node)] = table[id(inner)]
        return node

    def bool_lit(self, children: list[Any]) -> ast.Bool:
        return ast.Bool(value=children[0] == "true", span=_span_of(children))

    def none_lit(self, children: list[Any]) -> ast.NoneLit:
        return ast.NoneLit(span=_span_of(children))

    def end(self, children: list[Token]) -> ast.End:
        *strand, prime = str(children[0]).split()
        return ast.End(prime=prime, strand=strand[0] if strand else None, span=_span_of(children))

    def name(self, children: list[Token]) -> ast.Name:
        return ast.Name(id=str(children[0]), span=_span_of(children))

    def sequence(self, children: list[Token]) -> ast.Sequence:
        moltype = str(children[0]) if len(children) == 2 and children[0] is not None else None
        token = children[-1]
        text = str(token)
        inner_start = (token.start_pos or 0) + 3
        parts = read_sequence(
            text[3:-3], inner_start, self.ctx.source, self.ctx.report, self.ctx.limits
        )
        return ast.Sequence(moltype=moltype, parts=parts, text=text, span=_span_of(children))

    def list(self, children: builtins.list[Any]) -> ast.ListExpr:
        return ast.ListExpr(items=self._items(children, "list"), span=_span_of(children))

    def tuple(self, children: builtins.list[Any]) -> ast.TupleExpr:
        return ast.TupleExpr(items=self._items(children, "tuple"), span=_span_of(children))


class Parser:
    """One parser, built once per process and reused (not reentrant: guarded)."""

    def __init__(self) -> None:
        from lablang.limits import gc_paused
        from lablang.syntax.grammar import build_parser

        self._lock = threading.Lock()
        self._context = _Context()
        with gc_paused():
            self._runtime = self._build(build_parser)
        self._remember()

    def _build(self, build_parser: Any) -> Runtime:
        return build_parser(
            _ToAst(self._context),
            {
                "COMMENT": self._on_comment,
                "NUMBER": self._on_number,
                "QUANTITY": self._on_number,
                "LBRACE": self._open,
                "LPAR": self._open,
                "LSQB": self._open,
                "RBRACE": self._close,
                "RPAR": self._close,
                "RSQB": self._close,
            },
        )

    def _remember(self) -> None:
        from lablang.syntax.errors import remember_terminals

        remember_terminals(
            {
                name: pattern
                for name, pattern in self._runtime.patterns.items()
                if name.startswith("__ANON")
            }
        )

    def _on_comment(self, token: Token) -> Token:
        self._context.comments.append(ast.Comment(text=str(token), span=_tspan(token)))
        return token

    def _on_number(self, token: Token) -> Token:
        # Checked on the text, before anything converts it: every later stage turns a
        # literal into an exact Fraction (or a float, or an int), whose cost grows with
        # the exponent and which Python refuses past 4,300 digits.
        ctx = self._context
        problem = number_problem(str(token), ctx.limits)
        if problem is not None:
            ctx.report.add(
                "E0020",
                f"number literal `{_clip(str(token))}` is out of bounds: {problem}",
                ctx.source,
                _tspan(token),
                label=f"at most {ctx.limits.max_number_digits} digits and an exponent "
                f"within ±{ctx.limits.max_number_exponent}",
                help="write the value in a larger or smaller unit, or with fewer digits",
            )
            raise _Abort
        return token

    def _open(self, token: Token) -> Token:
        ctx = self._context
        ctx.depth += 1
        if ctx.depth > ctx.limits.max_nesting:
            ctx.report.add(
                "E0002",
                f"brackets and blocks are nested more than {ctx.limits.max_nesting} levels deep",
                ctx.source,
                _tspan(token),
                help="flatten the structure: name the inner parts and refer to them",
            )
            raise _Abort
        return token

    def _close(self, token: Token) -> Token:
        self._context.depth -= 1
        return token

    def parse(self, source: Source, report: Report, limits: Limits) -> ast.Module | None:
        """The module, or None when nothing could be parsed. After a syntax error the
        declaration holding it is dropped and the rest is parsed again (`recover`), so
        one run reports every independent syntax error."""
        with self._lock:
            before = len(report.diagnostics)
            try:
                return self._parse(source, report, limits)
            except Exception as error:
                if self._runtime.lablang_tables == "analysed":
                    raise
                failure = error
            # A parser over stored tables failed: they are damaged in a way the loader
            # could not see. Rebuild from the grammar (rewriting the cache), retry; without
            # lark to rebuild, the failure is what it was.
            from lablang.syntax.grammar import (
                TablesUnavailable,
                build_parser,
                cache_file,
                grammar_text,
            )

            if self._runtime.lablang_tables == "cache":
                with contextlib.suppress(OSError):
                    cache_file(grammar_text()).unlink()
            try:
                self._runtime = self._build(lambda t, c: build_parser(t, c, use_cache=False))
            except TablesUnavailable:
                raise failure from None
            self._remember()
            del report.diagnostics[before:]
            return self._parse(source, report, limits)

    def _parse(self, source: Source, report: Report, limits: Limits) -> ast.Module | None:
        from lablang.syntax import recover
        from lablang.syntax.errors import report_syntax_error

        text = recover.spell_units(source, report)
        starts: list[int] | None = None
        parsed = 0
        for _attempt in range(recover.MAX_SYNTAX_ERRORS):
            if parsed > recover.RECOVERY_BUDGET_CHARS:
                return None
            parsed += len(text)
            scratch = Report()
            outcome = self._attempt(text, source, scratch, limits)
            if isinstance(outcome, ast.Module):
                report.extend(scratch)
                return outcome
            if outcome is None:
                report.extend(scratch)
                return None
            error = outcome
            insertion = self._insertion(error, text, source, limits)
            report_syntax_error(error, source, report, insertion)
            if len(text) > recover.MAX_RECOVERY_CHARS:
                return None
            if starts is None:
                starts = recover.declaration_starts(text)
            offset = _error_offset(error, text)
            begin, end = recover.bad_region(text, starts, offset)
            if self._whole_before(begin, end, offset, text, source, limits):
                # the error is the word that opens the next declaration (a second `module`
                # line): that declaration is the bad one, not the whole one before it
                later = [s for s in starts if s > offset]
                begin, end = offset, later[0] if later else len(text)
            if not text[begin:end].strip():
                return None
            name = recover.dropped_name(text, begin)
            if name is not None:
                report.dropped.add(name)
            text = recover.blank(text, begin, end)
        return None

    def _attempt(
        self, text: str, source: Source, report: Report, limits: Limits
    ) -> ast.Module | UnexpectedInput | None:
        self._context.reset(source, report, limits)
        try:
            module = self._runtime.parse(text)
        except _Abort:
            return None
        except UnexpectedInput as error:
            return error
        finally:
            self._context.expr_depth.clear()
        assert isinstance(module, ast.Module)
        return module

    def _whole_before(
        self, begin: int, end: int, offset: int, text: str, source: Source, limits: Limits
    ) -> bool:
        """Whether an error at `offset` lies past the declaration `[begin, end)` that
        `bad_region` gave it, and that declaration parses alone."""
        if offset < end or begin >= end:
            return False
        return isinstance(self._attempt(text[begin:end], source, Report(), limits), ast.Module)

    def _insertion(
        self, error: UnexpectedInput, text: str, source: Source, limits: Limits
    ) -> tuple[int, str] | None:
        """A one-token insertion after which the declaration holding the error parses."""
        from lablang.syntax import recover
        from lablang.syntax.errors import _PATTERNS

        if not isinstance(error, UnexpectedToken) or error.token.type == "$END":
            return None
        if len(text) > recover.MAX_RECOVERY_CHARS:
            return None
        token = error.token
        start = token.start_pos or 0
        history = getattr(error, "token_history", None) or []
        previous = history[-1] if history else None
        at = getattr(previous, "end_pos", None)
        if not isinstance(at, int) or at > start:
            at = start
        begin, end = recover.bad_region(text, recover.declaration_starts(text), start)
        if end - begin > recover.MAX_INSERTION_REGION:
            return None
        # trials parse the declaration alone: offsets in a trial are `begin` less
        region = text[begin:end]
        if self._whole_before(begin, end, start, text, source, limits):
            # the unexpected word opens the next declaration and the one before it is whole:
            # nothing inserted before it is a repair (alone, any insertion that keeps the
            # whole declaration parsing would be accepted, `,` after a `module` line)
            return None
        token_end = (token.end_pos or token.start_pos or 0) - begin
        if not begin <= at <= end:
            # the error is past a declaration left open: close it where its text ends
            at = begin + len(region.rstrip())
            token_end = len(region)
        at, end = at - begin, end - begin
        best: tuple[int, int, tuple[int, str]] | None = None
        candidates = recover.insertion_candidates(set(error.expected or ()), _PATTERNS)
        for rank, literal in enumerate(candidates[:12]):
            spaced = f" {literal}" if literal[0].isalpha() or literal in "{}=" else literal
            if literal[0].isalpha() and at < len(region) and not region[at].isspace():
                spaced += " "
            trial = region[:at] + spaced + region[at:]
            outcome = self._attempt(trial, source, Report(), limits)
            if isinstance(outcome, ast.Module):
                reach = len(trial)
            elif isinstance(outcome, UnexpectedInput):
                # progress: a later error inside the same declaration (a second mistake
                # in it), never one at its end (the insertion left it open)
                reach = _error_offset(outcome, trial)
                limit = end + len(spaced)
                if reach <= token_end + len(spaced) or reach >= limit:
                    continue
                if not trial[reach:limit].strip():
                    continue
            else:
                continue
            if best is None or (reach, -rank) > (best[0], best[1]):
                best = (reach, -rank, (at + begin, spaced))
        return best[2] if best is not None else None


def _error_offset(error: UnexpectedInput, text: str) -> int:
    if isinstance(error, UnexpectedToken):
        if error.token.type == "$END":
            return len(text)
        return error.token.start_pos or 0
    position = getattr(error, "pos_in_stream", None)
    return len(text) if position is None else position
