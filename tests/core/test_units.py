"""Quantities: exact conversion, dimensions, and the grammar's unit list."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from lablang.units import DimensionError, quantity
from lablang.units.table import UNITS, closest_units

GRAMMAR = (Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark").read_text()


def test_the_grammar_and_the_unit_table_list_the_same_units() -> None:
    """Every unit the lexer accepts has a dimension, and every table unit can be written."""
    line = next(line for line in GRAMMAR.splitlines() if line.startswith("QUANTITY"))
    alternatives = re.search(r"\(\?:\(\?:(.*?)\)\(\?!", line).group(1)  # type: ignore[union-attr]
    written = {a.replace("\\/", "/") for a in alternatives.split("|")}
    written = {"xg" if w == "x g" else w for w in written}
    assert written - set(UNITS) == set()
    assert set(UNITS) - written - {"%"} == set()


def test_conversion_is_exact_without_float_drift() -> None:
    """0.1 mL + 0.2 mL is exactly 300 uL, a thing floats get wrong."""
    total = quantity("0.1", "mL").base + quantity("0.2", "mL").base
    assert total == quantity("300", "uL").base
    assert quantity("1000", "uL") == quantity("1", "mL")
    assert quantity("1.5", "h").to("min").magnitude == 90


def test_temperature_conversion_is_affine() -> None:
    """0 C is 273.15 K, and comparisons across the two units work."""
    assert quantity("0", "C").to("K").magnitude == Fraction(27315, 100)
    assert quantity("300", "K") > quantity("26", "C")


def test_comparing_different_dimensions_is_an_error() -> None:
    """A volume and a temperature cannot be ordered."""
    with pytest.raises(DimensionError):
        _ = quantity("1", "mL") < quantity("1", "C")
    assert quantity("1", "mL") != quantity("1", "C")


def test_closest_units_corrects_case_first() -> None:
    """`ul` is read as a miscased `uL`, `mn` as the nearest unit."""
    assert closest_units("ul")[0] == "uL"
    assert closest_units("ML")[0] in {"mL", "ML", "M"}
