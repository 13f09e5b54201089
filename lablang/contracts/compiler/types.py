"""Contract parameters and types, the limits on their domains, and the diagnostics
every part of the compiler reports through."""

from __future__ import annotations

import abc
import re
from typing import Any

from attrs import fields, has

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.derived import DerivedWithArgs
from lablang.diagnostics import Report
from lablang.source import Source, Span

MAX_INT_DOMAIN = 4096
MAX_SET_ELEMENTS = 32
MAX_GROUND_OPS = 4096
MAX_PARAM = 1 << 20
_WORD = re.compile(r"[ \t]*([A-Za-z_]\w*)")


class Skip(Exception):
    """An expression that produced a diagnostic; the member holding it is dropped."""


class Types(abc.ABC):
    """The compiler's state, its diagnostics, the declared parameters and the types."""

    def __init__(self, decl: ast.Decl, source: Source, report: Report, overrides: dict[str, int]):
        self.decl = decl
        self.source = source
        self.report = report
        self.overrides = overrides
        self.params: dict[str, int] = {}
        # declared ranges (`N: 2..16 = 8`) and requirements (`requires N % 2 == 0` after
        # the parameters): the values `verify --all-params` checks
        self.param_ranges: dict[str, tuple[int, int]] = {}
        self.param_requires: list[str] = []
        self.aliases: dict[str, m.Type] = {}
        self.types: dict[tuple[str, str], m.Type] = {}  # (kind, name) of var/evidence/outcome
        self.defs: dict[str, m.Expr] = {}
        self.def_spans: dict[str, Span] = {}
        self.derived: dict[str, DerivedWithArgs] = {}  # derived expressions with arguments
        self.enums: list[m.EnumType] = []
        self._local: dict[str, m.Type] = {}  # operation parameters while compiling an operation
        # names whose declaration already failed: their uses get no second diagnostic
        self.poisoned: set[str] = set()
        # constants whose type is not `int`: enum members and `none` (kept alive by `_consts`)
        self.const_types: dict[int, m.Type | str] = {}
        self._consts: list[m.Const] = []

    # ---------------------------------------------------------------- diagnostics
    def error(
        self, code: str, message: str, span: Span, *, label: str = "", help: str | None = None
    ) -> None:
        self.report.add(code, message, self.source, span, label=label, help=help)

    def reserved_name(self, entry: ast.Entry) -> tuple[str, Span] | None:
        """The reserved word written where `entry` needs its name (`var read: bool`): the
        parser took it as the start of the next member."""
        from lablang.syntax import reserved_words

        at = entry.span.start + len(entry.keyword)
        found = _WORD.match(self.source.text, at)
        if found is None or found.group(1) not in reserved_words():
            return None
        return found.group(1), Span(found.start(1), found.end(1))

    def no_name(self, entry: ast.Entry, message: str, help: str | None = None) -> None:
        """The error for an entry without its name: the reserved word used as one, if so."""
        reserved = self.reserved_name(entry)
        if reserved is None:
            self.error("E0604", message, entry.span, help=help)
            return
        word, span = reserved
        self.error(
            "E0604",
            f"`{word}` is a reserved word and cannot name this `{entry.keyword}`",
            span,
            label="a reserved word",
            help=f"use another name, e.g. `{word}_`",
        )

    def text(self, span: Span) -> str:
        return self.source.text[span.start : span.end]

    @abc.abstractmethod
    def const_value(self, e: ast.Expr) -> object:
        """The value of a constant expression over the parameters."""

    @abc.abstractmethod
    def const_int(self, e: ast.Expr) -> int:
        """The value of a constant integer expression (type bounds, parameter values);
        compiled with the expressions (`Expressions.const_int`)."""

    # ---------------------------------------------------------------- members
    def known(self, name: str) -> bool:
        return any(name == n for _, n in self.types) or name in self.defs or name in self.params

    def fields(self, entry: ast.Entry, allowed: tuple[str, ...]) -> dict[str, ast.Expr]:
        result: dict[str, ast.Expr] = {}
        for member in entry.body.members if entry.body else ():
            if isinstance(member, ast.Field) and member.key in allowed:
                result[member.key] = member.value
            else:
                what = ", ".join(f"`{a}`" for a in allowed) or "nothing"
                self.error(
                    "E0604",
                    f"unexpected member in `{entry.keyword} {entry.name}`",
                    member.span,
                    help=f"its body may hold {what}",
                )
        for clause in entry.clauses:
            self.error(
                "E0604", f"`{clause.keyword}` does not apply to `{entry.keyword}`", clause.span
            )
        return result

    # ---------------------------------------------------------------- parameters and types
    def run_params(self, into: dict[str, int]) -> None:
        """Only evaluate the declared parameter values (for range searches)."""
        for p in self.decl.params or ():
            self.param(p)
        into.update(self.params)

    def params_and_requirements(self) -> None:
        """The parameters' values, then the contract's `requires` clauses over them: each
        must hold for the values given (E0612 names the one that fails)."""
        for p in self.decl.params or ():
            self.param(p)
        for clause in self.decl.clauses:
            if clause.keyword != "requires" or not isinstance(clause.value, ast.Expr):
                self.error("E0604", f"`{clause.keyword}` does not apply to a contract", clause.span)
                continue
            try:
                holds = self.const_value(clause.value)
            except Skip:
                continue
            text = self.text(clause.value.span)
            self.param_requires.append(text)
            if holds is not True:
                shown = ", ".join(f"{n} = {v}" for n, v in self.params.items())
                self.error(
                    "E0612",
                    f"contract `{self.decl.name}` requires `{text}`, which is false for {shown}",
                    clause.value.span,
                    label="a requirement of the parameters",
                    help="choose parameter values that meet it"
                    + (
                        " (`verify --all-params` checks every such value)"
                        if self.param_ranges
                        else ""
                    ),
                )

    def param(self, p: ast.Param) -> None:
        ranged = p.type is not None and self.is_type(p.type)
        if ranged and p.type is not None:
            t = self.type_expr(p.type)
            if not isinstance(t, m.IntType):
                if t is not None:
                    self.error(
                        "E0602",
                        f"the range of contract parameter `{p.name}` must be integers",
                        p.type.span,
                        help=f"write `{p.name}: 1..16 = 8`",
                    )
                return
            self.param_ranges[p.name] = (t.lo, t.hi)
        value_expr = p.default if p.default is not None or ranged else p.type
        if p.name in self.overrides:
            value = self.overrides[p.name]
        elif value_expr is None and p.name in self.param_ranges:
            value = self.param_ranges[p.name][0]
        elif value_expr is None:
            self.error(
                "E0607",
                f"contract parameter `{p.name}` has no value",
                p.span,
                help=f"give it one: `{p.name}: 8`",
            )
            return
        else:
            try:
                value = self.const_int(value_expr)
            except Skip:
                return
        if not -MAX_PARAM <= value <= MAX_PARAM:
            self.error("E0607", f"contract parameter `{p.name}` is out of range", p.span)
            return
        lo, hi = self.param_ranges.get(p.name, (value, value))
        if not lo <= value <= hi:
            self.error(
                "E0607",
                f"contract parameter `{p.name}` = {value} is outside its range {lo}..{hi}",
                p.span,
            )
            return
        self.params[p.name] = value

    def is_type(self, e: ast.Expr) -> bool:
        match e:
            case ast.Name(id=name):
                return name in ("bool", "slot", "int") or name in self.aliases
            case ast.Index(value=ast.Name(id="int")):
                return True
            case ast.Binary(op=".."):
                return True
            case ast.Call(func=ast.Name(id="one_of" | "set")):
                return True
            case ast.Optional():
                return True
        return False

    def type_expr(self, e: ast.Expr) -> m.Type | None:
        try:
            return self._type(e)
        except Skip:
            return None

    def _type(self, e: ast.Expr) -> m.Type:
        match e:
            case ast.Name(id="bool"):
                return m.BoolType()
            case ast.Name(id=name) if name in self.aliases:
                return self.aliases[name]
            case ast.Name(id="slot"):
                if "N" not in self.params:
                    self.error(
                        "E0603",
                        "type `slot` needs a contract parameter `N`",
                        e.span,
                        help="declare `contract c(N: 8)` or use `int[0..7]`",
                    )
                    raise Skip
                return self.int_range(0, self.params["N"] - 1, e.span)
            case ast.Name(id="int"):
                self.error(
                    "E0603",
                    "`int` has no bounds: the solver needs a finite domain",
                    e.span,
                    help="write a range such as `int[0..7]`",
                )
                raise Skip
            case ast.Index(value=ast.Name(id="int"), index=ast.Binary(op="..") as r):
                return self.int_range(self.const_int(r.left), self.const_int(r.right), e.span)
            case ast.Binary(op="..", left=lo, right=hi):
                return self.int_range(self.const_int(lo), self.const_int(hi), e.span)
            case ast.Call(func=ast.Name(id="one_of"), args=args) if args:
                if all(isinstance(a.value, ast.Name) for a in args):
                    members = tuple(a.value.id for a in args if isinstance(a.value, ast.Name))
                    if len(set(members)) != len(members):
                        self.error("E0602", "`one_of` lists a member twice", e.span)
                        raise Skip
                    t = m.EnumType(members=members)
                    self.enums.append(t)
                    return t
                values = sorted({self.const_int(a.value) for a in args})
                if len(values) > MAX_INT_DOMAIN:
                    self.error("E0603", "`one_of` has too many values", e.span)
                    raise Skip
                return m.ValuesType(values=tuple(values))
            case ast.Call(func=ast.Name(id="set"), args=(arg,)):
                elem = self._type(arg.value)
                if not isinstance(elem, m.IntType | m.ValuesType | m.EnumType):
                    self.error(
                        "E0602",
                        f"a set needs a finite element type, not `{elem.describe()}`",
                        arg.span,
                    )
                    raise Skip
                if len(m.elements(elem)) > MAX_SET_ELEMENTS:
                    self.error(
                        "E0603",
                        f"a set of more than {MAX_SET_ELEMENTS} elements is not supported",
                        e.span,
                        help="use a smaller element type",
                    )
                    raise Skip
                return m.SetType(elem=elem)
            case ast.Optional(value=inner):
                base = self._type(inner)
                if not isinstance(base, m.IntType | m.ValuesType | m.EnumType):
                    self.error(
                        "E0602",
                        f"`{base.describe()}` cannot be optional",
                        e.span,
                        help="only integer ranges, `one_of` and `slot` can be `?`",
                    )
                    raise Skip
                if min(m.elements(base)) < 0:
                    self.error(
                        "E0602",
                        "an optional integer type must not contain negative values",
                        e.span,
                        help="`none` is stored as -1; shift the range to start at 0",
                    )
                    raise Skip
                return m.OptionType(inner=base)
        self.error(
            "E0602",
            f"`{self.text(e.span)}` is not a contract type",
            e.span,
            help="types are `bool`, `int[lo..hi]`, `slot`, `one_of(...)`, `set(T)` and `T?`",
        )
        raise Skip

    def int_range(self, lo: int, hi: int, span: Span) -> m.IntType:
        if hi < lo:
            self.error("E0603", f"the range {lo}..{hi} is empty", span)
            raise Skip
        if hi - lo + 1 > MAX_INT_DOMAIN:
            self.error(
                "E0603",
                f"the range {lo}..{hi} has more than {MAX_INT_DOMAIN} values",
                span,
                help="the solver grounds every value; use a smaller range",
            )
            raise Skip
        return m.IntType(lo=lo, hi=hi)


def mentions_state(e: Any) -> bool:
    found = False

    def walk(x: Any) -> None:
        nonlocal found
        if isinstance(x, m.Ref) and x.kind in ("var", "evidence", "outcome", "arg", "bound"):
            found = True
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif has(type(x)):
            for f in fields(type(x)):
                walk(getattr(x, f.name))

    walk(e)
    return found


def did_you_mean(name: str, candidates: list[str]) -> str | None:
    from rapidfuzz import process

    best = process.extractOne(name, sorted(set(candidates)), score_cutoff=60)
    return f"did you mean `{best[0]}`?" if best else None
