"""Scoring speed: realistic pairs and graphs at the scoring bound, with the share in assignment.

Run: `python benchmarks/scoring.py [--pairs 100] [--large 5]`. Prints wall and CPU
seconds per pair and the share of time in the assignment solver, measured in one run.
CPU time is the figure to read on a shared machine. Target: a realistic pair (30 oligos,
25 states, 20 transitions) in under 50 ms.

Large pairs are near the E0530 bound of 200 states (190 states, 150 transitions). They are measured twice,
alternately: with the grader's Hungarian method only, and with the default route (scipy
first, kept when proven the only optimum); the ratio is printed and the two results are
checked identical. A tie-heavy pair (every state alike, so no optimum is unique) shows the
worst case, which always runs the grader's method.

`--smoke` is `--pairs 2 --large 1 --rounds 1`: the same code paths (the two routes'
results still checked identical) in a few seconds; tests/core/test_benchmarks.py runs it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

import copy

from lablang.scoring import matching, score_documents
from lablang.scoring.matching import AssignmentClock
from lablang.scoring.synthetic import make_truth, perturb


def measure(
    pairs: list[tuple[dict, dict]], results: list | None = None
) -> tuple[float, float, float]:
    """Wall seconds per pair, CPU seconds per pair, share of wall time in assignment."""
    AssignmentClock.seconds = 0.0
    start, cpu = time.perf_counter(), time.process_time()
    for prediction, truth in pairs:
        result = score_documents(prediction, truth)
        if results is not None:
            results.append((result.metrics, result.matches, result.unmatched))
    elapsed, cpu_elapsed = time.perf_counter() - start, time.process_time() - cpu
    return elapsed / len(pairs), cpu_elapsed / len(pairs), AssignmentClock.seconds / elapsed


def measure_exact(pairs: list[tuple[dict, dict]], results: list) -> tuple[float, float, float]:
    """`measure` with the grader's Hungarian method for every assignment."""
    route = matching._scipy_route
    matching._scipy_route = lambda costs, unique: None
    try:
        return measure(pairs, results)
    finally:
        matching._scipy_route = route


def tied_pair(rng: random.Random) -> tuple[dict, dict]:
    """A 200-state truth whose states are all copies of one state, scored against itself."""
    truth = make_truth(rng, oligos=30, states=200, transitions=160, protocol="tied")
    workflow = truth["t3"]["workflows"][0]
    first = copy.deepcopy(workflow["states"][0])
    for state in workflow["states"]:
        state_id = state["state_id"]
        state.clear()
        state.update(copy.deepcopy(first))
        state["state_id"] = state_id
    return copy.deepcopy(truth), truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--large", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two routes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="--pairs 2 --large 1 --rounds 1")
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.large, args.rounds = 2, 1, 1
    rng = random.Random(args.seed)
    realistic = []
    for i in range(args.pairs):
        truth = make_truth(rng, oligos=30, states=25, transitions=20, protocol=f"p{i}")
        realistic.append((perturb(truth, rng, rng.randrange(1, 6)), truth))
    large = []
    for i in range(args.large):
        truth = make_truth(rng, oligos=60, states=190, transitions=150, protocol=f"big{i}")
        large.append((perturb(truth, rng, 10), truth))
    per_pair, cpu, share = measure(realistic)
    print(f"realistic pairs (30 oligos, 25 states, 20 transitions): {len(realistic)}")
    verdict = "met" if cpu < 0.05 else "missed"
    print(
        f"  seconds per pair: wall {per_pair:.4f}, cpu {cpu:.4f}  (target < 0.050 cpu: {verdict})"
    )
    print(f"  share in assignment: {share:.1%}")
    if large:
        score_documents(*large[0])  # load scipy outside the measurement
        exact_cpu, fast_cpu, exact_share, fast_share = [], [], [], []
        for _ in range(args.rounds):
            exact_results: list = []
            fast_results: list = []
            _, cpu_exact, share_exact = measure_exact(large, exact_results)
            AssignmentClock.proven = AssignmentClock.exact = 0
            _, cpu_fast, share_fast = measure(large, fast_results)
            if fast_results != exact_results:
                raise SystemExit("the two assignment routes gave different results")
            exact_cpu.append(cpu_exact)
            fast_cpu.append(cpu_fast)
            exact_share.append(share_exact)
            fast_share.append(share_fast)
        median = sorted(range(args.rounds), key=lambda k: fast_cpu[k] / exact_cpu[k])[
            args.rounds // 2
        ]
        print(
            f"pairs near the bound (190 states, 150 transitions, 60 oligos; perturbed): {len(large)}"
        )
        print(
            f"  cpu seconds per pair, grader's method only: {exact_cpu[median]:.3f} "
            f"(share in assignment {exact_share[median]:.1%})"
        )
        print(
            f"  cpu seconds per pair, default route: {fast_cpu[median]:.3f} "
            f"(share in assignment {fast_share[median]:.1%}; "
            f"{AssignmentClock.proven} proven by scipy, {AssignmentClock.exact} by the grader's method)"
        )
        print(
            f"  default / grader's-method-only cpu ratio: {fast_cpu[median] / exact_cpu[median]:.2f} "
            f"(median of {args.rounds} alternations; results identical)"
        )
        print(f"  near the bound / realistic cpu ratio: {fast_cpu[median] / cpu:.0f}")
        _, loaded_cpu, loaded_share = measure(realistic)
        print(
            f"realistic pairs again, scipy loaded (every matrix tries scipy first): cpu "
            f"{loaded_cpu:.4f} per pair, share in assignment {loaded_share:.1%}, "
            f"ratio to the first run {loaded_cpu / cpu:.2f}"
        )
        tied = [tied_pair(rng)]
        AssignmentClock.proven = AssignmentClock.exact = 0
        _, tied_cpu, tied_share = measure(tied)
        print(
            f"tie-heavy pair at the bound (200 identical states): cpu {tied_cpu:.3f} s, "
            f"share in assignment {tied_share:.1%} ({AssignmentClock.exact} by the grader's method)"
        )


if __name__ == "__main__":
    main()
