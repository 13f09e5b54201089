"""Corrupted predictions never crash the scorer: they score what can be read, with diagnostics."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.scoring import score_documents
from lablang.scoring.synthetic import make_truth, perturb

JUNK: list[Any] = [None, 7, -1.5, "", "x", [], {}, [1, 2], {"a": None}, True]


def _corrupt(value: Any, rng: random.Random, edits: int) -> Any:
    """Replace, delete or retype `edits` randomly chosen nodes of a JSON value."""
    for _ in range(edits):
        node, key = value, None
        parent = None
        for _ in range(rng.randrange(1, 8)):
            children = (
                list(node.items())
                if isinstance(node, dict)
                else list(enumerate(node))
                if isinstance(node, list)
                else []
            )
            if not children:
                break
            parent, (key, node) = node, rng.choice(children)
        if parent is None:
            continue
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[key]
        else:
            parent[key] = rng.choice(JUNK)
    return value


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_corrupted_predictions_never_raise(seed: int, edits: int) -> None:
    """Whatever is deleted or retyped, scoring returns metrics in [0, 1] instead of raising."""
    rng = random.Random(seed)
    truth = make_truth(rng, oligos=4, states=4, transitions=3)
    pred = _corrupt(perturb(truth, rng, 1), rng, edits)
    result = score_documents(pred, truth)
    for name, value in result.metrics.items():
        assert 0.0 <= value <= 1.0 + 1e-12, name
