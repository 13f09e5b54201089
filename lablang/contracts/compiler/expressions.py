"""Contract expressions from the AST, and their typing (E0602 for a mistyped one)."""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.derived import bound_names, substitute
from lablang.contracts.compiler.types import Skip, Types, did_you_mean, mentions_state
from lablang.contracts.model import NONE
from lablang.source import Span

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


# the operator each model name is written with, in messages
_SYMBOL = {name: symbol for symbol, name in _BINARY.items()}


class Expressions(Types):
    def const_int(self, e: ast.Expr) -> int:
        value = self.const_value(e)
        if isinstance(value, bool) or not isinstance(value, int):
            self.error("E0602", f"`{self.text(e.span)}` is not an integer", e.span)
            raise Skip
        return value

    def const_value(self, e: ast.Expr) -> object:
        from lablang.contracts.semantics import EvaluationError, Evaluator

        expr = self.expr(e, {})
        if mentions_state(expr):
            self.error("E0602", f"`{self.text(e.span)}` must be a constant", e.span)
            raise Skip
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
            raise Skip from None
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
                    raise Skip
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
            case ast.Call(func=ast.Name(id=fname), args=args) if fname in self.derived:
                return self.use_derived(fname, args, local, e)
            case ast.Call(func=ast.Name(id=fname)) if fname in self.def_spans:
                if fname in self.defs:
                    self.error("E0602", f"`{fname}` takes no arguments", span)
                    raise Skip
                return self.name(fname, span, local)  # used before it is defined
            case ast.Call(func=ast.Name(id="sum" | "size") as f, args=(arg,)):
                inner = self.expr(arg.value, local)
                if not isinstance(self.infer(inner), m.SetType):
                    self.error("E0602", f"`{f.id}` takes a set", arg.span)
                    raise Skip
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
                        raise Skip
                    inner = self.expr(body, {**local, var: ("bound", t)})
                    return m.Quant(kind=kind, var=var, domain=t, body=inner, span=span)
                d = self.expr(dom, local)
                st = self.infer(d)
                if not isinstance(st, m.SetType):
                    self.error("E0602", "a quantifier ranges over a finite type or a set", dom.span)
                    raise Skip
                inner = self.expr(body, {**local, var: ("bound", st.elem)})
                return m.Quant(kind=kind, var=var, domain=d, body=inner, span=span)
            case ast.Quantity():
                self.error(
                    "E0602",
                    "quantities with units are not supported in contracts",
                    span,
                    help="count in whole units: write `37` for 37 g and say the unit in a comment",
                )
                raise Skip
        self.error("E0604", f"`{self.text(span)}` has no meaning in a contract expression", span)
        raise Skip

    def use_derived(
        self, name: str, args: Any, local: dict[str, tuple[str, m.Type]], e: ast.Expr
    ) -> m.Expr:
        """`opposite(a)`: the body of `opposite` with `a` for its parameter."""
        d = self.derived[name]
        if len(args) != len(d.params) or any(a.name is not None for a in args):
            self.error(
                "E0602",
                f"`{name}` takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''} "
                f"({', '.join(p for p, _ in d.params)}), given {len(args)}",
                e.span,
            )
            raise Skip
        values = {}
        for (param, t), arg in zip(d.params, args, strict=True):
            value = self.expr(arg.value, local)
            want, got = self.cls(t), self.cls(self.infer(value, self._local))
            if want != got and not (want == "int" and got == "none"):
                self.error(
                    "E0602",
                    f"argument `{param}` of `{name}` is a {t.describe()}, given `{self.text(arg.span)}`",
                    arg.span,
                )
                raise Skip
            values[param] = value
        clash = bound_names(d.body) & set().union(*(bound_names(v) for v in values.values()))
        if clash:
            self.error(
                "E0602",
                f"the quantifier variable `{sorted(clash)[0]}` is bound both in `{name}` and "
                "in its argument",
                e.span,
                help="rename one of them",
            )
            raise Skip
        return substitute(d.body, values)

    def name(self, name: str, span: Span, local: dict[str, tuple[str, m.Type]]) -> m.Expr:
        if name in local:
            return m.Ref(kind=local[name][0], name=name, span=span)
        if name in self.poisoned:
            raise Skip
        if name in self.derived:
            d = self.derived[name]
            self.error(
                "E0602",
                f"`{name}` takes arguments: write `{name}({', '.join(p for p, _ in d.params)})`",
                span,
            )
            raise Skip
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
            raise Skip
        candidates = [n for _, n in self.types] + list(self.defs) + list(self.params) + list(local)
        candidates += [x for t in self.enums for x in t.members]
        self.error(
            "E0601",
            f"`{name}` is not declared in this contract",
            span,
            label="not a variable, evidence, outcome, parameter or definition",
            help=did_you_mean(name, candidates),
        )
        raise Skip

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
            case m.Ref(kind="arg" | "bound" | "defarg", name=name):
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
            raise Skip

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
            raise Skip

    def item(self, e: ast.Expr, local: dict[str, tuple[str, m.Type]] | None = None) -> m.Item:
        return m.Item(expr=self.expr(e, local or {}), text=self.text(e.span), span=e.span)
