"""The records of batch scoring: an attempt to score, its scores, and a batch's result.

They sit below both `batch` (which produces them) and `report` (which draws them), so
the report takes a result as data and imports nothing back from the scorer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attrs import frozen

from lablang.scoring.aggregate import MetricSummary

# the metrics a batch's report shows and a lost attempt scores 0 on (every metric an
# attempt has is in scores.jsonl)
HEADLINE = (
    "reward",
    "sequence_similarity",
    "t2_required_family_f1",
    "t2_exact_required_family_recall",
    "t3_molecular_transition_f1",
    "t3_state_f1",
    "t3_typed_edge_f1",
)


@frozen
class Attempt:
    protocol: str
    attempt: str
    prediction: Path
    truth: Path


@frozen
class AttemptScore:
    protocol: str
    attempt: str
    metrics: dict[str, float]
    valid: bool
    diagnostics: tuple[dict[str, Any], ...]


@frozen
class BatchResult:
    rows: tuple[AttemptScore, ...]
    summary: dict[str, MetricSummary]
    skipped: tuple[dict[str, Any], ...]
    seed: int
