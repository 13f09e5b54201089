"""The percentile bootstrap over protocols, in seeded chunks that run as units.

Resampling protocols (a protocol drawn with all its attempts) is what both `score
--batch` and `grade` report as confidence intervals. The resamples are cut into chunks
whose seeds are spawned from the base seed before dispatch (numpy `SeedSequence`), and
each chunk's size depends only on the number of protocols; so the intervals are the
same on any executor, and memory stays bounded (a chunk holds at most `CELLS` counts)
however many resamples or protocols there are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lablang.executors import Executor, Unit, UnitFailure, run_units

# counts held at once by one chunk (resamples x protocols)
CELLS = 2_000_000
MAX_CHUNK = 1_000


def chunk_sizes(resamples: int, protocols: int) -> list[int]:
    """How many resamples each chunk draws (a function of the sizes only).

    >>> chunk_sizes(2500, 10)
    [1000, 1000, 500]
    """
    size = max(1, min(MAX_CHUNK, CELLS // max(protocols, 1)))
    full, rest = divmod(resamples, size)
    return [size] * full + ([rest] if rest else [])


def resample_chunk(payload: dict[str, Any]) -> np.ndarray:
    """The means of `count` resamples of the table's rows (one unit)."""
    table = np.asarray(payload["table"], dtype=float)
    protocols = table.shape[0]
    rng = np.random.default_rng(
        np.random.SeedSequence(payload["entropy"], spawn_key=(payload["index"],))
    )
    draws = rng.integers(0, protocols, size=(payload["count"], protocols))
    counts = np.zeros((payload["count"], protocols))
    np.add.at(counts, (np.arange(payload["count"])[:, None], draws), 1.0)
    # column by column with numpy's own summation (no BLAS, whose thread count could
    # change the rounding between a worker and this process)
    means = np.empty((payload["count"], table.shape[1]))
    for column in range(table.shape[1]):
        means[:, column] = (counts * table[:, column]).sum(axis=1) / protocols
    return means


def bootstrap_means(
    table: Sequence[Sequence[float]] | np.ndarray,
    *,
    seed: int,
    resamples: int,
    executor: Executor | None = None,
) -> np.ndarray:
    """`resamples` x columns: each column's mean over a resample of the rows (protocols).

    >>> bootstrap_means([[0.0], [1.0]], seed=1, resamples=4).shape
    (4, 1)
    """
    rows = np.nan_to_num(np.asarray(table, dtype=float))
    if rows.ndim != 2 or rows.shape[0] == 0:
        return np.zeros((resamples, rows.shape[1] if rows.ndim == 2 else 0))
    shared = rows.tolist()  # one copy for every unit (a copy each: 1 GB for 40,000 protocols)
    units = [
        Unit(
            f"bootstrap/{index}",
            seed,
            {"table": shared, "entropy": seed, "index": index, "count": count},
        )
        for index, count in enumerate(chunk_sizes(resamples, rows.shape[0]))
    ]
    parts = run_units(resample_chunk, units, executor or Executor())
    lost = [p for p in parts if isinstance(p, UnitFailure)]
    if lost:
        raise RuntimeError(f"bootstrap chunk {lost[0].key} failed: {lost[0].error}")
    return np.concatenate(parts, axis=0)


def percentile_intervals(
    means: np.ndarray, level: float = 0.95, clip: bool = False
) -> list[tuple[float, float]]:
    """Per column, the percentile interval of the bootstrap means."""
    if clip:
        means = np.clip(means, 0.0, 1.0)
    tail = (1.0 - level) / 2.0
    low = np.quantile(means, tail, axis=0)
    high = np.quantile(means, 1.0 - tail, axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]
