"""The harness's records: every round as JSONL and CSV, a summary, and an HTML report
showing each task's score per round (so what the repair loop is worth is visible).

These four are the same bit for bit for the same answers (a replay gives identical
files); the measured times of each round go to `timings.csv` alone.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lablang.agent.rounds import HEADLINE, Round, per_round_means
from lablang.output import write_atomic

__all__ = ["write_reports"]

_COLUMNS = (
    "task",
    "round",
    "status",
    "errors",
    "warnings",
    "codes",
    "fixes_applied",
    *HEADLINE,
    "prompt_chars",
    "answer",
)
TIMES = ("agent_seconds", "check_seconds", "score_seconds")


def write_reports(rounds: Sequence[Round], out: Path) -> list[Path]:
    """rounds.jsonl, rounds.csv, summary.json and report.html in `out`."""
    files = []
    jsonl = out / "rounds.jsonl"
    records = [{k: v for k, v in r.to_json().items() if k not in TIMES} for r in rounds]
    write_atomic(jsonl, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    files.append(jsonl)
    table = out / "rounds.csv"
    write_atomic(table, _csv(rounds))
    files.append(table)
    summary = out / "summary.json"
    write_atomic(summary, json.dumps(_summary(rounds), indent=2, sort_keys=True) + "\n")
    files.append(summary)
    page = out / "report.html"
    write_atomic(page, _html(rounds))
    files.append(page)
    timings = out / "timings.csv"
    write_atomic(timings, _timings(rounds))
    files.append(timings)
    return files


def _timings(rounds: Sequence[Round]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("task", "round", *TIMES))
    for r in rounds:
        writer.writerow((r.task, r.round, *(f"{getattr(r, t):.4f}" for t in TIMES)))
    return buffer.getvalue()


def _csv(rounds: Sequence[Round]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_COLUMNS)
    for r in rounds:
        row: list[Any] = [r.task, r.round, r.status, r.errors, r.warnings, " ".join(r.codes)]
        row.append(r.fixes_applied)
        row += [f"{r.metrics.get(m, 0.0):.6f}" for m in HEADLINE]
        row += [r.prompt_chars, r.answer]
        writer.writerow(row)
    return buffer.getvalue()


def _summary(rounds: Sequence[Round]) -> dict[str, Any]:
    tasks = sorted({r.task for r in rounds})
    final = {t: [r for r in rounds if r.task == t][-1] for t in tasks}
    return {
        "tasks": len(tasks),
        "rounds": len(rounds),
        "clean": sum(final[t].status == "clean" for t in tasks),
        "per_round": {m: per_round_means(rounds, m) for m in HEADLINE},
        "final": {t: {m: final[t].metrics.get(m, 0.0) for m in HEADLINE} for t in tasks},
    }


def _html(rounds: Sequence[Round]) -> str:
    tasks = sorted({r.task for r in rounds})
    depth = max((r.round for r in rounds), default=0)
    head = "".join(f"<th>round {i}</th>" for i in range(1, depth + 1))
    body = []
    for task in tasks:
        cells = []
        own = {r.round: r for r in rounds if r.task == task}
        for i in range(1, depth + 1):
            r = own.get(i)
            if r is None:
                cells.append("<td></td>")
                continue
            reward = r.metrics.get("reward", 0.0)
            note = f"{r.status}, {r.errors} errors" + (f": {' '.join(r.codes)}" if r.codes else "")
            cells.append(
                f'<td title="{html.escape(note)}" style="background:{_shade(reward)}">'
                f"{reward:.3f}<br><small>{html.escape(r.status)}</small></td>"
            )
        body.append(f"<tr><th>{html.escape(task)}</th>{''.join(cells)}</tr>")
    means = per_round_means(rounds, "reward")
    mean_row = "".join(f"<td><b>{m:.3f}</b></td>" for m in means)
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'><title>lablang bench libstruct"
        "</title><style>body{font-family:sans-serif}td,th{padding:4px 10px;text-align:center}"
        "table{border-collapse:collapse}td{border:1px solid #ccc}</style></head><body>\n"
        "<h1>LibStructBench with .lab answers: reward per round</h1>\n"
        "<p>Each cell is the task's reward after that round (0.30 Task 2 family F1 + 0.70 "
        "Task 3 transition F1); the last row is the mean over tasks, a task that stopped "
        "keeping its last score.</p>\n"
        f"<table><tr><th>task</th>{head}</tr>\n" + "\n".join(body) + "\n"
        f"<tr><th>mean</th>{mean_row}</tr></table>\n</body></html>\n"
    )


def _shade(value: float) -> str:
    value = max(0.0, min(1.0, value))
    return f"hsl({int(120 * value)}, 60%, 85%)"
