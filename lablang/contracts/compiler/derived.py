"""Derived expressions with arguments (`opposite: (k + N / 2) % N for k in slot`), used as
`opposite(a)`: each use is the body with the arguments put in place of the parameters.

They terminate by construction: a derived expression may only use those defined above
it, so it cannot call itself. Each use is expanded into the expression that holds it,
so the limits on expressions (E0609) and the checks see the expanded form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import evolve, fields, frozen, has

from lablang.contracts import model as m
from lablang.records import Compared


@frozen(kw_only=True, repr=False, eq=False)
class DerivedWithArgs(Compared):
    params: tuple[tuple[str, m.Type], ...]
    body: m.Expr


def substitute(e: Any, args: Mapping[str, m.Expr]) -> Any:
    """`e` with each parameter reference (`Ref(kind="defarg")`) replaced by its argument."""
    if isinstance(e, m.Ref) and e.kind == "defarg":
        return args[e.name]
    if isinstance(e, tuple):
        return tuple(substitute(x, args) for x in e)
    if not has(type(e)) or isinstance(e, m.Ref | m.Const):
        return e
    changes = {}
    for f in fields(type(e)):
        value = getattr(e, f.name)
        new = substitute(value, args)
        if new is not value:
            changes[f.name] = new
    return evolve(e, **changes) if changes else e


def bound_names(e: Any) -> set[str]:
    """Names bound by quantifiers in `e`, and bound names it refers to."""
    names: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, m.Quant):
            names.add(x.var)
        if isinstance(x, m.Ref) and x.kind == "bound":
            names.add(x.name)
        if isinstance(x, tuple):
            for y in x:
                walk(y)
        elif has(type(x)) and not isinstance(x, m.Const):
            for f in fields(type(x)):
                walk(getattr(x, f.name))

    walk(e)
    return names
