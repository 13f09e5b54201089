"""A protocol diff -> the task steps it affects: for each change, the steps of the tasks
that realize the protocol (by its old or new name) and carry out the changed step, or
defer it; an added step that no task realizes yet is listed with no task step."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from attrs import evolve, frozen

from lablang.diagnostics import Report
from lablang.protocols.diff import ProtocolDiff
from lablang.sim import model as sm


@frozen
class AffectedStep:
    file: str
    task: str
    step: str | None  # None: the protocol step is deferred, or not realized
    protocol_step: str
    change: str  # the change's kind: added, removed, changed, moved
    how: str  # "realizes", "defers" or "not realized"


def tasks_in(
    paths: Sequence[str | Path], roots: Sequence[str | Path] = ()
) -> list[tuple[str, sm.Task]]:
    """The tasks of every `.lab` file the paths name (folders searched) that realize a
    protocol, with their files; files with errors give the tasks that still build. A task
    family is listed once, by its own name (its bindings share its steps)."""
    from lablang.driver import check_file, lab_files
    from lablang.sim.front import tasks_of

    found: list[tuple[str, sm.Task]] = []
    for path in lab_files(paths):
        result = check_file(path, roots)
        families: set[str] = set()
        for task in tasks_of(result.program, Report()).values():
            if task.binding is not None:
                if task.binding.family in families:
                    continue
                families.add(task.binding.family)
                task = evolve(task, name=task.binding.family)
            if task.trace is not None:
                found.append((path, task))
    return found


def affected_task_steps(
    diff: ProtocolDiff, tasks: Iterable[tuple[str, sm.Task]]
) -> list[AffectedStep]:
    """Every task step (of tasks realizing `diff.old` or `diff.new`) a change touches."""
    protocols = {diff.old, diff.new}
    mine = [
        (file, task)
        for file, task in tasks
        if task.trace and task.trace.protocol.name.split(".")[-1] in protocols
    ]
    out: list[AffectedStep] = []
    for change in diff.changes:
        if not change.consequential:
            continue
        names = {change.step, change.old_name} - {None}
        for file, task in mine:
            assert task.trace is not None
            hits = [s.name for s in task.steps if names & {n.name for n in s.realizes}]
            for step in hits:
                out.append(
                    AffectedStep(file, task.name, step, change.step, change.kind, "realizes")
                )
            if not hits and names & {n.name for n, _why in task.trace.defer}:
                out.append(AffectedStep(file, task.name, None, change.step, change.kind, "defers"))
            elif not hits:
                out.append(
                    AffectedStep(file, task.name, None, change.step, change.kind, "not realized")
                )
    return out


def render_affected(affected: Sequence[AffectedStep]) -> str:
    """The affected task steps as text, after the diff."""
    if not affected:
        return "affected task steps: none (no task given realizes these protocols)\n"
    lines = ["affected task steps:"]
    for a in affected:
        where = f"{a.file}: task `{a.task}`"
        if a.step is not None:
            lines.append(f"  {where} step `{a.step}` realizes `{a.protocol_step}` ({a.change})")
        elif a.how == "defers":
            lines.append(f"  {where} defers `{a.protocol_step}` ({a.change})")
        else:
            lines.append(f"  {where} does not realize `{a.protocol_step}` ({a.change})")
    return "\n".join(lines) + "\n"
