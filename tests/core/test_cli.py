"""The core CLI verbs, run the way a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from lablang.cli import VERBS, main

GOOD = "oligo TSO { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACATrGrGrG-3' }\n"
BAD = "oligo TSO { seq: 5'-ACGT-3' }\ntransition rt : reverse_transcription { oligos: [TS0] }\n"


def write(tmp_path: Path, text: str, name: str = "a.lab") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_check_exits_0_on_a_clean_file(tmp_path: Path) -> None:
    """`lablang check` on a clean file prints a summary and exits 0."""
    result = CliRunner().invoke(main, ["check", write(tmp_path, GOOD)])
    assert result.exit_code == 0
    assert "0 errors" in result.output


def test_check_exits_1_with_a_located_diagnostic_and_its_fix(tmp_path: Path) -> None:
    """An undeclared oligo is reported with its line, column, caret and did-you-mean."""
    result = CliRunner().invoke(main, ["check", write(tmp_path, BAD)])
    assert result.exit_code == 1
    assert "error[E0203]: oligo `TS0` is not declared" in result.output
    assert "a.lab:2:50" in result.output
    assert "^^^" in result.output
    assert "did you mean `TSO`?" in result.output


def test_check_json_carries_code_location_and_machine_applicable_fix(tmp_path: Path) -> None:
    """`--json` gives every field an agent needs to repair the file without reading text."""
    result = CliRunner().invoke(main, ["check", "--json", write(tmp_path, BAD)])
    assert result.exit_code == 1
    payload = json.loads(result.output)
    assert payload["result"] == "not-ok"
    (diagnostic,) = payload["diagnostics"]
    assert diagnostic["code"] == "E0203"
    assert (diagnostic["line"], diagnostic["column"], diagnostic["end_column"]) == (2, 50, 53)
    edit = diagnostic["fix"]["edits"][0]
    assert edit["replacement"] == "TSO"
    text = Path(tmp_path / "a.lab").read_text()
    repaired = text[: edit["offset"]] + edit["replacement"] + text[edit["end_offset"] :]
    again = CliRunner().invoke(main, ["check", write(tmp_path, repaired, "b.lab")])
    assert again.exit_code == 0


def test_check_exits_2_on_usage_errors() -> None:
    """A missing argument is a usage error (exit 2), not a check failure."""
    assert CliRunner().invoke(main, ["check"]).exit_code == 2


def test_check_of_a_missing_file_reports_E0006(tmp_path: Path) -> None:
    """A path that does not exist is reported as E0006 and exits 1."""
    result = CliRunner().invoke(main, ["check", str(tmp_path / "nope.lab")])
    assert result.exit_code == 1
    assert "[E0006]" in result.output


def test_explain_prints_the_explanation_and_both_examples() -> None:
    """`lablang explain E0203` shows the title, the failing example and the fixed one."""
    result = CliRunner().invoke(main, ["explain", "E0203"])
    assert result.exit_code == 0
    assert result.output.startswith("E0203: name not declared")
    assert "Failing example:" in result.output and "Fixed:" in result.output


def test_explain_of_an_unknown_code_suggests_the_closest() -> None:
    """A mistyped code is a usage error with a suggestion."""
    result = CliRunner().invoke(main, ["explain", "E203"])
    assert result.exit_code == 2
    assert "did you mean" in result.output


def test_export_to_an_unavailable_format_is_reported_partial(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A backend format whose module is absent says it is partial instead of failing obscurely."""
    from lablang import export

    monkeypatch.setitem(export.EXPORTERS, "seqspec-0.3", "lablang.no_such_backend:export")
    result = CliRunner().invoke(main, ["export", write(tmp_path, GOOD), "--to", "seqspec-0.3"])
    assert result.exit_code == 1
    assert "[E0007]" in result.output and "partial" in result.output


def test_every_verb_has_help() -> None:
    """`lablang VERB --help` works for every registered verb, landed or not."""
    for verb in VERBS:
        result = CliRunner().invoke(main, [verb, "--help"])
        assert result.exit_code == 0, (verb, result.output)


def test_check_does_not_import_heavy_backends(tmp_path: Path) -> None:
    """`lablang check` on a file without scenes or contracts never imports mujoco, z3 or scipy."""
    path = write(tmp_path, GOOD)
    code = (
        "import sys\nfrom lablang.cli import main\n"
        "try:\n    main(['check', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('mujoco', 'z3', 'scipy', 'networkx') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, path],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
