"""Claims about a contract's operations: `commute(a, b)` and `eventually(c, fair: [...])`,
each checked for its form and for the operations it names."""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.operations import Operations
from lablang.contracts.compiler.types import did_you_mean
from lablang.diagnostics import Edit, Fix


class Claims(Operations):
    """The compiler's part for claims that name operations."""

    def commute(
        self, member: ast.ExprStmt, args: Any, operations: list[m.Operation]
    ) -> m.Commute | None:
        """`commute(a, b)`: two operations of this contract (every ground instance of each)."""
        names = [a.value.id if isinstance(a.value, ast.Name) else None for a in args]
        known = {op.name for op in operations}
        if len(names) != 2 or None in names or names[0] == names[1]:
            self.error(
                "E0604",
                "`commute` takes two different operations",
                member.span,
                help="write `commute(label, weigh)`",
            )
            return None
        for name, arg in zip(names, args, strict=True):
            if name not in known:
                self.error(
                    "E0601",
                    f"`{name}` is not an operation of this contract",
                    arg.span,
                    help=did_you_mean(str(name), sorted(known)),
                )
                return None
        return m.Commute(a=str(names[0]), b=str(names[1]), span=member.span)

    def eventually(
        self, member: ast.ExprStmt, args: Any, operations: list[m.Operation]
    ) -> m.Eventually | None:
        """`eventually(c)` or `eventually(c, fair: [a, b])`: a condition every execution
        reaches, assuming weak fairness of the named operations (E0613 when malformed)."""
        conds = [a for a in args if a.name is None]
        named = [a for a in args if a.name is not None]
        fair_items: tuple[Any, ...] = ()
        wrong = None
        if len(conds) != 1 or not args or args[0].name is not None:
            wrong = member.span
        for a in named:
            if a.name != "fair" or not isinstance(a.value, ast.ListExpr) or len(named) > 1:
                wrong = a.span
            else:
                fair_items = a.value.items
        if wrong is not None:
            one = next(
                (a.value for a in named if a.name == "fair" and isinstance(a.value, ast.Name)),
                None,
            )
            self.report.add(
                "E0613",
                "`eventually` takes one condition, then `fair:` and a list of operations",
                self.source,
                wrong,
                help="write `eventually(done, fair: [mix, spin])`, or `eventually(done)` "
                "without fairness",
                fix=Fix(
                    description=f"write `[{one.id}]`",
                    edits=(Edit(span=one.span, replacement=f"[{one.id}]"),),
                )
                if one is not None and len(named) == 1 and len(conds) == 1
                else None,
            )
            return None
        known = {op.name for op in operations}
        names: list[str] = []
        for x in fair_items:
            if not isinstance(x, ast.Name) or x.id in names:
                self.error(
                    "E0613",
                    "a `fair:` list names each operation once"
                    if isinstance(x, ast.Name)
                    else "a `fair:` list holds operation names",
                    x.span,
                    help="write `fair: [mix, spin]` (an operation with parameters is fair "
                    "as a whole: `place`, not `place(2)`)",
                )
                return None
            if x.id not in known:
                self.error(
                    "E0601",
                    f"`{x.id}` is not an operation of this contract",
                    x.span,
                    help=did_you_mean(x.id, sorted(known)),
                )
                return None
            names.append(x.id)
        item = self.item(conds[0].value)
        self.expect_bool(item.expr, conds[0].value.span)
        return m.Eventually(goal=item, fair=tuple(names), span=member.span)
