"""From `contract` declarations (AST) to contract models, with E06xx diagnostics.

What the contract vocabulary means (docs/contracts.md has the full story):

* types: `bool`, `int[lo..hi]` or `lo..hi`, `slot` (= `0..N-1` when the contract has a
  parameter `N`), `one_of(a, b)` (named members), `one_of(1, 2, 5)` (a finite set of
  integers), `set(T)` (a subset of a finite type), `T?` (a value or `none`);
* a field `name: <type>` declares a type alias, any other field `name: <expr>` a named
  derived expression (`balanced: a != none and b == (a + N/2) % N`);
* `var x: T { init: e  visible: e }`, `evidence e: T { authorized: e }`, `outcome o: T`;
* `op name(p: T) requires e effect x = e { x = e; confirm e }`; `wait flag` is the
  operation `wait_flag` (requires `not flag`, sets it);
* `goal e`, `invariant e`, `terminal e`, `pair name { x = v } vs { x = w } at op`.
"""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.model import NONE
from lablang.diagnostics import Report
from lablang.source import Source, Span

MAX_INT_DOMAIN = 4096
MAX_SET_ELEMENTS = 32
MAX_GROUND_OPS = 4096
MAX_PARAM = 1 << 20

_BINARY = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "mod",
    "==": "eq",
    "!=": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "and": "and",
    "or": "or",
    "->": "implies",
    "in": "in",
}


class _Skip(Exception):
    """An expression that produced a diagnostic; the member holding it is dropped."""


def compile_contracts(
    module: ast.Module, source: Source, report: Report, params: dict[str, int] | None = None
) -> list[m.Contract]:
    """Every `contract` declaration of a module that compiles without errors."""
    result = []
    for decl in module.decls:
        if decl.kind == "contract":
            contract = compile_contract(decl, source, report, params)
            if contract is not None:
                result.append(contract)
    return result


def compile_contract(
    decl: ast.Decl, source: Source, report: Report, params: dict[str, int] | None = None
) -> m.Contract | None:
    """One contract declaration as a model, or None after reporting why not.

    `params` overrides the declared parameter values (`centrifuge(N: 8)` with `{"N": 16}`).
    """
    before = len(report.errors)
    c = _Compiler(decl, source, report, params or {})
    contract = c.run()
    return contract if len(report.errors) == before else None


class _Compiler:
    def __init__(self, decl: ast.Decl, source: Source, report: Report, overrides: dict[str, int]):
        self.decl = decl
        self.source = source
        self.report = report
        self.overrides = overrides
        self.params: dict[str, int] = {}
        self.aliases: dict[str, m.Type] = {}
        self.types: dict[tuple[str, str], m.Type] = {}  # (kind, name) of var/evidence/outcome
        self.defs: dict[str, m.Expr] = {}
        self.def_spans: dict[str, Span] = {}
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

    def text(self, span: Span) -> str:
        return self.source.text[span.start : span.end]

    # ---------------------------------------------------------------- driver
    def run(self) -> m.Contract:
        decl = self.decl
        for p in decl.params or ():
            self.param(p)
        members = decl.body.members if decl.body else ()
        variables: list[m.Variable] = []
        evidence: list[m.Evidence] = []
        outcomes: list[m.Outcome] = []
        op_entries: list[ast.Entry] = []
        waits: list[ast.ExprEntry] = []
        later: list[ast.ExprEntry] = []
        pending: list[tuple[str, ast.Entry]] = []
        # pass 1: types, constants and declarations of names
        for member in members:
            match member:
                case ast.Field(key=key, value=value):
                    if self.is_type(value):
                        t = self.type_expr(value)
                        if t is not None:
                            self.aliases[key] = t
                    else:
                        self.def_spans[key] = member.key_span
                case ast.Entry(keyword="var" | "evidence" | "outcome") as entry:
                    if entry.name is None or entry.type is None:
                        self.error(
                            "E0604",
                            f"`{entry.keyword}` needs a name and a type",
                            entry.span,
                            help=f"write `{entry.keyword} x: bool`",
                        )
                        continue
                    t = self.type_expr(entry.type)
                    if t is None:
                        self.poisoned.add(entry.name)
                        continue
                    kind = {"var": "var", "evidence": "evidence", "outcome": "outcome"}[
                        entry.keyword
                    ]
                    if self.known(entry.name):
                        self.error(
                            "E0605",
                            f"`{entry.name}` is declared twice",
                            entry.name_span or entry.span,
                        )
                        continue
                    self.types[(kind, entry.name)] = t
                    pending.append((kind, entry))
                case ast.Entry(keyword="op") as entry:
                    op_entries.append(entry)
                case ast.ExprEntry(keyword="wait") as entry:
                    waits.append(entry)
                case ast.ExprEntry(keyword="goal" | "invariant" | "terminal" | "pair") as entry:
                    later.append(entry)
                case _:
                    self.error(
                        "E0604",
                        "this member has no meaning in a contract",
                        member.span,
                        help="a contract holds types, `var`, `evidence`, `outcome`, `op`, "
                        "`wait`, `goal`, `invariant`, `terminal` and `pair`",
                    )
        # derived expressions may refer to variables and to each other (in order)
        for member in members:
            if isinstance(member, ast.Field) and member.key in self.def_spans:
                try:
                    self.defs[member.key] = self.expr(member.value, {})
                except _Skip:
                    self.poisoned.add(member.key)
        init_spans: dict[str, Span] = {}
        for kind, entry in pending:
            assert entry.name is not None
            t = self.types[(kind, entry.name)]
            fields = self.fields(
                entry,
                {"var": ("init", "visible"), "evidence": ("authorized",), "outcome": ()}[kind],
            )
            try:
                if kind == "var":
                    init = self.expr(fields["init"], {}) if "init" in fields else None
                    if "init" in fields:
                        init_spans[entry.name] = fields["init"].span
                    visible = self.expr(fields["visible"], {}) if "visible" in fields else m.TRUE
                    variables.append(
                        m.Variable(
                            name=entry.name, type=t, init=init, visible=visible, span=entry.span
                        )
                    )
                elif kind == "evidence":
                    auth = (
                        self.expr(fields["authorized"], {})
                        if "authorized" in fields
                        else m.Const(value=False)
                    )
                    evidence.append(
                        m.Evidence(name=entry.name, type=t, authorized=auth, span=entry.span)
                    )
                else:
                    outcomes.append(m.Outcome(name=entry.name, type=t, span=entry.span))
            except _Skip:
                pass
        operations = [op for op in (self.operation(e) for e in op_entries) if op is not None]
        operations += [op for op in (self.wait(e) for e in waits) if op is not None]
        goals: list[m.Item] = []
        invariants: list[m.Item] = []
        terminal: list[m.Item] = []
        pairs: list[m.Pair] = []
        names = {op.name for op in operations}
        for entry in later:
            try:
                if entry.keyword == "pair":
                    pair = self.pair(entry, names)
                    if pair is not None:
                        pairs.append(pair)
                    continue
                item = self.item(entry.value)
                self.expect_bool(item.expr, entry.value.span)
                {"goal": goals, "invariant": invariants, "terminal": terminal}[
                    entry.keyword
                ].append(item)
            except _Skip:
                pass
        contract = m.Contract(
            name=decl.name,
            params=dict(self.params),
            variables=tuple(variables),
            evidence=tuple(evidence),
            outcomes=tuple(outcomes),
            definitions=tuple(
                m.Definition(name=n, expr=e, span=self.def_spans[n]) for n, e in self.defs.items()
            ),
            operations=tuple(operations),
            goals=tuple(goals),
            invariants=tuple(invariants),
            terminal=tuple(terminal),
            pairs=tuple(pairs),
            source=self.source,
            span=decl.name_span,
        )
        for cycle in m.init_order(contract)[1]:
            shown = " -> ".join(f"`{n}`" for n in (*cycle, cycle[0]))
            self.error(
                "E0608",
                f"the `init` of `{cycle[0]}` refers to itself"
                if len(cycle) == 1
                else f"the `init`s of {', '.join(f'`{n}`' for n in cycle)} refer to each other",
                init_spans[cycle[0]],
                label=f"{shown}: no initial state can be computed",
                help="an `init` may read evidence and variables initialised without reading "
                "it back; give one of them a constant `init`",
            )
        n_ground = sum(_count(op) for op in operations)
        if n_ground > MAX_GROUND_OPS:
            self.error(
                "E0603",
                f"contract `{decl.name}` has {n_ground} ground operations, more than "
                f"the {MAX_GROUND_OPS} allowed",
                decl.name_span,
                help="use smaller parameter types",
            )
        return contract

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
    def param(self, p: ast.Param) -> None:
        value_expr = p.default if p.default is not None else p.type
        if p.name in self.overrides:
            value = self.overrides[p.name]
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
            except _Skip:
                return
        if not -MAX_PARAM <= value <= MAX_PARAM:
            self.error("E0607", f"contract parameter `{p.name}` is out of range", p.span)
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
        except _Skip:
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
                    raise _Skip
                return self.int_range(0, self.params["N"] - 1, e.span)
            case ast.Name(id="int"):
                self.error(
                    "E0603",
                    "`int` has no bounds: the solver needs a finite domain",
                    e.span,
                    help="write a range such as `int[0..7]`",
                )
                raise _Skip
            case ast.Index(value=ast.Name(id="int"), index=ast.Binary(op="..") as r):
                return self.int_range(self.const_int(r.left), self.const_int(r.right), e.span)
            case ast.Binary(op="..", left=lo, right=hi):
                return self.int_range(self.const_int(lo), self.const_int(hi), e.span)
            case ast.Call(func=ast.Name(id="one_of"), args=args) if args:
                if all(isinstance(a.value, ast.Name) for a in args):
                    members = tuple(a.value.id for a in args if isinstance(a.value, ast.Name))
                    if len(set(members)) != len(members):
                        self.error("E0602", "`one_of` lists a member twice", e.span)
                        raise _Skip
                    t = m.EnumType(members=members)
                    self.enums.append(t)
                    return t
                values = sorted({self.const_int(a.value) for a in args})
                if len(values) > MAX_INT_DOMAIN:
                    self.error("E0603", "`one_of` has too many values", e.span)
                    raise _Skip
                return m.ValuesType(values=tuple(values))
            case ast.Call(func=ast.Name(id="set"), args=(arg,)):
                elem = self._type(arg.value)
                if not isinstance(elem, m.IntType | m.ValuesType | m.EnumType):
                    self.error(
                        "E0602",
                        f"a set needs a finite element type, not `{elem.describe()}`",
                        arg.span,
                    )
                    raise _Skip
                if len(m.elements(elem)) > MAX_SET_ELEMENTS:
                    self.error(
                        "E0603",
                        f"a set of more than {MAX_SET_ELEMENTS} elements is not supported",
                        e.span,
                        help="use a smaller element type",
                    )
                    raise _Skip
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
                    raise _Skip
                if min(m.elements(base)) < 0:
                    self.error(
                        "E0602",
                        "an optional integer type must not contain negative values",
                        e.span,
                        help="`none` is stored as -1; shift the range to start at 0",
                    )
                    raise _Skip
                return m.OptionType(inner=base)
        self.error(
            "E0602",
            f"`{self.text(e.span)}` is not a contract type",
            e.span,
            help="types are `bool`, `int[lo..hi]`, `slot`, `one_of(...)`, `set(T)` and `T?`",
        )
        raise _Skip

    def int_range(self, lo: int, hi: int, span: Span) -> m.IntType:
        if hi < lo:
            self.error("E0603", f"the range {lo}..{hi} is empty", span)
            raise _Skip
        if hi - lo + 1 > MAX_INT_DOMAIN:
            self.error(
                "E0603",
                f"the range {lo}..{hi} has more than {MAX_INT_DOMAIN} values",
                span,
                help="the solver grounds every value; use a smaller range",
            )
            raise _Skip
        return m.IntType(lo=lo, hi=hi)

    def const_int(self, e: ast.Expr) -> int:
        from lablang.contracts.semantics import EvaluationError, Evaluator

        expr = self.expr(e, {})
        if _mentions_state(expr):
            self.error("E0602", f"`{self.text(e.span)}` must be a constant", e.span)
            raise _Skip
        try:
            value = Evaluator(
                m.Contract(
                    name="",
                    params=self.params,
                    definitions=tuple(m.Definition(name=n, expr=x) for n, x in self.defs.items()),
                )
            ).evaluate(expr, {})
        except EvaluationError as err:
            self.error("E0602", str(err), e.span)
            raise _Skip from None
        if isinstance(value, bool) or not isinstance(value, int):
            self.error("E0602", f"`{self.text(e.span)}` is not an integer", e.span)
            raise _Skip
        return value

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ast.Expr, local: dict[str, tuple[str, m.Type]]) -> m.Expr:
        span = e.span
        match e:
            case ast.Number(text=text):
                if not text.isdigit():
                    self.error(
                        "E0602",
                        f"`{text}` is not an integer: contracts count in whole units",
                        span,
                        help="scale the quantity (e.g. grams to milligrams)",
                    )
                    raise _Skip
                return m.Const(value=int(text), span=span)
            case ast.Bool(value=value):
                return m.Const(value=value, span=span)
            case ast.NoneLit():
                return self.typed_const(NONE, "none", span)
            case ast.Name(id=name):
                return self.name(name, span, local)
            case ast.Unary(op="not", operand=operand):
                return m.Unary(op="not", operand=self.expr(operand, local), span=span)
            case ast.Unary(op="-", operand=operand):
                return m.Unary(op="neg", operand=self.expr(operand, local), span=span)
            case ast.Unary(op="+", operand=operand):
                return self.expr(operand, local)
            case ast.Binary(op=op, left=left, right=right) if op in _BINARY:
                a, b = self.expr(left, local), self.expr(right, local)
                return self.binary(_BINARY[op], a, b, e)
            case ast.Call(func=ast.Name(id="in"), args=(x, s)):
                return self.binary("in", self.expr(x.value, local), self.expr(s.value, local), e)
            case ast.Call(func=ast.Name(id="if"), args=(c, a, b)):
                return m.If(
                    cond=self.expr(c.value, local),
                    then=self.expr(a.value, local),
                    other=self.expr(b.value, local),
                    span=span,
                )
            case ast.Call(func=ast.Name(id="sum" | "size") as f, args=(arg,)):
                inner = self.expr(arg.value, local)
                if not isinstance(self.infer(inner), m.SetType):
                    self.error("E0602", f"`{f.id}` takes a set", arg.span)
                    raise _Skip
                return m.Agg(func=f.id, arg=inner, span=span)
            case ast.ListExpr(items=items):
                parts = tuple(self.expr(i, local) for i in items)
                elem = None
                for part in parts:
                    t = self.infer(part)
                    if isinstance(t, m.IntType | m.ValuesType | m.EnumType) and not isinstance(
                        part, m.Const
                    ):
                        elem = t
                return m.SetLit(items=parts, elem=elem, span=span)
            case ast.Quantifier(kind=kind, var=var, domain=dom, body=body):
                if self.is_type(dom):
                    t = self._type(dom)
                    if not isinstance(t, m.IntType | m.ValuesType | m.EnumType):
                        self.error(
                            "E0602", "a quantifier ranges over a finite type or a set", dom.span
                        )
                        raise _Skip
                    inner = self.expr(body, {**local, var: ("bound", t)})
                    return m.Quant(kind=kind, var=var, domain=t, body=inner, span=span)
                d = self.expr(dom, local)
                st = self.infer(d)
                if not isinstance(st, m.SetType):
                    self.error("E0602", "a quantifier ranges over a finite type or a set", dom.span)
                    raise _Skip
                inner = self.expr(body, {**local, var: ("bound", st.elem)})
                return m.Quant(kind=kind, var=var, domain=d, body=inner, span=span)
            case ast.Quantity():
                self.error(
                    "E0602",
                    "quantities with units are not supported in contracts",
                    span,
                    help="count in whole units: write `37` for 37 g and say the unit in a comment",
                )
                raise _Skip
        self.error("E0604", f"`{self.text(span)}` has no meaning in a contract expression", span)
        raise _Skip

    def name(self, name: str, span: Span, local: dict[str, tuple[str, m.Type]]) -> m.Expr:
        if name in local:
            return m.Ref(kind=local[name][0], name=name, span=span)
        if name in self.poisoned:
            raise _Skip
        for kind in ("var", "evidence", "outcome"):
            if (kind, name) in self.types:
                return m.Ref(kind=kind, name=name, span=span)
        if name in self.defs:
            return m.Ref(kind="define", name=name, span=span)
        if name in self.params:
            return m.Const(value=self.params[name], span=span)
        owners = [t for t in self.enums if name in t.members]
        if owners:
            return self.typed_const(owners[0].members.index(name), owners[0], span)
        if name in self.def_spans:
            self.error(
                "E0601",
                f"`{name}` is used before it is defined",
                span,
                help="derived expressions may only use those defined above them",
            )
            raise _Skip
        candidates = [n for _, n in self.types] + list(self.defs) + list(self.params) + list(local)
        candidates += [x for t in self.enums for x in t.members]
        self.error(
            "E0601",
            f"`{name}` is not declared in this contract",
            span,
            label="not a variable, evidence, outcome, parameter or definition",
            help=_did_you_mean(name, candidates),
        )
        raise _Skip

    def typed_const(self, value: int, t: m.Type | str, span: Span) -> m.Const:
        c = m.Const(value=value, span=span)
        self.const_types[id(c)] = t
        self._consts.append(c)
        return c

    # ---------------------------------------------------------------- typing
    def infer(self, e: m.Expr, local: dict[str, m.Type] | None = None) -> m.Type | str:
        """The type of a resolved expression: a model type, or "int"/"none"."""
        local = local or {}
        match e:
            case m.Const(value=value):
                if isinstance(value, bool):
                    return m.BoolType()
                return self.const_types.get(id(e), "int")
            case m.Ref(kind="define", name=name):
                return self.infer(self.defs[name], local)
            case m.Ref(kind="arg" | "bound", name=name):
                return local.get(name, "int")
            case m.Ref(kind=kind, name=name):
                return self.types.get((kind, name), "int")
            case m.Unary(op="not"):
                return m.BoolType()
            case m.Unary():
                return "int"
            case m.Binary(op=op):
                if op in ("add", "sub", "mul", "div", "mod", "neg"):
                    return "int"
                if op in ("union", "diff"):
                    return self.infer(e.left, local)
                return m.BoolType()
            case m.If(then=then):
                return self.infer(then, local)
            case m.SetLit(elem=elem):
                return (
                    m.SetType(elem=elem)
                    if elem is not None
                    else m.SetType(elem=m.IntType(lo=0, hi=0))
                )
            case m.Agg():
                return "int"
            case m.Quant():
                return m.BoolType()
        return "int"

    def cls(self, t: m.Type | str) -> str:
        match t:
            case m.BoolType():
                return "bool"
            case m.EnumType():
                return "enum:" + ",".join(t.members)
            case m.OptionType(inner=m.EnumType() as inner):
                return "enum:" + ",".join(inner.members)
            case m.SetType():
                return "set"
            case "none":
                return "none"
        return "int"

    def binary(self, op: str, a: m.Expr, b: m.Expr, e: ast.Binary | ast.Call) -> m.Expr:
        ta, tb = self.cls(self.infer(a, self._local)), self.cls(self.infer(b, self._local))
        span = e.span

        def bad(what: str) -> None:
            self.error("E0602", what, span, label=f"`{ta}` and `{tb}`".replace("enum:", "one_of "))
            raise _Skip

        if op in ("and", "or", "implies"):
            if ta != "bool" or tb != "bool":
                bad(f"`{_SYMBOL[op]}` needs two conditions")
        elif op in ("add", "sub", "mul", "div", "mod", "lt", "le", "gt", "ge"):
            if ta == "set" and tb == "set" and op in ("add", "sub", "le"):
                op = {"add": "union", "sub": "diff", "le": "le"}[op]
            elif ta not in ("int",) or tb not in ("int",):
                bad(f"`{_SYMBOL[op]}` needs integers")
            if op == "mul" and not (isinstance(a, m.Const) or isinstance(b, m.Const)):
                bad("`*` needs a constant on one side (the solver works in linear arithmetic)")
            if op in ("div", "mod") and not (
                isinstance(b, m.Const) and isinstance(b.value, int) and b.value > 0
            ):
                bad(f"`{_SYMBOL[op]}` needs a positive constant on the right")
        elif op in ("eq", "ne"):
            ok = ta == tb or (
                "none" in (ta, tb)
                and {ta, tb} - {"none"} <= {"int"} | {x for x in (ta, tb) if x.startswith("enum:")}
            )
            if not ok:
                bad(f"`{_SYMBOL[op]}` compares values of different types")
        elif op == "in" and tb != "set":
            bad("`in` needs a set on the right")
        return m.Binary(op=op, left=a, right=b, span=span)

    def expect_bool(self, e: m.Expr, span: Span) -> None:
        if self.cls(self.infer(e, self._local)) != "bool":
            self.error(
                "E0602",
                f"`{self.text(span)}` is not a condition",
                span,
                help="goals, invariants, requirements and terminals are true/false expressions",
            )
            raise _Skip

    def item(self, e: ast.Expr, local: dict[str, tuple[str, m.Type]] | None = None) -> m.Item:
        return m.Item(expr=self.expr(e, local or {}), text=self.text(e.span), span=e.span)

    # ---------------------------------------------------------------- operations
    def operation(self, entry: ast.Entry) -> m.Operation | None:
        if entry.name is None:
            self.error("E0604", "an operation needs a name", entry.span)
            return None
        params: list[m.OpParam] = []
        local: dict[str, tuple[str, m.Type]] = {}
        for p in entry.params or ():
            if p.type is None:
                self.error(
                    "E0603",
                    f"parameter `{p.name}` needs a finite type",
                    p.span,
                    help=f"write `{p.name}: slot`",
                )
                return None
            t = self.type_expr(p.type)
            if t is None:
                return None
            if not isinstance(t, m.IntType | m.ValuesType | m.EnumType):
                self.error("E0603", f"parameter `{p.name}` must have a finite scalar type", p.span)
                return None
            params.append(m.OpParam(name=p.name, type=t))
            local[p.name] = ("arg", t)
        self._local = {n: t for n, (_, t) in local.items()}
        requires: list[m.Item] = []
        effects: list[m.Effect] = []
        confirm: m.Item | None = None
        ok = True
        assignments: list[tuple[str, ast.Expr, Span, Span]] = []
        for clause in entry.clauses:
            if clause.keyword == "requires" and not isinstance(clause.value, ast.Assignment):
                try:
                    item = self.item(clause.value, local)
                    self.expect_bool(item.expr, clause.value.span)
                    requires.append(item)
                except _Skip:
                    ok = False
            elif clause.keyword == "effect" and isinstance(clause.value, ast.Assignment):
                a = clause.value
                assignments.append((a.name, a.value, a.span, a.span))
            else:
                self.error(
                    "E0604",
                    f"`{clause.keyword}` does not apply to an operation",
                    clause.span,
                    help="write `requires <condition>` or `effect x = <value>`",
                )
                ok = False
        for member in entry.body.members if entry.body else ():
            match member:
                case ast.Binding(name=name, value=value):
                    assignments.append((name, value, member.span, member.name_span))
                case ast.Field(key="requires", value=value):
                    try:
                        item = self.item(value, local)
                        self.expect_bool(item.expr, value.span)
                        requires.append(item)
                    except _Skip:
                        ok = False
                case ast.ExprEntry(keyword="confirm", value=value):
                    try:
                        confirm = self.item(value, local)
                        self.expect_bool(confirm.expr, value.span)
                    except _Skip:
                        ok = False
                case _:
                    self.error(
                        "E0604",
                        "unexpected member in an operation",
                        member.span,
                        help="an operation's body holds assignments `x = e`, `requires: e` and `confirm e`",
                    )
                    ok = False
        seen: set[str] = set()
        for name, value, span, name_span in assignments:
            if name in self.poisoned:
                ok = False
                continue
            if ("var", name) not in self.types:
                self.error(
                    "E0605",
                    f"`{name}` is not a variable: only variables can be assigned",
                    name_span,
                    help=_did_you_mean(name, [n for k, n in self.types if k == "var"]),
                )
                ok = False
                continue
            if name in seen:
                self.error("E0605", f"`{name}` is assigned twice by `{entry.name}`", name_span)
                ok = False
                continue
            seen.add(name)
            try:
                expr = self.expr(value, local)
                target = self.cls(self.types[("var", name)])
                got = self.cls(self.infer(expr, self._local))
                if got != target and not (
                    got == "none" and isinstance(self.types[("var", name)], m.OptionType)
                ):
                    self.error(
                        "E0602",
                        f"`{name}` is {self.types[('var', name)].describe()} but is "
                        f"assigned `{self.text(value.span)}`",
                        value.span,
                    )
                    ok = False
                    continue
                effects.append(m.Effect(var=name, value=expr, span=span))
            except _Skip:
                ok = False
        self._local = {}
        if not ok:
            return None
        return m.Operation(
            name=entry.name,
            params=tuple(params),
            requires=tuple(requires),
            effects=tuple(effects),
            confirm=confirm,
            span=entry.name_span or entry.span,
        )

    def wait(self, entry: ast.ExprEntry) -> m.Operation | None:
        if not (
            isinstance(entry.value, ast.Name)
            and ("var", entry.value.id) in self.types
            and isinstance(self.types[("var", entry.value.id)], m.BoolType)
        ):
            self.error(
                "E0602",
                "`wait` takes a `bool` variable",
                entry.value.span,
                help="declare `var stable: bool` and write `wait stable`",
            )
            return None
        flag = entry.value.id
        ref = m.Ref(kind="var", name=flag, span=entry.value.span)
        return m.Operation(
            name=f"wait_{flag}",
            requires=(
                m.Item(
                    expr=m.Unary(op="not", operand=ref), text=f"not {flag}", span=entry.value.span
                ),
            ),
            effects=(m.Effect(var=flag, value=m.Const(value=True), span=entry.span),),
            confirm=m.Item(expr=ref, text=flag, span=entry.value.span),
            span=entry.span,
        )

    # ---------------------------------------------------------------- pairs
    def pair(self, entry: ast.ExprEntry, ops: set[str]) -> m.Pair | None:
        if not isinstance(entry.value, ast.Name):
            self.error(
                "E0606",
                "a pair needs a name",
                entry.value.span,
                help="write `pair slipped { a = 2 } vs { a = 3 } at place_b`",
            )
            return None
        right: ast.Block | None = None
        at: list[str] = []
        for clause in entry.clauses:
            if clause.keyword == "vs" and isinstance(clause.value, ast.Block):
                right = clause.value
            elif clause.keyword == "at" and not isinstance(clause.value, ast.Assignment):
                v = clause.value
                names = v.items if isinstance(v, ast.ListExpr | ast.TupleExpr) else (v,)
                for n in names:
                    if isinstance(n, ast.Name) and n.id in ops:
                        at.append(n.id)
                    else:
                        self.error(
                            "E0606",
                            f"`{self.text(n.span)}` is not an operation of this contract",
                            n.span,
                            help=_did_you_mean(self.text(n.span), sorted(ops)),
                        )
                        return None
            else:
                self.error("E0606", f"`{clause.keyword}` does not apply to a pair", clause.span)
                return None
        if entry.body is None or right is None or not at:
            self.error(
                "E0606",
                f"pair `{entry.value.id}` needs two sides and an operation",
                entry.span,
                help="write `pair slipped { a = 2 } vs { a = 3 } at place_b`",
            )
            return None
        left_pins = self.pins(entry.body)
        right_pins = self.pins(right)
        if left_pins is None or right_pins is None:
            return None
        return m.Pair(
            name=entry.value.id, left=left_pins, right=right_pins, at=tuple(at), span=entry.span
        )

    def pins(self, block: ast.Block) -> tuple[m.Pin, ...] | None:
        pins = []
        for member in block.members:
            if not isinstance(member, ast.Binding):
                self.error("E0606", "a side of a pair is a list of `name = value`", member.span)
                return None
            if member.name in self.poisoned:
                return None
            kind = (
                "var"
                if ("var", member.name) in self.types
                else ("evidence" if ("evidence", member.name) in self.types else None)
            )
            if kind is None:
                self.error(
                    "E0606",
                    f"`{member.name}` is neither a variable nor evidence",
                    member.name_span,
                    help=_did_you_mean(member.name, [n for k, n in self.types if k != "outcome"]),
                )
                return None
            try:
                value = self.expr(member.value, {})
            except _Skip:
                return None
            if _mentions_state(value):
                self.error(
                    "E0606", "the value of a pair side must be a constant", member.value.span
                )
                return None
            pins.append(m.Pin(name=member.name, value=value))
        return tuple(pins)


_SYMBOL = {
    "and": "and",
    "or": "or",
    "implies": "->",
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "mod": "%",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "in": "in",
}


def _mentions_state(e: Any) -> bool:
    found = False

    def walk(x: Any) -> None:
        nonlocal found
        if isinstance(x, m.Ref) and x.kind in ("var", "evidence", "outcome", "arg", "bound"):
            found = True
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif hasattr(type(x), "__attrs_attrs__"):
            for f in type(x).__attrs_attrs__:
                walk(getattr(x, f.name))

    walk(e)
    return found


def _did_you_mean(name: str, candidates: list[str]) -> str | None:
    from rapidfuzz import process

    best = process.extractOne(name, sorted(set(candidates)), score_cutoff=60)
    return f"did you mean `{best[0]}`?" if best else None


def _count(op: m.Operation) -> int:
    n = 1
    for p in op.params:
        n *= len(m.elements(p.type))
    return n


def check_program(program: Any, report: Report) -> None:
    """The `lablang check` hook: compile every contract of the root module (no solver)."""
    source = program.root.source
    for decl in program.decls("contract"):
        compile_contract(decl, source, report)
