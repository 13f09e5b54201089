"""Exact protocol quantities, kept in the unit a protocol reader expects.

Built on `lablang.units` (exact `Fraction` magnitudes): an `Amount` is a quantity
converted to the canonical unit of its dimension for protocols (uL, s, C, rpm, xg,
x, ...), so `Amount.parse("1", "min") == Amount.parse("60", "s")` holds exactly and
the diff can print every value in one unit per dimension.
"""

from __future__ import annotations

from fractions import Fraction

from attrs import field, frozen

from lablang.records import Compared
from lablang.units import BASE, UNITS, quantity

# dimension -> the unit protocols are read in (the rest use `lablang.units`' base unit)
CANONICAL: dict[str, str] = {
    **BASE,
    "volume": "uL",
    "mass": "g",
    "molar_concentration": "uM",
    "length": "mm",
    "percent": "%",
    "current": "mA",
    "number": "",
}


@frozen(repr=False, eq=False)
class Amount(Compared):
    """An exact quantity kept in the canonical unit of its dimension.

    `text` is what the author wrote (for messages); equality and ordering use the
    canonical magnitude, so `Amount.parse("1", "min") == Amount.parse("60", "s")`.

    >>> Amount.parse("1", "min") == Amount.parse("60", "s")
    True
    >>> str(Amount.parse("0.5", "mL"))
    '500 uL'
    """

    value: Fraction
    dimension: str
    text: str = field(eq=False, default="")

    @classmethod
    def parse(cls, number: str, unit: str) -> Amount:
        """Raise `KeyError` for an unknown unit, `ValueError` for a bad number."""
        value = quantity(number, unit.strip())
        canonical = value.to(CANONICAL[value.dimension])
        return cls(canonical.magnitude, value.dimension, f"{number} {unit}".strip())

    @classmethod
    def number(cls, value: Fraction | int) -> Amount:
        return cls(Fraction(value), "number", str(value))

    def __str__(self) -> str:
        return format_value(self.value, CANONICAL.get(self.dimension, ""))

    def _same(self, other: object) -> Amount:
        if not isinstance(other, Amount):
            return NotImplemented
        if other.dimension != self.dimension:
            raise TypeError(f"cannot compare {self.dimension} with {other.dimension}")
        return other

    def __lt__(self, other: Amount) -> bool:
        return self.value < self._same(other).value

    def __le__(self, other: Amount) -> bool:
        return self.value <= self._same(other).value

    def __gt__(self, other: Amount) -> bool:
        return self.value > self._same(other).value

    def __ge__(self, other: Amount) -> bool:
        return self.value >= self._same(other).value


def is_unit(unit: str) -> bool:
    return unit.strip() in UNITS


def format_value(value: Fraction, unit: str) -> str:
    """Exact decimal where the value has one, else up to 6 significant digits.

    >>> format_value(Fraction(1, 4), "uL")
    '0.25 uL'
    >>> format_value(Fraction(1, 3), "s")
    '0.333333 s'
    """
    if value.denominator == 1:
        text = str(value.numerator)
    else:
        denominator = value.denominator
        for prime in (2, 5):
            while denominator % prime == 0:
                denominator //= prime
        text = _exact_decimal(value) if denominator == 1 else f"{float(value):.6g}"
    return f"{text} {unit}".strip()


def _exact_decimal(value: Fraction) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits: list[str] = []
    while rest and len(digits) < 30:
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits.append(str(digit))
    return f"{sign}{whole}." + "".join(digits) if digits else f"{sign}{whole}"
