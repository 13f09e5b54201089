"""Run one instance of a task: build, reset, run each step's program, check its spec."""

from __future__ import annotations

import time as wallclock
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from lablang.sim.build import compile_scene
from lablang.sim.catalog import MAX_EPISODE_TIME
from lablang.sim.model import Call, Step, Task
from lablang.sim.predicates import Evaluator, SpecError, expr_text
from lablang.sim.runtime import Runtime, SimFault
from lablang.sim.skills import SKILLS, SkillResult, run_skill


@attrs.frozen(slots=True)
class SkillRecord:
    call: str
    status: str
    reason: str
    start: float  # simulated seconds
    end: float
    detail: tuple[tuple[str, float | str], ...] = ()


@attrs.frozen(slots=True)
class StepResult:
    name: str
    status: str  # "passed" | "failed" | "fault" | "skipped"
    reason: str = ""
    skills: tuple[SkillRecord, ...] = ()
    start: float = 0.0
    end: float = 0.0
    wall: float = 0.0
    failing: tuple[str, ...] = ()  # atoms of the spec that were false at the deadline
    keyframe: str | None = None


@attrs.frozen(slots=True)
class Fault:
    kind: str
    detail: str
    time: float
    step: str


@attrs.frozen(slots=True)
class EpisodeResult:
    task: str
    seed: int
    steps: tuple[StepResult, ...]
    fault: Fault | None
    trace_digest: str
    sim_time: float
    wall_time: float
    physics_steps: int
    persisted: tuple[bool, ...]  # passed steps whose spec still holds at the end
    # scripted interventions: name, start time, ticks of gripper contact with the moved fixture
    # (or its load) before the start, and the time of the first contact after it
    interventions: tuple[tuple[str, float, int, float | None], ...] = ()

    @property
    def credit(self) -> float:
        """Ordered partial credit: the fraction of steps passed before the first miss."""
        passed = 0
        for step in self.steps:
            if step.status != "passed":
                break
            passed += 1
        return passed / len(self.steps) if self.steps else 1.0

    @property
    def succeeded(self) -> bool:
        return self.fault is None and self.credit == 1.0 and all(self.persisted)


def run_episode(
    task: Task,
    seed: int,
    *,
    render_dir: Path | None = None,
    weld_assist: bool = True,
    timestep: float | None = None,
) -> EpisodeResult:
    """Simulate the task's expert program once, with the randomization drawn from `seed`."""
    started = wallclock.perf_counter()
    rng = np.random.default_rng(seed)
    built = compile_scene(task.scene, rng)
    rt = Runtime(built, weld_assist=weld_assist, timestep=timestep)
    renderer = _Keyframes(rt, render_dir) if render_dir is not None else None
    contents: dict[str, list[tuple[str, float, str]]] = {}
    for entity in task.scene.entities:
        for item in entity.contents:
            contents.setdefault(entity.name, []).append((item.substance, item.amount, item.kind))
    results: list[StepResult] = []
    fault: Fault | None = None
    current = "reset"
    try:
        rt.reset(contents)
        for index, step in enumerate(task.steps):
            current = step.name
            result = _run_step(rt, step)
            if renderer is not None:
                result = attrs.evolve(result, keyframe=renderer.save(index, step.name))
            results.append(result)
            if result.status != "passed":
                break
        persisted = _recheck(rt, task.steps, len([r for r in results if r.status == "passed"]))
    except SimFault as error:
        fault = Fault(error.kind, error.detail, error.time, current)
        results.append(StepResult(current, "fault", str(error)))
        persisted = ()
    finally:
        if renderer is not None:
            renderer.close()
    done = {r.name for r in results}
    results += [
        StepResult(s.name, "skipped", "an earlier step did not pass")
        for s in task.steps
        if s.name not in done
    ]
    return EpisodeResult(
        task.name,
        seed,
        tuple(results),
        fault,
        rt.trace_digest(),
        rt.time,
        wallclock.perf_counter() - started,
        rt.physics_steps,
        persisted,
        tuple(
            (e.name, e.start, e.contact_ticks_before, e.first_contact_after)
            for e in rt.interventions
        ),
    )


def _run_step(rt: Runtime, step: Step) -> StepResult:
    wall0, t0 = wallclock.perf_counter(), rt.time
    records: list[SkillRecord] = []
    evaluator = Evaluator(rt)
    for call in step.program:
        start = rt.time
        try:
            result = _run_call(rt, evaluator, call)
        except SpecError as error:
            result = SkillResult("failed", str(error))
        records.append(
            SkillRecord(
                expr_text(call), result.status, result.reason, start, rt.time, result.detail
            )
        )
        if not result.ok:
            return StepResult(
                step.name,
                "failed",
                f"skill `{call.func}` {result.status}: {result.reason}",
                tuple(records),
                t0,
                rt.time,
                wallclock.perf_counter() - wall0,
            )
    if step.success is None:
        return StepResult(
            step.name, "passed", "", tuple(records), t0, rt.time, wallclock.perf_counter() - wall0
        )
    deadline = min(rt.time + step.check_window, MAX_EPISODE_TIME)
    try:
        while True:
            if evaluator.holds(step.success):
                return StepResult(
                    step.name,
                    "passed",
                    "",
                    tuple(records),
                    t0,
                    rt.time,
                    wallclock.perf_counter() - wall0,
                )
            if rt.time >= deadline - 1e-9:
                break
            rt.tick()
    except SpecError as error:
        return StepResult(
            step.name,
            "failed",
            f"success spec: {error}",
            tuple(records),
            t0,
            rt.time,
            wallclock.perf_counter() - wall0,
        )
    failing = tuple(sorted(text for text, value in evaluator.last.items() if not value))
    return StepResult(
        step.name,
        "failed",
        f"success spec did not hold within {step.check_window:g} s after the program",
        tuple(records),
        t0,
        rt.time,
        wallclock.perf_counter() - wall0,
        failing,
    )


def _run_call(rt: Runtime, evaluator: Evaluator, call: Call) -> SkillResult:
    entry = SKILLS.get(call.func)
    if entry is None:
        raise SpecError(f"unknown skill `{call.func}`")
    fn, timeout = entry
    args: list[Any] = [evaluator.value(a) for a in call.args]
    kwargs = {k: evaluator.value(v) for k, v in call.kwargs}
    if any(a is None for a in args):
        return SkillResult(
            "failed",
            "an argument has no value in this state (e.g. `slot_of` of an "
            "object that is in no slot)",
        )
    if call.func in ("wait", "incubate") and args:
        timeout = float(args[-1]) + (1.0 if call.func == "wait" else 12.0)
    remaining = MAX_EPISODE_TIME - rt.time
    if remaining <= 0:
        return SkillResult(
            "timed out",
            f"the episode's budget of {MAX_EPISODE_TIME:g} s of simulated time is spent",
        )
    return run_skill(rt, fn(rt, *args, **kwargs), min(timeout, remaining))


def _recheck(
    rt: Runtime, steps: tuple[Step, ...], passed: int, window: float = 1.0
) -> tuple[bool, ...]:
    """Re-check the passed steps at the end: do their placement facts still hold (within 1 s)?

    A fact about an object that a later step's program picks up or moves is not re-checked:
    the later step may move it on purpose (retrieving a stored tube, for example).
    """
    if not passed:
        return ()
    evaluator = Evaluator(rt)
    specs: list[Any] = []
    for i, step in enumerate(steps[:passed]):
        later = {name for s in steps[i + 1 :] for call in s.program for name in _moved(call)}
        specs.append(_persistent_part(step.success, later))
    status = [spec is None for spec in specs]
    end = rt.time + window
    while True:
        for i, spec in enumerate(specs):
            if not status[i]:
                try:
                    status[i] = evaluator.holds(spec)
                except SpecError:
                    status[i] = False
        if all(status) or rt.time >= end - 1e-9:
            return tuple(status)
        rt.tick()


def _moved(call: Call) -> set[str]:
    """The objects a skill call picks up or moves (its arguments of kind `object`)."""
    from lablang.sim.catalog import SKILL_SIGNATURES
    from lablang.sim.model import Ref

    kinds = SKILL_SIGNATURES.get(call.func, ((), ""))[0]
    return {
        arg.name
        for kind, arg in zip(kinds, call.args, strict=False)
        if kind.lstrip("?") == "object" and isinstance(arg, Ref)
    }


def _names(expr: Any) -> set[str]:
    from lablang.sim.model import Call, Logic, Not, Ref

    match expr:
        case Ref(name=name):
            return {name}
        case Call(args=args, kwargs=kwargs):
            return {n for a in (*args, *(v for _, v in kwargs)) for n in _names(a)}
        case Logic(parts=parts):
            return {n for p in parts for n in _names(p)}
        case Not(operand=operand):
            return _names(operand)
        case _:
            return set()


# Facts about where things are must persist to the end of the episode, and nothing may be
# spilled later; apparatus states (a lid, a reading) and contents may change on purpose.
PERSISTENT = ("in", "on", "upright", "balanced", "not_spilled")


def _persistent_part(expr: Any, later: set[str]) -> Any:
    """The part of a spec that must still hold at the end; other atoms count as true."""
    from lablang.sim.model import Call, Logic

    match expr:
        case Call(func=func) if func in PERSISTENT and not (_names(expr) & later):
            return expr
        case Logic(op="and", parts=parts):
            kept = [p for p in (_persistent_part(q, later) for q in parts) if p is not None]
            return Logic("and", tuple(kept)) if kept else None
        case Logic(op="or", parts=parts):
            kept = [_persistent_part(q, later) for q in parts]
            return None if any(k is None for k in kept) else Logic("or", tuple(kept))
        case _:
            return None


class _Keyframes:
    def __init__(self, rt: Runtime, folder: Path) -> None:
        import mujoco

        self.rt = rt
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.renderer = mujoco.Renderer(rt.model, height=360, width=480)

    def save(self, index: int, name: str) -> str:
        import mujoco

        from lablang.output import write_atomic

        self.renderer.update_scene(self.rt.data, camera="overview")
        self.renderer.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
        self.renderer.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
        path = self.folder / f"{index:02d}_{name}.png"
        write_atomic(path, encode_png(self.renderer.render()))
        return str(path)

    def close(self) -> None:
        self.renderer.close()


def encode_png(pixels: np.ndarray) -> bytes:
    """A minimal RGB PNG encoder (zlib), so keyframes need no imaging library."""
    import struct
    import zlib

    height, width, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def episode_json(result: EpisodeResult) -> dict[str, Any]:
    """The episode as JSON-ready data (the trace `simulate --json` prints)."""
    data = attrs.asdict(result, recurse=True)
    for step in data["steps"]:
        step["wall"] = round(step["wall"], 4)
    data["wall_time"] = round(result.wall_time, 4)
    data["credit"] = result.credit
    data["succeeded"] = result.succeeded
    return data
