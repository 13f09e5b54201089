"""`score --batch` gives byte-identical reports on one process, two processes and Ray."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from lablang.cli.scoring import score_command
from lablang.scoring.synthetic import make_truth, perturb


def _write(folder: Path, documents: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for task, document in documents.items():
        (folder / f"{task}.json").write_text(json.dumps(document))


def _batch(tmp_path: Path) -> tuple[Path, Path]:
    preds, truths = tmp_path / "preds", tmp_path / "truths"
    for protocol, seed in (("alpha", 1), ("beta", 2), ("gamma", 3)):
        rng = random.Random(seed)
        truth = make_truth(rng, oligos=6, states=5, transitions=3, protocol=protocol)
        _write(truths / protocol, truth)
        for attempt in range(3):
            _write(preds / protocol / f"a{attempt}", perturb(truth, rng, attempt))
    return preds, truths


def _report(preds: Path, truths: Path, out: Path, *executor: str) -> dict[str, bytes]:
    result = CliRunner().invoke(
        score_command,
        [
            "--batch",
            str(preds),
            "--truth",
            str(truths),
            "--out",
            str(out),
            "--seed",
            "5",
            *executor,
        ],
    )
    assert result.exit_code == 0, result.output
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_batch_reports_do_not_depend_on_the_executor(ray_cluster: Any, tmp_path: Path) -> None:
    """scores.jsonl, scores.csv, summary.json and report.html are the same bytes on every executor."""
    preds, truths = _batch(tmp_path)
    one = _report(preds, truths, tmp_path / "one")
    assert one == _report(preds, truths, tmp_path / "two", "--jobs", "2")
    assert one == _report(preds, truths, tmp_path / "ray", "--executor", "ray", "--jobs", "2")
    assert len((tmp_path / "one" / "scores.jsonl").read_text().splitlines()) == 9
