"""The grader's shared primitives: edit similarity, one-to-one assignment, soft P/R/F1.

Plain Levenshtein distances come from rapidfuzz. Assignments are the grader's: its own
algorithm, the shortest-augmenting-path Hungarian method with row and column potentials
(rows added one at a time, the first column on equal reduced costs), so exactly tied
assignments break the way the grader breaks them; scipy's `linear_sum_assignment` finds
the same optimum value but may pick another of the tied pairings. The inner loop over
columns is vectorized with numpy, operation for operation the scalar algorithm, so its
floating-point results are the same. That method is cubic and driven from Python, so
large matrices first go to scipy, and scipy's answer is kept only when
`lablang.scoring.unique` proves it the only optimum (then every exact method, the
grader's included, returns it); a tie or a near tie runs the grader's method. The
grader also has two wildcard-aware edit distances
(family placeholders that match any nucleotide; a truth `[VARIABLE]` that matches any
placeholder; `VN`/`NB` for a truth `[ANCHOR:2]`). rapidfuzz has no custom equality,
so those use `wildcard_distance`, a row-vectorized dynamic program, and only when a
wildcard is present; everything else goes through rapidfuzz.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from lablang.scoring.unique import unique_full_matching, unique_partial_matching

Match = tuple[int, int, float]
# a score difference no floating-point rounding of a 2 x 2 assignment can reverse
_CLEAR_MARGIN = 1e-9
# cells of a cost matrix from which scipy is tried first: below it the grader's method
# costs less than importing scipy.optimize (about 0.3 s, paid once per process)
FAST_ROUTE_CELLS = 80 * 80


class AssignmentClock:
    """Accumulates the seconds spent inside the assignment solver (for the benchmark)."""

    seconds: float = 0.0
    calls: int = 0
    exact: int = 0  # calls that ran the grader's method
    proven: int = 0  # calls answered by scipy with a proof of uniqueness


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

    Rows are assigned when there are no more rows than columns, else columns (the
    transposed problem), as the grader does; pairs come back sorted.

    >>> best_one_to_one_matching([[0.9, 0.1], [0.8, 0.7]])
    [(0, 0, 0.9), (1, 1, 0.7)]
    >>> best_one_to_one_matching([[1.0, 1.0], [1.0, 1.0]])  # a tie: the grader's pick
    [(0, 0, 1.0), (1, 1, 1.0)]
    """
    if not scores or not scores[0]:
        return []
    n, m = len(scores), len(scores[0])
    if n == 1 or m == 1:
        # a single row (or column) needs no assignment: its best entry (first on ties,
        # which is the column the Hungarian method's first row takes)
        if n == 1:
            best = max(range(m), key=lambda j: (scores[0][j], -j))
            return [(0, best, scores[0][best])]
        best = max(range(n), key=lambda i: (scores[i][0], -i))
        return [(best, 0, scores[best][0])]
    if n == 2 and m == 2:
        # the common 2 x 2 case (two strands, two oligos) has two assignments; when one
        # is better by a clear margin it is the only optimum, found without the solver
        diagonal = scores[0][0] + scores[1][1]
        crossed = scores[0][1] + scores[1][0]
        if diagonal - crossed > _CLEAR_MARGIN:
            return [(0, 0, scores[0][0]), (1, 1, scores[1][1])]
        if crossed - diagonal > _CLEAR_MARGIN:
            return [(0, 1, scores[0][1]), (1, 0, scores[1][0])]
    matrix = np.asarray(scores, dtype=float)
    if n <= m:
        columns = _assign(-matrix, lambda found: unique_full_matching(matrix, found))
        pairs = [(row, int(col)) for row, col in enumerate(columns)]
    else:
        rows = _assign(-matrix.T, lambda found: unique_full_matching(matrix.T, found))
        pairs = [(int(row), col) for col, row in enumerate(rows)]
    return sorted((r, c, scores[r][c]) for r, c in pairs)


def best_partial_one_to_one_matching(
    scores: Sequence[Sequence[float]], *, minimum_score: float
) -> list[Match]:
    """Maximum-weight partial assignment: pairs below `minimum_score` stay unmatched.

    As the grader: the matrix is padded to (rows + columns) square with dummy rows and
    columns worth 0 and ineligible real pairs worth less than anything, so a weak pair
    is never forced; the padded problem is solved whole (its ties break as the grader's).

    >>> best_partial_one_to_one_matching([[0.2, 0.9], [0.3, 0.1]], minimum_score=0.25)
    [(0, 1, 0.9), (1, 0, 0.3)]
    """
    if not scores or not scores[0]:
        return []
    matrix = np.asarray(scores, dtype=float)
    n, m = matrix.shape
    eligible = matrix >= minimum_score
    forbidden = min(float(matrix.min()), 0.0, minimum_score) - 1.0
    padded = np.zeros((n + m, n + m))
    padded[:n, :m] = np.where(eligible, matrix, forbidden)

    def unique(found: np.ndarray) -> bool:
        real = np.where(found[:n] < m, found[:n], -1)
        return unique_partial_matching(matrix, eligible, real)

    columns = _assign(-padded, unique)
    return sorted(
        (row, int(col), scores[row][int(col)])
        for row, col in enumerate(columns[:n])
        if col < m and eligible[row, col]
    )


def _assign(costs: np.ndarray, unique: Callable[[np.ndarray], bool]) -> np.ndarray:
    """The column the grader's method assigns to each row (rows <= columns).

    Large matrices (or any, once scipy is loaded) are solved by scipy first; its answer
    stands when `unique(columns)` proves it the only optimum, which the grader's method
    then returns too. Otherwise, and for small matrices, the grader's method runs.
    """
    start = time.perf_counter()
    columns = None
    if costs.size >= FAST_ROUTE_CELLS or "scipy.optimize" in sys.modules:
        columns = _scipy_route(costs, unique)
    if columns is None:
        columns = hungarian_min_cost(costs)
        AssignmentClock.exact += 1
    else:
        AssignmentClock.proven += 1
    AssignmentClock.seconds += time.perf_counter() - start
    AssignmentClock.calls += 1
    return columns


def _scipy_route(costs: np.ndarray, unique: Callable[[np.ndarray], bool]) -> np.ndarray | None:
    """scipy's optimal columns when they are proven the only optimum, else None."""
    if not np.isfinite(costs).all():
        return None
    from scipy.optimize import linear_sum_assignment

    rows, columns = linear_sum_assignment(costs)
    found = np.full(costs.shape[0], -1, dtype=np.int64)
    found[rows] = columns
    return found if unique(found) else None


def hungarian_min_cost(costs: np.ndarray) -> np.ndarray:
    """Minimum-cost assignment of every row to its own column, for rows <= columns.

    The Hungarian method in its shortest-augmenting-path form: rows join one at a time;
    dual potentials `u` (rows) and `v` (columns) keep reduced costs non-negative; from
    the new row a Dijkstra-like search over columns grows the tree of tight edges
    (`minv` is each column's smallest reduced cost so far, `way` the column it came
    from) until it reaches a free column, then the path is flipped. A column's `minv`
    is replaced only by a strictly smaller value, and the next column is the first one
    with the smallest `minv`: the tie-breaks that make the result unique. O(rows^2 x
    columns). Index 0 of `p`, `way` and the potentials is the virtual root.

    >>> hungarian_min_cost(np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0]])).tolist()
    [1, 0]
    """
    rows, cols = costs.shape
    if rows > cols:
        raise ValueError("the assignment needs no more rows than columns")
    u = np.zeros(rows + 1)
    v = np.zeros(cols + 1)
    p = np.zeros(cols + 1, dtype=np.int64)  # p[col]: the row holding col (0: free)
    way = np.zeros(cols + 1, dtype=np.int64)
    padded = np.zeros((rows + 1, cols + 1))
    padded[1:, 1:] = costs
    for row in range(1, rows + 1):
        p[0] = row
        col0 = 0
        minv = np.full(cols + 1, np.inf)
        used = np.zeros(cols + 1, dtype=bool)
        while True:
            used[col0] = True
            row0 = p[col0]
            free = ~used
            free[0] = False
            current = padded[row0] - u[row0] - v
            better = free & (current < minv)
            minv[better] = current[better]
            way[better] = col0
            candidates = np.where(free, minv, np.inf)
            col1 = int(np.argmin(candidates))  # the first column with the smallest minv
            delta = candidates[col1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            col0 = col1
            if p[col0] == 0:
                break
        while col0:
            col1 = int(way[col0])
            p[col0] = p[col1]
            col0 = col1
    assignment = np.full(rows, -1, dtype=np.int64)
    held = np.nonzero(p[1:])[0] + 1
    assignment[p[held] - 1] = held - 1
    return assignment


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
