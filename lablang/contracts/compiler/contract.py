"""One contract declaration to a model: the members in order of dependence, then the
checks on the whole (duplicate operations, `init` cycles, expansion, ground size)."""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.claims import Claims
from lablang.contracts.compiler.derived import DerivedWithArgs
from lablang.contracts.compiler.types import MAX_GROUND_OPS, Skip
from lablang.source import Span


class Compiler(Claims):
    """One `contract` declaration compiled to a model (`run`), its errors reported."""

    def derived_with_args(self, member: ast.Field) -> DerivedWithArgs:
        """`opposite: (k + N / 2) % N for k in slot`: the parameters from the `for`
        clauses (each over a finite type), the body compiled with them."""
        params: list[tuple[str, m.Type]] = []
        for clause in member.clauses:
            match clause:
                case ast.Clause(
                    keyword="for", value=ast.Binary(op="in", left=ast.Name(id=name), right=dom)
                ) if self.is_type(dom):
                    t = self.type_expr(dom)
                    if t is None:
                        raise Skip
                    if any(name == p for p, _ in params) or self.known(name):
                        self.error("E0605", f"`{name}` is declared twice", clause.span)
                        raise Skip
                    params.append((name, t))
                case _:
                    self.error(
                        "E0604",
                        "a derived expression takes its arguments as `for x in T` clauses",
                        clause.span,
                        help=f"write `{member.key}: ... for k in slot`",
                    )
                    raise Skip
        saved = self._local
        self._local = dict(params)
        try:
            body = self.expr(member.value, {n: ("defarg", t) for n, t in params})
        finally:
            self._local = saved
        return DerivedWithArgs(params=tuple(params), body=body)

    # ---------------------------------------------------------------- driver
    def run(self) -> m.Contract:
        decl = self.decl
        self.params_and_requirements()
        members = decl.body.members if decl.body else ()
        variables: list[m.Variable] = []
        evidence: list[m.Evidence] = []
        outcomes: list[m.Outcome] = []
        op_entries: list[ast.Entry] = []
        waits: list[ast.ExprEntry] = []
        later: list[ast.ExprEntry] = []
        pending: list[tuple[str, ast.Entry]] = []
        commute_args: list[tuple[ast.ExprStmt, Any]] = []
        eventually_args: list[tuple[ast.ExprStmt, Any]] = []
        swallowed = {
            found[1].start
            for member in members
            if isinstance(member, ast.Entry)
            and member.name is None
            and (found := self.reserved_name(member)) is not None
        }
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
                        self.no_name(
                            entry,
                            f"`{entry.keyword}` needs a name and a type",
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
                case ast.ExprStmt(value=ast.Call(func=ast.Name(id="commute"), args=args)):
                    commute_args.append((member, args))
                case ast.ExprStmt(value=ast.Call(func=ast.Name(id="eventually"), args=args)):
                    eventually_args.append((member, args))
                case _ if member.span.start in swallowed:
                    pass  # a reserved word in a name's place: reported with its entry
                case _:
                    self.error(
                        "E0604",
                        "this member has no meaning in a contract",
                        member.span,
                        help="a contract holds types, `var`, `evidence`, `outcome`, `op`, "
                        "`wait`, `goal`, `invariant`, `terminal`, `pair`, `commute(a, b)` and "
                        "`eventually(c, fair: [a, b])`",
                    )
        # derived expressions may refer to variables and to each other (in order)
        for member in members:
            if isinstance(member, ast.Field) and member.key in self.def_spans:
                try:
                    if member.clauses:
                        self.derived[member.key] = self.derived_with_args(member)
                    else:
                        self.defs[member.key] = self.expr(member.value, {})
                except Skip:
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
            except Skip:
                pass
        operations = [op for op in (self.operation(e) for e in op_entries) if op is not None]
        operations += [op for op in (self.wait(e) for e in waits) if op is not None]
        first_op: dict[str, m.Operation] = {}
        for op in list(operations):
            if op.name in first_op:
                first_span = first_op[op.name].span
                line = self.source.position(first_span.start)[0] if first_span else 0
                self.error(
                    "E0605",
                    f"operation `{op.name}` is declared twice",
                    op.span or decl.name_span,
                    label=f"first declared on line {line}",
                    help="rename one of them, or merge their requirements and effects",
                )
                operations.remove(op)
            else:
                first_op[op.name] = op
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
            except Skip:
                pass
        commutes = [
            c for member, args in commute_args if (c := self.commute(member, args, operations))
        ]
        eventually: list[m.Eventually] = []
        for member, args in eventually_args:
            try:
                if (claim := self.eventually(member, args, operations)) is not None:
                    eventually.append(claim)
            except Skip:
                pass
        contract = m.Contract(
            name=decl.name,
            commutes=tuple(commutes),
            eventually=tuple(eventually),
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
        self.check_expansion(contract)
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
        n_ground = sum(ground_count(op) for op in operations)
        if n_ground > MAX_GROUND_OPS:
            self.error(
                "E0603",
                f"contract `{decl.name}` has {n_ground} ground operations, more than "
                f"the {MAX_GROUND_OPS} allowed",
                decl.name_span,
                help="use smaller parameter types",
            )
        return contract

    def check_expansion(self, contract: m.Contract) -> None:
        """E0609 for each expression that unrolls to more terms than the limit (checked
        before anything is built, so `verify`, `legal` and `monitor` refuse it at once)."""
        defs = {d.name: d.expr for d in contract.definitions}
        located: list[tuple[m.Expr, Span | None]] = []
        for op in contract.operations:
            located += [(r.expr, r.span) for r in op.requires]
            located += [(e.value, e.span) for e in op.effects]
        for item in (
            *contract.goals,
            *contract.invariants,
            *contract.terminal,
            *(e.goal for e in contract.eventually),
        ):
            located.append((item.expr, item.span))
        for v in contract.variables:
            located += [(x, v.span) for x in (v.init, v.visible) if x is not None]
        located += [(e.authorized, e.span) for e in contract.evidence]
        for expr, span in located:
            size = m.expansion(expr, defs)
            if size > m.MAX_EXPANSION and span is not None:
                self.error(
                    "E0609",
                    f"this expression expands to {size} terms once its quantifiers are "
                    f"unrolled, more than the limit of {m.MAX_EXPANSION}",
                    span,
                    label=f"{size} terms",
                    help="quantify over smaller types, or state the property without "
                    "nesting quantifiers (a variable that records the witness)",
                )


def ground_count(op: m.Operation) -> int:
    n = 1
    for p in op.params:
        n *= len(m.elements(p.type))
    return n
