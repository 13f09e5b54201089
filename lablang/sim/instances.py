"""Running certification instances: one instance of a task (with its rerun after a
simulator fault), the per-instance seeds, the task's hash, and the units that run
instances on an executor (this process, local workers or Ray) from a `TaskRef`.

The layer below `certify` (certificates) and `suite` (many tasks as one job), which
both run instances through it; neither imports the other's way down here
(`tests/sim/test_layers.py`: no import circle in `lablang.sim`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import frozen

from lablang.executors import Executor, Unit, UnitFailure, run_units
from lablang.sim.catalog import MUTANT_INSTANCES, RERUN_TIMESTEP
from lablang.sim.episode import EpisodeResult, run_episode
from lablang.sim.model import Task
from lablang.sim.mutants import (
    Mutant,
    MutantOutcome,
    derive_mutants,
    run_step_mutants,
    sensitivity_of,
)


@frozen
class InstanceOutcome:
    seed: int
    result: EpisodeResult
    rerun_of_fault: str | None = None  # the fault that the rerun replaced
    work: int = 0  # physics work of every run of this instance (a rerun included)


def instance_seeds(seed: int, instances: int) -> list[int]:
    """The per-instance seeds derived from a base seed.

    >>> instance_seeds(0, 3) == instance_seeds(0, 3)
    True
    """
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(instances, dtype=np.uint32)]


def run_instance(task: Task, seed: int) -> InstanceOutcome:
    result = run_episode(task, seed)
    if result.fault is None:
        return InstanceOutcome(seed, result, work=result.work)
    rerun = run_episode(task, seed, timestep=RERUN_TIMESTEP)
    first = f"{result.fault.kind}: {result.fault.detail}"
    work = result.work + rerun.work
    if rerun.fault is None:
        return InstanceOutcome(seed, rerun, rerun_of_fault=first, work=work)
    return InstanceOutcome(seed, result, work=work)


def task_hash(task: Task) -> str:
    """SHA-256 of the task's text and its scene model (what the certificate certifies)."""
    digest = hashlib.sha256()
    digest.update(task.source_text.encode("utf-8"))
    digest.update(repr(task.scene).encode("utf-8"))
    digest.update(repr(task.steps).encode("utf-8"))
    return digest.hexdigest()


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


def unit_task(payload: dict[str, Any]) -> Task:
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
    return run_instance(unit_task(payload), payload["seed"])


def mutant_unit(payload: dict[str, Any]) -> list[MutantOutcome]:
    """The mutants of one step of a task's expert program on their instances, in a worker."""
    mutants = [Mutant(**m) for m in payload["mutants"]]
    return run_step_mutants(unit_task(payload), mutants, payload["seeds"])


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


def run_instances(
    work: Sequence[tuple[Task, TaskRef | None, list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[list[InstanceOutcome | UnitFailure]]:
    """Certification instances of every task, regrouped per task in seed order."""
    return run_task_units(certify_unit, work, executor, progress)


def run_mutants(
    work: Sequence[tuple[Task, TaskRef | None, list[Mutant], list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[list[MutantOutcome | UnitFailure]]:
    """Every mutant of every task on the given instance seeds, regrouped per task in
    mutant order. A step's mutants are one unit; a lost unit loses each of its mutants."""
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
                        {**payload, "mutants": [asdict(m) for m in group]},
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


def _mutant_seeds(task: Task, seeds: list[int]) -> list[int]:
    if any(step.alternatives for step in task.steps):
        return list(seeds)
    return seeds[:MUTANT_INSTANCES]


def sensitivities(
    work: Sequence[tuple[Task, TaskRef | None, list[int]]],
    executor: Executor,
    progress: str | None,
) -> list[dict[str, Any]]:
    """Each task's sensitivity section: its mutants run on the first of its seeds."""
    derived = [
        # a step that chooses from the evidence needs instances that took the alternative
        # its mutants change: they are searched among all the seeds
        (task, ref, derive_mutants(task) if seeds else [], _mutant_seeds(task, seeds))
        for task, ref, seeds in work
    ]
    outcomes = run_mutants(derived, executor, progress)
    return [
        sensitivity_of(task, mutants, found, len(seeds))
        for (task, _ref, mutants, seeds), found in zip(derived, outcomes, strict=True)
    ]
