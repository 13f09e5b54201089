"""Operations (`op`, `wait`) and pairs with their pins."""

from __future__ import annotations

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.expressions import Expressions
from lablang.contracts.compiler.types import Skip, did_you_mean, mentions_state
from lablang.source import Span


class Operations(Expressions):
    # ---------------------------------------------------------------- operations
    def operation(self, entry: ast.Entry) -> m.Operation | None:
        if entry.name is None:
            self.no_name(entry, "an operation needs a name")
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
            shadowed = next((k for k, n in self.types if n == p.name), None)
            if shadowed is not None or p.name in self.defs:
                what = {"var": "variable", "evidence": "evidence", "outcome": "outcome"}.get(
                    shadowed or "", "derived expression"
                )
                self.report.add(
                    "W0601",
                    f"parameter `{p.name}` of `{entry.name}` shadows the {what} `{p.name}`",
                    self.source,
                    p.span,
                    label=f"inside `{entry.name}`, `{p.name}` means this parameter",
                    help=f"rename the parameter (e.g. `{p.name}_arg`) to read the {what}",
                )
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
                except Skip:
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
                    except Skip:
                        ok = False
                case ast.ExprEntry(keyword="confirm", value=value):
                    try:
                        confirm = self.item(value, local)
                        self.expect_bool(confirm.expr, value.span)
                    except Skip:
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
                    help=did_you_mean(name, [n for k, n in self.types if k == "var"]),
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
            except Skip:
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
                            help=did_you_mean(self.text(n.span), sorted(ops)),
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
                    help=did_you_mean(member.name, [n for k, n in self.types if k != "outcome"]),
                )
                return None
            try:
                value = self.expr(member.value, {})
            except Skip:
                return None
            if mentions_state(value):
                self.error(
                    "E0606", "the value of a pair side must be a constant", member.value.span
                )
                return None
            pins.append(m.Pin(name=member.name, value=value))
        return tuple(pins)
