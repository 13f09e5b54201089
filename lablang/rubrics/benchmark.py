"""A benchmark graded in one run: many tasks, each with its own rubric and source protocol.

Per task: the attempt scores (`node_value`), their mean and the expected best-of-k for
every k up to the task's own number of attempts, exactly as `grading.grade` computes them
for that task alone. Per domain and overall: the mean over tasks of each task's statistic,
clipped to [0, 1] after averaging; best-of-k up to the fewest attempts of any task in the
group. Intervals: a percentile cluster bootstrap over source protocols (a protocol is drawn
with all its tasks and their attempts), the statistic of a resample being the mean over the
tasks it holds, so a protocol with more tasks weighs more, as in the point estimate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from attrs import field, frozen

from lablang.diagnostics import Report
from lablang.rubrics.grading import (
    Judgment,
    _attempt_key,
    _best_of_ks,
    _did_you_mean,
    _line_span,
    clip,
    collect_grades,
)
from lablang.rubrics.model import Rubric, node_value
from lablang.source import Source, Span


@frozen(kw_only=True)
class BenchmarkTask:
    id: str
    rubric: Rubric
    source: str  # the source protocol the task modifies: the bootstrap's cluster
    domain: str


@frozen(kw_only=True)
class TaskGrade:
    task: str
    source: str
    domain: str
    attempts: int
    mean: float  # clipped, as `grade` reports it
    best_of_k: Mapping[int, float]  # k = 1 .. this task's own number of attempts
    scores: Mapping[str, float] = field(
        factory=dict
    )  # attempt -> its score (unclipped), as `grade` has them
    machine_checked: tuple[str, ...] = ()  # items graded from the answers, not judged


@frozen(kw_only=True)
class GroupGrade:
    """The mean over a group's tasks; best-of-k up to the fewest attempts in the group."""

    tasks: int
    mean: float
    best_of_k: Mapping[int, float]
    ci: Mapping[str, tuple[float, float]]  # "mean", "best_of_K"


@frozen(kw_only=True)
class BenchmarkGrade:
    tasks: Mapping[str, TaskGrade]
    domains: Mapping[str, GroupGrade]
    overall: GroupGrade
    sources: int
    seed: int
    resamples: int


def grade_benchmark(
    tasks: Sequence[BenchmarkTask],
    grades: Mapping[str, Mapping[str, Mapping[str, int]]],
    *,
    seed: int = 0,
    resamples: int = 10_000,
    executor: Any = None,
    machine_checked: Mapping[str, Sequence[str]] | None = None,
) -> BenchmarkGrade:
    """Grade every task from `grades[task][attempt][item]` (complete grades, as
    `collect_grades` returns for one rubric) in one run; `machine_checked[task]` names the
    items graded from answers (recorded in the result, as `grade` records them).

    >>> from lablang.rubrics.model import Item
    >>> r = Rubric(name="r", items=(Item(id="a", criterion="", weight=Fraction(1)),))
    >>> t = [BenchmarkTask(id="t1", rubric=r, source="p", domain="d"),
    ...      BenchmarkTask(id="t2", rubric=r, source="q", domain="d")]
    >>> g = grade_benchmark(t, {"t1": {"1": {"a": 2}, "2": {"a": 0}}, "t2": {"1": {"a": 2}}},
    ...                     resamples=50)
    >>> g.tasks["t1"].best_of_k, g.overall.mean, dict(g.overall.best_of_k)
    ({1: 0.5, 2: 1.0}, 0.75, {1: 0.75})
    """
    import numpy as np

    from lablang.executors.bootstrap import bootstrap_means

    values: dict[str, list[float]] = {}  # task -> [mean, best-of-1, ..., best-of-n], unclipped
    results: dict[str, TaskGrade] = {}
    for task in tasks:
        attempts = sorted(grades.get(task.id, {}).items(), key=lambda kv: _attempt_key(kv[0]))
        scores = [node_value(task.rubric.items, dict(g)) for _, g in attempts]
        if not scores:
            continue
        ks = list(range(1, len(scores) + 1))
        bok = _best_of_ks(scores, ks)
        mean = float(sum(scores, Fraction(0)) / len(scores))
        values[task.id] = [mean, *bok]
        results[task.id] = TaskGrade(
            task=task.id,
            source=task.source,
            domain=task.domain,
            attempts=len(scores),
            mean=clip(mean),
            best_of_k={k: clip(b) for k, b in zip(ks, bok, strict=True)},
            scores={a: float(s) for (a, _), s in zip(attempts, scores, strict=True)},
            machine_checked=tuple(sorted((machine_checked or {}).get(task.id, ()))),
        )
    graded = [t for t in tasks if t.id in values]
    sources = sorted({t.source for t in graded})
    groups: dict[str, list[BenchmarkTask]] = {"": graded}
    for task in graded:
        groups.setdefault(f"domain:{task.domain}", []).append(task)
    # columns: for each group and statistic, the sum of the tasks' values per source
    # protocol, then the number of the group's tasks per source protocol
    layout: list[tuple[str, int]] = []
    for name, members in groups.items():
        fewest = min((results[t.id].attempts for t in members), default=0)
        layout += [(name, s) for s in range(1 + fewest)]
    row_of = {s: i for i, s in enumerate(sources)}
    table = np.zeros((len(sources), 2 * len(layout)))
    for c, (name, stat) in enumerate(layout):
        for task in groups[name]:
            table[row_of[task.source], c] += values[task.id][stat]
            table[row_of[task.source], len(layout) + c] += 1
    means = (
        bootstrap_means(table, seed=seed, resamples=resamples, executor=executor)
        if sources
        else np.zeros((resamples, 2 * len(layout)))
    )
    counts = means[:, len(layout) :]
    ratios = np.divide(
        means[:, : len(layout)], counts, out=np.full_like(counts, np.nan), where=counts > 0
    )
    ratios = np.clip(ratios, 0.0, 1.0)

    def summary(name: str) -> GroupGrade:
        members = groups[name]
        columns = [(c, stat) for c, (g, stat) in enumerate(layout) if g == name]
        point = {
            stat: sum(values[t.id][stat] for t in members) / len(members) for _, stat in columns
        }
        ci = {}
        for c, stat in columns:
            low, high = np.nanquantile(ratios[:, c], [0.025, 0.975])
            ci["mean" if stat == 0 else f"best_of_{stat}"] = (float(low), float(high))
        return GroupGrade(
            tasks=len(members),
            mean=clip(point[0]),
            best_of_k={stat: clip(v) for stat, v in point.items() if stat > 0},
            ci=ci,
        )

    by_domain = defaultdict(list)
    for task in graded:
        by_domain[task.domain].append(task)
    return BenchmarkGrade(
        tasks=results,
        domains={d: summary(f"domain:{d}") for d in sorted(by_domain)},
        overall=summary("") if graded else GroupGrade(tasks=0, mean=0.0, best_of_k={}, ci={}),
        sources=len(sources),
        seed=seed,
        resamples=resamples,
    )


def collect_benchmark_grades(
    tasks: Sequence[BenchmarkTask],
    judgments: Sequence[Judgment],
    source: Source | None,
    report: Report,
    rejected: dict[tuple[str, str, str], int] | None = None,
    machine: Mapping[tuple[str, str, str], Judgment] | None = None,
) -> dict[str, dict[str, dict[str, int]]]:
    """`grades[task][attempt][item]` from judgment lines naming their task (`"task"`);
    each task's judgments are checked against its own rubric as `collect_grades` checks
    one rubric's, with `machine[(task, attempt, item)]` its machine-checked grades. Task
    ids are compared exactly: a line naming no task of the benchmark is `E0851`, with "did
    you mean" (a trailing blank is a different id)."""
    by_task: dict[str, list[Judgment]] = defaultdict(list)
    known = {t.id for t in tasks}
    unknown_seen: set[str] = set()
    for j in judgments:
        if j.protocol in known:
            by_task[j.protocol].append(j)
        elif j.protocol not in unknown_seen:
            unknown_seen.add(j.protocol)
            report.add(
                "E0851",
                f"line {j.line}: the benchmark has no task {_quoted(j.protocol)}",
                source,
                _line_span(source, j.line),
                label="unknown task",
                help=_did_you_mean(j.protocol, known),
            )
    grades: dict[str, dict[str, dict[str, int]]] = {}
    for task in tasks:
        mine = {k: v for k, v in (rejected or {}).items() if k[0] == task.id}
        checked = {k: v for k, v in (machine or {}).items() if k[0] == task.id}
        collected = collect_grades(task.rubric, by_task.get(task.id, []), source, report,
                                   machine=checked, rejected=mine)  # fmt: skip
        if collected:
            grades[task.id] = {a: g for (_, a), g in collected.items()}
    ungraded = [t.id for t in tasks if t.id not in grades and not by_task.get(t.id)]
    if ungraded and grades:
        report.add(
            "W0838",
            "no judgments for " + ", ".join(f"task `{t}`" for t in ungraded) + ": graded "
            f"over {len(grades)} of the benchmark's {len(tasks)} tasks",
            source,
            Span(0, 0),
            label="tasks without attempts",
            help="judge every task's attempts (an attempt is graded when its judgments name "
            "it, machine-checked items included only with `--answers`)",
        )
    return grades


def _quoted(text: str) -> str:
    import json

    return json.dumps(text)


def render_benchmark(result: BenchmarkGrade, name: str) -> str:
    """The graded benchmark as text: overall, per domain, per task with its own n."""

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    def with_ci(group: GroupGrade, key: str, value: float) -> str:
        low, high = group.ci.get(key, (value, value))
        return f"{pct(value)}  [{pct(low)}, {pct(high)}]"

    lines = [
        f"benchmark `{name}`: {len(result.tasks)} tasks over {result.sources} source protocols"
    ]
    for label, group in [("overall", result.overall), *result.domains.items()]:
        lines.append(f"{label} ({group.tasks} tasks): mean {with_ci(group, 'mean', group.mean)}")
        for k, value in group.best_of_k.items():
            lines.append(f"  best-of-{k:<3} {with_ci(group, f'best_of_{k}', value)}")
    lines += ["", "per task (best-of-k up to the task's own number of attempts):"]
    for task in result.tasks.values():
        best = ", ".join(f"{k}: {pct(v)}" for k, v in task.best_of_k.items())
        lines.append(
            f"  {task.task} ({task.domain}, from `{task.source}`): mean {pct(task.mean)} over "
            f"{task.attempts} attempts; best-of-k {best}"
        )
    attempts = {t.attempts for t in result.tasks.values()}
    if len(attempts) > 1:
        lines.append(
            f"note: tasks have {min(attempts)} to {max(attempts)} attempts; best-of-k over "
            f"tasks stops at the fewest ({min(attempts)})"
        )
    lines += [
        "",
        f"CIs: 95% cluster bootstrap over source protocols, {result.resamples} resamples, "
        f"seed {result.seed}",
    ]
    return "\n".join(lines) + "\n"


def benchmark_json(result: BenchmarkGrade, name: str) -> dict[str, object]:
    """The graded benchmark as JSON data (`grade --benchmark --json`), valid under
    `benchmark_schema()`."""

    def group(g: GroupGrade) -> dict[str, object]:
        return {
            "tasks": g.tasks,
            "mean": g.mean,
            "best_of_k": {str(k): v for k, v in g.best_of_k.items()},
            "ci": {k: list(v) for k, v in g.ci.items()},
        }

    return {
        "benchmark": name,
        "sources": result.sources,
        "overall": group(result.overall),
        "domains": {d: group(g) for d, g in result.domains.items()},
        "tasks": {
            t.task: {
                "source": t.source,
                "domain": t.domain,
                "attempts": t.attempts,
                "mean": t.mean,
                "best_of_k": {str(k): v for k, v in t.best_of_k.items()},
                "scores": dict(t.scores),
                "machine_checked": list(t.machine_checked),
            }
            for t in result.tasks.values()
        },
        "ci_method": "cluster bootstrap over source protocols, 95% percentile, "
        f"{result.resamples} resamples, seed {result.seed}",
    }


def benchmark_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of `grade --benchmark --json`."""
    import json
    from importlib.resources import files

    text = files("lablang.rubrics").joinpath("schemas/benchmark.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
