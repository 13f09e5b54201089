"""Untrusted input: no input produces a traceback, and lablang's own bugs are labelled as such."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lablang import driver
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.source import Source
from lablang.syntax import parse
from tests.core.mutations import mutate

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted((ROOT / "tests" / "data").glob("*.lab")) + sorted((ROOT / "examples").rglob("*.lab"))


def assert_no_internal_error(text: str) -> None:
    result = check_text(text, "fuzz.lab")
    codes = [d.code for d in result.report]
    assert "E0000" not in codes, (text, [d.message for d in result.report])


def test_two_thousand_mutated_examples_never_crash() -> None:
    """Mutated and truncated examples produce diagnostics, never a traceback or an internal error."""
    rng = random.Random(20261129)
    texts = [path.read_text("utf-8") for path in SEEDS]
    assert texts, "no seed examples found"
    for _ in range(2000):
        text = rng.choice(texts)
        for _ in range(rng.randrange(1, 4)):
            text = mutate(text, rng)
        assert_no_internal_error(text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    """Random bytes decoded leniently are reported on, never crash the checker."""
    assert_no_internal_error(data.decode("utf-8", "replace"))


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="{}()[]:;,.=<>-+*/%?#\"'5 3ACGTacgt\nxyz_0129 step oligo in not", max_size=200)
)
def test_random_token_soup_never_crashes(text: str) -> None:
    """Random mixes of the language's own characters never crash the checker."""
    assert_no_internal_error(text)


def test_internal_errors_are_reported_as_E0000(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug inside a stage becomes an `internal error` diagnostic, not a traceback."""

    def broken(program: object, report: Report) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(driver, "check", broken)
    result = check_text("oligo X { seq: 5'-ACGT-3' }")
    assert [d.code for d in result.report] == ["E0000"]
    assert "internal error: ZeroDivisionError: boom" in result.report.diagnostics[0].message


def test_deeply_nested_unary_chain_is_bounded() -> None:
    """Ten thousand `-` signs in a row are an E0002, not a recursion crash."""
    report = Report()
    parse(Source("scene s { a: " + "-" * 10000 + "1 }"), report)
    assert [d.code for d in report] == ["E0002"]


def test_long_flat_sums_are_bounded() -> None:
    """A sum of 5,000 terms is reported as too deep rather than overflowing later passes."""
    result = check_text("scene s { a: " + " + ".join(["1"] * 5000) + " }")
    assert "E0002" in [d.code for d in result.report]


def test_internal_errors_point_at_the_declaration_being_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An internal error inside the check of a declaration is located at that declaration."""
    import lablang.check as check_stage

    def broken(info: object, items: object, report: Report) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(check_stage, "_check_fields", broken)
    result = check_text("# first\noligo X { seq: 5'-ACGT-3' }")
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0000"
    assert diagnostic.start == (2, 7)
