"""Exact quantities for protocol parameters.

PARTIAL (temporary): `lablang.units` is being written on main; until it lands this
module holds the small exact table protocols need (volume, time, temperature, speed,
relative centrifugal force, fold, mass, concentration, count). Magnitudes are
`Fraction`s so that `1 min == 60 s` holds exactly. Swap to `lablang.units` by
replacing `quantity` below; the rest of the package only uses `Amount`.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

# unit -> (dimension, factor to the canonical unit, offset added after scaling)
_UNITS: dict[str, tuple[str, Fraction, Fraction]] = {}


def _add(dimension: str, canonical_factor: dict[str, Fraction | int | str]) -> None:
    for unit, factor in canonical_factor.items():
        _UNITS[unit] = (dimension, Fraction(factor), Fraction(0))


_add("volume", {"L": 1_000_000, "mL": 1000, "uL": 1, "µL": 1, "μL": 1, "nL": "1/1000",
                "pL": "1/1000000"})
_add("time", {"d": 86400, "h": 3600, "min": 60, "s": 1, "ms": "1/1000", "us": "1/1000000",
              "µs": "1/1000000"})
_add("temperature", {"C": 1, "°C": 1, "degC": 1, "°": 1})
_UNITS["K"] = ("temperature", Fraction(1), Fraction(-27315, 100))
_add("rotation_speed", {"rpm": 1})
_add("rcf", {"xg": 1, "x g": 1, "×g": 1})
_add("fold", {"x": 1, "X": 1})
_add("mass", {"kg": 1_000_000_000, "g": 1_000_000, "mg": 1000, "ug": 1, "µg": 1, "μg": 1,
              "ng": "1/1000", "pg": "1/1000000"})
_add("molar", {"M": 1_000_000, "mM": 1000, "uM": 1, "µM": 1, "μM": 1, "nM": "1/1000",
               "pM": "1/1000000", "fM": "1/1000000000"})
_add("mass_concentration", {"g/L": 1, "mg/mL": 1, "ug/mL": "1/1000", "µg/mL": "1/1000",
                            "ng/uL": "1/1000", "ng/µL": "1/1000", "ug/uL": 1})
_add("count", {"cycles": 1, "cells": 1, "reads": 1, "rxn": 1})
_add("fraction", {"%": "1/100"})
_add("length", {"bp": 1, "nt": 1, "kb": 1000})

CANONICAL = {
    "volume": "uL",
    "time": "s",
    "temperature": "C",
    "rotation_speed": "rpm",
    "rcf": "xg",
    "fold": "x",
    "mass": "ug",
    "molar": "uM",
    "mass_concentration": "g/L",
    "count": "",
    "fraction": "",
    "length": "bp",
    "number": "",
}


@attrs.frozen(slots=True, order=False)
class Amount:
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
    text: str = attrs.field(eq=False, default="")

    @classmethod
    def parse(cls, number: str, unit: str) -> Amount:
        """Raise `KeyError` for an unknown unit, `ValueError` for a bad number."""
        dimension, factor, offset = _UNITS[unit.strip()]
        magnitude = Fraction(number) * factor + offset
        text = f"{number} {unit}".strip()
        return cls(magnitude, dimension, text)

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
    return unit.strip() in _UNITS


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
        if denominator == 1:
            text = _exact_decimal(value)
        else:
            text = f"{float(value):.6g}"
    return f"{text} {unit}".strip()


def _exact_decimal(value: Fraction) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = []
    while rest and len(digits) < 30:
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits.append(str(digit))
    return f"{sign}{whole}." + "".join(digits) if digits else f"{sign}{whole}"
