"""scipy answers an assignment only when its optimum is proven unique: results equal the grader's method."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.scoring import matching, score_documents
from lablang.scoring.matching import (
    AssignmentClock,
    best_one_to_one_matching,
    best_partial_one_to_one_matching,
)
from lablang.scoring.synthetic import make_truth, perturb
from lablang.scoring.unique import unique_full_matching, unique_partial_matching


def _exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matching, "_scipy_route", lambda costs, unique: None)


def matrices(values: list[float]) -> st.SearchStrategy[list[list[float]]]:
    return st.integers(1, 7).flatmap(
        lambda n: st.integers(1, 7).flatmap(
            lambda m: st.lists(
                st.lists(st.sampled_from(values), min_size=m, max_size=m),
                min_size=n,
                max_size=n,
            )
        )
    )


# few distinct values: ties everywhere; many distinct values: mostly unique optima
TIED = matrices([0.0, 0.25, 0.5, 1.0])
SPREAD = matrices([round(0.01 * k, 2) for k in range(101)])


def _both_routes(monkeypatch: pytest.MonkeyPatch, solve):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(matching, "FAST_ROUTE_CELLS", 0)
    fast = solve()
    with monkeypatch.context() as patch:
        patch.setattr(matching, "_scipy_route", lambda costs, unique: None)
        exact = solve()
    return fast, exact


@settings(max_examples=300, deadline=None)
@given(st.one_of(TIED, SPREAD))
def test_full_matching_equals_the_grader_method_on_ties_and_spreads(
    scores: list[list[float]],
) -> None:
    """`best_one_to_one_matching` with scipy allowed everywhere picks the grader's pairs, ties included."""
    with pytest.MonkeyPatch.context() as patch:
        fast, exact = _both_routes(patch, lambda: best_one_to_one_matching(scores))
    assert fast == exact


@settings(max_examples=300, deadline=None)
@given(st.one_of(TIED, SPREAD), st.sampled_from([0.0, 0.25, 0.5]))
def test_partial_matching_equals_the_grader_method_on_ties_and_spreads(
    scores: list[list[float]], minimum: float
) -> None:
    """`best_partial_one_to_one_matching` with scipy allowed picks the grader's pairs, ties included."""
    with pytest.MonkeyPatch.context() as patch:
        fast, exact = _both_routes(
            patch, lambda: best_partial_one_to_one_matching(scores, minimum_score=minimum)
        )
    assert fast == exact


def _routes_taken(solve):  # type: ignore[no-untyped-def]
    """(proven by scipy, run by the grader's method) for one default-route solve, after
    checking it equals the grader's-method-only result."""
    AssignmentClock.proven = AssignmentClock.exact = 0
    default = solve()
    taken = (AssignmentClock.proven, AssignmentClock.exact)
    with pytest.MonkeyPatch.context() as patch:
        _exact(patch)
        assert solve() == default
    return taken


def test_large_random_matrices_take_the_fast_route_and_agree() -> None:
    """120 x 150 continuous scores: scipy answers (proven unique) and equals the grader's method."""
    scores = np.random.default_rng(7).random((120, 150)).tolist()
    assert _routes_taken(lambda: best_partial_one_to_one_matching(scores, minimum_score=0.25)) == (
        1,
        0,
    )
    assert _routes_taken(lambda: best_one_to_one_matching(scores)) == (1, 0)


def test_a_large_tied_matrix_runs_the_grader_method() -> None:
    """Identical rows tie: no proof, so the grader's method decides, as before."""
    scores = [[1.0 if j % 3 == 0 else 0.5 for j in range(90)] for _ in range(90)]
    assert _routes_taken(lambda: best_partial_one_to_one_matching(scores, minimum_score=0.25)) == (
        0,
        1,
    )
    assert _routes_taken(lambda: best_one_to_one_matching(scores)) == (0, 1)


def test_a_near_tie_inside_the_margin_is_not_proven() -> None:
    """Two assignments 1e-12 apart are treated as a tie (floating-point rounding could swap them)."""
    scores = np.array([[0.9, 0.5], [0.5, 0.1 + 1e-12]])  # diagonal 1.0 + 1e-12, crossed 1.0
    assert not unique_full_matching(scores, np.array([0, 1]))
    clear = np.array([[0.9, 0.5], [0.5, 0.6]])
    assert unique_full_matching(clear, np.array([0, 1]))


def test_a_suboptimal_candidate_is_never_proven() -> None:
    """The proof also checks optimality: a worse assignment is refused, not certified."""
    scores = np.array([[0.9, 0.2], [0.8, 0.7]])
    assert not unique_full_matching(scores, np.array([1, 0]))
    assert not unique_partial_matching(scores, scores >= 0.25, np.array([1, 0]))
    # dropping a pair worth keeping is not optimal either
    assert not unique_partial_matching(scores, scores >= 0.25, np.array([0, -1]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_of_large_graphs_are_identical_on_both_routes(seed: int) -> None:
    """Whole score results (metrics, matched and unmatched entities) equal the grader's-method-only run."""
    rng = random.Random(seed)
    truth = make_truth(rng, oligos=30, states=150, transitions=120, protocol=f"p{seed}")
    prediction = perturb(truth, rng, 8)
    AssignmentClock.proven = 0
    fast = score_documents(prediction, truth)
    assert AssignmentClock.proven > 0
    with pytest.MonkeyPatch.context() as patch:
        _exact(patch)
        exact = score_documents(prediction, truth)
    assert fast.metrics == exact.metrics
    assert fast.matches == exact.matches and fast.unmatched == exact.unmatched
