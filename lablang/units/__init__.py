"""Exact quantities with dimensions.

Magnitudes are `Fraction`s, so conversions and equality are exact:

>>> quantity("1000", "uL") == quantity("1", "mL")
True
>>> quantity("98", "C").to("K").magnitude
Fraction(7423, 20)

pint was measured as a candidate and not used: importing it takes 0.28 s (0.34 s
with a registry) against 0.03 s for lark on this machine, which alone would break
the start-up budget of `lablang check` (see README, Performance).
"""

from __future__ import annotations

from fractions import Fraction

from attrs import frozen

from lablang.units.table import BASE, UNITS, Unit

__all__ = ["BASE", "UNITS", "DimensionError", "QuantityValue", "Unit", "quantity"]


class DimensionError(ValueError):
    pass


@frozen(eq=False)
class QuantityValue:
    """A magnitude in a unit; compares and converts within one dimension."""

    magnitude: Fraction
    unit: Unit

    @property
    def dimension(self) -> str:
        return self.unit.dimension

    @property
    def base(self) -> Fraction:
        """The magnitude in the dimension's base unit (L, g, s, C, M, ...)."""
        return self.magnitude * self.unit.factor + self.unit.offset

    def to(self, symbol: str) -> QuantityValue:
        target = UNITS[symbol]
        if target.dimension != self.dimension:
            raise DimensionError(f"cannot convert {self.dimension} to {target.dimension}")
        return QuantityValue((self.base - target.offset) / target.factor, target)

    def _other(self, other: object) -> Fraction:
        if not isinstance(other, QuantityValue):
            raise TypeError("a quantity compares only with a quantity")
        if other.dimension != self.dimension:
            raise DimensionError(f"cannot compare {self.dimension} with {other.dimension}")
        return other.base

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QuantityValue) or other.dimension != self.dimension:
            return False
        return self.base == other.base

    def __hash__(self) -> int:
        return hash((self.dimension, self.base))

    def __lt__(self, other: QuantityValue) -> bool:
        return self.base < self._other(other)

    def __le__(self, other: QuantityValue) -> bool:
        return self.base <= self._other(other)

    def __gt__(self, other: QuantityValue) -> bool:
        return self.base > self._other(other)

    def __ge__(self, other: QuantityValue) -> bool:
        return self.base >= self._other(other)

    def __str__(self) -> str:
        return f"{format_number(self.magnitude)} {self.unit.symbol}"


def quantity(number: str, unit: str) -> QuantityValue:
    """An exact quantity from its written number and unit symbol."""
    if unit not in UNITS:
        raise KeyError(unit)
    return QuantityValue(Fraction(number), UNITS[unit])


def format_number(value: Fraction) -> str:
    """A fraction written as the shortest exact decimal, or as a float if none is short."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.12g}"
    return text
