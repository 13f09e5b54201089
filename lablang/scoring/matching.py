"""The grader's shared primitives: edit similarity, one-to-one assignment, soft P/R/F1.

Plain Levenshtein distances come from rapidfuzz and assignments from scipy's
`linear_sum_assignment`. The grader also has two wildcard-aware edit distances
(family placeholders that match any nucleotide; a truth `[VARIABLE]` that matches any
placeholder; `VN`/`NB` for a truth `[ANCHOR:2]`). rapidfuzz has no custom equality,
so those use `wildcard_distance`, a row-vectorized dynamic program, and only when a
wildcard is present; everything else goes through rapidfuzz.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

Match = tuple[int, int, float]
# a score difference no floating-point rounding of a 2 x 2 assignment can reverse
_CLEAR_MARGIN = 1e-9


class AssignmentClock:
    """Accumulates the seconds spent inside `linear_sum_assignment` (for the benchmark)."""

    seconds: float = 0.0
    calls: int = 0


def edit_similarity(left: Sequence[Any], right: Sequence[Any]) -> float:
    """`max(0, 1 - d / max(len))`, 1.0 when both are empty.

    >>> edit_similarity("ACGT", "ACCT"), edit_similarity(["<UMI>", "A"], ["<UMI>"])
    (0.75, 0.5)
    """
    denominator = max(len(left), len(right))
    if denominator == 0:
        return 1.0
    distance = Levenshtein.distance(left, right)
    return max(0.0, 1.0 - distance / denominator)


def wildcard_distance(
    left: Sequence[str],
    right: Sequence[str],
    compatible: Callable[[str, str], bool],
    pair_bonus: Callable[[Sequence[str], Sequence[str]], np.ndarray] | None = None,
) -> int:
    """Levenshtein distance where `compatible(l, r)` decides a free substitution.

    `pair_bonus`, when given, returns a boolean (len(left)+1, len(right)+1) matrix of
    cells where the last two tokens on each side may be consumed together at no cost
    (the grader's anchor rule).
    """
    n, m = len(left), len(right)
    if n == 0 or m == 0:
        return max(n, m)
    alphabet = {token: index for index, token in enumerate(dict.fromkeys([*left, *right]))}
    left_codes = [alphabet[token] for token in left]
    right_codes = np.array([alphabet[token] for token in right])
    tokens = list(alphabet)
    # compat[a, b] for every alphabet pair that occurs
    compat = np.zeros((len(tokens), len(tokens)), dtype=bool)
    for a, token_a in enumerate(tokens):
        for b, token_b in enumerate(tokens):
            compat[a, b] = compatible(token_a, token_b)
    bonus = pair_bonus(left, right) if pair_bonus is not None else None
    offsets = np.arange(m + 1)
    previous = offsets.copy()
    two_back: np.ndarray | None = None
    for i in range(1, n + 1):
        mismatch = ~compat[left_codes[i - 1], right_codes]
        base = np.empty(m + 1, dtype=np.int64)
        base[0] = i
        base[1:] = np.minimum(previous[:-1] + mismatch, previous[1:] + 1)
        if bonus is not None and two_back is not None and i >= 2:
            cells = np.nonzero(bonus[i, 2:])[0] + 2
            if cells.size:
                base[cells] = np.minimum(base[cells], two_back[cells - 2])
        # insertions chain along the row: current[j] = min_k<=j base[k] + (j - k)
        current = np.minimum.accumulate(base - offsets) + offsets
        two_back, previous = previous, current
    return int(previous[-1])


def bit_parallel_distance(pattern_length: int, match_masks: Mapping[str, int], text: str) -> int:
    """Global edit distance by Myers' bit-vector algorithm under a custom match relation.

    `match_masks[c]` has bit i set when pattern position i matches text symbol c; the
    algorithm only reads those bits, so any relation works (as in Edlib's additional
    equalities). Used for the grader's wildcard-aware distances.

    >>> bit_parallel_distance(3, {"A": 0b001, "C": 0b010, "G": 0b100}, "ACG")
    0
    >>> bit_parallel_distance(3, {"A": 0b001, "C": 0b010, "G": 0b100}, "AG")
    1
    """
    m = pattern_length
    if m == 0:
        return len(text)
    full = (1 << m) - 1
    last = 1 << (m - 1)
    vp, vn, score = full, 0, m
    for symbol in text:
        eq = match_masks.get(symbol, 0)
        d0 = ((((eq & vp) + vp) ^ vp) | eq | vn) & full
        hp = (vn | ~(d0 | vp)) & full
        hn = d0 & vp
        if hp & last:
            score += 1
        elif hn & last:
            score -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = (hn | ~(d0 | hp)) & full
        vn = hp & d0
    return score


def best_one_to_one_matching(scores: Sequence[Sequence[float]]) -> list[Match]:
    """Maximum-weight one-to-one assignment (every row or every column is used).

    >>> best_one_to_one_matching([[0.9, 0.1], [0.8, 0.7]])
    [(0, 0, 0.9), (1, 1, 0.7)]
    """
    if not scores or not scores[0]:
        return []
    n, m = len(scores), len(scores[0])
    if n == 1 or m == 1:
        # a single row (or column) needs no assignment: its best entry (first on ties)
        if n == 1:
            best = max(range(m), key=lambda j: (scores[0][j], -j))
            return [(0, best, scores[0][best])]
        best = max(range(n), key=lambda i: (scores[i][0], -i))
        return [(best, 0, scores[best][0])]
    if n == 2 and m == 2:
        # the common 2 x 2 case (two strands, two oligos) has two assignments; when one
        # is better by a clear margin it is scipy's answer too, found without the call.
        # Near-ties go to scipy, whose tie-breaks (and rounding) are the reference.
        diagonal = scores[0][0] + scores[1][1]
        crossed = scores[0][1] + scores[1][0]
        if diagonal - crossed > _CLEAR_MARGIN:
            return [(0, 0, scores[0][0]), (1, 1, scores[1][1])]
        if crossed - diagonal > _CLEAR_MARGIN:
            return [(0, 1, scores[0][1]), (1, 0, scores[1][0])]
    matrix = np.asarray(scores, dtype=float)
    rows, cols = _assign(matrix)
    return [(int(r), int(c), scores[int(r)][int(c)]) for r, c in zip(rows, cols, strict=True)]


def best_partial_one_to_one_matching(
    scores: Sequence[Sequence[float]], *, minimum_score: float
) -> list[Match]:
    """Maximum-weight partial assignment: pairs below `minimum_score` stay unmatched.

    >>> best_partial_one_to_one_matching([[0.2, 0.9], [0.3, 0.1]], minimum_score=0.25)
    [(0, 1, 0.9), (1, 0, 0.3)]
    """
    if not scores or not scores[0]:
        return []
    matrix = np.asarray(scores, dtype=float)
    eligible = matrix >= minimum_score
    if minimum_score > 0:
        # An ineligible pair weighs 0, exactly what leaving both sides unmatched is
        # worth, so the optimum equals the grader's dummy-padded assignment.
        rows, cols = _assign(np.where(eligible, matrix, 0.0))
    else:
        n, m = matrix.shape
        forbidden = min(float(matrix.min()), 0.0, minimum_score) - 1.0
        padded = np.zeros((n + m, n + m))
        padded[:n, :m] = np.where(eligible, matrix, forbidden)
        rows, cols = _assign(padded)
        keep = (rows < n) & (cols < m)
        rows, cols = rows[keep], cols[keep]
    return sorted(
        (int(r), int(c), scores[int(r)][int(c)])
        for r, c in zip(rows, cols, strict=True)
        if eligible[r, c]
    )


def _assign(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    start = time.perf_counter()
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    AssignmentClock.seconds += time.perf_counter() - start
    AssignmentClock.calls += 1
    return rows, cols


def soft_prf(score_sum: float, predicted: int, truth: int) -> tuple[float, float, float]:
    """Soft precision, recall and F1 of summed match scores; (1, 1, 1) when both are empty.

    >>> soft_prf(1.5, 2, 3)
    (0.75, 0.5, 0.6)
    """
    if predicted == 0 and truth == 0:
        return 1.0, 1.0, 1.0
    precision = score_sum / predicted if predicted else 0.0
    recall = score_sum / truth if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
