"""The front end: `contract` declarations to models, and its E06xx diagnostics."""

from __future__ import annotations

import pytest

from lablang.contracts.model import BoolType, EnumType, IntType, OptionType, SetType, ValuesType
from lablang.diagnostics.codes import CODES
from tests.contracts.loading import ROOT, compile_text

CONTRACT_CODES = sorted(code for code, entry in CODES.items() if entry.area == "contracts")


def test_every_contract_code_is_documented() -> None:
    """Each registered E06xx code has a title, an explanation and both examples."""
    assert CONTRACT_CODES and all(c[1:3] == "06" and c[0] in "EW" for c in CONTRACT_CODES)
    for code in CONTRACT_CODES:
        entry = CODES[code]
        assert entry.title and entry.explanation and entry.bad and entry.good


@pytest.mark.parametrize("code", CONTRACT_CODES)
def test_bad_example_gives_its_code_and_good_example_is_clean(code: str) -> None:
    """The registry's failing example yields the code (its rendering is pinned by the core
    golden case tests/goldens/CODE.lab); the fixed example compiles cleanly."""
    entry = CODES[code]
    _, report = compile_text(entry.bad + "\n", f"{code}.lab")
    assert code in {d.code for d in report}, [d.message for d in report]
    golden = (ROOT / "tests" / "goldens" / f"{code}.lab").read_text("utf-8")
    assert entry.bad.strip() in golden
    contracts, report = compile_text(entry.good + "\n", f"{code}.lab")
    assert not report.has_errors, [d.message for d in report]
    assert len(contracts) == 1


def test_types_mean_what_the_docs_say() -> None:
    """`slot`, ranges, `one_of` of names or numbers, `set(T)` and `T?` compile to finite types."""
    contracts, report = compile_text(
        "contract t(N: 4) {\n"
        "  color: one_of(red, green)\n"
        "  var a: slot?  var b: int[2..5]  var c: 0..N  var d: color  var e: set(one_of(1, 2, 5))\n"
        "  var f: bool\n"
        "}\n"
    )
    assert not report.has_errors
    types = {v.name: v.type for v in contracts[0].variables}
    assert types == {
        "a": OptionType(inner=IntType(lo=0, hi=3)),
        "b": IntType(lo=2, hi=5),
        "c": IntType(lo=0, hi=4),
        "d": EnumType(members=("red", "green")),
        "e": SetType(elem=ValuesType(values=(1, 2, 5))),
        "f": BoolType(),
    }


@pytest.mark.parametrize(
    ("body", "code", "fragment"),
    [
        ("var a: int[0..10000]", "E0603", "more than 4096 values"),
        ("var a: set(0..40)", "E0603", "more than 32 elements"),
        ("var a: int[-2..3]?", "E0602", "must not contain negative values"),
        ("var a: bool  goal a + 1", "E0602", "`+` needs integers"),
        ("var a: int[0..3]  op m effect a = a * a", "E0602", "`*` needs a constant"),
        ("var a: int[0..3]  op m effect a = a % a", "E0602", "positive constant on the right"),
        ("var a: int[0..3]  op m effect a = true", "E0602", "is int[0..3] but is assigned"),
        ("var a: bool  goal a == 1 g", "E0602", "quantities with units"),
        ("var a: bool  op m(k) effect a = true", "E0603", "needs a finite type"),
        ("var a: bool  var a: bool", "E0605", "declared twice"),
        ("var a: bool  op m { a = true; a = false }", "E0605", "assigned twice"),
        ("evidence e: bool  op m effect e = true", "E0605", "only variables can be assigned"),
        ("var a: bool  pair p { z = 1 } vs { a = true } at m", "E0606", "is not an operation"),
        (
            "var a: bool  op m effect a = true  pair p { z = 1 } vs { a = true } at m",
            "E0606",
            "neither a variable nor evidence",
        ),
        ("var a: bool  wait b", "E0602", "`wait` takes a `bool` variable"),
        ("var a: bool  step s { do: x }", "E0604", "no meaning in a contract"),
        (
            'var a: bool  op m requires "yes" effect a = true',
            "E0604",
            "has no meaning in a contract expression",
        ),
        ("var a: bool  x: y  y: a  goal x", "E0601", "used before it is defined"),
    ],
)
def test_bad_contract_gives_a_located_diagnostic(body: str, code: str, fragment: str) -> None:
    """Each kind of bad contract input is reported with its code and a clear message."""
    _, report = compile_text(f"contract t {{ {body} }}\n")
    messages = [(d.code, d.message) for d in report]
    assert any(c == code and fragment in m for c, m in messages), messages
    assert all(d.source is not None and d.span.end > d.span.start for d in report)


def test_wait_defines_an_operation() -> None:
    """`wait stable` is the operation `wait_stable`: requires `not stable`, sets it."""
    contracts, report = compile_text("contract t { var stable: bool  wait stable }\n")
    assert not report.has_errors
    op = contracts[0].operations[0]
    assert op.name == "wait_stable" and op.requires[0].text == "not stable"


def test_parameter_override() -> None:
    """Parameters given to the compiler replace the declared values."""
    contracts, _ = compile_text("contract c(N: 8) { var a: slot? }\n", params={"N": 16})
    assert contracts[0].params == {"N": 16}
    assert contracts[0].variables[0].type == OptionType(inner=IntType(lo=0, hi=15))
