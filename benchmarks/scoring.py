"""Scoring speed: realistic pairs and large graphs, with the share spent in assignment.

Run: `python benchmarks/scoring.py [--pairs 100] [--large 5]`. Prints wall and CPU
seconds per pair and the share of time in the assignment solver (the grader's Hungarian method), measured in
one run. CPU
time is the figure to read on a shared machine. Target: a realistic pair (30 oligos,
25 states, 20 transitions) in under 50 ms.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from lablang.scoring import score_documents
from lablang.scoring.matching import AssignmentClock
from lablang.scoring.synthetic import make_truth, perturb


def measure(pairs: list[tuple[dict, dict]]) -> tuple[float, float, float]:
    """Wall seconds per pair, CPU seconds per pair, share of wall time in assignment."""
    AssignmentClock.seconds = 0.0
    start, cpu = time.perf_counter(), time.process_time()
    for prediction, truth in pairs:
        score_documents(prediction, truth)
    elapsed, cpu_elapsed = time.perf_counter() - start, time.process_time() - cpu
    return elapsed / len(pairs), cpu_elapsed / len(pairs), AssignmentClock.seconds / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--large", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    realistic = []
    for i in range(args.pairs):
        truth = make_truth(rng, oligos=30, states=25, transitions=20, protocol=f"p{i}")
        realistic.append((perturb(truth, rng, rng.randrange(1, 6)), truth))
    large = []
    for i in range(args.large):
        truth = make_truth(rng, oligos=60, states=300, transitions=240, protocol=f"big{i}")
        large.append((perturb(truth, rng, 10), truth))
    per_pair, cpu, share = measure(realistic)
    print(f"realistic pairs (30 oligos, 25 states, 20 transitions): {len(realistic)}")
    verdict = "met" if cpu < 0.05 else "missed"
    print(
        f"  seconds per pair: wall {per_pair:.4f}, cpu {cpu:.4f}  (target < 0.050 cpu: {verdict})"
    )
    print(f"  share in assignment: {share:.1%}")
    if large:
        large_wall, large_cpu, share = measure(large)
        print(f"large pairs (300 states, 240 transitions, 60 oligos): {len(large)}")
        print(f"  seconds per pair: wall {large_wall:.3f}, cpu {large_cpu:.3f}")
        print(f"  share in assignment: {share:.1%}")
        print(f"  large / realistic cpu ratio: {large_cpu / cpu:.0f}")


if __name__ == "__main__":
    main()
