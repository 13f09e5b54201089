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


def reserved_name(
    members: tuple[ast.Member, ...], index: int, source_text: str
) -> tuple[str, ast.Member, int] | None:
    """The reserved word that `members[index]`, a nameless `step` or `event`, was meant to
    be named by, the member it opens and the index of the first member past it. The
    grammar reads `step hold { ... }` as a `step` without a name followed by a `hold`
    entry, since `hold` is a keyword (so is every word `reserved_words` lists), and the
    rest of that line (`at 2 s { ... }` of an event) as further members."""
    member = members[index]
    if not isinstance(member, ast.Entry) or member.name is not None or member.body is not None:
        return None
    if index + 1 >= len(members):
        return None
    after = members[index + 1]
    if not isinstance(after, ast.Entry | ast.ExprEntry):
        return None
    if source_text[member.span.end : after.span.start].strip():
        return None
    line_end = source_text.find("\n", after.span.start)
    line_end = len(source_text) if line_end < 0 else line_end
    past = index + 2
    while past < len(members) and members[past].span.start < line_end:
        past += 1
    return after.keyword, after, past
