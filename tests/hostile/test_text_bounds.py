"""Small `.lab` files that once ran for minutes: each is now a located diagnostic, in bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.limits import Limits
from lablang.source import Source
from lablang.syntax import parse
from tests.hostile.bounded import ROOT, run_bounded

HUGE_NUMBERS = {
    "wait": "protocol p { step a { incubate: 1e100000000 s } }\n",
    "repeat": "protocol p { step a { thermocycle { repeat 1e5000 { 98 C 15 s } } } }\n",
    "scene": "scene s { a: 1e400 }\n",
    "digits": "scene s { a: " + "9" * 5000 + " }\n",
    "weight": 'rubric r { item a "x" weight 1e10000000 }\n',
}


@pytest.mark.parametrize("name", sorted(HUGE_NUMBERS))
def test_huge_number_literals_are_E0020_at_the_literal(name: str, tmp_path: Path) -> None:
    """A number with a huge exponent or thousands of digits is E0020 located at it, fast."""
    path = tmp_path / f"{name}.lab"
    path.write_text(HUGE_NUMBERS[name])
    run = run_bounded(["check", str(path)], cpu_seconds=20, memory_mb=600)
    run.assert_clean()
    assert run.returncode == 1
    assert "error[E0020]" in run.output
    assert f"{path}:1:" in run.output


def test_every_command_that_reads_numbers_refuses_the_literal(tmp_path: Path) -> None:
    """export, fmt and diff stop at the same E0020 instead of converting the literal."""
    path = tmp_path / "wait.lab"
    path.write_text(HUGE_NUMBERS["wait"])
    for args in (
        ["export", str(path)],
        ["fmt", "--check", str(path)],
        ["diff", str(path), str(path)],
    ):
        run = run_bounded(args, cpu_seconds=20, memory_mb=600)
        run.assert_clean()
        assert run.returncode != 0
        assert "E0020" in run.output, (args, run.output)


def test_a_homopolymer_count_of_five_thousand_digits_is_E0003() -> None:
    """`(T)` followed by 5,000 digits is out of the homopolymer bound, not an int() crash."""
    result = check_text("oligo x { seq: 5'-(T)" + "9" * 5000 + "-3' }")
    assert [d.code for d in result.report] == ["E0003"]
    assert "too many bases" in result.report.diagnostics[0].message


def test_placeholder_lengths_of_thousands_of_digits_are_E0003() -> None:
    """`[CB:999...]` with 5,000 digits is a range error, not an int() crash."""
    result = check_text("oligo x { seq: 5'-[CB:" + "9" * 5000 + "]-3' }")
    assert [d.code for d in result.report] == ["E0003"]


def test_literals_within_bounds_are_accepted() -> None:
    """Forty digits and an exponent of 100 are still numbers."""
    report = Report()
    parse(Source("scene s { a: 1e100  b: " + "1" * 40 + "  c: 2.5e-100 }"), report)
    assert list(report) == []


def test_a_file_of_semicolons_is_refused_by_token_count(tmp_path: Path) -> None:
    """3.9 MB of `;` (under the byte limit, 38 s to parse before) is E0021, in bounds."""
    path = tmp_path / "semis.lab"
    path.write_text(";" * 3_900_000)
    run = run_bounded(["check", str(path)], cpu_seconds=10, memory_mb=700)
    run.assert_clean()
    assert run.returncode == 1
    assert "error[E0021]: file has more than 150000 tokens" in run.output


def test_the_token_limit_counts_strings_and_sequences_as_one_token() -> None:
    """A long string or sequence is one token: the limit is not hit by big literals."""
    report = Report()
    text = "oligo x { seq: 5'-" + "ACGT" * 2000 + "-3' role: \"" + "y" * 9000 + '" }'
    parse(Source(text), report, Limits(max_tokens=20))
    assert [d.code for d in report] == []


def test_parentheses_keep_the_expression_depth() -> None:
    """Sixty parenthesised sums of 150 terms are too deep (E0002), not a RecursionError later."""
    inner = "x"
    for _ in range(60):
        inner = "(" + inner + "+x" * 150 + ")"
    report = Report()
    parse(Source("scene s { a: " + inner + " }"), report)
    assert [d.code for d in report] == ["E0002"]


def test_export_and_fmt_of_a_parenthesised_deep_expression_do_not_crash(tmp_path: Path) -> None:
    """The expression that once passed `check` and crashed `export`/`fmt` is E0002 in both."""
    inner = "x"
    for _ in range(60):
        inner = "(" + inner + "+x" * 150 + ")"
    path = tmp_path / "deep.lab"
    path.write_text("scene s { a: " + inner + " }\n")
    for args in (["check", str(path)], ["export", str(path)], ["fmt", str(path)]):
        run = run_bounded(args, cpu_seconds=20, memory_mb=700)
        run.assert_clean()
        assert run.returncode == 1 and "E0002" in run.output, (args, run.output[-500:])


def test_token_counting_is_linear_on_unterminated_sequences(tmp_path: Path) -> None:
    """A 1 MB line of `5'-` openings that never close (a fuzz hang) is counted in bounds."""
    path = tmp_path / "open.lab"
    path.write_text("oligo x { seq: " + "5'-ACGT " * 120_000 + "}\n")
    run = run_bounded(["check", str(path)], cpu_seconds=20, memory_mb=900)
    run.assert_clean()
    assert run.returncode == 1


def test_token_counting_is_linear_on_unclosed_brackets_in_sequences() -> None:
    """Thousands of `5'-... [` with no `]` on one long line (a fuzz hang) count quickly."""
    from lablang.syntax import token_limit_offset

    line = "strand s: DNA 5'-AATGATACGGCGACC [I5_INDEX " * 30_000
    assert token_limit_offset(line, Limits(max_tokens=10**7)) is None


def _protocol_with_steps(lines: int, per_line: int, distinct: bool) -> str:
    """The published PCR protocol with `lines x per_line` extra transfer steps after it."""
    base = (ROOT / "examples" / "protocols" / "pcr_published.lab").read_text("utf-8")
    head, _, _ = base.rpartition("}")
    rows = []
    for line in range(lines):
        steps = []
        for k in range(per_line):
            name = f"s{line}_{k}" if distinct else "recover"
            steps.append(f"step {name} {{ transfer: 1 uL from pcr  to: final }}")
        rows.append("  " + "   ".join(steps))
    return head + "\n".join(rows) + "\n}\n"


def test_a_program_slice_repeated_past_the_token_limit_is_E0021_in_every_command(
    tmp_path: Path,
) -> None:
    """The fuzz inputs that ran 8-21 s (a step repeated on one 1-4 MB line) stop at E0021."""
    path = tmp_path / "repeated.lab"
    path.write_text(_protocol_with_steps(1, 14_000, distinct=False))
    assert 500_000 < path.stat().st_size < 4 * 1024 * 1024
    published = str(ROOT / "examples" / "protocols" / "pcr_published.lab")
    for args in (
        ["check", str(path)],
        ["export", str(path)],
        ["fmt", "--check", str(path)],
        ["diff", published, str(path)],
    ):
        run = run_bounded(args, cpu_seconds=10, memory_mb=700)
        run.assert_clean()
        assert run.returncode == 1, (args, run.output[-500:])
        assert "error[E0021]: file has more than 150000 tokens" in run.output, args
        assert f"{path}:" in run.output  # located at the token past the limit


def test_a_program_just_under_the_token_limit_is_checked_in_bounds(tmp_path: Path) -> None:
    """9,500 distinct steps (124,000 tokens) are parsed and checked to the end, in bounds."""
    path = tmp_path / "long.lab"
    path.write_text(_protocol_with_steps(1_900, 5, distinct=True))
    run = run_bounded(["check", str(path)], cpu_seconds=60, memory_mb=1500)
    run.assert_clean()
    assert "E0021" not in run.output and "E0004" not in run.output
    # the volume check ran over the steps: the extra transfers empty `pcr`
    assert run.returncode == 1 and "error[E0803]" in run.output, run.output[-500:]
