"""Reconstruction scoring: LibStructBench Task 1-3 scores, reproduced exactly.

The names are imported when first used, so that `lablang check` (which reads only the
Task 1 grader's score characters, `library_chars`) does not load the scoring backend and
networkx.

>>> from lablang.scoring import Weights
>>> Weights().reward.t3
0.7
"""

from __future__ import annotations

from lablang.exports import lazy_exports

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

_WHERE = {
    "MatchedPair": "lablang.scoring.score",
    "ScoreResult": "lablang.scoring.score",
    "Unmatched": "lablang.scoring.score",
    "Weights": "lablang.scoring.weights",
    "WeightsError": "lablang.scoring.weights",
    "detect_task": "lablang.scoring.score",
    "load_documents": "lablang.scoring.score",
    "score_documents": "lablang.scoring.score",
    "score_files": "lablang.scoring.score",
}

__getattr__ = lazy_exports("lablang.scoring", _WHERE)
