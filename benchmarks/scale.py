"""Throughput of the executors: certification instances and scored pairs per second.

Run: `python benchmarks/scale.py [--instances 16] [--pairs 40]`. In one run it measures
`certify` of one task (instances per second) and `score --batch` (scored pairs per
second) with the local executor on 1 and 2 processes and on Ray with 1 and 2 workers
(each Ray instance started once and warmed up, so start-up is reported apart), plus
Ray's overhead per unit (a unit that does nothing, round trip). Every configuration's
output is checked identical to the 1-process run. Figures are ratios to the 1-process
run taken in the same run; absolute times on a shared machine are only indicative.

`--smoke` is `--instances 1 --pairs 2` with 10 units for Ray's overhead: every
configuration and the identity check in a few seconds plus Ray's start-ups
(tests/core/test_benchmarks.py runs it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from lablang.executors import Executor, Unit, run_units
from lablang.scoring.batch import score_batch
from lablang.scoring.synthetic import make_truth, perturb
from lablang.sim.certify import certificate_json
from lablang.sim.suite import certify_suite, task_refs

ROOT = Path(__file__).resolve().parents[1]


def _batch(folder: Path, pairs: int) -> tuple[Path, Path]:
    preds, truths = folder / "preds", folder / "truths"
    rng = random.Random(0)
    protocols = max(1, pairs // 4)
    for p in range(protocols):
        truth = make_truth(rng, oligos=30, states=25, transitions=20, protocol=f"p{p}")
        for task, document in truth.items():
            (truths / f"p{p}").mkdir(parents=True, exist_ok=True)
            (truths / f"p{p}" / f"{task}.json").write_text(json.dumps(document))
        for a in range(pairs // protocols):
            attempt = preds / f"p{p}" / f"a{a}"
            attempt.mkdir(parents=True)
            for task, document in perturb(truth, rng, 2).items():
                (attempt / f"{task}.json").write_text(json.dumps(document))
    return preds, truths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--task", default=str(ROOT / "examples/tasks/feedback_weighing.lab"))
    parser.add_argument(
        "--smoke", action="store_true", help="--instances 1 --pairs 2, 10 units of overhead"
    )
    args = parser.parse_args()
    overhead_units = 200
    if args.smoke:
        args.instances, args.pairs, overhead_units = 1, 2, 10
    import ray

    entries = task_refs([args.task])
    folder = Path(tempfile.mkdtemp())
    preds, truths = _batch(folder, args.pairs)
    configs = [("local", 1), ("local", 2), ("ray", 1), ("ray", 2)]
    reference: dict[str, str] = {}
    rates: dict[tuple[str, int], tuple[float, float]] = {}
    differing: list[str] = []
    for kind, jobs in configs:
        executor = Executor(kind, jobs)
        if kind == "ray":
            start = time.perf_counter()
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
            run_units(abs, [Unit("warm", 0, 0)] * jobs, executor)
            print(f"ray with {jobs} worker(s): start-up {time.perf_counter() - start:.1f} s")
            n = overhead_units
            start = time.perf_counter()
            run_units(abs, [Unit(f"n{i}", i, i) for i in range(n)], executor)
            print(
                f"  overhead per unit (`abs`, round trip): {(time.perf_counter() - start) / n * 1e3:.1f} ms"
            )
        start = time.perf_counter()
        certificates, _ = certify_suite(entries, args.instances, 0, executor)
        certify_s = time.perf_counter() - start
        start = time.perf_counter()
        batch = score_batch(preds, truths, executor=executor, progress=False)
        score_s = time.perf_counter() - start
        if kind == "ray":
            ray.shutdown()
        text = {k: certificate_json(c) for k, c in certificates.items()}
        rows = json.dumps([r.metrics for r in batch.rows], sort_keys=True)
        if not reference:
            reference = {**text, "rows": rows}
        same = reference == {**text, "rows": rows}
        if not same:
            differing.append(f"{kind} x{jobs}")
        rates[(kind, jobs)] = (args.instances / certify_s, len(batch.rows) / score_s)
        print(
            f"{kind} x{jobs}: certify {args.instances / certify_s:.2f} instances/s, "
            f"score {len(batch.rows) / score_s:.2f} pairs/s, identical to local x1: {same}"
        )
    base = rates[("local", 1)]
    for key, (inst, pairs) in rates.items():
        print(
            f"  {key[0]} x{key[1]}: certify {inst / base[0]:.2f}x, score {pairs / base[1]:.2f}x of local x1"
        )
    if differing:
        # a distributed run that changes a result is a bug, not a figure: fail the run
        raise SystemExit(f"output differs from local x1 with: {', '.join(differing)}")


if __name__ == "__main__":
    main()
