"""Text diagnostics are bounded: a long line prints a window around the span, a message is
cut, and past `max_printed_diagnostics` the rest are counted in one line."""

from __future__ import annotations

from pathlib import Path

from lablang.diagnostics import Report
from lablang.diagnostics.render import render_text, render_texts
from lablang.source import Source, Span
from tests.hostile.bounded import run_bounded


def _one_line_with_errors(count: int) -> str:
    names = " ".join(f"zz{i}" for i in range(count))
    return "oligo x { seq: 5'-ACGT-3' role: " + names + " }\n"


def test_nine_thousand_errors_on_one_long_line_print_a_bounded_report(tmp_path: Path) -> None:
    """The 80 KB one-line file with 9,000 errors (1 GB of output before) prints under 200 KB."""
    path = tmp_path / "many.lab"
    path.write_text(_one_line_with_errors(9000))
    run = run_bounded(["check", str(path)], cpu_seconds=30, memory_mb=700)
    run.assert_clean()
    assert run.returncode == 1
    assert len(run.output) < 200_000
    assert "... and 8798 more diagnostics not shown" in run.output
    assert "8998 errors" in run.output


def test_a_280_kb_line_is_bounded_too(tmp_path: Path) -> None:
    """The 280 KB case that was a MemoryError prints a bounded report."""
    path = tmp_path / "many.lab"
    path.write_text(_one_line_with_errors(30000))
    run = run_bounded(["check", str(path)], cpu_seconds=60, memory_mb=900)
    run.assert_clean()
    assert run.returncode == 1 and len(run.output) < 200_000


def test_the_snippet_window_keeps_the_caret_under_the_span() -> None:
    """On a cut line the caret still points at the marked text."""
    text = "a" * 5000 + " BAD " + "b" * 5000
    report = Report()
    diagnostic = report.add(
        "E0100", "unexpected character", Source(text, "x.lab"), Span(5001, 5004)
    )
    lines = render_text(diagnostic).splitlines()
    code_line = next(line for line in lines if line.startswith("1 | "))
    caret_line = next(line for line in lines if "^" in line)
    column = caret_line.index("^")
    assert code_line[column : column + 3] == "BAD"
    assert code_line.endswith("…") and "| …" in code_line
    assert len(code_line) < 200


def test_long_messages_are_cut() -> None:
    """A message quoting a huge name is cut to a bounded length."""
    report = Report()
    diagnostic = report.add("E0203", "oligo `" + "n" * 100_000 + "` is not declared", None)
    assert len(render_text(diagnostic)) < 2000


def test_render_texts_counts_what_it_does_not_print() -> None:
    """Past the limit the report ends with one line counting the rest."""
    report = Report()
    for _ in range(5):
        report.add("E0203", "x", None)
    text = render_texts(report.diagnostics, limit=2)
    assert text.count("error[E0203]") == 2
    assert text.endswith("... and 3 more diagnostics not shown (`--json` lists every one; "
                         "the limit is `max_printed_diagnostics`)")  # fmt: skip
