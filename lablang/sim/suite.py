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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lablang.executors import Executor, UnitFailure
from lablang.sim.catalog import TASK_FAMILIES
from lablang.sim.certify import certificate_json, certificate_of
from lablang.sim.instances import (
    InstanceOutcome,
    SuiteError,
    TaskRef,
    instance_seeds,
    run_instances,
    run_task_units,
    sensitivities,
    unit_task,
)
from lablang.sim.model import Task
from lablang.sim.mutants import no_sensitivity


def evaluate_unit(payload: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One policy-evaluation episode, run in a worker: the policy is imported there."""
    from lablang.executors import resolve
    from lablang.sim.env import evaluate_episode

    policy = resolve(payload["policy"])
    return evaluate_episode(unit_task(payload), policy, payload["seed"], payload["max_seconds"])


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
        scenario = Path(ref.file).stem if ref is not None else ""
        evaluations[key] = evaluation_of(task, episodes, seed, outcomes, scenario)
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
    from lablang.sim.loading import load_tasks

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


def one_family(file: str | Path, roots: Sequence[str | Path] = ()) -> bool:
    """Whether the file's tasks are the bindings of one task family (then certify and
    evaluate take them all, as a suite, unless `--task` names one)."""
    from lablang.sim.loading import load_tasks

    tasks, _report = load_tasks(file, roots)
    families = {t.binding.family if t.binding else None for t in tasks.values()}
    return len(tasks) > 1 and len(families) == 1 and None not in families


def of_bindings(
    entries: Sequence[tuple[Task, TaskRef]], which: str, paths: Sequence[str | Path] = ()
) -> list[tuple[Task, TaskRef]]:
    """The entries an evaluation protocol keeps: `heldout`, the held-out bindings of task
    families; `training`, their training bindings and every task that is no family; `all`."""
    if which == "all":
        return list(entries)
    heldout = which == "heldout"
    kept = [(t, r) for t, r in entries if (t.binding is not None and t.binding.heldout) == heldout]
    if not kept:
        where = ", ".join(str(p) for p in paths) or "these tasks"
        raise SuiteError(f"no {'held-out' if heldout else 'training'} binding in {where}")
    return kept


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
                # a task family's binding (`<task>-<binding>`), and whether it is held out
                "binding": task.binding.name if task.binding else None,
                "heldout": bool(task.binding and task.binding.heldout),
                # a scripted colleague acts (a scene `event ... { ... }`, an intervention)
                "coordination": bool(task.scene.interventions),
                # the task's trace to its protocol (`task T in S realizes P`, lablang/trace)
                "family": task.family or None,
                "protocol": task.trace.protocol.name if task.trace else None,
                "trace": {s.name: [n.name for n in s.realizes] for s in task.steps}
                if task.trace
                else None,
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


# the formats a suite's demonstrations are written in, as the messages name them
SUITE_FORMATS = {
    "robomimic": "robomimic",
    "minari": "Minari",
    "lerobot": "LeRobot",
    "lerobot-v2.1": "LeRobot",
}


def write_suite_demos(
    entries: Sequence[tuple[Task, TaskRef]],
    episodes: int,
    out: Path,
    file_format: str = "robomimic",
    **options: Any,
) -> dict[str, Any]:
    """Expert demonstrations of every task of a suite (each binding of a family is a
    task): one robomimic file `OUT/<id>_demo.hdf5` (the certificate's id, `<file
    stem>.<task>`) or one Minari or LeRobot dataset per task, each from the same base seed, and
    `OUT/demos.json`, the index: per task its id, file, family, binding, held-out and
    coordination flags, the file written, the episodes' seeds and how many succeeded.
    `options` are `write_demos`'s (seed, action_mode, cameras, image_size, ...)."""
    from lablang.output import write_atomic
    from lablang.sim.demos import write_demos

    if file_format not in SUITE_FORMATS:
        raise ValueError(f"unknown demonstrations format `{file_format}`")
    if file_format != "robomimic":
        names = [task.name for task, _ref in entries]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise SuiteError(
                f"a {SUITE_FORMATS[file_format]} dataset is named by its task, and two files declare "
                + ", ".join(f"`{n}`" for n in twice)
                + ": write them as robomimic files (the default), which are named by file"
            )
    taken: dict[str, Any] = {}
    rows = []
    for task, ref in entries:
        key = _key(ref, taken)
        taken[key] = True
        if file_format == "minari":
            from lablang.sim.minari_dataset import write_minari

            path, certificate = write_minari(task, episodes, out, source=ref.file, **options)
        elif file_format.startswith("lerobot"):
            from lablang.sim.lerobot_dataset import write_lerobot

            version = "v2.1" if file_format == "lerobot-v2.1" else "v3.0"
            kept = {k: v for k, v in options.items() if k != "valid_fraction"}
            path, certificate = write_lerobot(
                task, episodes, out, source=ref.file, version=version, **kept
            )
        else:
            path, certificate = write_demos(
                task, episodes, out, source=ref.file, name=key, **options
            )
        rows.append(
            {
                "id": key,
                "task": task.name,
                "file": ref.file,
                "family": task.family or None,
                "binding": task.binding.name if task.binding else None,
                "heldout": bool(task.binding and task.binding.heldout),
                "coordination": bool(task.scene.interventions),
                "path": path.relative_to(out).as_posix(),
                "seeds": certificate["seeds"],
                "succeeded": round(certificate["success_rate"] * episodes),
            }
        )
    index = {
        "episodes": episodes,
        "seed": options.get("seed", 0),
        "format": file_format,
        "tasks": rows,
    }
    write_atomic(out / "demos.json", json.dumps(index, indent=2, sort_keys=True) + "\n")
    return index


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
    """The suite summary as a self-contained HTML page: one section per operation family
    (`catalog.TASK_FAMILIES` in order, then tasks without one), one row per task with its
    binding, whether it is held out and whether a scripted colleague acts."""
    from lablang.links import url_attribute

    groups: dict[str, list[dict[str, Any]]] = {}
    for row in summary["tasks"]:
        groups.setdefault(row.get("family") or "", []).append(row)
    order = [f for f in TASK_FAMILIES if f in groups] + sorted(
        f for f in groups if f not in TASK_FAMILIES
    )
    sections = []
    for family in order:
        rows = groups[family]
        counts = (
            f"{len(rows)} tasks, {sum(r['certified'] for r in rows)} certified, "
            f"{sum(bool(r.get('heldout')) for r in rows)} held out, "
            f"{sum(bool(r.get('coordination')) for r in rows)} coordination"
        )
        title = html.escape(family or "no family")
        sections.append(
            f"<h2>{title}</h2><p>{counts}</p>"
            "<table><tr><th>task</th><th>binding</th><th>evaluation</th><th>coordination</th>"
            "<th>protocol</th><th>file</th><th>success</th><th>mean credit</th><th>faults</th>"
            "<th>lost units</th><th>mutants killed</th><th>steps held at start</th>"
            "<th>simulated</th><th>verdict</th></tr>"
            + "".join(_html_row(row, url_attribute) for row in rows)
            + "</table>"
        )
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>lablang suite</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:100%}"
        "table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #ddd;text-align:left}"
        ".bar{display:inline-block;width:120px;height:10px;background:#eee;vertical-align:middle}"
        ".bar div{height:100%}</style></head><body>"
        f"<h1>Suite: {summary['certified']} of {summary['total']} tasks certified</h1>"
        f"<p>{summary['instances']} instances per task, base seed {summary['seed']}.</p>"
        + "".join(sections)
        + "</body></html>\n"
    )


def _html_row(row: dict[str, Any], url_attribute: Callable[[str], str]) -> str:
    rate = row["success_rate"]
    colour = "#2e7d32" if row["certified"] else "#c62828"
    binding = row.get("binding")
    return (
        "<tr>"
        f'<td><a href="{url_attribute(row["id"] + ".cert.json")}">{html.escape(row["task"])}</a></td>'
        f"<td>{html.escape(binding) if binding else '&mdash;'}</td>"
        f"<td>{'held out' if row.get('heldout') else ('training' if binding else '&mdash;')}</td>"
        f"<td>{'scripted colleague' if row.get('coordination') else '&mdash;'}</td>"
        f"<td>{html.escape(row.get('protocol') or '') or '&mdash;'}</td>"
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
