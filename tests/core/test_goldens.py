"""Golden tests: one `.lab` case per diagnostic code and its rendered diagnostics.

A case is `tests/goldens/CODE.lab`, or a folder `tests/goldens/CODE/` whose `main.lab`
is checked (the other files are modules it imports). The expected output sits beside it
(`CODE.out` or `CODE/expected.out`). Directives on the first lines:

    # golden: max_file_bytes=64          (a limit for this case)
    # golden: command=verify --depth 4   (run `lablang verify --depth 4 FILE` instead of check)

Run `pytest tests/core/test_goldens.py --update-goldens` to rewrite the expected outputs.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from attrs import evolve
from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics.codes import CODES
from lablang.diagnostics.render import render_texts
from lablang.driver import check_file
from lablang.limits import Limits

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"
# Codes that no input file can trigger, and the test that pins each one instead.
COVERED_ELSEWHERE = {
    "E0000": "tests/core/test_robustness.py::test_internal_errors_are_reported_as_E0000",
    "E0006": "tests/core/test_cli.py::test_check_of_a_missing_file_reports_E0006",
    "E0007": "tests/core/test_cli.py::test_export_to_an_unavailable_format_is_reported_partial",
    "E0010": "tests/core/test_fmt.py::test_fmt_refuses_output_that_changes_the_tree",
    "E0022": "tests/hostile/test_data_files.py::test_every_data_reader_refuses_crafted_files_in_bounds",
    "E0023": "tests/hostile/test_outputs.py::test_export_refuses_to_overwrite_its_input",
    "E0460": "tests/hostile/test_molecular_growth.py::test_many_chained_split_pools_are_E0460_at_the_step_past_the_limit",
    # scoring codes concern benchmark JSON and scoring runs: each is pinned by its own test
    "E0501": "tests/scoring/test_diagnostics.py::test_E0501_unreadable_json",
    "E0502": "tests/scoring/test_diagnostics.py::test_E0502_not_a_libstruct_document",
    "E0503": "tests/scoring/test_diagnostics.py::test_E0503_empty_libraries_score_zero",
    # a bound on running simulations, not on a file's text
    "E0713": "tests/sim/test_budget.py::test_a_large_long_episode_stops_at_the_work_budget_and_names_it",
    # a certification's coverage of a step's alternatives, not a file's text
    "E0719": "tests/sim/test_choose.py::test_certification_reports_each_alternative_and_needs_every_one_taken",
    "E0504": "tests/scoring/test_diagnostics.py::test_E0504_empty_workflows_zero_every_libgen_metric",
    "E0505": "tests/scoring/test_diagnostics.py::test_E0505_invalid_weights_file",
    "E0506": "tests/scoring/test_diagnostics.py::test_E0506_unreadable_truth",
    "E0507": "tests/scoring/test_diagnostics.py::test_E0507_batch_protocol_without_truth",
    "E0530": "tests/hostile/test_scoring_bounds.py::test_an_oversized_prediction_scores_zero_with_E0530",
    "E0508": "tests/scoring/test_diagnostics.py::test_E0508_lab_answer_with_errors",
    "W0501": "tests/scoring/test_diagnostics.py::test_W0501_task_on_one_side_only",
    "W0502": "tests/scoring/test_diagnostics.py::test_W0502_t3_without_t2_compares_oligos_by_id",
}


def cases() -> list[tuple[str, Path, Path]]:
    found = []
    for entry in sorted(GOLDENS.iterdir()):
        if entry.suffix == ".lab":
            found.append((entry.stem.split(".")[0], entry, entry.with_suffix(".out")))
        elif entry.is_dir() and (entry / "main.lab").exists():
            found.append((entry.name, entry / "main.lab", entry / "expected.out"))
    return found


def directives(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_bytes().decode("utf-8", "replace").splitlines()[:3]:
        match = re.match(r"#\s*golden:\s*(\w+)=(.*)$", line)
        if match:
            values[match.group(1)] = match.group(2).strip()
    return values


def run_case(path: Path) -> str:
    options = directives(path)
    relative = os.path.relpath(path, GOLDENS.parent.parent)
    if "command" in options:
        result = CliRunner().invoke(main, [*shlex.split(options["command"]), relative])
        return result.output
    limits = Limits()
    overrides = {k: int(v) for k, v in options.items() if hasattr(limits, k)}
    result = check_file(relative, limits=evolve(limits, **overrides))
    return render_texts(result.report.sorted()) + "\n"


@pytest.mark.parametrize(("code", "path", "expected"), cases(), ids=[c[0] for c in cases()])
def test_golden_case_renders_its_expected_diagnostics(
    code: str, path: Path, expected: Path, update_goldens: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each golden case produces its code, rendered exactly as the expected file says."""
    monkeypatch.chdir(GOLDENS.parent.parent)
    output = run_case(path)
    if update_goldens or not expected.exists():
        expected.write_text(output, "utf-8")
    assert f"[{code}]" in output, f"{path.name} does not produce {code}"
    assert output == expected.read_text("utf-8")


def test_every_registered_code_has_a_golden_case_and_an_explanation() -> None:
    """A code without a golden case or an explanation is a diagnostic nobody has seen fire."""
    golden = {code for code, _, _ in cases()}
    for code, entry in CODES.items():
        assert entry.explanation.strip(), f"{code} has no explanation"
        assert entry.title.strip(), f"{code} has no title"
        if code in COVERED_ELSEWHERE:
            test_file, test_name = COVERED_ELSEWHERE[code].split("::")
            text = (GOLDENS.parent.parent / test_file).read_text("utf-8")
            assert f"def {test_name}(" in text, f"{code}: {COVERED_ELSEWHERE[code]} is missing"
        else:
            assert code in golden, f"{code} has no golden case in tests/goldens/"


def test_golden_cases_name_registered_codes() -> None:
    """A golden case for an unregistered code is a typo in its file name."""
    for code, path, _ in cases():
        assert code in CODES, f"{path} names unregistered code {code}"
