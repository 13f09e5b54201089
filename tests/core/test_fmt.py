"""The formatter: canonical, idempotent, comment-preserving, and never changes meaning."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lablang import fmt
from lablang.diagnostics import Report
from lablang.fmt import format_module, format_source, strip_spans
from lablang.source import Source
from lablang.syntax import parse
from tests.core.strategies import modules

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "tests" / "data").glob("*.lab")) + sorted(
    (ROOT / "examples").rglob("*.lab")
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_printed_generated_trees_parse_back_to_the_same_tree(module) -> None:  # type: ignore[no-untyped-def]
    """Any AST printed by the formatter parses to the same tree."""
    text = format_module(module)
    report = Report()
    again = parse(Source(text), report)
    assert not report.has_errors, (text, [d.message for d in report])
    assert strip_spans(again) == strip_spans(module), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_formatting_twice_changes_nothing(module) -> None:  # type: ignore[no-untyped-def]
    """fmt is idempotent on any generated program."""
    once = format_source(Source(format_module(module)), Report())
    assert once is not None
    assert format_source(Source(once), Report()) == once


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_format_idempotently_and_keep_every_comment(path: Path) -> None:
    """Every example keeps its tree and all its comments under fmt, and fmt(fmt(x)) == fmt(x)."""
    source = Source(path.read_text("utf-8"), str(path))
    report = Report()
    once = format_source(source, report)
    assert once is not None, [d.message for d in report]
    original = parse(source, Report())
    assert sorted(c.text for c in parse(Source(once), Report()).comments) == sorted(
        c.text for c in original.comments
    )
    assert format_source(Source(once), Report()) == once


def test_comments_stay_next_to_what_they_describe() -> None:
    """A leading comment stays above its member and a trailing one stays on its line."""
    text = "# header\noligo X {\n  # the sequence\n  seq: 5'-ACGT-3'   # 4 nt\n  role: primer\n}\n"
    assert format_source(Source(text), Report()) == (
        "# header\noligo X {\n  # the sequence\n  seq: 5'-ACGT-3'  # 4 nt\n  role: primer\n}\n"
    )


def test_a_strand_end_parses_unquoted_and_prints_in_canonical_form() -> None:
    """`end: top   3'` parses as one strand end and prints `top 3'`; the quoted form and a
    sequence named `bottom` stay what they were."""
    text = (
        "workflow w {\n  x = ligate(t, adapter: a, end: top   3')\n"
        "  y = ligate(t, adapter: a, end: \"bottom 5'\")\n  z = f(bottom 5'-ACGT-3')\n}\n"
    )
    report = Report()
    module = parse(Source(text), report)
    assert not report.has_errors
    out = format_source(Source(text), Report())
    assert out is not None
    assert "end: top 3')" in out and 'end: "bottom 5\'")' in out and "f(bottom 5'-ACGT-3')" in out
    assert format_source(Source(out), Report()) == out
    assert 'End(prime="3\'"' in repr(strip_spans(module)) and "strand='top'" in repr(module)


def test_members_that_would_run_together_get_a_semicolon() -> None:
    """`98 C for 3 min` followed by `(...)` would read as a call: fmt separates them."""
    text = "protocol p { step s { thermocycle {\n98 C for 3 min; (95 C, 1 s)\n} } }"
    out = format_source(Source(text), Report())
    assert out is not None and "98 C for 3 min;\n" in out
    one_line = format_source(Source(text.replace("\n", " ")), Report())
    assert one_line is not None and "{ 98 C for 3 min; (95 C, 1 s) }" in one_line


def test_fmt_refuses_output_that_changes_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """When printing would change the tree, fmt reports E0010 and returns nothing."""
    monkeypatch.setattr(fmt, "quote", lambda value: '"changed"')
    report = Report()
    assert format_source(Source('oligo X "title" {}'), report) is None
    assert [d.code for d in report] == ["E0010"]


def test_fmt_check_and_write_from_the_cli(tmp_path: Path) -> None:
    """`lablang fmt --check` exits 1 on an unformatted file; `lablang fmt` rewrites it."""
    from click.testing import CliRunner

    from lablang.cli import main

    path = tmp_path / "a.lab"
    path.write_text("oligo X{seq:5'-ACGT-3'}")
    runner = CliRunner()
    assert runner.invoke(main, ["fmt", "--check", str(path)]).exit_code == 1
    assert runner.invoke(main, ["fmt", str(path)]).exit_code == 0
    assert path.read_text() == "oligo X {\n  seq: 5'-ACGT-3'\n}\n"
    assert runner.invoke(main, ["fmt", "--check", str(path)]).exit_code == 0


def test_fmt_leaves_a_file_with_syntax_errors_untouched(tmp_path: Path) -> None:
    """A file that does not parse is reported and not rewritten."""
    from click.testing import CliRunner

    from lablang.cli import main

    path = tmp_path / "a.lab"
    path.write_text("oligo X {")
    result = CliRunner().invoke(main, ["fmt", str(path)])
    assert result.exit_code == 1
    assert path.read_text() == "oligo X {"


SHIPPED = sorted((ROOT / "stdlib").rglob("*.lab")) + sorted((ROOT / "examples").rglob("*.lab"))


def test_every_shipped_lab_file_is_in_canonical_form() -> None:
    """`lablang fmt --check` passes on every `.lab` under stdlib/ and examples/ (CI runs it here)."""
    from click.testing import CliRunner

    from lablang.cli import main

    assert len(SHIPPED) > 40
    result = CliRunner().invoke(main, ["fmt", "--check", *map(str, SHIPPED)])
    assert result.exit_code == 0, result.output


def test_a_dotted_module_name_is_kept_and_formats_unchanged() -> None:
    """`module lab.pcr "x"` is the module `lab.pcr` (not `lab...pcr`) and is already canonical."""
    text = 'module lab.pcr "x"\n\nuse illumina.{P5}\n'
    assert parse(Source(text), Report()).name == "lab.pcr"
    assert format_source(Source(text), Report()) == text


def test_a_record_longer_than_the_line_is_printed_one_member_a_line() -> None:
    """A record past LINE_LENGTH wraps one member a line; a short one-line record stays on one line."""
    names = ", ".join(f'm{i}: "material number {i}"' for i in range(8))
    text = f"protocol p {{\n  materials: {{{names}}}\n  containers: {{a: 1 uL, b: 2 uL}}\n}}\n"
    out = format_source(Source(text), Report())
    assert out is not None
    assert max(len(line) for line in out.splitlines()) <= fmt.LINE_LENGTH
    assert '  materials: {\n    m0: "material number 0"\n' in out
    assert "  containers: {a: 1 uL, b: 2 uL}\n" in out
    assert format_source(Source(out), Report()) == out


def test_a_block_written_on_one_line_stays_there_while_it_fits() -> None:
    """`step s { add: ...  to: ... }` keeps its one line; the same block over the line length wraps."""
    short = "protocol p {\n  step s { add: 5 uL of m  to: pcr }\n}\n"
    assert format_source(Source(short), Report()) == short
    long = short.replace("to: pcr", 'to: pcr  note: "' + "x" * 80 + '"')
    out = format_source(Source(long), Report())
    assert out is not None and "  step s {\n    add: 5 uL of m\n    to: pcr\n" in out


def test_a_long_and_chain_breaks_before_its_operators() -> None:
    """A field whose `a and b and c` value is past the line length continues under its first operand."""
    terms = " and ".join(f"contains(tube_{i}, buffer, {i}0 uL)" for i in range(5))
    text = f"task t {{\n  step s {{\n    success: {terms}\n  }}\n}}\n"
    out = format_source(Source(text), Report())
    assert out is not None
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= fmt.LINE_LENGTH
    continued = [line for line in lines if line.strip().startswith("and ")]
    assert continued and all(line.startswith(" " * len("    success: ")) for line in continued)


def test_generated_lab_text_comes_out_in_canonical_form(tmp_path: Path) -> None:
    """What `diff --task`, `import` of seqspec and `import` of LibStructBench JSON write is canonical."""
    from click.testing import CliRunner

    from lablang.cli import main

    runner = CliRunner()
    protocols = ROOT / "examples" / "protocols"
    truth = ROOT / "tests" / "scoring" / "data" / "official_cases" / "drop_seq"
    spec = tmp_path / "spec.yaml"
    commands = [
        [
            "diff",
            str(protocols / "pcr_published.lab"),
            str(protocols / "pcr_gc_rich.lab"),
            "--task",
        ],
        ["export", str(ROOT / "examples" / "tenx_3p_v3.lab"), "--to", "seqspec", "-o", str(spec)],
        ["import", str(spec)],
        ["import", str(truth / "truth_t2.json"), str(truth / "truth_t3.json")],
    ]
    for command in commands:
        result = runner.invoke(main, command)
        assert result.exit_code in (0, 1), result.output
        if command[0] == "export":
            continue
        text = result.stdout
        assert format_source(Source(text), Report()) == text, command
