"""What each kind of protocol step asks of the task steps that realize it (E0844, E0845).

A liquid step (`add`, `transfer`) asks for a skill call that moves its volume into the
entity bound to its destination (from the one bound to its source), and a success spec
that checks the amount there; a `mix` for the skill of its method on its container, with
its count; an `incubate` for its temperature, set or checked. Durations are not compared:
the simulation compresses time (a 30 min incubation is seconds of simulated holding).
The other kinds (thermocycle, centrifuge, cleanup, wash, measure, wait, note) are traced
by order and binding only.
"""

from __future__ import annotations

from fractions import Fraction

from lablang.diagnostics import Edit, Fix
from lablang.protocols import model as pm
from lablang.protocols.quantities import Amount
from lablang.sim import model as sm
from lablang.trace.evidence import (
    LIQUID_SKILLS,
    MIX_SKILLS,
    ON_FIXTURE,
    SOLID_SKILLS,
    TAKING,
    Bound,
    Delivery,
    Where,
    atoms,
    number,
    ref,
    shown,
    si_value,
    tolerance,
    words,
)


def check_action(
    where: Where,
    task: sm.Task,
    protocol: pm.Protocol,
    step: pm.Step,
    doers: list[sm.Step],
    bound: Bound,
    ledger: dict[int, Delivery],
) -> None:
    """Report how the task steps `doers` fail to do what protocol step `step` does."""
    action = step.action
    if isinstance(action, pm.Add | pm.Transfer):
        _liquid(where, task, protocol, step, action, doers, bound, ledger)
    elif isinstance(action, pm.Mix):
        _mix(where, task, protocol, step, action, doers, bound)
    elif isinstance(action, pm.Incubate):
        _incubated(where, protocol, step, doers, bound)
        if action.temperature is not None:
            _temperature(where, task, step, action.temperature, doers)


def _names(doers: list[sm.Step]) -> str:
    listed = ", ".join(f"`{s.name}`" for s in doers)
    return f"task step {listed}" if len(doers) == 1 else f"task steps {listed}"


def _verb(doers: list[sm.Step], one: str, many: str) -> str:
    """The verb agreeing with `_names(doers)`."""
    return one if len(doers) == 1 else many


def _destination(step: pm.Step, bound: Bound) -> str | None:
    """The entity bound to where a liquid step puts its liquid."""
    name = getattr(step.action, "destination", None) or step.container
    return bound.containers[name].text() if name in bound.containers else None


def _sharing(
    protocol: pm.Protocol, step: pm.Step, doers: list[sm.Step], bound: Bound
) -> list[pm.Step]:
    """The liquid steps of the protocol that the same task steps realize into the same
    entity (two additions to one tube in one task step are checked as their sum)."""
    names = {n.name for s in doers for n in s.realizes}
    entity = _destination(step, bound)
    return [
        s
        for s in protocol.steps
        if s.name in names
        and isinstance(s.action, pm.Add | pm.Transfer)
        and _destination(s, bound) == entity
    ]


def _quantity(action: pm.Action) -> tuple[Amount | None, str]:
    """The amount a liquid or solid step moves and its parameter (`volume` or `mass`)."""
    if isinstance(action, pm.Add) and action.mass is not None:
        return action.mass, "mass"
    return getattr(action, "volume", None), "volume"


# what a step of each dimension moves, and the skills that move it
_STUFF = {"volume": "liquid", "mass": "powder"}
_MOVERS = {
    "volume": "`pour`, `dispense` or `transfer`",
    "mass": "`dispense_powder`, or `scoop` then `empty_scoop`",
}


def _liquid(
    where: Where,
    task: sm.Task,
    protocol: pm.Protocol,
    step: pm.Step,
    action: pm.Add | pm.Transfer,
    doers: list[sm.Step],
    bound: Bound,
    ledger: dict[int, Delivery],
) -> None:
    destination = action.destination or step.container
    if destination is None or destination not in bound.containers:
        return
    quantity, dimension = _quantity(action)
    entity = bound.containers[destination].text()
    here = f"protocol step `{step.name}`"
    # `transfer: all` moves whatever the source holds: a liquid, or a weighed solid tipped
    # from its boat (`dispense_powder`)
    moves_all = isinstance(action, pm.Transfer) and action.volume is None
    calls = [
        ledger[id(c)]
        for s in doers
        for c in s.all_calls
        if id(c) in ledger and (moves_all or ledger[id(c)].dimension == dimension)
    ]
    if moves_all and calls and all(d.dimension == "mass" for d in calls):
        dimension = "mass"
    stuff = _STUFF[dimension]
    into = [d for d in calls if d.destination == entity and d.call.func not in TAKING]
    realized = {n.name for s in doers for n in s.realizes} - {step.name}
    # the entities the same task steps fill for their other protocol steps
    legit = {_destination(s, bound) for s in protocol.steps if s.name in realized}
    if not into:
        others = sorted(
            {
                d.destination
                for d in calls
                if d.destination and d.call.func not in TAKING and d.destination not in legit
            }
        )
        where.add(
            "E0844" if others else "E0845",
            f"{_names(doers)} {_verb(doers, 'moves', 'move')} {stuff} into "
            + (
                f"{', '.join(f'`{o}`' for o in others)}, not `{entity}`, the entity bound to "
                f"protocol container `{destination}`"
                if others
                else f"nothing: protocol step `{step.name}` puts {stuff} into `{destination}` "
                f"(bound to `{entity}`)"
            ),
            next(
                (d.call.span for d in calls if d.destination in others),
                doers[0].span,
            ),
            step.span,
            here,
            label="the task step that realizes it",
            help=f"move the {stuff} into `{entity}` ("
            + (_MOVERS[dimension] if not others else "or rebind the container")
            + ")",
        )
        return
    if isinstance(action, pm.Transfer) and action.source in bound.containers:
        origin = bound.containers[action.source].text()
        for delivery in into:
            if delivery.source is not None and delivery.source != origin:
                where.add(
                    "E0844",
                    f"`{delivery.call.func}` in {_names(doers)} takes {stuff} from "
                    f"`{delivery.source}`, not `{origin}`, the entity bound to protocol "
                    f"container `{action.source}`",
                    delivery.call.span,
                    step.span_of("source"),
                    f"{here} transfers from `{action.source}`",
                    help=f"take it from `{origin}`",
                )
    group = [
        s for s in _sharing(protocol, step, doers, bound) if _quantity(s.action)[1] == dimension
    ]
    if quantity is None or group[0] is not step:
        return  # a group of additions is checked once, at its first step
    amounts = [_quantity(s.action)[0] for s in group]
    if any(a is None for a in amounts):
        return
    want = sum(si_value(a) for a in amounts if a is not None)
    slack = tolerance(task, dimension)
    moved_amounts = [d.amount for d in into]
    if len(group) > 1:
        if all(v is not None for v in moved_amounts):
            moved = sum(v for v in moved_amounts if v is not None)
            if abs(moved - want) > slack:
                listed = ", ".join(f"`{s.name}`" for s in group)
                where.add(
                    "E0845",
                    f"{_names(doers)} {_verb(doers, 'moves', 'move')} "
                    f"{words(moved, dimension)} into `{entity}`; protocol steps {listed} "
                    f"move {words(want, dimension)} into `{destination}` together",
                    into[0].call.span,
                    step.span_of(dimension),
                    f"{here}: {shown(quantity)}",
                    help=f"move {words(want, dimension)} in all" + _within(where, task, dimension),
                )
        return  # the spec of a mixture is the task's to state
    if all(v is not None for v in moved_amounts):
        moved = sum(v for v in moved_amounts if v is not None)
        if abs(moved - want) > slack:
            single = into[0].call if len(into) == 1 else None
            arg = _volume_arg(single)
            where.add(
                "E0845",
                f"{_names(doers)} {_verb(doers, 'moves', 'move')} {words(moved, dimension)} "
                f"into `{entity}`; "
                f"protocol step `{step.name}` moves {shown(quantity)} into `{destination}`",
                arg.span if arg is not None and arg.span else into[0].call.span,
                step.span_of(dimension),
                f"{here}: {shown(quantity)}",
                label=f"not {shown(quantity)}",
                help=f"move {shown(quantity)}" + _within(where, task, dimension),
                fix=_replace(arg, quantity),
            )
    material = action.material if isinstance(action, pm.Add) else None
    substance = bound.materials.get(material) if material else None
    _spec_amount(where, task, step, doers, entity, substance, quantity, want, slack)
    if dimension == "mass":
        _weighed(where, task, protocol, step, doers)


def _weighed(
    where: Where,
    task: sm.Task,
    protocol: pm.Protocol,
    step: pm.Step,
    doers: list[sm.Step],
) -> None:
    """A `reading(SCALE, M)` of the realizing steps, on a scale the task tared before
    it, is the weighed amount: the masses of the protocol steps that the task steps from
    the tare to the reading realize (checked at the first of them a reading's own step
    realizes)."""
    for doer in doers:
        at = task.steps.index(doer)
        for atom in atoms([doer], "reading"):
            scale = ref(atom, 0)
            tares = [
                i
                for i, s in enumerate(task.steps[: at + 1])
                if any(c.func == "tare" and ref(c, 0) == scale for c in s.all_calls)
            ]
            if not tares:
                continue
            since = {n.name for s in task.steps[tares[-1] : at + 1] for n in s.realizes}
            own = {n.name for n in doer.realizes}
            weighed = [
                s
                for s in protocol.steps
                if s.name in since and isinstance(s.action, pm.Add) and s.action.mass
            ]
            if step is not next((s for s in weighed if s.name in own), None):
                continue
            masses = [s.action.mass for s in weighed if isinstance(s.action, pm.Add)]
            total = (
                masses[0]
                if len(masses) == 1 and masses[0] is not None
                else Amount(sum((m.value for m in masses if m is not None), Fraction(0)), "mass")
            )
            names = ", ".join(f"`{s.name}`" for s in weighed)
            said = f"the success spec reads {{}} on tared `{scale}`; protocol " + (
                f"step {names} weighs out {{}}"
                if len(weighed) == 1
                else f"steps {names} weigh out {{}} together"
            )
            wanted = (si_value(total), tolerance(task, "mass"))
            _spec_value(where, (task, step, total), wanted, atom, said)


def _spec_value(
    where: Where,
    asked: tuple[sm.Task, pm.Step, Amount],
    wanted: tuple[float, float],
    atom: sm.Call,
    said: str,
) -> None:
    """E0845 at a spec atom's quantity that is not the protocol's `amount` (`wanted`: its
    SI value and the tolerance; labelled at `step`), fixed by writing it; `said` is the message,
    with `{}` where the atom's value goes and `{}` where the protocol's amount does."""
    task, step, amount = asked
    index = 1 if atom.func == "reading" else 2
    value = number(atom, index)
    want, slack = wanted
    if value is None or abs(value - want) <= slack:
        return
    arg = atom.args[index]
    assert isinstance(arg, sm.Num)
    where.add(
        "E0845",
        said.format(words(value, amount.dimension), shown(amount)),
        arg.span or atom.span,
        step.span_of(amount.dimension),
        f"protocol step `{step.name}`: {shown(amount)}",
        label=f"not {shown(amount)}",
        help=("read " if atom.func == "reading" else "check ")
        + shown(amount)
        + _within(where, task, amount.dimension),
        fix=_replace(arg, amount),
    )


def _volume_arg(call: sm.Call | None) -> sm.Num | None:
    if call is None:
        return None
    index = {**LIQUID_SKILLS, **SOLID_SKILLS}[call.func][2]
    arg = call.args[index] if index is not None and index < len(call.args) else None
    return arg if isinstance(arg, sm.Num) else None


def _replace(arg: sm.Num | None, amount: Amount) -> Fix | None:
    if arg is None or arg.span is None:
        return None
    return Fix(
        f"use the protocol's {amount.text or amount}", (Edit(arg.span, amount.text or str(amount)),)
    )


def _within(where: Where, task: sm.Task, dimension: str) -> str:
    """`, within 0.5 mL` as the task wrote its tolerance, or that none is stated."""
    trace = task.trace
    assert trace is not None
    given = [n for n in trace.tolerances if n.dimension == dimension]
    if not given:
        return " (no tolerance is stated)"
    span = given[0].span
    text = where.task.text[span.start : span.end] if span else words(given[0].value, dimension)
    return f", within {text}"


def _spec_amount(
    where: Where,
    task: sm.Task,
    step: pm.Step,
    doers: list[sm.Step],
    entity: str,
    substance: str | None,
    amount: Amount,
    want: float,
    slack: float,
) -> None:
    here = f"protocol step `{step.name}`"
    dimension = amount.dimension
    checks = [
        a
        for a in atoms(doers, "contains")
        if ref(a, 0) == entity
        and getattr(a.args[2] if len(a.args) > 2 else None, "dimension", dimension)
        in (dimension, "")
    ]
    if not checks:
        what = substance or f"the {_STUFF.get(dimension, 'liquid')}"
        where.add(
            "E0845",
            f"the success spec of {_names(doers)} does not check the {shown(amount)} of "
            f"{what} in `{entity}` that protocol step `{step.name}` puts there",
            doers[-1].span,
            step.span_of(dimension),
            f"{here}: {shown(amount)}",
            label="no `contains` of that amount",
            help=f"add `contains({entity}, {substance or 'SUBSTANCE'}, {amount.text or amount}, "
            "within: ...)` to its `success:`",
        )
        return
    for atom in checks:
        held = atom.args[1] if len(atom.args) > 1 else None
        name = held.name if isinstance(held, sm.Ref) else getattr(held, "value", None)
        if substance is not None and name is not None and name != substance:
            where.add(
                "E0844",
                f"the success spec checks `{name}` in `{entity}`; protocol step `{step.name}` "
                f"adds `{step.action.material}` (bound to `{substance}`)",  # type: ignore[union-attr]
                held.span if held is not None else atom.span,
                step.span_of("material"),
                f"{here} adds `{step.action.material}`",  # type: ignore[union-attr]
                help=f"check `{substance}`",
                fix=Fix(f"check `{substance}`", (Edit(held.span, substance),))
                if held is not None and held.span
                else None,
            )
        said = f"the success spec checks {{}} in `{entity}`; protocol step `{step.name}` "
        _spec_value(where, (task, step, amount), (want, slack), atom, said + "moves {} there")


def _mix(
    where: Where,
    task: sm.Task,
    protocol: pm.Protocol,
    step: pm.Step,
    action: pm.Mix,
    doers: list[sm.Step],
    bound: Bound,
) -> None:
    container = bound.working.get(id(step))
    skills = MIX_SKILLS.get(action.method or "", {})
    entity = bound.containers[container].text() if container in bound.containers else None
    every = [c for s in doers for c in s.all_calls if c.func in skills]
    calls = [
        c
        for c in every
        if entity is None or c.func in ON_FIXTURE or entity in (ref(c, 0), ref(c, 1))
    ]
    here = f"protocol step `{step.name}`"
    if skills and every and not calls:
        call = every[0]
        where.add(
            "E0844",
            f"`{call.func}` in {_names(doers)} mixes `{ref(call, 1) if call.func == 'mix_by_pipetting' else ref(call, 0)}`, "
            f"not `{entity}`, the entity bound to protocol container `{container}`",
            call.span,
            step.span,
            here,
            help=f"mix `{entity}` (or rebind the container)",
        )
        return
    if skills and not calls:
        where.add(
            "E0845",
            f"{_names(doers)} {_verb(doers, 'does', 'do')} not mix "
            + (f"`{entity}`" if entity else "")
            + f" by {' or '.join(f'`{s}`' for s in skills)}, as protocol step `{step.name}` "
            f"mixes by {action.method}",
            doers[0].span,
            step.span,
            here,
            label="the task step that realizes it",
            help=f"call `{next(iter(skills))}` on `{entity or 'the container'}`",
        )
        return
    if action.count is None:
        return
    for call in calls:
        index = skills[call.func]
        count = number(call, index)
        if count is not None and round(count) != action.count:
            arg = call.args[index]  # type: ignore[index]
            where.add(
                "E0845",
                f"`{call.func}` in {_names(doers)} mixes {count:g} times; protocol "
                f"step `{step.name}` mixes {action.count} times",
                arg.span or call.span,
                step.span_of("count"),
                f"{here}: count {action.count}",
                label=f"not {action.count}",
                help=f"mix {action.count} times",
                fix=Fix(f"mix {action.count} times", (Edit(arg.span, str(action.count)),))
                if arg.span
                else None,
            )


def _temperature(
    where: Where, task: sm.Task, step: pm.Step, temperature: Amount, doers: list[sm.Step]
) -> None:
    want = si_value(temperature)
    slack = tolerance(task, "temperature")
    seen: list[sm.Num] = []
    for s in doers:
        for call in s.all_calls:
            if call.func == "set_temperature" and len(call.args) > 1:
                seen += [a for a in call.args[1:2] if isinstance(a, sm.Num)]
    for atom in atoms(doers, "temperature"):
        seen += [a for a in atom.args[1:2] if isinstance(a, sm.Num)]
    here = f"protocol step `{step.name}`"
    if not seen:
        where.add(
            "E0845",
            f"{_names(doers)} {_verb(doers, 'neither sets nor checks', 'neither set nor check')} the {shown(temperature)} of protocol "
            f"step `{step.name}`",
            doers[0].span,
            step.span_of("temperature"),
            f"{here}: {shown(temperature)}",
            label="no temperature here",
            help=f"`set_temperature(BLOCK, {shown(temperature)})` or check "
            f"`temperature(OBJECT, {shown(temperature)})`",
        )
    for value in seen:
        if abs(value.value - want) > slack:
            where.add(
                "E0845",
                f"{_names(doers)} {_verb(doers, 'uses', 'use')} {value.value:g} C; protocol step "
                f"`{step.name}` incubates at {shown(temperature)}",
                value.span,
                step.span_of("temperature"),
                f"{here}: {shown(temperature)}",
                label=f"not {shown(temperature)}",
                help=f"use {shown(temperature)}" + _within(where, task, "temperature"),
                fix=_replace(value, temperature),
            )


def _incubated(
    where: Where, protocol: pm.Protocol, step: pm.Step, doers: list[sm.Step], bound: Bound
) -> None:
    """An `incubate` call of the realizing steps puts the entity bound to the container."""
    container = bound.working.get(id(step))
    if container not in bound.containers:
        return
    entity = bound.containers[container].text()
    for call in (c for s in doers for c in s.all_calls if c.func == "incubate"):
        if ref(call, 0) not in (None, entity):
            where.add(
                "E0844",
                f"`incubate` in {_names(doers)} incubates `{ref(call, 0)}`, not `{entity}`, "
                f"the entity bound to protocol container `{container}`",
                call.span,
                step.span,
                f"protocol step `{step.name}`",
                help=f"incubate `{entity}` (or rebind the container)",
            )
