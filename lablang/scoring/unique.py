"""Proofs that an assignment is the only optimum, so a fast solver may stand in for the grader's.

The grader assigns with its own Hungarian method, cubic and driven from Python
(`matching.hungarian_min_cost`). scipy's `linear_sum_assignment` finds an optimum much
faster, but where several assignments tie it may pick another one, and the pairs chosen
decide later scores (the state map feeds the transitions). Where the optimum is unique,
and better than every other assignment by a clear margin, any exact method returns it,
the grader's included. This module checks that for a candidate assignment, or says it
cannot (None, and the caller runs the grader's method).

How: every other assignment differs from the candidate by disjoint alternating cycles
and paths. Written on the rows (an edge r -> r' when row r takes the column of r', plus
a source S and a sink T for paths that free or fill a column), each of them is a cycle
whose weight is the score it loses. The candidate is optimal when no cycle is negative,
so Bellman-Ford potentials exist; reweighted by them every edge is non-negative, and a
cycle's weight is the sum of its reweighted edges. If the edges of weight at most
`margin` form no cycle, every cycle contains an edge above the margin: every other
assignment scores at least `margin` less. The test is sufficient, not necessary: an
optimum it cannot prove unique (a tie, or a near tie within the margin) goes the slow
way, never to a wrong answer.
"""

from __future__ import annotations

import numpy as np

# Other assignments must score this much less (relative to the largest score), far
# above the rounding of the grader's floating-point potentials (about rows^2 x 1e-16).
RELATIVE_MARGIN = 1e-7


def unique_partial_matching(scores: np.ndarray, eligible: np.ndarray, columns: np.ndarray) -> bool:
    """Whether `columns` (row -> column or -1) is the only maximum-weight partial matching.

    Only `eligible` pairs may be matched; a row may stay unmatched at no cost.

    >>> scores = np.array([[0.9, 0.2], [0.8, 0.7]])
    >>> bool(unique_partial_matching(scores, scores >= 0.25, np.array([0, 1])))
    True
    >>> tied = np.array([[0.9, 0.9], [0.9, 0.9]])
    >>> bool(unique_partial_matching(tied, tied >= 0.25, np.array([0, 1])))
    False
    """
    n, m = scores.shape
    matched = columns >= 0
    if matched.any() and not eligible[np.nonzero(matched)[0], columns[matched]].all():
        return False
    held = np.zeros(n)
    held[matched] = scores[np.nonzero(matched)[0], columns[matched]]
    free_columns = np.ones(m, dtype=bool)
    free_columns[columns[matched]] = False
    # the best free column each row could take instead (-inf where none is eligible)
    take_free = np.where(eligible & free_columns[None, :], scores, -np.inf).max(
        axis=1, initial=-np.inf
    )
    to_sink = np.where(matched, np.minimum(held, held - take_free), held - take_free)
    return _proven(scores, eligible, columns, matched, held, to_sink)


def unique_full_matching(scores: np.ndarray, columns: np.ndarray) -> bool:
    """Whether `columns` (a distinct column per row, rows <= columns) is the only maximum assignment.

    >>> bool(unique_full_matching(np.array([[0.9, 0.1, 0.0], [0.8, 0.7, 0.0]]), np.array([0, 1])))
    True
    >>> bool(unique_full_matching(np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([0, 1])))
    False
    """
    n, m = scores.shape
    matched = np.ones(n, dtype=bool)
    held = scores[np.arange(n), columns]
    free_columns = np.ones(m, dtype=bool)
    free_columns[columns] = False
    if free_columns.any():
        to_sink = held - scores[:, free_columns].max(axis=1)
    else:
        to_sink = np.full(n, np.inf)
    eligible = np.ones((n, m), dtype=bool)
    return _proven(scores, eligible, columns, matched, held, to_sink)


def _proven(
    scores: np.ndarray,
    eligible: np.ndarray,
    columns: np.ndarray,
    matched: np.ndarray,
    held: np.ndarray,
    to_sink: np.ndarray,
) -> bool:
    """Build the exchange graph on rows (+ source, sink) and run the two checks."""
    n = scores.shape[0]
    if not np.isfinite(scores).all():
        return False
    source, sink = n, n + 1
    weight = np.full((n + 2, n + 2), np.inf)
    rows = np.nonzero(matched)[0]
    # r -> r': r gives up what it holds and takes the column r' holds
    taken = columns[rows]
    weight[:n, rows] = np.where(eligible[:, taken], held[:, None] - scores[:, taken], np.inf)
    weight[np.arange(n), np.arange(n)] = np.inf
    weight[:n, sink] = to_sink
    weight[source, :n] = 0.0
    weight[sink, source] = 0.0
    margin = RELATIVE_MARGIN * max(1.0, float(np.abs(scores).max(initial=0.0)))
    potential = _potentials(weight)
    if potential is None:
        return False
    with np.errstate(invalid="ignore"):
        reduced = weight + potential[:, None] - potential[None, :]
    return _acyclic(np.isfinite(weight) & (reduced <= margin))


def _potentials(weight: np.ndarray) -> np.ndarray | None:
    """Shortest distances from a virtual node joined to all (Bellman-Ford), or None on a negative cycle."""
    distance = np.zeros(weight.shape[0])
    for _ in range(weight.shape[0] + 1):
        relaxed = np.minimum(distance, (distance[:, None] + weight).min(axis=0))
        if np.array_equal(relaxed, distance):
            return distance
        distance = relaxed
    return None


def _acyclic(edges: np.ndarray) -> bool:
    """Whether the directed graph with adjacency matrix `edges` has no cycle (Kahn's order)."""
    alive = np.ones(edges.shape[0], dtype=bool)
    indegree = edges.sum(axis=0)
    while True:
        sources = alive & (indegree == 0)
        if not sources.any():
            return not alive.any()
        alive &= ~sources
        indegree = indegree - edges[sources].sum(axis=0)
