"""Exactly tied assignments break the way the grader's Hungarian method breaks them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from lablang.scoring.matching import (
    best_one_to_one_matching,
    best_partial_one_to_one_matching,
    hungarian_min_cost,
)


def scalar_hungarian(costs: list[list[float]]) -> list[int]:
    """The textbook shortest-augmenting-path Hungarian method, scalar loops, as the grader runs it."""
    n, m = len(costs), len(costs[0])
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    p, way = [0] * (m + 1), [0] * (m + 1)
    for row in range(1, n + 1):
        p[0], col0 = row, 0
        minv, used = [float("inf")] * (m + 1), [False] * (m + 1)
        while True:
            used[col0] = True
            row0, delta, col1 = p[col0], float("inf"), 0
            for col in range(1, m + 1):
                if used[col]:
                    continue
                current = costs[row0 - 1][col - 1] - u[row0] - v[col]
                if current < minv[col]:
                    minv[col], way[col] = current, col0
                if minv[col] < delta:
                    delta, col1 = minv[col], col
            for col in range(m + 1):
                if used[col]:
                    u[p[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if p[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            p[col0] = p[col1]
            col0 = col1
    out = [-1] * n
    for col in range(1, m + 1):
        if p[col]:
            out[p[col] - 1] = col - 1
    return out


# few distinct values, so most matrices have several optimal assignments
tied = st.integers(1, 6).flatmap(
    lambda n: st.integers(n, 7).flatmap(
        lambda m: st.lists(
            st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=m, max_size=m),
            min_size=n,
            max_size=n,
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(tied)
def test_vectorized_hungarian_picks_the_same_tied_assignment_as_the_scalar_method(
    scores: list[list[float]],
) -> None:
    """On tie-heavy matrices the numpy Hungarian returns the scalar algorithm's columns, not merely an optimum."""
    costs = [[-x for x in row] for row in scores]
    assert hungarian_min_cost(np.array(costs)).tolist() == scalar_hungarian(costs)


def test_a_built_tie_is_broken_as_the_grader_breaks_it() -> None:
    """Two predictions equally good for truth 1: the grader's pick, not scipy's `linear_sum_assignment`'s."""
    scores = [[0.0, 1.0], [0.0, 0.0], [0.0, 1.0]]
    # more predictions than truths: the grader assigns truths (the transposed problem);
    # its first augmenting path gives truth 1 to prediction 0, scipy gives it to 2
    transposed = [[-scores[p][g] for p in range(3)] for g in range(2)]
    assert scalar_hungarian(transposed) == [1, 0]
    assert best_one_to_one_matching(scores) == [(0, 1, 1.0), (1, 0, 0.0)]
    rows, cols = linear_sum_assignment(np.array(scores), maximize=True)
    assert sorted(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 0), (2, 1)]


def test_partial_matching_leaves_a_weak_pair_unmatched_on_a_tie() -> None:
    """With the dummy padding, a pair below the minimum is never forced, whichever tie is taken."""
    scores = [[0.9, 0.1], [0.9, 0.1]]
    pairs = best_partial_one_to_one_matching(scores, minimum_score=0.25)
    assert len(pairs) == 1 and pairs[0][1] == 0 and pairs[0][2] == 0.9
