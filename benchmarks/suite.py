"""The suite (examples/suite/, issue 28): its counts and what certifying it costs.

Run: `python benchmarks/suite.py [--instances 1]`. It prints the suite's scenarios and
tasks (task x binding) per operation family, with the held-out bindings and the
coordination tasks (a scripted colleague acts) per family, then certifies every task without
mutants on 1 and 2 local jobs (instances per second; the certificates of the two runs
must be identical) and with mutants on 2 jobs (seconds, mutants run and killed).

`--smoke` counts the whole suite but certifies only two bindings of
examples/suite/pour_medium.lab (a training and the held-out one, one instance), and the
mutants of pipette_aliquot.lab's `beaker` binding (tests/core/test_benchmarks.py runs it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from lablang.executors import Executor
from lablang.sim.certify import certificate_json
from lablang.sim.suite import certify_suite, task_refs

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "examples" / "suite"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="certify one scenario only")
    args = parser.parse_args()
    entries = task_refs([SUITE])
    files = {ref.file for _task, ref in entries}
    families = Counter(task.family for task, _ref in entries)
    heldout = Counter(
        task.family for task, _ref in entries if task.binding and task.binding.heldout
    )
    colleague = Counter(task.family for task, _ref in entries if task.scene.interventions)
    scenarios = Counter(family for family, _file in {(t.family, r.file) for t, r in entries})
    print(
        f"suite: {len(files)} scenarios, {len(entries)} tasks, {sum(heldout.values())} held out, "
        f"{sum(colleague.values())} coordination"
    )
    for family in sorted(families):
        print(
            f"  {family}: {scenarios[family]} scenarios, {families[family]} tasks, "
            f"{heldout[family]} held out, {colleague[family]} coordination"
        )
    sample = entries
    if args.smoke:
        smoke = ("pour_20ml-beaker", "pour_20ml-wide")  # a training and a held-out binding
        sample = [(t, r) for t, r in entries if t.name in smoke]
    units = len(sample) * args.instances
    reference: dict[str, str] = {}
    for jobs in (1, 2):
        start = time.perf_counter()
        certificates, summary = certify_suite(sample, args.instances, 0, Executor("local", jobs))
        wall = time.perf_counter() - start
        text = {k: certificate_json(c) for k, c in certificates.items()}
        reference = reference or text
        print(
            f"certify {len(sample)} tasks, {args.instances} instance(s), {jobs} job(s), no "
            f"mutants: {wall:.1f} s, {units / wall:.2f} instances/s, "
            f"{summary['certified']} certified, identical to 1 job: {text == reference}"
        )
        if text != reference:
            raise SystemExit(f"certificates on {jobs} jobs differ from 1 job")
    # the smoke's mutants: a pipetting binding with decoy sources of buffer, whose draw
    # spec once missed a mutant drawing from another beaker
    mutated = [(t, r) for t, r in entries if t.name == "aliquot_buffer-beaker"]
    mutated = mutated if args.smoke else sample
    start = time.perf_counter()
    _certs, summary = certify_suite(mutated, args.instances, 0, Executor("local", 2))
    wall = time.perf_counter() - start
    run = sum(r["mutants"] for r in summary["tasks"])
    killed = sum(r["mutants_killed"] for r in summary["tasks"])
    print(
        f"certify {len(mutated)} tasks with mutants, {args.instances} instance(s), 2 jobs: "
        f"{wall:.1f} s, {run} mutants run, {killed} killed, {summary['certified']} certified"
    )


if __name__ == "__main__":
    main()
