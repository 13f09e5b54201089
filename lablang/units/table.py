"""Every unit lablang knows: its dimension and its exact factor to the base unit.

The grammar's QUANTITY terminal lists the same symbols (a test keeps them equal).
Factors are exact fractions, so `1000 uL == 1 mL` holds without float drift.
Temperature is affine: `offset` is added after scaling (K -> C).
"""

from __future__ import annotations

from fractions import Fraction as F

from attrs import frozen


@frozen
class Unit:
    symbol: str
    dimension: str
    factor: F  # to the dimension's base unit
    offset: F = F(0)


# dimension -> base unit symbol
BASE = {
    "volume": "L",
    "mass": "g",
    "time": "s",
    "temperature": "C",
    "molar_concentration": "M",
    "mass_concentration": "g/L",
    "activity_concentration": "U/L",
    "length": "m",
    "angle": "deg",
    "force": "N",
    "rotation_speed": "rpm",
    "relative_centrifugal_force": "xg",
    "fold": "x",
    "percent": "%",
    "speed": "m/s",
    "sequence_length": "bp",
    "cells": "cells",
    "cycles": "cycles",
    "reads": "reads",
    "reactions": "rxn",
    "enzyme_units": "U",
    "voltage": "V",
    "current": "mA",
    "power": "W",
}

_MICRO = ("u", "µ", "μ")


def _units() -> dict[str, Unit]:
    table: dict[str, Unit] = {}

    def add(symbol: str, dimension: str, factor: F, offset: F = F(0)) -> None:
        table[symbol] = Unit(symbol, dimension, factor, offset)

    for prefix, factor in (("", F(1)), ("m", F(1, 1000)), ("n", F(1, 10**9)), ("p", F(1, 10**12))):
        add(prefix + "L", "volume", factor)
    for micro in _MICRO:
        add(micro + "L", "volume", F(1, 10**6))
    for prefix, factor in (
        ("k", F(1000)),
        ("", F(1)),
        ("m", F(1, 1000)),
        ("n", F(1, 10**9)),
        ("p", F(1, 10**12)),
    ):
        add(prefix + "g", "mass", factor)
    for micro in _MICRO:
        add(micro + "g", "mass", F(1, 10**6))
    add("d", "time", F(86400))
    add("h", "time", F(3600))
    add("min", "time", F(60))
    add("s", "time", F(1))
    add("ms", "time", F(1, 1000))
    add("us", "time", F(1, 10**6))
    add("µs", "time", F(1, 10**6))
    for symbol in ("C", "°C", "degC"):
        add(symbol, "temperature", F(1))
    add("K", "temperature", F(1), F(-27315, 100))
    for prefix, factor in (
        ("", F(1)),
        ("m", F(1, 10**3)),
        ("n", F(1, 10**9)),
        ("p", F(1, 10**12)),
        ("f", F(1, 10**15)),
    ):
        add(prefix + "M", "molar_concentration", factor)
    for micro in _MICRO:
        add(micro + "M", "molar_concentration", F(1, 10**6))
    add("g/L", "mass_concentration", F(1))
    add("mg/mL", "mass_concentration", F(1))
    add("ng/uL", "mass_concentration", F(1, 1000))
    add("ng/µL", "mass_concentration", F(1, 1000))
    add("ug/mL", "mass_concentration", F(1, 1000))
    add("µg/mL", "mass_concentration", F(1, 1000))
    add("ug/uL", "mass_concentration", F(1))
    add("U/uL", "activity_concentration", F(10**6))
    add("U/mL", "activity_concentration", F(1000))
    add("m", "length", F(1))
    add("cm", "length", F(1, 100))
    add("mm", "length", F(1, 1000))
    add("nm", "length", F(1, 10**9))
    for micro in _MICRO:
        add(micro + "m", "length", F(1, 10**6))
    add("deg", "angle", F(1))
    add("°", "angle", F(1))
    add("rad", "angle", F(180 * 10**15, 3141592653589793))
    add("N", "force", F(1))
    add("mN", "force", F(1, 1000))
    add("rpm", "rotation_speed", F(1))
    for symbol in ("xg", "×g"):
        add(symbol, "relative_centrifugal_force", F(1))
    for symbol in ("x", "X"):
        add(symbol, "fold", F(1))
    add("%", "percent", F(1))
    add("m/s", "speed", F(1))
    add("mm/s", "speed", F(1, 1000))
    add("bp", "sequence_length", F(1))
    add("nt", "sequence_length", F(1))
    add("kb", "sequence_length", F(1000))
    add("cells", "cells", F(1))
    add("cycles", "cycles", F(1))
    add("reads", "reads", F(1))
    add("rxn", "reactions", F(1))
    add("U", "enzyme_units", F(1))
    add("V", "voltage", F(1))
    add("mV", "voltage", F(1, 1000))
    add("mA", "current", F(1))
    add("W", "power", F(1))
    return table


UNITS: dict[str, Unit] = _units()

# Words agents and people write for a unit, and the symbol lablang reads: `20 sec` is
# reported with the fix `20 s` (E0104) and read as that quantity.
UNIT_SPELLINGS: dict[str, str] = {
    "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "mins": "min", "minute": "min", "minutes": "min",
    "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
    "ul": "uL", "ml": "mL", "nl": "nL", "Ul": "uL", "Ml": "mL",
    "rcf": "xg", "RPM": "rpm", "bps": "bp", "nts": "nt",
}  # fmt: skip


def closest_units(text: str, limit: int = 3) -> list[str]:
    """Unit symbols that look like `text` (for "did you mean").

    >>> closest_units("ul")[0]
    'uL'
    """
    lowered = {symbol.lower(): symbol for symbol in UNITS}
    if text.lower() in lowered:
        return [lowered[text.lower()]]
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    matches = process.extract(text, list(UNITS), scorer=Levenshtein.distance, limit=limit)
    return [symbol for symbol, distance, _ in matches if distance <= max(1, len(text) // 2)]
