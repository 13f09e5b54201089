"""Reconstruction scoring: LibStructBench Task 1-3 scores, reproduced exactly.

>>> from lablang.scoring import Weights
>>> Weights().reward.t3
0.7
"""

from lablang.scoring.score import (
    MatchedPair,
    ScoreResult,
    Unmatched,
    detect_task,
    load_documents,
    score_documents,
    score_files,
)
from lablang.scoring.weights import Weights, WeightsError

__all__ = [
    "MatchedPair",
    "ScoreResult",
    "Unmatched",
    "Weights",
    "WeightsError",
    "detect_task",
    "load_documents",
    "score_documents",
    "score_files",
]
