"""Aggregating attempts: mean, expected best-of-k, and a bootstrap CI over protocols."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb
from typing import Any

import numpy as np
from attrs import frozen


def expected_best_of_k(scores: Sequence[float], k: int) -> float:
    """Expected maximum of k attempts drawn without replacement from n (unbiased).

    With the scores sorted ascending, x_(1) <= ... <= x_(n):
    E[max] = sum_{i=k..n} C(i-1, k-1) / C(n, k) * x_(i).

    >>> expected_best_of_k([0.2, 0.5, 0.9], 2)  # (0.5 + 0.9 + 0.9) / 3
    0.7666666666666666
    """
    n = len(scores)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and {n}, not {k}")
    ordered = sorted(scores)
    total = comb(n, k)
    return sum(comb(i - 1, k - 1) * ordered[i - 1] for i in range(k, n + 1)) / total


@frozen
class MetricSummary:
    """One metric over protocols: the mean of per-protocol means, its CI, and best-of-k."""

    mean: float
    ci_low: float
    ci_high: float
    best_of_k: Mapping[int, float]
    protocols: int


def summarize(
    per_protocol: Mapping[str, Sequence[float]],
    *,
    seed: int = 0,
    resamples: int = 2000,
    executor: Any = None,
) -> MetricSummary:
    """Mean over protocols of each protocol's attempt mean, a percentile bootstrap CI
    (resampling protocols, seeded), and best-of-k for every k all protocols support.

    >>> s = summarize({"a": [1.0, 0.0], "b": [0.5, 0.5]}, seed=1, resamples=200)
    >>> s.mean, dict(s.best_of_k)
    (0.5, {1: 0.5, 2: 0.75})
    """
    protocols = sorted(per_protocol)
    if not protocols:
        return MetricSummary(0.0, 0.0, 0.0, {}, 0)
    means = np.array([float(np.mean(per_protocol[p])) for p in protocols])
    from lablang.executors.bootstrap import bootstrap_means, percentile_intervals

    boot = bootstrap_means(means[:, None], seed=seed, resamples=resamples, executor=executor)
    ((low, high),) = percentile_intervals(boot)
    k_max = min(len(per_protocol[p]) for p in protocols)
    best = {
        k: float(np.mean([expected_best_of_k(per_protocol[p], k) for p in protocols]))
        for k in range(1, k_max + 1)
    }
    return MetricSummary(float(means.mean()), float(low), float(high), best, len(protocols))
