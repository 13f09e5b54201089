"""Grading scales: expected best-of-k is linear per k after one sort (no big binomials),
and the cluster bootstrap stays within memory for tens of thousands of protocols."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from lablang.rubrics.grading import best_of_k, expected_best_of_ks
from tests.hostile.bounded import run_bounded

RUBRIC = 'rubric r "one item" {\n  item a "does it" weight 1\n}\n'


def _judgments(path: Path, protocols: int, attempts: int) -> None:
    with path.open("w") as handle:
        for p in range(protocols):
            for a in range(1, attempts + 1):
                score = (p + a) % 3
                handle.write(
                    json.dumps({"protocol": f"p{p}", "attempt": a, "item": "a", "score": score})
                    + "\n"
                )


def _binomial_best_of_k(scores: list[Fraction], k: int) -> Fraction:
    n, ordered = len(scores), sorted(scores)
    total = math.comb(n, k)
    return sum(
        (Fraction(math.comb(i - 1, k - 1), total) * ordered[i - 1] for i in range(k, n + 1)),
        Fraction(0),
    )


def test_exact_best_of_k_equals_the_binomial_formula() -> None:
    """The one-pass integer recurrence gives exactly the binomial-weight sum."""
    scores = [Fraction(i % 5, 4) for i in range(30)]
    assert all(best_of_k(scores, k) == _binomial_best_of_k(scores, k) for k in range(1, 31))


def test_float_best_of_k_agrees_with_the_exact_value() -> None:
    """The float recurrence matches the exact value to rounding for 300 attempts."""
    scores = [Fraction(i * 37 % 11, 10) for i in range(300)]
    floats = expected_best_of_ks([float(s) for s in scores], range(1, 301))
    exact = [float(_binomial_best_of_k(scores, k)) for k in (1, 2, 50, 299, 300)]
    assert np.allclose([floats[k - 1] for k in (1, 2, 50, 299, 300)], exact, rtol=0, atol=1e-12)


def test_two_thousand_attempts_grade_in_bounds(tmp_path: Path) -> None:
    """2,000 attempts of one protocol (75 s before) grade within a small CPU budget."""
    (tmp_path / "r.lab").write_text(RUBRIC)
    _judgments(tmp_path / "j.jsonl", protocols=1, attempts=2000)
    run = run_bounded(["grade", str(tmp_path / "r.lab"), "--judgments", str(tmp_path / "j.jsonl"), "--json"],
                      cpu_seconds=30, memory_mb=1500)  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output[-500:]
    assert json.loads(run.stdout)["best_of_k"]["2000"] == 1.0


def test_forty_thousand_protocols_grade_in_bounded_memory(tmp_path: Path) -> None:
    """40,000 protocols (a MemoryError before) bootstrap within 1 GB."""
    (tmp_path / "r.lab").write_text(RUBRIC)
    _judgments(tmp_path / "j.jsonl", protocols=40_000, attempts=1)
    run = run_bounded(["grade", str(tmp_path / "r.lab"), "--judgments", str(tmp_path / "j.jsonl")],
                      cpu_seconds=90, memory_mb=1000)  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output[-500:]
