"""One task against the protocol it realizes: the trace's rules, each violation a coded
diagnostic in the task that also points at the protocol's place (a label when the
protocol is in the task's file, a note with its location otherwise).

- E0843: a task step realizes, or the task defers, a step the protocol does not have.
- E0841: a protocol step neither realized by a task step nor deferred with a reason.
- E0842: protocol steps realized out of the protocol's order.
- E0844: the protocol's containers and materials bound to scene entities and substances,
  one entity per container, and the task's steps acting on those (identity across steps).
- E0845: what the protocol step does, the task's program and success spec do too: the
  same amount into the same container (liquids), the same mixing and count, the same
  temperature, within the task's `tolerance` (exact without one), compared with units.
"""

from __future__ import annotations

from lablang.check.names import did_you_mean
from lablang.diagnostics import Edit, Fix, Report
from lablang.protocols import model as pm
from lablang.sim import model as sm
from lablang.source import Source, Span
from lablang.trace.actions import check_action
from lablang.trace.evidence import (
    Bound,
    Where,
    containers_of,
    pipette_ledger,
    working_containers,
)


def check_trace(
    task: sm.Task,
    task_source: Source,
    protocol: pm.Protocol,
    protocol_source: Source,
    report: Report,
) -> None:
    """Report into `report` every way `task` does not carry out `protocol` (see above)."""
    trace = task.trace
    assert trace is not None
    where = Where(task_source, protocol_source, report)
    names = {s.name: s for s in protocol.steps}
    realized: dict[str, list[int]] = {}
    guessed: set[str | None] = set()  # misspelt steps: not reported again as missing
    for index, step in enumerate(task.steps):
        for named in step.realizes:
            if named.name in names:
                realized.setdefault(named.name, []).append(index)
            else:
                guessed.add(
                    _unknown_step(where, protocol, named, f"task step `{step.name}` realizes")
                )
    deferred = {}
    for named, reason in trace.defer:
        if named.name not in names:
            guessed.add(_unknown_step(where, protocol, named, "the task defers"))
        elif named.name in realized:
            where.add(
                "E0843",
                f"protocol step `{named.name}` is both deferred and realized by task step "
                f"`{task.steps[realized[named.name][0]].name}`",
                named.span,
                names[named.name].span,
                f"protocol step `{named.name}`",
                help="a robot either does the step or it does not: drop the deferral or the "
                "`realizes`",
            )
        else:
            deferred[named.name] = reason
    _check_coverage(where, task, protocol, realized, deferred, guessed)
    _check_order(where, task, protocol, realized)
    bound = _check_bindings(where, task, protocol, realized)
    if bound is None:
        return
    ledger = pipette_ledger(task)
    for protocol_step in protocol.steps:
        indexes = realized.get(protocol_step.name, [])
        if indexes:
            doers = [task.steps[i] for i in indexes]
            check_action(where, task, protocol, protocol_step, doers, bound, ledger)


def _unknown_step(where: Where, protocol: pm.Protocol, named: sm.Named, who: str) -> str | None:
    """E0843 for a name that is not a protocol step; the step it likely meant."""
    guess = did_you_mean(named.name, [s.name for s in protocol.steps])
    where.add(
        "E0843",
        f"{who} `{named.name}`, which is not a step of protocol `{protocol.name}`",
        named.span,
        protocol.span,
        f"protocol `{protocol.name}`",
        label="not a protocol step",
        help=f"did you mean `{guess}`?" if guess else "name a step of the protocol",
        fix=Fix(f"name step `{guess}`", (Edit(named.span, guess),))
        if guess and named.span
        else None,
    )
    return guess


def _check_coverage(
    where: Where,
    task: sm.Task,
    protocol: pm.Protocol,
    realized: dict[str, list[int]],
    deferred: dict[str, str],
    guessed: set[str | None],
) -> None:
    trace = task.trace
    assert trace is not None
    for step in protocol.steps:
        if step.name in realized or step.name in deferred or step.name in guessed:
            continue
        where.add(
            "E0841",
            f"protocol step `{step.name}` ({step.kind}) is not realized by a step of task "
            f"`{task.name}`, nor deferred",
            trace.protocol.span,
            step.span,
            f"protocol step `{step.name}`",
            label=f"`{step.name}` is missing from this task",
            help=f"write `realizes {step.name}` on the task step that does it, or "
            f'`defer: {{{step.name}: "why no robot does it"}}` in the task',
        )


def _check_order(
    where: Where, task: sm.Task, protocol: pm.Protocol, realized: dict[str, list[int]]
) -> None:
    latest: tuple[int, pm.Step] | None = None
    for step in protocol.steps:
        if step.name not in realized:
            continue
        first = min(realized[step.name])
        if latest is not None and first < latest[0]:
            task_step = task.steps[first]
            named = next(n for n in task_step.realizes if n.name == step.name)
            where.add(
                "E0842",
                f"task step `{task_step.name}` carries out protocol step `{step.name}` before "
                f"`{latest[1].name}` (task step `{task.steps[latest[0]].name}`), which comes "
                f"first in protocol `{protocol.name}`",
                named.span,
                latest[1].span,
                f"protocol step `{latest[1].name}` comes first",
                label="realized too early",
                help="reorder the task's steps to follow the protocol",
            )
        else:
            latest = (first, step)


def _used_containers(protocol: pm.Protocol, working: dict[int, str | None]) -> dict[str, Span]:
    """Each container a protocol step names, where it first does."""
    found: dict[str, Span] = {}
    for step in protocol.steps:
        for name in containers_of(step, working):
            found.setdefault(name, step.span)
    return found


def _check_bindings(
    where: Where, task: sm.Task, protocol: pm.Protocol, realized: dict[str, list[int]]
) -> Bound | None:
    trace = task.trace
    assert trace is not None
    working = working_containers(protocol)
    declared = _used_containers(protocol, working)
    for container in protocol.containers:
        declared.setdefault(container.name, container.span)
    materials = {m.name: m.span for m in protocol.materials}
    for step in protocol.steps:
        material = getattr(step.action, "material", None)
        if material:
            materials.setdefault(material, step.span)
    containers: dict[str, sm.Ref] = {}
    substances = {name: name for name in materials}  # a material is its own name by default
    owners: dict[str, str] = {}
    ok = True
    for named, target in trace.bind:
        if named.name in declared:
            if not isinstance(target, sm.Ref):
                where.add(
                    "E0844",
                    f"protocol container `{named.name}` is bound to `{target.value}`, which is "
                    f"not an entity of scene `{task.scene.name}`",
                    target.span,
                    declared[named.name],
                    f"container `{named.name}`",
                    help="bind it to the scene's entity that plays it, e.g. `tube1: tube`",
                )
                ok = False
                continue
            entity = target.text()
            if entity in owners:
                where.add(
                    "E0844",
                    f"protocol containers `{owners[entity]}` and `{named.name}` are both bound "
                    f"to `{entity}`",
                    named.span,
                    declared[named.name],
                    f"container `{named.name}`",
                    help="each protocol container is its own scene entity",
                )
                ok = False
            owners[entity] = named.name
            containers[named.name] = target
        elif named.name in materials:
            substances[named.name] = target.value if isinstance(target, sm.Text) else target.text()
        else:
            guess = did_you_mean(named.name, [*declared, *materials])
            where.add(
                "E0844",
                f"`{named.name}` is not a container or material of protocol `{protocol.name}`",
                named.span,
                protocol.span,
                f"protocol `{protocol.name}`",
                help=f"did you mean `{guess}`?" if guess else "bind the protocol's own names",
            )
            ok = False
    used = {
        name
        for step in protocol.steps
        if step.name in realized
        for name in containers_of(step, working)
    }
    for name in sorted(used - set(containers)):
        where.add(
            "E0844",
            f"protocol container `{name}` is not bound to an entity of scene `{task.scene.name}`",
            trace.protocol.span,
            declared.get(name, protocol.span),
            f"container `{name}`",
            help=f"add `{name}: ENTITY` to the task's `bind: {{...}}`",
        )
        ok = False
    return Bound(containers, substances, working) if ok else None
