"""Grading: hand-computed scores, best-of-k against brute force, the cluster bootstrap,
tag breakdowns, and judgment-file errors that name their line."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction

import pytest

from lablang.diagnostics import Report
from lablang.rubrics.grading import (
    best_of_k,
    cluster_bootstrap,
    collect_grades,
    grade,
    read_judgments,
)
from lablang.rubrics.model import node_value
from lablang.source import Source

from .helpers import rubric

FLAT = 'rubric r {\n item a "a" weight 3\n item b "b" weight 1\n item bad "bad" weight -2\n}'
TREE = """rubric t {
  item denat "d" weight 3 { tags: [domain] }
  item wrong "w" weight -2 { tags: [domain] }
  item cleanup "c" weight 2 {
    tags: [intent]
    item ratio "r" weight 1
    item elute "e" weight 3
  }
}"""


def test_attempt_score_with_a_penalty_item():
    """(3*2 + 1*1 - 2*2) / (2 * (3 + 1)) = 3/8; all penalties and nothing else gives -1/2."""
    built, _ = rubric(FLAT)
    assert node_value(built.items, {"a": 2, "b": 1, "bad": 2}) == Fraction(3, 8)
    assert node_value(built.items, {"a": 0, "b": 0, "bad": 2}) == Fraction(-1, 2)


def test_nested_items_are_weighted_means_of_their_children():
    """cleanup = (1*1 + 3*0)/4 = 1/4; score = (3*1 + 2*1/4 - 2*0) / 5 = 7/10."""
    built, _ = rubric(TREE)
    grades = {"denat": 2, "wrong": 0, "ratio": 2, "elute": 0}
    assert node_value(built.items, grades) == Fraction(7, 10)


def test_scores_are_clipped_after_averaging_not_per_attempt():
    """Attempts scoring 1 and -1/2 average to 1/4 (clipping each first would give 1/2)."""
    built, _ = rubric(FLAT)
    result = grade(
        built,
        {("p", "1"): {"a": 2, "b": 2, "bad": 0}, ("p", "2"): {"a": 0, "b": 0, "bad": 2}},
        resamples=10,
    )
    assert [a.score for a in result.attempts] == [Fraction(1), Fraction(-1, 2)]
    assert result.mean == 0.25
    # best-of-2 is the max, 1; best-of-1 is the mean
    assert dict(result.best_of_k) == {1: 0.25, 2: 1.0}


def test_a_negative_mean_is_clipped_to_zero():
    """A protocol whose attempts average -1/4 is reported as 0."""
    built, _ = rubric(FLAT)
    result = grade(
        built,
        {("p", "1"): {"a": 0, "b": 1, "bad": 2}, ("p", "2"): {"a": 0, "b": 1, "bad": 1}},
        resamples=10,
    )
    assert [a.score for a in result.attempts] == [Fraction(-3, 8), Fraction(-1, 8)]
    assert result.mean == 0.0


def test_best_of_k_equals_brute_force_over_all_subsets_for_n_10():
    """For n = 10 and every k, the estimator equals the mean max over all C(10, k) subsets."""
    rng = random.Random(20261129)
    for _ in range(20):
        scores = [Fraction(rng.randint(-4, 8), 8) for _ in range(10)]
        for k in range(1, 11):
            subsets = list(itertools.combinations(scores, k))
            brute = sum((max(s) for s in subsets), Fraction(0)) / len(subsets)
            assert best_of_k(scores, k) == brute


def test_best_of_k_on_binary_scores_is_pass_at_k():
    """On 0/1 scores with c successes of n, best-of-k = 1 - C(n-c, k)/C(n, k)."""
    scores = [Fraction(1)] * 3 + [Fraction(0)] * 7
    for k in range(1, 11):
        expected = 1 - Fraction(math.comb(7, k), math.comb(10, k))
        assert best_of_k(scores, k) == expected


def test_best_of_k_weights_for_n_10_k_3():
    """The weights of x_(1..10) for k = 3 are 0, 0, 1/120, 3/120, ..., 36/120 (notes, section 7)."""
    weights = []
    for i in range(10):
        unit = [Fraction(0)] * 10
        unit[i] = Fraction(1)
        # a one-hot vector sorted ascending puts the 1 last: use distinct increasing values
        values = [Fraction(j) for j in range(10)]
        weights.append(
            best_of_k(
                [v + (1 if j == i else 0) * Fraction(1, 10**6) for j, v in enumerate(values)], 3
            )
            - best_of_k(values, 3)
        )
    assert [w * 10**6 for w in weights] == [Fraction(math.comb(i, 2), 120) for i in range(10)]


def test_bootstrap_is_reproducible_for_a_seed():
    """The same seed gives identical CIs; another seed gives different ones."""
    table = [[0.2], [0.5], [0.9], [0.4], [0.7]]
    first = cluster_bootstrap(table, seed=7, resamples=2000)
    assert first == cluster_bootstrap(table, seed=7, resamples=2000)
    assert first != cluster_bootstrap(table, seed=8, resamples=2000)
    low, high = first[0]
    assert low <= sum(r[0] for r in table) / 5 <= high


def test_bootstrap_resamples_protocols_not_attempts():
    """With two protocols at 0 and 1 the resampled means are 0, 1/2 or 1: the 95% CI is [0, 1];
    with one protocol the CI is its value, however much its attempts vary."""
    assert cluster_bootstrap([[0.0], [1.0]], seed=1, resamples=4000) == [(0.0, 1.0)]
    built, _ = rubric(FLAT)
    one = grade(
        built,
        {("p", "1"): {"a": 2, "b": 2, "bad": 0}, ("p", "2"): {"a": 0, "b": 2, "bad": 0}},
        resamples=500,
    )
    assert one.ci["mean"] == (0.625, 0.625)


def test_tag_breakdown_by_hand():
    """domain = (3*1 - 2*1) / 3 = 1/3; intent (the cleanup subtree) = (1*1 + 3*1/2)/4 = 5/8."""
    built, _ = rubric(TREE)
    result = grade(
        built, {("p", "1"): {"denat": 2, "wrong": 2, "ratio": 2, "elute": 1}}, resamples=10
    )
    assert result.tags["domain"].mean == pytest.approx(1 / 3)
    assert result.tags["intent"].mean == 0.625
    assert result.tags["intent"].items == ("cleanup",)


def _grade_text(text: str, rubric_text: str = FLAT):
    built, _ = rubric(rubric_text)
    report = Report()
    source = Source(text, "j.jsonl")
    rejected: dict[tuple[str, str, str], int] = {}
    lines = read_judgments(source, report, rejected)
    grades = collect_grades(built, lines, source, report, rejected=rejected)
    return grades, [(d.code, d.message) for d in report]


def _line(protocol: str, attempt: int, item: str, score: object) -> str:
    return json.dumps({"protocol": protocol, "attempt": attempt, "item": item, "score": score})


def test_judgment_errors_name_their_line():
    """Bad score, bad JSON, duplicates, unknown, inner and missing items each name a line."""
    text = (
        "\n".join(
            [
                _line("p", 1, "a", 2),
                _line("p", 1, "b", 1.5),
                "{not json",
                _line("p", 1, "a", 1),
                _line("p", 1, "aa", 2),
                _line("p", 2, "a", True),
            ]
        )
        + "\n"
    )
    _, found = _grade_text(text)
    assert found == [
        ("E0831", "line 2: score 1.5 of item `b` is not 0, 1 or 2"),
        ("E0830", "line 3: not valid JSON (Expecting property name enclosed in double quotes)"),
        ("E0831", "line 6: score true of item `a` is not 0, 1 or 2"),
        (
            "E0832",
            "line 4: a second judgment of item `a` for protocol `p` attempt `1` "
            "(the first is on line 1)",
        ),
        ("E0834", "line 5: the rubric has no item `aa`"),
        # a rejected score counts as judged (no second error for it), the rest is missing
        ("E0833", "line 1: protocol `p` attempt `1` has no judgment for `bad`"),
        ("E0833", "line 6: protocol `p` attempt `2` has no judgment for `b`, `bad`"),
    ]


def test_judging_an_inner_item_is_E0835():
    """A judgment of an item with sub-items is rejected."""
    _, found = _grade_text(_line("p", 1, "cleanup", 2) + "\n", TREE)
    assert found[0][0] == "E0835"


def test_complete_judgments_grade_without_errors():
    """A complete file yields per-attempt grades keyed by (protocol, attempt)."""
    text = "\n".join(_line("p", 1, i, g) for i, g in (("a", 2), ("b", 0), ("bad", 1))) + "\n"
    grades, found = _grade_text(text)
    assert found == []
    assert grades == {("p", "1"): {"a": 2, "b": 0, "bad": 1}}


def test_the_text_report_puts_every_score_in_one_column():
    """`mean score` and every `best-of-k` (k of two digits included) end their value at the
    same column, right-aligned, so the figures read down."""
    from lablang.rubrics.grading import render_grade

    built, _ = rubric(FLAT)
    grades = {("p", str(k)): {"a": 2 * (k % 2), "b": 2, "bad": 0} for k in range(12)}
    report = render_grade(grade(built, grades, resamples=10)).splitlines()
    rows = [line for line in report if line.startswith(("mean score", "best-of-"))]
    assert any(row.startswith("best-of-10") for row in rows)
    assert len({row.index("%") for row in rows}) == 1, rows
