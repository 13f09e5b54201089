"""A benchmark graded in one run (`lablang.rubrics.benchmark`): per task it equals grading
that task alone, overall and per domain it is the mean over tasks, best-of-k is per task
with its own number of attempts, and the intervals resample source protocols."""

from __future__ import annotations

import random
from fractions import Fraction

from lablang.rubrics.benchmark import BenchmarkTask, grade_benchmark
from lablang.rubrics.grading import grade
from lablang.rubrics.model import Item, Rubric


def generated(tasks: int = 20, sources: int = 8, seed: int = 3):
    """`tasks` tasks over `sources` source protocols in two domains, each with its own
    rubric (2-4 items, one a penalty) and 3 attempts, one task with 5."""
    rng = random.Random(seed)
    found, grades = [], {}
    for t in range(tasks):
        positive = [
            Item(id=f"i{n}", criterion="", weight=Fraction(rng.randint(1, 3)))
            for n in range(rng.randint(1, 3))
        ]
        items = (*positive, Item(id="bad", criterion="", weight=Fraction(-1)))
        rubric = Rubric(name=f"r{t}", items=items)
        task = BenchmarkTask(
            id=f"t{t}", rubric=rubric, source=f"p{t % sources}", domain=("dna", "rna")[t % 2]
        )
        found.append(task)
        attempts = 5 if t == 7 else 3
        grades[task.id] = {
            str(a): {i.id: rng.randint(0, 2) for i in items} for a in range(1, attempts + 1)
        }
    return found, grades


def test_twenty_tasks_over_eight_protocols_equal_per_task_grading():
    """Each task's mean and best-of-k from the one run equal `grade` on that task alone,
    and task t7's best-of-k goes up to its own 5 attempts."""
    tasks, grades = generated()
    result = grade_benchmark(tasks, grades, seed=1, resamples=200)
    assert result.sources == 8 and len(result.tasks) == 20
    for task in tasks:
        alone = grade(
            task.rubric,
            {(task.source, a): g for a, g in grades[task.id].items()},
            resamples=10,
        )
        got = result.tasks[task.id]
        assert (got.mean, dict(got.best_of_k)) == (alone.mean, dict(alone.best_of_k)), task.id
    assert list(result.tasks["t7"].best_of_k) == [1, 2, 3, 4, 5]


def test_overall_and_domain_means_are_means_over_tasks_clipped_after_averaging():
    """The overall mean is the mean of the 20 unclipped task means, clipped once; each
    domain's over its 10 tasks; best-of-k stops at the fewest attempts (3)."""
    from lablang.rubrics.model import node_value

    tasks, grades = generated()
    result = grade_benchmark(tasks, grades, seed=1, resamples=200)

    def task_mean(task):
        scores = [node_value(task.rubric.items, g) for g in grades[task.id].values()]
        return sum(scores, Fraction(0)) / len(scores)

    def clip(x):
        return float(min(max(x, 0), 1))

    overall = sum((task_mean(t) for t in tasks), Fraction(0)) / 20
    assert abs(result.overall.mean - clip(overall)) < 1e-12
    for domain in ("dna", "rna"):
        members = [t for t in tasks if t.domain == domain]
        expected = clip(sum((task_mean(t) for t in members), Fraction(0)) / len(members))
        assert abs(result.domains[domain].mean - expected) < 1e-12
    assert list(result.overall.best_of_k) == [1, 2, 3]


def test_intervals_resample_source_protocols_and_are_seeded():
    """The same seed gives the same intervals; a domain drawn from one source protocol has
    the degenerate interval at its mean (a resample holds all of it or none of it)."""
    tasks, grades = generated()
    a = grade_benchmark(tasks, grades, seed=5, resamples=300)
    b = grade_benchmark(tasks, grades, seed=5, resamples=300)
    assert a.overall.ci == b.overall.ci and a.domains["dna"].ci == b.domains["dna"].ci
    low, high = a.overall.ci["mean"]
    assert low <= a.overall.mean <= high and low < high
    single = [BenchmarkTask(id=t.id, rubric=t.rubric, source="p0", domain="one") for t in tasks[:3]]
    alone = grade_benchmark(single, grades, seed=5, resamples=100)
    mean = alone.domains["one"].mean
    assert alone.domains["one"].ci["mean"] == (mean, mean)


def test_a_lab_benchmark_graded_in_one_command_equals_the_library(tmp_path):
    """`lablang grade FILE --benchmark NAME` on a generated `.lab` benchmark of 20 tasks over
    8 source protocols (judgments naming their task) prints the library's report, and each
    task there has the mean of grading it alone."""
    import json

    from click.testing import CliRunner

    from lablang.cli import main
    from lablang.rubrics.benchmark import render_benchmark

    tasks, grades = generated()
    rubrics = "".join(
        f"rubric {t.rubric.name} {{\n"
        + "".join(f'  item {i.id} "c" weight {i.weight}\n' for i in t.rubric.items)
        + "}\n"
        for t in tasks
    )
    entries = "".join(
        f"  item {t.id} {{ rubric: {t.rubric.name}  published: {t.source}  domain: {t.domain} }}\n"
        for t in tasks
    )
    lab = tmp_path / "bench.lab"
    lab.write_text(rubrics + f"benchmark mods {{\n  domains: [dna, rna]\n{entries}}}\n")
    lines = [
        json.dumps({"task": t, "attempt": a, "item": i, "score": g})
        for t, attempts in grades.items()
        for a, items in attempts.items()
        for i, g in items.items()
    ]
    judgments = tmp_path / "j.jsonl"
    judgments.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(
        main,
        ["grade", str(lab), "--benchmark", "mods", "--judgments", str(judgments),
         "--resamples", "200", "--seed", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    expected = render_benchmark(grade_benchmark(tasks, grades, seed=1, resamples=200), "mods")
    assert result.output == expected
    assert "benchmark `mods`: 20 tasks over 8 source protocols" in result.output
