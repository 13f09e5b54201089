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
(d) the same benchmark graded from files as `lablang grade FILE --benchmark NAME --answers
    DIR` does (`modification.grade_benchmark_files`: check the `.lab` benchmark, read the
    judgments, check every answer protocol DIR/TASK/ATTEMPT.lab and evaluate each task's
    machine checks on it, grade): the time per task, and the part of it the answers take,
    against the same benchmark with those items judged instead (no answers read). Both
    runs must give the same figures: the judged grades are the ones the answers earn.

Run: python benchmarks/protocols.py. `--smoke` runs the same code paths at the smallest
sizes (10 and 50 steps; 3 protocols x 10 attempts x 20 items, 100 resamples; 20 tasks
over 8 protocols; 8 tasks over 4 protocols x 2 attempts with answers) and one repetition,
in a few seconds: tests/core/test_benchmarks.py runs it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

import json
import random
import time

from attrs import evolve

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


def answer_text(meets: tuple[bool, bool]) -> str:
    """An answer protocol of six steps; `meets` says which of the two checks it meets."""
    temperature = "65 C" if meets[0] else "60 C"
    volume = "10 uL" if meets[1] else "5 uL"
    return (
        "protocol answer {\n  materials: [water, beads]\n  containers: [t]\n"
        f"  step load {{ add: {volume} of water  to: t }}\n"
        "  step mix { mix: pipette  count: 10  container: t }\n"
        f"  step heat {{ incubate: {temperature} for 10 min  container: t }}\n"
        "  step spin { centrifuge: 300 xg for 10 s  container: t }\n"
        "  step beads { add: 8 uL of beads  to: t }\n"
        "  step rest { incubate: 25 C for 5 min  container: t }\n}\n"
    )


def bench_benchmark_answers(
    tasks: int = 149, sources: int = 96, attempts: int = 3, resamples: int = 10_000,
    repeat: int = 3,
) -> None:  # fmt: skip
    import tempfile

    from lablang.modification import grade_benchmark_files

    rng = random.Random(4)
    checks = ("answer.step(heat).temperature == 65 C", "answer.step(load).volume == 10 uL")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        rubrics, entries, judged, checked = [], [], [], []
        for t in range(tasks):
            items = "".join(
                f'  item c{n} "meets change {n}" weight 3 {{ check: {c} }}\n'
                for n, c in enumerate(checks)
            ) + "".join(f'  item j{n} "judged {n}" weight 1\n' for n in range(3))
            rubrics.append(f'rubric r{t} {{\n{items}  item bad "breaks it" weight -1\n}}\n')
            entries.append(
                f"  item t{t} {{ rubric: r{t}  published: p{t % sources}  domain: dna }}"
            )
            for a in range(1, attempts + 1):
                meets = (rng.random() < 0.5, rng.random() < 0.5)
                answer = root / "answers" / f"t{t}" / f"{a}.lab"
                answer.parent.mkdir(parents=True, exist_ok=True)
                answer.write_text(answer_text(meets))
                for item in ("j0", "j1", "j2", "bad"):
                    judged.append({"task": f"t{t}", "attempt": a, "item": item,
                                   "score": rng.randint(0, 2)})  # fmt: skip
                for n, met in enumerate(meets):
                    checked.append({"task": f"t{t}", "attempt": a, "item": f"c{n}",
                                    "score": 2 if met else 0})  # fmt: skip
        lab = root / "bench.lab"
        lab.write_text("".join(rubrics) + "benchmark mods {\n  domains: [dna]\n"
                       + "\n".join(entries) + "\n}\n")  # fmt: skip
        for name, lines in (("judged.jsonl", judged), ("all.jsonl", judged + checked)):
            (root / name).write_text("".join(json.dumps(line) + "\n" for line in lines))

        def run(judgments: str, answers: Path | None):  # type: ignore[no-untyped-def]
            report = Report()
            result = grade_benchmark_files(lab, "mods", root / judgments, report,
                                           answers=answers, resamples=resamples)  # fmt: skip
            assert result is not None and not report.has_errors, report.diagnostics[:3]
            return result

        with_answers, result = timed(lambda: run("judged.jsonl", root / "answers"), repeat)
        judged_only, reference = timed(lambda: run("all.jsonl", None), repeat)
    assert result.tasks == {
        k: evolve(v, machine_checked=("c0", "c1")) for k, v in reference.tasks.items()
    }
    assert (result.overall, result.domains) == (reference.overall, reference.domains)
    answers = tasks * attempts
    print(
        f"(d) the benchmark from files with answers: {tasks} tasks over {sources} source "
        f"protocols x {attempts} attempts ({answers} answer files)"
    )
    print(
        f"  with answers {with_answers * 1000:.1f} ms ({with_answers / tasks * 1000:.2f} ms "
        f"per task); judged instead {judged_only * 1000:.1f} ms "
        f"({judged_only / tasks * 1000:.2f} ms per task); answers "
        f"{(with_answers - judged_only) / answers * 1000:.2f} ms per answer file"
    )
    print(
        f"  same figures as judging the checked items: True; overall mean {result.overall.mean:.4f}"
    )


if __name__ == "__main__":
    if "--smoke" in sys.argv[1:]:
        bench_diff((10, 50), repeat=1)
        bench_grade(protocols=3, resamples=100, repeat=1)
        bench_benchmark(tasks=20, sources=8, resamples=100, repeat=1)
        bench_benchmark_answers(tasks=8, sources=4, attempts=2, resamples=100, repeat=1)
    else:
        bench_diff()
        bench_grade()
        bench_benchmark()
        bench_benchmark_answers()
