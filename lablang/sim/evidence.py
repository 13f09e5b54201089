"""Evidence varied at a checkpoint (Labference's matched continuations): the same physical
checkpoint, but the agent finds something else, such as a stray 5 g weight on the pan
(a different reading) or the first tube in another rotor slot.

`run_varied(task, seed, at_step, variation)` runs the program to the checkpoint, saves it,
runs the base continuation to the end, restores, applies the variation (`Relocate`: an
object found resting elsewhere; `Relabel`: a tube found with another label; `Offset`: a
scale found reading off its load) and runs the varied continuation to the end. Both continuations
run every remaining step, also after a step failed, so that later choices are compared
too; each is scored for choice, execution and completion, and the report carries the
state and the evidence each branch starts from.
"""

from __future__ import annotations

import re
from typing import Any, assert_never

import mujoco
import numpy as np
from attrs import frozen

from lablang.sim.catalog import MAX_READING_OFFSET, label_problem
from lablang.sim.episode import EpisodeResult, EpisodeRunner, observation
from lablang.sim.model import InSlot, OnSurface, Task
from lablang.sim.records import Event
from lablang.sim.runtime import GRAVITY, Runtime

SETTLE = 0.5  # s the varied scene is left to settle (and the display to follow) first


@frozen
class Relocate:
    """An object found resting on a surface (a free spot of it) or in a slot."""

    object: str
    target: str  # `scale`, `table`, `rack.slot[3]`

    def describe(self) -> str:
        return f"evidence: `{self.object}` is found at `{self.target}`"


@frozen
class Relabel:
    """A labelled tube found with another label (`tube_A.label=B`)."""

    object: str
    label: str

    def describe(self) -> str:
        return f'evidence: `{self.object}` is found labelled "{self.label}"'


@frozen
class Offset:
    """A scale found reading `grams` off its load (`scale=+5.0 g`): its zero has drifted,
    as if it had been tared with that much less on the pan (`tare` clears it)."""

    object: str
    grams: float

    def describe(self) -> str:
        return f"evidence: `{self.object}` is found reading {self.grams:+.1f} g off its load"


Variation = Relocate | Relabel | Offset


def parse_variation(text: str) -> Variation:
    """`OBJECT=TARGET` (found resting there), `TUBE.label=TEXT` or `SCALE=+5.0 g`
    (raises ValueError for anything else).

    >>> parse_variation("w5=scale"), parse_variation("tube_A.label=B")
    (Relocate(object='w5', target='scale'), Relabel(object='tube_A', label='B'))
    >>> parse_variation("scale=-2.5 g")
    Offset(object='scale', grams=-2.5)
    """
    name, _, value = (part.strip() for part in text.partition("="))
    if not name or not value:
        raise ValueError("takes OBJECT=TARGET, TUBE.label=TEXT or SCALE=+5.0 g, e.g. `w5=scale`")
    if name.endswith(".label"):
        return Relabel(name.removesuffix(".label"), value)
    offset = re.fullmatch(r"([+-]\d+(?:\.\d+)?)\s*g", value)
    if offset is not None:
        return Offset(name, float(offset.group(1)))
    return Relocate(name, value)


def vary(rt: Runtime, item: Variation) -> None:
    """Apply a variation at the checkpoint (raises ValueError if it does not fit)."""
    match item:
        case Relocate():
            relocate(rt, item)
        case Relabel():
            if item.object not in rt.labels.segments:
                raise ValueError(f"`{item.object}` is not a tube with a `label:`")
            problem = label_problem(item.label)
            if problem is not None:
                raise ValueError(problem)
            rt.labels.write(rt.model, item.object, item.label)
        case Offset():
            state = rt.scales.get(item.object)
            if state is None:
                raise ValueError(f"`{item.object}` is not a scale")
            if abs(item.grams) > MAX_READING_OFFSET * 1000:
                raise ValueError(f"a reading is varied by at most {MAX_READING_OFFSET * 1000:g} g")
            state.zero -= item.grams / 1000.0 * GRAVITY
            state.filtered += item.grams
        case _:
            assert_never(item)


def relocate(rt: Runtime, item: Relocate) -> None:
    """Put the object at rest where the variation says (raises ValueError if it cannot)."""
    from lablang.sim.skills.handling import _free_spot

    info = rt.infos.get(item.object)
    if info is None or not info.free:
        raise ValueError(f"`{item.object}` is not an object of the scene")
    if rt.held == item.object:
        raise ValueError(f"`{item.object}` is held at the checkpoint")
    placement: InSlot | OnSurface
    if "." in item.target:
        container, _, rest = item.target.partition(".slot[")
        if container not in rt.infos or not rest.endswith("]") or not rest[:-1].isdigit():
            raise ValueError(f"`{item.target}` is not a slot such as `rack.slot[3]`")
        index = int(rest[:-1])
        if index >= len(rt.infos[container].slots):
            raise ValueError(f"`{container}` has no slot {index}")
        placement = InSlot(container, index)
    elif item.target == "table" or (item.target in rt.infos and rt.infos[item.target].top_site):
        spot = (
            _free_spot(rt, item.object, item.target)
            if item.target != "table"
            else np.array(rt.data.xpos[rt.body_ids[item.object]])
        )
        if spot is None:
            raise ValueError(f"`{item.target}` has no free spot for `{item.object}`")
        placement = OnSurface(item.target, float(spot[0]), float(spot[1]))
    else:
        raise ValueError(f"`{item.target}` is neither a surface nor a slot")
    pos, quat = rt._placement_pose(item.object, placement)
    m, d = rt.model, rt.data
    adr = m.joint(f"{item.object}_free").qposadr[0]
    dof = m.joint(f"{item.object}_free").dofadr[0]
    d.qpos[adr : adr + 3] = pos
    d.qpos[adr + 3 : adr + 7] = quat
    d.qvel[dof : dof + 6] = 0.0
    mujoco.mj_forward(m, d)


def evidence_of(rt: Runtime) -> dict[str, Any]:
    """What the instruments show now: each scale's display (g) and whether it is stable,
    each hot plate's thermometer (C) and its set temperature, each timer's count (s) and
    whether it runs, each labelled tube's label."""
    out: dict[str, Any] = {
        name: {"display": state.reading(), "stable": rt.scale_stable(name)}
        for name, state in rt.scales.items()
    }
    for name in rt.thermometers.segments:
        out[name] = {"display": rt.thermometers.reading(name), "set": rt.setpoint[name]}
    for name in rt.timers.segments:
        out[name] = {"display": rt.timers.reading(name), "running": rt.timers.running(name)}
    for name, text in rt.labels.text.items():
        out[name] = {"label": text}
    return out


def evidence_text(evidence: dict[str, Any]) -> str:
    """What `evidence_of` found, in words: `scale 20.0 g, clock 3.5 s, tube_A "B"`."""

    def one(name: str, entry: dict[str, Any]) -> str:
        if "label" in entry:
            return f'{name} "{entry["label"]}"'
        unit = "g" if "stable" in entry else "s" if "running" in entry else "C"
        return f"{name} {entry['display']:.1f} {unit}"

    return ", ".join(one(name, entry) for name, entry in evidence.items())


@frozen
class Varied:
    task: str
    seed: int
    at_step: str
    vary: Variation
    base: EpisodeResult
    varied: EpisodeResult
    base_start: dict[str, Any]  # state and evidence the base continuation starts from
    varied_start: dict[str, Any]

    def report(self, judge: Any = None) -> dict[str, Any]:
        from lablang.sim.branches import measure_values

        a, b = self.base.score(judge), self.varied.score(judge)
        return {
            "task": self.task,
            "seed": self.seed,
            "checkpoint": self.at_step,
            "vary": self.vary.describe(),
            "base": {"start": self.base_start, **a},
            "varied": {"start": self.varied_start, **b},
            "changed": sorted(k for k in a if measure_values(a, k) != measure_values(b, k)),
        }


def run_varied(task: Task, seed: int, at_step: str, variation: Variation) -> Varied:
    """Checkpoint before `at_step`; run the base and the evidence-varied continuations to
    the end (see the module docstring)."""
    if at_step not in [s.name for s in task.steps]:
        raise ValueError(f"task `{task.name}` has no step `{at_step}`")
    runner = EpisodeRunner(task, seed, keep_going=True)
    runner.run(until=at_step)
    checkpoint = runner.checkpoint()
    starts = []
    for varying in (False, True):
        if varying:
            runner.restore(checkpoint, ())
            vary(runner.rt, variation)
            # the varied evidence is context the policy finds, not a choice it made; a
            # bound contract's state takes a relocated object in as the operation it would be
            relocated = isinstance(variation, Relocate)
            target = variation.target if isinstance(variation, Relocate) else ""
            operation = (
                task.contract.operation_of(variation.object, target)
                if task.contract and relocated
                else ""
            )
            runner.events.append(
                Event("context", runner.rt.time, at_step, object=variation.object,
                      target=target, confirmed=True, contract_op=operation,
                      detail=variation.describe())
            )  # fmt: skip
        for _ in range(round(SETTLE / runner.rt.dt)):  # both start from the same time
            runner.rt.tick()
        starts.append(_start(runner.rt, at_step))
        runner.run()
        if not varying:
            base = runner.finish()
    varied = runner.finish()
    return Varied(task.name, seed, at_step, variation, base, varied, starts[0], starts[1])


def _start(rt: Runtime, step: str) -> dict[str, Any]:
    return {
        "time": round(rt.time, 6),
        "objects": observation(rt, step)["objects"],
        "evidence": evidence_of(rt),
    }
