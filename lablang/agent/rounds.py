"""The record of one round of `lablang bench libstruct`, and the per-round means.

They sit below both the harness (`bench`, which produces rounds) and its reports
(`bench_report`, which writes them), so the reports take rounds as data and import
nothing back from the harness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from attrs import frozen

# the scores the CSV and the HTML report show (every metric is in rounds.jsonl)
HEADLINE = (
    "reward",
    "sequence_similarity",
    "t2_required_family_f1",
    "t3_molecular_transition_f1",
    "t3_state_f1",
)


@frozen
class Round:
    task: str
    round: int
    status: str
    errors: int
    warnings: int
    codes: tuple[str, ...]
    fixes_applied: int
    metrics: dict[str, float]
    agent_seconds: float
    check_seconds: float
    score_seconds: float
    prompt_chars: int
    answer: str  # the answer file, relative to the output folder
    detail: str = ""
    diagnostics: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The round as JSON data (tuples as lists)."""
        return attrs.asdict(self)


def per_round_means(rounds: Sequence[Round], metric: str) -> list[float]:
    """Mean of `metric` over tasks after each round (a task that stopped keeps its last)."""
    by_task: dict[str, list[Round]] = {}
    for r in rounds:
        by_task.setdefault(r.task, []).append(r)
    if not by_task:
        return []
    depth = max(len(v) for v in by_task.values())
    means = []
    for i in range(depth):
        values = []
        for task_rounds in by_task.values():
            last = task_rounds[min(i, len(task_rounds) - 1)]
            values.append(last.metrics.get(metric, 0.0))
        means.append(sum(values) / len(values))
    return means
