"""Suites: every task under some files and folders, certified or evaluated as one job.

A suite is the tasks found in `.lab` files (folders are searched recursively, as
`lablang check` does). Its work is one flat list of units, one per (task, instance
seed), so a pool or a cluster stays busy across tasks; results are regrouped per task
in seed order, so each certificate is byte-identical to certifying that task alone, on
any executor.

What a worker receives for a unit is a `TaskRef` (the `.lab` file's text, its name and
the module roots) and the seed; the worker checks the text once per process, finds the
task, verifies that its hash equals the driver's (the same task, with the same imported
modules) and runs the instance.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import asdict, frozen

from lablang.executors import Executor, Unit, UnitFailure, run_units
from lablang.sim.catalog import MUTANT_INSTANCES
from lablang.sim.certify import (
    InstanceOutcome,
    certificate_json,
    certificate_of,
    instance_seeds,
    run_instance,
    task_hash,
)
from lablang.sim.model import Task
from lablang.sim.mutants import (
    Mutant,
    MutantOutcome,
    derive_mutants,
    no_sensitivity,
    run_step_mutants,
    sensitivity_of,
)


class SuiteError(Exception):
    """A suite cannot be formed (no tasks, a file with errors): the message says which."""


@frozen
class TaskRef:
    """Where a task comes from: its file's text and name, the module roots, the task name."""

    text: str
    file: str
    roots: tuple[str, ...]
    task: str
    robot: str | None = None  # a task option (`--robot`) overriding the scene's robot


_LOADED: dict[TaskRef, Task] = {}


def load_ref(ref: TaskRef) -> Task:
    """The task a reference names, checked once per process."""
    if ref not in _LOADED:
        from lablang.diagnostics import Report
        from lablang.driver import check_source
        from lablang.sim.front import tasks_of
        from lablang.source import Source

        result = check_source(Source(ref.text, ref.file), [Path(ref.file).parent, *ref.roots])
        if result.report.has_errors:
            raise SuiteError(f"`{ref.file}` does not check on this worker")
        tasks = tasks_of(result.program, Report())
        if ref.task not in tasks:
            raise SuiteError(f"no task `{ref.task}` in `{ref.file}` on this worker")
        task = tasks[ref.task]
        if ref.robot is not None:
            from lablang.sim.robots import with_robot

            task = with_robot(task, ref.robot)
        _LOADED[ref] = task
    return _LOADED[ref]


def _task_of(payload: dict[str, Any]) -> Task:
    """The unit's task: built in this process (local), or rebuilt from its reference (Ray)."""
    if "local" in payload:
        return _LOCAL_TASKS[payload["local"]]
    ref = TaskRef(**{**payload["ref"], "roots": tuple(payload["ref"]["roots"])})
    task = load_ref(ref)
    if task_hash(task) != payload["task_hash"]:
        raise SuiteError(
            f"task `{ref.task}` differs on this worker (another version of an imported module?)"
        )
    return task


def certify_unit(payload: dict[str, Any]) -> InstanceOutcome:
    """One certification instance, run in a worker from its payload."""
    return run_instance(_task_of(payload), payload["seed"])


def mutant_unit(payload: dict[str, Any]) -> list[MutantOutcome]:
    """The mutants of one step of a task's expert program on their instances, in a worker."""
    mutants = [Mutant(**m) for m in payload["mutants"]]
    return run_step_mutants(_task_of(payload), mutants, payload["seeds"])


def evaluate_unit(payload: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One policy-evaluation episode, run in a worker: the policy is imported there."""
    from lablang.executors import resolve
    from lablang.sim.env import evaluate_episode

    policy = resolve(payload["policy"])
    return evaluate_episode(_task_of(payload), policy, payload["seed"], payload["max_seconds"])


_LOCAL_TASKS: dict[int, Task] = {}


def run_task_units(
    function: Any,
    work: Sequence[tuple[Task, TaskRef | None, list[int]]],
    executor: Executor,
    progress: str | None,
    extra: dict[str, Any] | None = None,
) -> list[list[Any]]:
    """`function` on every (task, seed) as one unit; results regrouped per task, in seed order.

    Local workers are forked from this process and find the tasks already built; Ray
    workers rebuild each task from its reference. `extra` goes into every payload.
    """
    items = [
        (task, ref, [(str(seed), seed, {"seed": seed, **(extra or {})}) for seed in seeds])
        for task, ref, seeds in work
    ]
    return _run_payloads(function, items, executor, progress)


def _run_payloads(
    function: Any,
    work: Sequence[tuple[Task, TaskRef | None, list[tuple[str, int, dict[str, Any]]]]],
    executor: Executor,
    progress: str | None,
) -> list[list[Any]]:
    """`function` on every (task, payload) as one unit (keyed `task/key`, with a seed for
    its failure report); results regrouped per task, in payload order."""
    units: list[Unit] = []
    for index, (task, ref, payloads) in enumerate(work):
        if executor.kind == "ray" and ref is None:
            raise SuiteError(
                f"task `{task.name}` has no source reference: the ray executor sends each "
                "worker the task's file (load it with `lablang.sim.suite.task_refs`)"
            )
        for key, seed, given in payloads:
            payload = dict(given)
            if executor.kind == "ray":
                assert ref is not None
                payload.update(ref=asdict(ref), task_hash=task_hash(task))
            else:
                _LOCAL_TASKS[index] = task
                payload["local"] = index
            units.append(Unit(f"{task.name}/{key}", seed, payload))
    try:
        flat = run_units(function, units, executor, progress)
    finally:
        _LOCAL_TASKS.clear()
    grouped, at = [], 0
    for _task, _ref, payloads in work:
        grouped.append(flat[at : at + len(payloads)])
        at += len(payloads)
    return grouped


def run_mutants(
    work: Sequence[tuple[Task, TaskRef | None, list[Mutant], list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[list[MutantOutcome | UnitFailure]]:
    """Every mutant of every task on the given instance seeds, regrouped per task in
    mutant order. A step's mutants are one unit; a lost unit loses each of its mutants."""
    from attrs import asdict as attrs_asdict

    items = []
    sizes: list[list[int]] = []
    for task, ref, mutants, seeds in work:
        steps: dict[str, list[Mutant]] = {}
        for mutant in mutants:
            steps.setdefault(mutant.step, []).append(mutant)
        payload = {"seeds": list(seeds)}
        items.append(
            (
                task,
                ref,
                [
                    (
                        f"mutants:{step}",
                        seeds[0],
                        {**payload, "mutants": [attrs_asdict(m) for m in group]},
                    )
                    for step, group in steps.items()
                ],
            )
        )
        sizes.append([len(group) for group in steps.values()])
    grouped = _run_payloads(mutant_unit, items, executor, progress)
    out: list[list[MutantOutcome | UnitFailure]] = []
    for found, counts in zip(grouped, sizes, strict=True):
        flat: list[MutantOutcome | UnitFailure] = []
        for unit, count in zip(found, counts, strict=True):
            flat.extend([unit] * count if isinstance(unit, UnitFailure) else unit)
        out.append(flat)
    return out


def sensitivities(
    work: Sequence[tuple[Task, TaskRef | None, list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[dict[str, Any]]:
    """Each task's sensitivity section: its mutants run on the first of its seeds."""
    derived = [
        (task, ref, derive_mutants(task) if seeds else [], seeds[:MUTANT_INSTANCES])
        for task, ref, seeds in work
    ]
    outcomes = run_mutants(derived, executor, progress)
    return [
        sensitivity_of(task, mutants, found, len(seeds))
        for (task, _ref, mutants, seeds), found in zip(derived, outcomes, strict=True)
    ]


def run_instances(
    work: Sequence[tuple[Task, TaskRef | None, list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[list[InstanceOutcome | UnitFailure]]:
    """Certification instances of every task, regrouped per task in seed order."""
    return run_task_units(certify_unit, work, executor, progress)


def evaluate_suite(
    entries: Sequence[tuple[Task, TaskRef | None]],
    policy: str,
    episodes: int,
    seed: int,
    max_seconds: float,
    executor: Executor,
    progress: bool = False,
    records_dir: Path | None = None,
    judges: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """A policy (`module:function`) evaluated on each task, keyed like certificates.

    Each episode is a unit; a lost episode (its worker died on every attempt) is listed
    under `lost_episodes` with its seed and counts as credit 0. `judges` (by task name)
    score the episodes of tasks bound to a contract against its legal sets
    (`lablang.bound.judge_for`).
    """
    from lablang.sim.env import evaluation_of
    from lablang.sim.records import score_lines, write_records

    seeds = instance_seeds(seed, episodes)
    label = f"evaluate {len(entries)} tasks" if progress else None
    extra = {"policy": policy, "max_seconds": max_seconds}
    work = [(task, ref, seeds) for task, ref in entries]
    results = run_task_units(evaluate_unit, work, executor, label, extra)
    evaluations: dict[str, dict[str, Any]] = {}
    for (task, ref), found in zip(entries, results, strict=True):
        outcomes = []
        for item in found:
            if isinstance(item, UnitFailure):
                outcomes.append({"lost": item.as_dict()})
                continue
            outcome, lines = item
            judge = (judges or {}).get(task.name)
            if judge is not None:
                outcome = {**outcome, "score": score_lines(lines, judge)}
            if records_dir is not None:
                where = records_dir if len(entries) == 1 else records_dir / task.name
                write_records(where / f"{outcome['seed']}.jsonl", lines)
            outcomes.append(outcome)
        key = _key(ref, evaluations) if ref is not None else task.name
        evaluations[key] = evaluation_of(task, episodes, seed, outcomes)
    return evaluations


def task_files(paths: Sequence[str | Path]) -> list[Path]:
    """The `.lab` files named or found (recursively, sorted) under the given paths."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.lab") if p.is_file()))
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def task_ref(
    file: str | Path, roots: Sequence[str | Path], task: str, robot: str | None = None
) -> TaskRef:
    """The reference a worker rebuilds a task from: the file is read, not checked again."""
    from lablang.guarded import Refused, read_guarded
    from lablang.limits import DEFAULT_LIMITS

    # the guarded opener: a regular file, its size bounded (it was checked before, but a
    # file can change between the check and this read)
    limit = DEFAULT_LIMITS.max_file_bytes
    try:
        data = read_guarded(file, None, max_bytes=limit, limit="max_file_bytes")
        text = data.decode("utf-8").removeprefix("\ufeff")
    except (Refused, UnicodeDecodeError) as error:
        raise SuiteError(f"cannot read `{file}` again after its check: {error}") from None
    absolute = tuple(str(Path(r).resolve()) for r in roots)
    return TaskRef(text, str(Path(file).resolve()), absolute, task, robot)


def task_refs(
    paths: Sequence[str | Path], roots: Sequence[str | Path] = ()
) -> list[tuple[Task, TaskRef]]:
    """Every task declared in the files (and folders) given, with its reference.

    A named file with errors, or one that declares no task, is an error; a file found in
    a folder that declares no task is skipped (folders also hold the modules tasks use).
    """
    from lablang.diagnostics.render import render_texts
    from lablang.sim import load_tasks

    named = {Path(p) for p in paths if not Path(p).is_dir()}
    out: list[tuple[Task, TaskRef]] = []
    for file in task_files(paths):
        tasks, report = load_tasks(file, roots)
        if report.has_errors:
            raise SuiteError(render_texts(report.sorted()))
        if not tasks and file in named:
            raise SuiteError(f"`{file}` declares no task")
        for name in sorted(tasks):
            out.append((tasks[name], task_ref(file, roots, name)))
    if not out:
        raise SuiteError("no task found in " + ", ".join(str(p) for p in paths))
    return out


def certify_suite(
    entries: Sequence[tuple[Task, TaskRef]],
    instances: int,
    seed: int,
    executor: Executor,
    progress: bool = False,
    mutants: str = "all",
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Each task's certificate (keyed by a unique file-stem/task id) and the suite summary.

    `mutants="all"` also runs every task's mutants (`lablang.sim.mutants`), after the
    instances, as units of their own."""
    seeds = instance_seeds(seed, instances)
    work = [(task, ref, seeds) for task, ref in entries]
    label = f"certify {len(entries)} tasks" if progress else None
    outcomes = run_instances(work, executor, label)
    if mutants == "all":
        label = f"mutants of {len(entries)} tasks" if progress else None
        sections = sensitivities(work, executor, label)
    else:
        sections = [no_sensitivity(task) for task, _ref in entries]
    certificates: dict[str, dict[str, Any]] = {}
    rows = []
    for (task, ref), found, section in zip(entries, outcomes, sections, strict=True):
        key = _key(ref, certificates)
        certificate = certificate_of(task, seed, seeds, found, sensitivity=section)
        certificates[key] = certificate
        done = [o for o in found if isinstance(o, InstanceOutcome)]
        rows.append(
            {
                "id": key,
                "task": task.name,
                "file": ref.file,
                "certified": certificate["certified"],
                "success_rate": certificate["success_rate"],
                "mean_credit": certificate["mean_credit"],
                "faults": len(certificate["faults"]),
                "unit_failures": len(certificate["unit_failures"]),
                "mutants": section["run"],
                "mutants_killed": section["killed"],
                "mutants_surviving": section["surviving"],
                "already_held": len(certificate["already_held"]),
                "simulated_seconds": round(sum(o.result.sim_time for o in done), 4),
            }
        )
    summary = {
        "instances": instances,
        "seed": seed,
        "tasks": rows,
        "certified": sum(r["certified"] for r in rows),
        "total": len(rows),
    }
    return certificates, summary


def _key(ref: TaskRef, taken: dict[str, Any]) -> str:
    key = f"{Path(ref.file).stem}.{ref.task}"
    n = 2
    while key in taken:
        key, n = f"{Path(ref.file).stem}.{ref.task}.{n}", n + 1
    return key


def write_suite(
    out: Path, certificates: dict[str, dict[str, Any]], summary: dict[str, Any]
) -> list[Path]:
    """Write `<id>.cert.json` per task, `suite.json` and `suite.html` into `out`."""
    from lablang.output import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for key, certificate in certificates.items():
        path = out / f"{key}.cert.json"
        write_atomic(path, certificate_json(certificate))
        written.append(path)
    write_atomic(out / "suite.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    write_atomic(out / "suite.html", suite_html(summary))
    return [*written, out / "suite.json", out / "suite.html"]


def suite_html(summary: dict[str, Any]) -> str:
    """The suite summary as a self-contained HTML page (one row per task)."""
    from lablang.links import url_attribute

    rows = []
    for row in summary["tasks"]:
        rate = row["success_rate"]
        colour = "#2e7d32" if row["certified"] else "#c62828"
        rows.append(
            "<tr>"
            f'<td><a href="{url_attribute(row["id"] + ".cert.json")}">{html.escape(row["task"])}</a></td>'
            f"<td>{html.escape(Path(row['file']).name)}</td>"
            f'<td><div class=bar><div style="width:{rate * 100:.1f}%;background:{colour}"></div></div>'
            f" {rate:.0%}</td>"
            f"<td>{row['mean_credit']:.2f}</td><td>{row['faults']}</td>"
            f"<td>{row['unit_failures']}</td>"
            f"<td>{row['mutants_killed']}/{row['mutants']}</td><td>{row['already_held']}</td>"
            f"<td>{row['simulated_seconds']:.1f} s</td>"
            f'<td style="color:{colour}">{"certified" if row["certified"] else "not certified"}</td>'
            "</tr>"
        )
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>lablang suite</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:100%}"
        "table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #ddd;text-align:left}"
        ".bar{display:inline-block;width:120px;height:10px;background:#eee;vertical-align:middle}"
        ".bar div{height:100%}</style></head><body>"
        f"<h1>Suite: {summary['certified']} of {summary['total']} tasks certified</h1>"
        f"<p>{summary['instances']} instances per task, base seed {summary['seed']}.</p>"
        "<table><tr><th>task</th><th>file</th><th>success</th><th>mean credit</th><th>faults</th>"
        "<th>lost units</th><th>mutants killed</th><th>steps held at start</th><th>simulated</th>"
        "<th>verdict</th></tr>" + "".join(rows) + "</table></body></html>\n"
    )
