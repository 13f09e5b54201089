"""Speed of the protocol and rubric backends, as ratios measured in one run.

(a) `semantic_diff` time / parse time of the same two texts, for protocols of
    100, 1,000 and 5,000 steps with a change every 10 steps, all in one tube: the diff
    should cost a small fraction of parsing. Matching is linear; the downstream lists
    are not, because here every change lists every later step (output of size
    changes x steps), so the 5k/1k ratio is expected near 25, not 5.
(b) grading 100 source protocols x 10 attempts x 20 items: the whole `grade` call
    (best-of-k for k = 1..10 in exact fractions + a 10,000-resample cluster bootstrap)
    / reading and validating the judgments file.
(c) a benchmark of 149 tasks (each its own rubric) over 96 source protocols x 3 attempts,
    graded in one run (`grade_benchmark`: per-task, per-domain and overall means,
    best-of-k, 10,000-resample cluster bootstrap over source protocols): the time per
    task, against grading the tasks one by one with `grade` (each with its own bootstrap).

Run: python benchmarks/protocols.py. `--smoke` runs the same code paths at the smallest
sizes (10 and 50 steps; 3 protocols x 10 attempts x 20 items, 100 resamples; 20 tasks
over 8 protocols) and one repetition, in a few seconds: tests/core/test_benchmarks.py runs it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

import json
import random
import time

from lablang.diagnostics import Report
from lablang.protocols.diff import semantic_diff
from lablang.protocols.front import build_protocols
from lablang.rubrics.grading import collect_grades, grade, read_judgments
from lablang.rubrics.model import Item, Rubric
from lablang.source import Source
from lablang.syntax import parse

KINDS = [
    "add: {v} uL of water  to: t",
    "mix: pipette  count: {c}  container: t",
    "incubate: {temp} C for {v} min  container: t",
    "centrifuge: {v}00 xg for 10 s  container: t",
    "thermocycle {{ 98 C for 30 s; repeat {c} {{ 98 C for 10 s; {temp} C for 30 s; 72 C for 30 s }}; hold 4 C }}",
]


def protocol_text(steps: int, changed: bool) -> str:
    lines = ["protocol p {", "  materials: [water]", "  containers: [t]"]
    for i in range(steps):
        v, c, temp = 5 + i % 7, 5 + i % 9, 55 + i % 10
        if changed and i % 10 == 2:
            temp += 1
        lines.append(f"  step s{i} {{ " + KINDS[i % len(KINDS)].format(v=v, c=c, temp=temp) + " }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def timed(function, repeat: int = 3):  # type: ignore[no-untyped-def]
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def bench_diff(sizes: tuple[int, ...] = (100, 1000, 5000), repeat: int = 3) -> None:
    print("(a) semantic diff / parse of the same text")
    times = {}
    for steps in sizes:
        old_text, new_text = protocol_text(steps, False), protocol_text(steps, True)

        def parse_both(old_text: str = old_text, new_text: str = new_text):  # type: ignore[no-untyped-def]
            built = []
            for text in (old_text, new_text):
                source = Source(text, "b.lab")
                report = Report()
                built.append(build_protocols(parse(source, report), source, report)[0])
            return built

        parse_time, (old, new) = timed(parse_both, repeat)
        diff_time, diff = timed(lambda old=old, new=new: semantic_diff(old, new), repeat)
        times[steps] = diff_time
        print(
            f"  {steps:>5} steps: diff {diff_time * 1000:8.1f} ms, parse+build "
            f"{parse_time * 1000:8.1f} ms, ratio {diff_time / parse_time:.3f}, "
            f"{len(diff.changes)} changes"
        )
    small, large = sizes[-2:]
    print(
        f"  growth: diff({large}) / diff({small}) = {times[large] / times[small]:.2f} "
        f"(linear = {large // small})"
    )


def bench_grade(protocols: int = 100, resamples: int = 10_000, repeat: int = 3) -> None:
    rng = random.Random(1)
    items = tuple(
        Item(
            id=f"i{k}",
            criterion="",
            weight=__import__("fractions").Fraction(rng.choice([1, 2, 3, -1, -2]) if k else 3),
        )
        for k in range(20)
    )
    rubric = Rubric(name="r", items=items)
    lines = []
    for p in range(protocols):
        for a in range(10):
            for item in items:
                lines.append(
                    json.dumps(
                        {
                            "protocol": f"p{p}",
                            "attempt": a,
                            "item": item.id,
                            "score": rng.randint(0, 2),
                        }
                    )
                )
    text = "\n".join(lines) + "\n"

    def read():  # type: ignore[no-untyped-def]
        report = Report()
        source = Source(text, "j.jsonl")
        grades = collect_grades(rubric, read_judgments(source, report), source, report)
        assert not report.has_errors
        return grades

    read_time, grades = timed(read, repeat)
    grade_time, result = timed(lambda: grade(rubric, grades, seed=0, resamples=resamples), repeat)
    print(f"(b) grading {protocols} protocols x 10 attempts x 20 items ({len(lines):,} judgments)")
    print(
        f"  read+validate {read_time * 1000:.1f} ms, grade (best-of-1..10 + {resamples:,}-resample "
        f"bootstrap) {grade_time * 1000:.1f} ms, ratio {grade_time / read_time:.2f}"
    )
    print(f"  mean {result.mean:.4f}, CI {result.ci['mean']}")


def bench_benchmark(
    tasks: int = 149, sources: int = 96, resamples: int = 10_000, repeat: int = 3
) -> None:
    from fractions import Fraction

    from lablang.rubrics.benchmark import BenchmarkTask, grade_benchmark

    rng = random.Random(2)
    found, grades = [], {}
    for t in range(tasks):
        items = tuple(
            Item(id=f"i{k}", criterion="", weight=Fraction(rng.choice([1, 2, 3]) if k else -1))
            for k in range(rng.randint(4, 12))
        )
        task = BenchmarkTask(
            id=f"t{t}",
            rubric=Rubric(name=f"r{t}", items=items),
            source=f"p{t % sources}",
            domain=("dna", "rna", "protein")[t % 3],
        )
        found.append(task)
        grades[task.id] = {str(a): {i.id: rng.randint(0, 2) for i in items} for a in range(1, 4)}
    one_run, result = timed(
        lambda: grade_benchmark(found, grades, seed=0, resamples=resamples), repeat
    )
    by_task, _ = timed(
        lambda: [
            grade(t.rubric, {(t.source, a): g for a, g in grades[t.id].items()},
                  resamples=resamples)
            for t in found
        ],
        1,
    )  # fmt: skip
    print(f"(c) a benchmark of {tasks} tasks over {sources} source protocols x 3 attempts")
    print(
        f"  one run {one_run * 1000:.1f} ms ({one_run / tasks * 1000:.2f} ms per task); "
        f"task by task {by_task * 1000:.1f} ms ({by_task / tasks * 1000:.2f} ms per task)"
    )
    print(f"  overall mean {result.overall.mean:.4f}, CI {result.overall.ci['mean']}")


if __name__ == "__main__":
    if "--smoke" in sys.argv[1:]:
        bench_diff((10, 50), repeat=1)
        bench_grade(protocols=3, resamples=100, repeat=1)
        bench_benchmark(tasks=20, sources=8, resamples=100, repeat=1)
    else:
        bench_diff()
        bench_grade()
        bench_benchmark()
