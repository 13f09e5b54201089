"""Batch scoring: many attempts per protocol, aggregated, written as JSONL, CSV and HTML.

Layout: `PRED_DIR/<protocol>/<attempt>/` (a folder of T1-T3 JSON files),
`PRED_DIR/<protocol>/<attempt>.json` (one task) or `PRED_DIR/<protocol>/<attempt>.lab`
(every task), and `TRUTH_DIR/<protocol>/`. A bad
prediction scores 0 for what cannot be read, with its diagnostics in the row; nothing
in one attempt stops the batch.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from lablang.diagnostics import Report
from lablang.scoring.aggregate import summarize
from lablang.scoring.attempts import HEADLINE, Attempt, AttemptScore, BatchResult
from lablang.scoring.score import (
    ScoreResult,
    _diagnostic_json,
    align_protocol_ids,
    answers_every_task,
    load_documents,
    score_documents,
)
from lablang.scoring.weights import Weights
from lablang.source import Source


def discover(pred_dir: Path, truth_dir: Path, report: Report) -> list[Attempt]:
    """Every (protocol, attempt) pair with a truth folder, in a stable order."""
    attempts = []
    for protocol in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
        truth = truth_dir / protocol.name
        if not truth.is_dir():
            report.add("E0507", f"protocol `{protocol.name}` has no truth folder in `{truth_dir}`",
                       Source("", str(protocol)), help=f"add `{truth}` or remove the predictions")  # fmt: skip
            continue
        for attempt in sorted(protocol.iterdir()):
            if attempt.is_dir() or attempt.suffix in (".json", ".lab"):
                attempts.append(Attempt(protocol.name, attempt.stem, attempt, truth))
    return attempts


def score_batch(
    pred_dir: str | Path,
    truth_dir: str | Path,
    *,
    weights: Weights | None = None,
    roots: Sequence[str | Path] = (),
    seed: int = 0,
    resamples: int = 2000,
    progress: bool | None = None,
    executor: Any = None,
) -> BatchResult:
    """Score every attempt and aggregate per metric over protocols.

    `progress=None` shows the progress bar only on a terminal; `roots` are extra module
    roots for `.lab` predictions. Each attempt is one unit on `executor` (a
    `lablang.executors.Executor`; default: this process); rows come back in attempt
    order, so the result does not depend on the executor. Ray workers read the
    prediction and truth paths themselves (a filesystem shared with the cluster).
    """
    from lablang.executors import Executor, Unit, UnitFailure, run_units

    report = Report()
    attempts = discover(Path(pred_dir), Path(truth_dir), report)
    executor = executor if executor is not None else Executor()
    roots = [str(Path(r).resolve()) for r in roots]
    units = [
        Unit(f"{a.protocol}/{a.attempt}", index, {"attempt": a, "weights": weights, "roots": roots})
        for index, a in enumerate(attempts)
    ]
    show = sys.stderr.isatty() if progress is None else progress
    rows = []
    for attempt, row in zip(
        attempts, run_units(score_unit, units, executor, "scoring" if show else None), strict=True
    ):
        if isinstance(row, UnitFailure):  # lost after retries: reported, scored 0
            report.add("E0000", f"scoring `{row.key}` failed: {row.error}",
                       Source("", str(attempt.prediction)))  # fmt: skip
            row = AttemptScore(
                attempt.protocol, attempt.attempt, dict.fromkeys(HEADLINE, 0.0), False, ()
            )
        rows.append(row)
    per_metric: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        for name, value in row.metrics.items():
            per_metric.setdefault(name, {}).setdefault(row.protocol, []).append(value)
    summary = {
        name: summarize(values, seed=seed, resamples=resamples, executor=executor)
        for name, values in sorted(per_metric.items())
    }
    skipped = tuple(_diagnostic_json(d) for d in report.diagnostics)
    return BatchResult(tuple(rows), summary, skipped, seed)


_TRUTHS: dict[Path, tuple[dict[str, Any], Report]] = {}


def score_unit(payload: dict[str, Any]) -> AttemptScore:
    """One attempt scored in a worker (truths are read once per process)."""
    return _score_attempt(payload["attempt"], _TRUTHS, payload["weights"], payload["roots"])


def _score_attempt(
    attempt: Attempt,
    truth_cache: dict[Path, tuple[dict[str, Any], Report]],
    weights: Weights | None,
    roots: Sequence[str | Path] = (),
) -> AttemptScore:
    report = Report()
    if attempt.truth not in truth_cache:
        truth_report = Report()
        truth_cache[attempt.truth] = (load_documents(attempt.truth, truth_report), truth_report)
    truth, truth_report = truth_cache[attempt.truth]
    report.extend(truth_report)
    try:
        predictions = load_documents(attempt.prediction, report, roots)
        predictions, _ = align_protocol_ids(predictions, truth, attempt.prediction, attempt.truth)
        # an attempt folder or `.lab` answers every task of the truth; a JSON file its own only
        tasks = tuple(truth) if answers_every_task(attempt.prediction) else None
        result: ScoreResult = score_documents(
            predictions,
            truth,
            weights,
            report=report,
            prediction_name=str(attempt.prediction),
            tasks=tasks,
        )
        metrics = dict(result.metrics)
        valid = result.prediction_valid
    except Exception as error:  # a lablang bug must not stop the batch; it is reported as one
        report.add("E0000", f"internal error while scoring: {type(error).__name__}: {error}",
                   Source("", str(attempt.prediction)))  # fmt: skip
        metrics, valid = {}, False
    # what could not be read scores 0 on the headline metrics the truth supports
    for name in _expected_metrics(truth):
        metrics.setdefault(name, 0.0)
    return AttemptScore(
        attempt.protocol, attempt.attempt, metrics, valid,
        tuple(_diagnostic_json(d) for d in report.diagnostics),
    )  # fmt: skip


def _expected_metrics(truth: dict[str, Any]) -> list[str]:
    names = []
    if "t1" in truth:
        names.append("sequence_similarity")
    if "t2" in truth:
        names += ["t2_required_family_f1", "t2_exact_required_family_recall"]
    if "t3" in truth:
        names += ["t3_molecular_transition_f1", "t3_state_f1", "t3_typed_edge_f1"]
    if "t2" in truth and "t3" in truth:
        names.append("reward")
    return names


def write_outputs(result: BatchResult, out_dir: str | Path) -> list[Path]:
    """`scores.jsonl`, `scores.csv`, `summary.json` and `report.html`, each written atomically."""
    from lablang.scoring.report import render_html

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = "".join(json.dumps(attrs.asdict(row), sort_keys=True) + "\n" for row in result.rows)
    names = sorted({name for row in result.rows for name in row.metrics})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["protocol", "attempt", "valid", *names])
    for row in result.rows:
        writer.writerow([row.protocol, row.attempt, int(row.valid),
                         *(f"{row.metrics[n]:.6f}" if n in row.metrics else "" for n in names)])  # fmt: skip
    summary = {
        "seed": result.seed,
        "metrics": {
            name: {**attrs.asdict(s), "best_of_k": {str(k): v for k, v in s.best_of_k.items()}}
            for name, s in result.summary.items()
        },
        "skipped": list(result.skipped),
    }
    files = {
        "scores.jsonl": jsonl,
        "scores.csv": buffer.getvalue(),
        "summary.json": json.dumps(summary, indent=2, sort_keys=True) + "\n",
        "report.html": render_html(result),
    }
    return [write_atomic(out / name, text) for name, text in files.items()]


def write_atomic(path: Path, text: str) -> Path:
    """Write through `lablang.output.write_atomic` (newlines as given) and return the path."""
    from lablang.output import write_atomic as write

    write(path, text)
    return path
