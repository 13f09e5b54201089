"""Properties: best-of-k bounds and monotonicity, and the diff of a permuted protocol."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.protocols.diff import semantic_diff
from lablang.protocols.model import Protocol, Step, Wait
from lablang.protocols.quantities import Amount
from lablang.rubrics.grading import best_of_k

scores = st.lists(
    st.fractions(min_value=-1, max_value=1, max_denominator=24), min_size=1, max_size=12
)


@given(scores)
def test_best_of_k_runs_from_the_mean_to_the_max(values):
    """B(1) is the mean, B(n) is the maximum, and B(k) never decreases with k."""
    n = len(values)
    series = [best_of_k(values, k) for k in range(1, n + 1)]
    assert series[0] == sum(values, Fraction(0)) / n
    assert series[-1] == max(values)
    assert all(a <= b for a, b in itertools.pairwise(series))


def _steps(minutes: list[int]) -> tuple[Step, ...]:
    return tuple(
        Step(name=f"s{i}", action=Wait(duration=Amount.parse(str(m), "min")))
        for i, m in enumerate(minutes)
    )


@settings(max_examples=60)
@given(st.permutations(list(range(8))))
def test_a_permutation_is_only_moves_and_moves_are_minimal(order):
    """Reordering steps yields only `moved` changes, n - LIS of them (the fewest possible)."""
    steps = _steps([i + 1 for i in range(8)])
    old = Protocol(name="old", steps=steps)
    new = Protocol(name="new", steps=tuple(steps[i] for i in order))
    diff = semantic_diff(old, new)
    assert {c.kind for c in diff.changes} <= {"moved"}
    longest = [1] * len(order)
    for j in range(len(order)):
        for i in range(j):
            if order[i] < order[j]:
                longest[j] = max(longest[j], longest[i] + 1)
    assert len(diff.changes) == len(order) - max(longest)


@settings(max_examples=60)
@given(st.lists(st.integers(1, 90), min_size=1, max_size=10))
def test_diff_of_a_protocol_with_itself_is_empty(minutes):
    """Any protocol diffed against itself has no changes."""
    p = Protocol(name="p", steps=_steps(minutes))
    assert semantic_diff(p, p).changes == ()
