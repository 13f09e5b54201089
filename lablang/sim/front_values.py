"""Values in scene and task declarations: numbers and quantities in SI units, and the
entity a name stands for."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from lablang import ast
from lablang.check.names import did_you_mean
from lablang.sim import model as sm
from lablang.units import UNITS

# unit-table base units -> SI
# (temperatures stay in degrees Celsius)
SI = {
    "length": 1.0,
    "mass": 1e-3,
    "volume": 1e-3,
    "time": 1.0,
    "angle": math.pi / 180,
    "temperature": 1.0,
}


COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


def lookup(scene: sm.Scene, name: str) -> sm.Entity | None:
    """The entity `name` names; a role stands for its candidates (all of one asset)."""
    entity = scene.entity(name)
    if entity is None and (candidates := scene.roles().get(name)):
        entity = scene.entity(candidates[0])
    return entity


def si_number(expr: ast.Expr, dimension: str) -> float | None:
    """The SI value of a number (no dimension) or a quantity of the given dimension."""
    sign = 1.0
    while isinstance(expr, ast.Unary) and expr.op in ("-", "+", "±"):
        sign *= -1.0 if expr.op == "-" else 1.0
        expr = expr.operand
    match expr:
        case ast.Number(text=text) if dimension == "":
            return sign * float(Fraction(text))
        case ast.Quantity(number=number, unit=unit) if unit in UNITS:
            u = UNITS[unit]
            if u.dimension != dimension or dimension not in SI:
                return None
            base = Fraction(number) * u.factor + u.offset
            return sign * float(base) * SI[dimension]
        case _:
            return None


def suggest(name: str, pool: Iterable[str], otherwise: str | None = None) -> str | None:
    """The help for a name not in `pool`: the likely typo it is, or `otherwise`."""
    guess = did_you_mean(name, pool)
    return f"did you mean `{guess}`?" if guess else otherwise
