"""Every CSV file lablang writes opens in a spreadsheet as data: a cell that would start a
formula (`=`, `+`, `-`, `@`, tab, CR) is written with a leading `'`, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from lablang.spreadsheet import csv_text
from tests.hostile.bounded import ROOT, run_bounded

AGENTS = ROOT / "tests" / "agents"
FORMULA = "=cmd|calc!A1"


@given(st.lists(st.text(st.sampled_from("=+-@\t\r\n1.e,\"'a ")), min_size=1, max_size=6))
def test_no_cell_reads_back_as_a_formula(cells: list[str]) -> None:
    """Any row reads back with each cell a plain number or not starting a formula."""
    (row,) = list(csv.reader(io.StringIO(csv_text([cells]), newline="")))
    assert len(row) == len(cells)
    for written, given_cell in zip(row, cells, strict=True):
        if written.startswith(("=", "+", "-", "@", "\t", "\r")):
            float(written)  # only a number may start with `-`
        assert written in (given_cell, "'" + given_cell)


def test_negative_numbers_stay_numeric() -> None:
    """A negative score is written as a number, not as text."""
    assert csv_text([("reward",), ("-0.250000",), (-2,)]) == "reward\n-0.250000\n-2\n"


def test_bench_task_ids_are_not_formulas_in_rounds_csv(tmp_path: Path) -> None:
    """A task folder named like a formula is `'`-prefixed in rounds.csv and timings.csv."""
    tasks, replay = tmp_path / "tasks", tmp_path / "replay"
    shutil.copytree(AGENTS / "tasks" / "mini_lig", tasks / FORMULA)
    shutil.copytree(AGENTS / "replay" / "mini_lig", replay / FORMULA)
    out = tmp_path / "out"
    run = run_bounded(
        ["bench", "libstruct", "--tasks", str(tasks), "--out", str(out), "--replay", str(replay)],
        cpu_seconds=120,
        memory_mb=1536,
    )
    run.assert_clean()
    assert run.returncode == 0, run.output
    for name in ("rounds.csv", "timings.csv"):
        rows = list(csv.reader((out / name).open(newline="")))
        assert rows[1][0] == "'" + FORMULA, name


def test_score_batch_attempt_names_are_not_formulas_in_scores_csv(tmp_path: Path) -> None:
    """An attempt folder named `=cmd|calc!A1` is `'`-prefixed in scores.csv."""
    truth = AGENTS / "tasks" / "mini_lig" / "truth"
    preds, truths = tmp_path / "preds", tmp_path / "truths"
    shutil.copytree(truth, truths / "@protocol")
    shutil.copytree(truth, preds / "@protocol" / "=cmd|calc!A1")
    out = tmp_path / "out"
    run = run_bounded(
        ["score", "--batch", str(preds), "--truth", str(truths), "--out", str(out)],
        cpu_seconds=120,
        memory_mb=1536,
    )
    run.assert_clean()
    assert run.returncode == 0, run.output
    rows = list(csv.reader((out / "scores.csv").open(newline="")))
    assert rows[1][:2] == ["'@protocol", "'=cmd|calc!A1"]
    assert float(rows[1][-1]) == 1.0
