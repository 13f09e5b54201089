"""A check must not depend on layout: E0310 fires whatever separates the name from its
value, and `fmt` refuses (E0010) output whose check reports different codes."""

from __future__ import annotations

import pytest

from lablang import fmt
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.source import Source

LAYOUTS = (
    "oligo X { seq: 5'-ACGT-3' role primer }\n",
    "oligo X {\n  seq: 5'-ACGT-3'\n  role\n  primer\n}\n",
    "oligo X { seq: 5'-ACGT-3' role; primer }\n",
)


@pytest.mark.parametrize("text", LAYOUTS)
def test_a_field_without_its_colon_is_E0310_in_every_layout(text: str) -> None:
    """One line, two lines or a `;` between: the same E0310."""
    assert "E0310" in [d.code for d in check_text(text).report]


@pytest.mark.parametrize("text", LAYOUTS)
def test_formatting_keeps_what_check_reports(text: str) -> None:
    """The formatted text is checked with the same codes as the original."""
    formatted = fmt.format_source(Source(text, "x.lab"), Report())
    assert formatted is not None
    assert sorted(d.code for d in check_text(formatted).report) == sorted(
        d.code for d in check_text(text).report
    )


def test_the_safety_net_refuses_output_whose_diagnostics_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If formatting changed what `check` reports, the file is left alone with E0010."""
    calls: list[str] = []

    def codes(source: Source) -> list[str]:
        calls.append(source.text)
        return ["E0310"] if len(calls) == 1 else []

    monkeypatch.setattr(fmt, "_codes", codes)
    report = Report()
    assert fmt.format_source(Source("oligo   X { seq: 5'-ACGT-3' }\n", "x.lab"), report) is None
    assert [d.code for d in report] == ["E0010"]
    assert "what `check` reports" in report.diagnostics[0].message
