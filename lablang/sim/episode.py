"""Run one instance of a task: build, reset, run each step's program, check its spec."""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

import numpy as np
from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import evolve, frozen

from lablang.sim import effects
from lablang.sim.binding import ContractBinding
from lablang.sim.build import compile_scene
from lablang.sim.catalog import MAX_EPISODE_TIME, MAX_EPISODE_WORK, SKILL_NEEDS
from lablang.sim.interventions import Decision, Execution, Intervention, TargetPose
from lablang.sim.labference import TRANSFERS, TransferWatch, WatchState
from lablang.sim.model import Call, Step, Task, bind_task
from lablang.sim.predicates import Evaluator, SpecError, during_atoms, expr_text, held_text
from lablang.sim.records import Event
from lablang.sim.runtime import BudgetSpent, Checkpoint, Runtime, SimFault
from lablang.sim.skills import SKILLS, SkillResult, run_skill, target_name
from lablang.sim.state import SlotTarget
from lablang.sim.success import ProgressState, StepProgress


@frozen
class SkillRecord:
    call: str
    status: str
    reason: str
    start: float  # simulated seconds
    end: float
    detail: tuple[tuple[str, float | str], ...] = ()


@frozen
class StepResult:
    name: str
    status: str  # "passed" | "failed" | "fault" | "skipped"
    reason: str = ""
    skills: tuple[SkillRecord, ...] = ()
    start: float = 0.0
    end: float = 0.0
    wall: float = 0.0
    failing: tuple[str, ...] = ()  # literals of the spec that were false at the deadline
    keyframe: str | None = None
    # the spec already held when the step started (success by luck, unless the step
    # says `may_already_hold: true`; not checked then)
    held_at_start: bool = False


@frozen
class Fault:
    kind: str
    detail: str
    time: float
    step: str


@frozen
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
    events: tuple[Event, ...] = ()  # Labference records (see `lablang.sim.records`)
    observations: tuple[dict[str, Any], ...] = ()  # object poses at each step's completion
    bindings: tuple[tuple[str, str], ...] = ()  # role -> entity drawn for this instance
    # the bound that stopped the episode, if one did (physics work E0713, simulated time)
    limit: str | None = None
    work: int = 0  # physics work units spent (catalog.WORK_BASE)
    # objects a step did not act on that moved, fell or tipped over (`lablang.sim.effects`)
    side_effects: tuple[str, ...] = ()
    # the task's required operations (`lablang.sim.labference.Obligation.key`)
    obligations: tuple[str, ...] = ()
    contract: ContractBinding | None = None  # the contract the task follows, if any
    # the environment's verdict on this run (`lablang.sim.success.StepProgress`): every
    # step passed, in order, as `TaskEnv` would have terminated
    terminated: bool = False

    def score(self, judge: Any = None) -> dict[str, Any]:
        """Choice, execution and completion, computed from the events alone (with `judge`,
        against a bound contract's legal sets: `lablang.bound.judge_for`)."""
        from lablang.sim.records import json_roundtrip, score

        steps = [s.name for s in self.steps]
        return json_roundtrip(score(steps, self.events, self.obligations, judge))

    def record_lines(self) -> list[str]:
        """The persistent record of the episode: header, events, observations, score."""
        from lablang.sim.records import record_lines

        steps = [s.name for s in self.steps]
        header = {
            "task": self.task,
            "seed": self.seed,
            "steps": steps,
            "trace_digest": self.trace_digest,
            "sim_time": round(self.sim_time, 6),
        }
        if self.bindings:
            header["bindings"] = dict(self.bindings)
        if self.contract is not None:
            header["contract"] = self.contract.to_json()
        return record_lines(header, self.events, self.observations, steps, self.obligations)

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
    def premature(self) -> tuple[Event, ...]:
        """Robot contact with what a scripted event guards, before the event started."""
        return tuple(e for e in self.events if e.kind == "premature")

    @property
    def succeeded(self) -> bool:
        """The environment's judge terminated the run (`terminated`), every step passed
        after its program and persisted, no fault, and no premature interaction (the
        expert's own program is held to the events' guards too)."""
        return (
            self.terminated
            and self.fault is None
            and self.limit is None
            and not self.side_effects
            and self.credit == 1.0
            and all(self.persisted)
            and not self.premature
        )


def run_episode(
    task: Task,
    seed: int,
    *,
    render_dir: Path | None = None,
    weld_assist: bool = True,
    timestep: float | None = None,
    interventions: tuple[Intervention, ...] = (),
    spec_decides: bool = False,
    arguments: ArgumentRewrite | None = None,
) -> EpisodeResult:
    """Simulate the task's expert program once, with the randomization drawn from `seed`.

    `interventions` replace interface outputs of the program (see `lablang.sim.interventions`).
    `spec_decides` and `arguments` run a mutant of the program (`lablang.sim.mutants`).
    """
    runner = EpisodeRunner(
        task,
        seed,
        render_dir=render_dir,
        weld_assist=weld_assist,
        timestep=timestep,
        interventions=interventions,
        spec_decides=spec_decides,
        arguments=arguments,
    )
    runner.run()
    return runner.finish()


# skills that put their object somewhere: confirmed when it is really there afterwards
_PLACING = TRANSFERS
_GRASPING = ("pick", "remove_from_slot")

# a rewrite of the values a call executes with: (runtime, step, call index, values) ->
# values (a mutant's changed destination)
ArgumentRewrite = Callable[[Runtime, str, int, list[Any]], list[Any]]


@frozen
class RunnerCheckpoint:
    runtime: Checkpoint
    results: tuple[StepResult, ...]
    events: tuple[Event, ...]
    observations: tuple[dict[str, Any], ...]
    stopped: bool
    fault: Fault | None
    current: str
    limit: str | None = None
    side_effects: tuple[str, ...] = ()
    watch: WatchState | None = None
    progress: ProgressState | None = None


class EpisodeRunner:
    """One episode, run step by step, that can be checkpointed between steps."""

    def __init__(
        self,
        task: Task,
        seed: int,
        *,
        render_dir: Path | None = None,
        weld_assist: bool = True,
        timestep: float | None = None,
        interventions: tuple[Intervention, ...] = (),
        runtime: Runtime | None = None,
        spec_decides: bool = False,
        arguments: ArgumentRewrite | None = None,
        keep_going: bool = False,
    ) -> None:
        """`runtime` runs the episode in a given (not yet reset) runtime, e.g. one that
        instruments its ticks; by default the scene is compiled with `seed`.
        `spec_decides`: a skill that fails ends its step's program but not the step, whose
        spec decides (a mutant is judged by the specs alone); `arguments` rewrites the
        values each call executes with. With `keep_going`, the steps after a failed one
        still run (matched continuations compare later choices too); a fault or a spent
        budget still stops the episode."""
        self.spec_decides = spec_decides
        self.arguments = arguments
        self.keep_going = keep_going
        self.started = wallclock.perf_counter()
        self.seed = seed
        if runtime is None:
            rng = np.random.default_rng(seed)
            runtime = Runtime(
                compile_scene(task.scene, rng), weld_assist=weld_assist, timestep=timestep
            )
        self.rt = runtime
        # roles (`randomize role from [...]`) bound for this instance
        self.bindings = dict(runtime.built.bindings)
        self.task = bind_task(task, self.bindings)
        self.render_dir = render_dir
        self.interventions = interventions
        self.results: list[StepResult] = []
        self.events: list[Event] = []
        self.observations: list[dict[str, Any]] = []
        self.stopped = False
        self.fault: Fault | None = None
        self.current = "reset"
        self._step_started = (0.0, self.started)  # simulated and wall time the step began
        self.limit: str | None = None
        self.side_effects: list[str] = []
        self.rt.work_budget = MAX_EPISODE_WORK
        self._renderer = _Keyframes(self.rt, render_dir) if render_dir is not None else None
        contents: dict[str, list[tuple[str, float, str]]] = {}
        for entity in task.scene.entities:
            for item in entity.contents:
                contents.setdefault(entity.name, []).append(
                    (item.substance, item.amount, item.kind)
                )
        try:
            self.rt.reset(contents)
        except SimFault as error:
            self._faulted(error)
        except BudgetSpent as error:
            self._spent(str(error))
        # what the gripper does, read as a policy's would be (Labference's choices)
        self.watch = TransferWatch(self.rt, self.task, lambda: len(self.results), self._record)
        self.rt.watchers.append(self.watch)
        # the environment's own judge of success, after every tick (`lablang.sim.success`)
        self.progress = StepProgress(self.rt, self.task.steps, self.watch)
        self.rt.watchers.append(self.progress)

    def _record(self, event: Event) -> None:
        self.events.append(event)

    def run(self, until: str | None = None) -> None:
        """Run the steps not yet run, up to (not including) the step named `until`."""
        steps = self.task.steps
        names = [s.name for s in steps]
        stop = names.index(until) if until is not None else len(steps)
        while not self.stopped and len(self.results) < stop:
            index = len(self.results)
            step = steps[index]
            self.current = step.name
            self._step_started = (self.rt.time, wallclock.perf_counter())
            try:
                result = self._run_step(step)
            except SimFault as error:
                self._faulted(error)
                return
            except BudgetSpent as error:
                self._spent(str(error))
                return
            if self._renderer is not None:
                keyframe = self._renderer.save(index, step.name, result.status, self.task.name)
                result = evolve(result, keyframe=keyframe)
            self.results.append(result)
            if result.status != "passed" and not self.keep_going:
                self.stopped = True

    def checkpoint(self) -> RunnerCheckpoint:
        return RunnerCheckpoint(
            self.rt.checkpoint(),
            tuple(self.results),
            tuple(self.events),
            tuple(self.observations),
            self.stopped,
            self.fault,
            self.current,
            self.limit,
            tuple(self.side_effects),
            self.watch.state(),
            self.progress.state(),
        )

    def restore(self, cp: RunnerCheckpoint, interventions: tuple[Intervention, ...]) -> None:
        """Go back to a checkpoint; the continuation runs with `interventions`."""
        self.rt.restore(cp.runtime)
        self.results = list(cp.results)
        self.events = list(cp.events)
        self.observations = list(cp.observations)
        self.stopped, self.fault, self.current = cp.stopped, cp.fault, cp.current
        self.limit, self.side_effects = cp.limit, list(cp.side_effects)
        if cp.watch is not None:
            self.watch.restore(cp.watch)
        if cp.progress is not None:
            self.progress.restore(cp.progress)
        self.interventions = interventions
        for item in interventions:
            self.events.append(
                Event("intervention", self.rt.time, item.step, detail=item.describe())
            )

    def finish(self) -> EpisodeResult:
        rt = self.rt
        self.watch.resolve(float("inf"))  # the outcome of a release the episode ended on
        # the judge reads those outcomes too: a step whose last obligation (a pour, a mix)
        # is read after its motion is over passes once it is (as `TaskEnv` then terminates)
        self.progress.advance()
        persisted: tuple[bool, ...] = ()
        if self.fault is None:
            try:
                passed = len([r for r in self.results if r.status == "passed"])
                persisted = _recheck(rt, self.task.steps, passed)
                for result, ok in zip(self.results, persisted, strict=False):
                    self.events.append(Event("persistence", rt.time, result.name, confirmed=ok))
            except SimFault as error:
                self._faulted(error)
                persisted = ()
            except BudgetSpent as error:
                self.limit = str(error)
                persisted = tuple(False for r in self.results if r.status == "passed")
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        done = {r.name for r in self.results}
        results = self.results + [
            StepResult(s.name, "skipped", "an earlier step did not pass")
            for s in self.task.steps
            if s.name not in done
        ]
        scripted = tuple(
            (e.name, e.start, e.contact_ticks_before, e.first_contact_after)
            for e in rt.interventions
        )
        self.events += coordination_events(rt, results)
        return EpisodeResult(
            self.task.name,
            self.seed,
            tuple(results),
            self.fault,
            rt.trace_digest(),
            rt.time,
            wallclock.perf_counter() - self.started,
            rt.physics_steps,
            persisted,
            scripted,
            tuple(sorted(self.events, key=lambda e: e.time)),
            tuple(self.observations),
            tuple(sorted(self.bindings.items())),
            self.limit,
            rt.work,
            tuple(self.side_effects),
            tuple(o.key for o in self.watch.required),
            self.task.contract,
            self.progress.terminated,
        )

    # ------------------------------------------------------------ internals

    def _faulted(self, error: SimFault) -> None:
        self.fault = Fault(error.kind, error.detail, error.time, self.current)
        start, wall0 = self._step_started
        self.results.append(
            StepResult(
                self.current,
                "fault",
                str(error),
                start=start,
                end=error.time,
                wall=wallclock.perf_counter() - wall0,
            )
        )
        self.events.append(
            Event("fault", error.time, self.current, detail=f"{error.kind}: {error.detail}")
        )
        self.stopped = True

    def _spent(self, reason: str) -> None:
        """A bound stopped the episode: the step fails, naming the bound; not a fault."""
        self.limit = reason
        start, wall0 = self._step_started
        self.results.append(
            StepResult(
                self.current,
                "failed",
                reason,
                start=start,
                end=self.rt.time,
                wall=wallclock.perf_counter() - wall0,
            )
        )
        self.stopped = True

    def _intervention(self, step: str, call: int) -> list[Intervention]:
        return [i for i in self.interventions if i.step == step and i.call == call]

    def _run_step(self, step: Step) -> StepResult:
        rt = self.rt
        wall0, t0 = wallclock.perf_counter(), rt.time
        records: list[SkillRecord] = []
        evaluator = Evaluator(rt)
        untouched = effects.snapshot(rt, effects.watched(rt, step))
        lucky = False
        standing = effects.snapshot(rt, effects.named(rt, step))

        def finished(status: str, reason: str = "", failing: tuple[str, ...] = ()) -> StepResult:
            if status == "passed":
                colleagues = {
                    a.entity
                    for e in rt.interventions
                    if e.started and e.start >= t0 - 1e-9
                    for a in e.actions
                }
                fallen = effects.tipped(rt, standing, step.name, colleagues)
                if fallen:
                    # an object the step acts on may move, not fall over: the step fails
                    status, reason = "failed", "; ".join(fallen)
                for effect in effects.disturbed(rt, untouched, step.name, colleagues):
                    self.side_effects.append(effect)
                    self.events.append(Event("side_effect", rt.time, step.name, detail=effect))
            self.events.append(
                Event(
                    "completion",
                    rt.time,
                    step.name,
                    confirmed=status == "passed",
                    status=status,
                    detail=reason,
                )
            )
            if status == "passed":
                self.watch.seen.passed(step.name)
            self.observations.append(observation(rt, step.name))
            return StepResult(
                step.name,
                status,
                reason,
                tuple(records),
                t0,
                rt.time,
                wallclock.perf_counter() - wall0,
                failing,
                held_at_start=lucky,
            )

        if step.success is not None and not step.may_already_hold:
            lucky = _holds_now(rt, step.success)
        if step.trigger is not None:
            # the step waits for a scripted event: the expert keeps its hands off until the
            # event has run its course (a policy may not, which is then premature)
            rt.arm(step.trigger)
            event = next(e for e in rt.interventions if e.name == step.trigger)
            while rt.time < min(event.start + event.duration, MAX_EPISODE_TIME) - 1e-9:
                rt.tick()
        evaluator.started = rt.time
        watched = during_atoms(step.success)
        if watched:
            # `during(cond)` holds only if cond held at every tick of the program as well
            def watch() -> None:
                for atom in watched:
                    evaluator.value(atom)

            watch()
            rt.watchers.append(watch)
        calls = step.program
        if step.alternatives:
            # a program that chooses from the evidence: the first alternative whose guard
            # holds now (what the robot observes when the step starts) runs
            taken = None
            try:
                taken = next(
                    k
                    for k, (guard, _calls) in enumerate(step.alternatives)
                    if guard is None or evaluator.holds(guard)
                )
            except StopIteration:
                pass
            except SpecError as error:
                return finished("failed", f"a `do` block's condition: {error}")
            if taken is None:
                return finished("failed", "no `do` block's condition held when the step started")
            calls = step.alternatives[taken][1]
            self.events.append(Event("alternative", rt.time, step.name, detail=str(taken)))
            self.watch.choose(step.name, calls)
        try:
            program = self._run_program(step, calls, evaluator, records)
        finally:
            if watched:
                rt.watchers.remove(watch)
        if program is not None and not self.spec_decides:
            return finished("failed", program)
        if step.success is None:
            return finished("passed")
        deadline = min(rt.time + step.check_window, MAX_EPISODE_TIME)
        try:
            while True:
                if evaluator.holds(step.success):
                    return finished("passed")
                if rt.time >= deadline - 1e-9:
                    break
                rt.tick()
        except SpecError as error:
            return finished("failed", f"success spec: {error}")
        failing = tuple(sorted(set(evaluator.false_literals(step.success))))
        if rt.time >= MAX_EPISODE_TIME - 1e-9:
            self.limit = _time_limit()
            return finished("failed", self.limit, failing)
        held = held_text(evaluator)
        return finished(
            "failed",
            f"success spec did not hold within {step.check_window:g} s after the program"
            + (f": {held}" if held else ""),
            failing,
        )

    def _run_program(
        self, step: Step, calls: tuple[Call, ...], evaluator: Evaluator, records: list[SkillRecord]
    ) -> str | None:
        """Run the step's skill calls in order; the reason of the first that fails, if any."""
        rt = self.rt
        for k, call in enumerate(calls):
            start = rt.time
            try:
                result = self._run_call(evaluator, step.name, k, call)
            except SpecError as error:
                result = SkillResult("failed", str(error))
            records.append(
                SkillRecord(
                    expr_text(call), result.status, result.reason, start, rt.time, result.detail
                )
            )
            if not result.ok:
                return f"skill `{call.func}` {result.status}: {result.reason}"
        return None

    def _run_call(self, evaluator: Evaluator, step: str, k: int, call: Call) -> SkillResult:
        rt = self.rt
        entry = SKILLS.get(call.func)
        if entry is None:
            raise SpecError(f"unknown skill `{call.func}`")
        fn, timeout = entry
        chosen_exprs = list(call.args)
        executed_exprs = list(call.args)
        replaced: SkillResult | None = None
        for item in self._intervention(step, k):
            match item:
                case Decision(argument=i, value=value) if i < len(call.args):
                    chosen_exprs[i] = executed_exprs[i] = value
                case TargetPose(argument=i, value=value) if i < len(call.args):
                    executed_exprs[i] = value
                case Execution(status=status):
                    replaced = SkillResult(status, "replaced by an intervention")
                case Decision() | TargetPose():
                    raise SpecError(f"`{call.func}` has no argument {item.argument}")
                case _:
                    assert_never(item)
        original = [evaluator.value(a) for a in call.args]
        chosen = [evaluator.value(a) for a in chosen_exprs]
        executed = [evaluator.value(a) for a in executed_exprs]
        if self.arguments is not None:
            executed = self.arguments(rt, step, k, executed)
        kwargs = {key: evaluator.value(v) for key, v in call.kwargs}
        operation = _operation(call.func, chosen, kwargs)
        obj = chosen[0] if chosen and isinstance(chosen[0], str) and chosen[0] in rt.infos else None
        where = 1 if len(chosen) > 1 else 0
        attempt = f"{step}.{k}"
        self.events.append(
            Event(
                "choice",
                rt.time,
                step,
                attempt=attempt,
                operation=operation,
                object=obj,
                target=_show(chosen[where]) if chosen else None,
                measured=_show(original[where]) if original else None,
            )
        )
        self.watch.intent = (
            (obj, chosen[1]) if call.func in TRANSFERS and obj and chosen[1:] else None
        )
        if replaced is not None:
            result = replaced
        elif any(a is None for a in executed):
            result = SkillResult(
                "failed",
                "an argument has no value in this state (e.g. `slot_of` of an "
                "object that is in no slot)",
            )
        elif needs := _static_need_broken(rt, call.func, executed):
            # the same precondition `check` reports as E0712 (a call `check` never saw)
            result = SkillResult("failed", needs)
        elif absent := next(
            (why for a in executed if isinstance(a, str) and (why := rt.absent(a))), None
        ):
            # not `pick` timing out over an empty spot: the object is not on the bench
            result = SkillResult("failed", absent)
        else:
            extra = {"wait": 1.0, "incubate": 12.0, "stir": 20.0}.get(call.func)
            if extra is not None and executed:
                timeout = float(executed[-1]) + extra
            remaining = MAX_EPISODE_TIME - rt.time
            if remaining <= 0:
                self.limit = _time_limit()
                result = SkillResult("timed out", self.limit)
            else:
                result = run_skill(rt, fn(rt, *executed, **kwargs), min(timeout, remaining))
                if result.status == "timed out" and rt.time >= MAX_EPISODE_TIME - 1e-9:
                    self.limit = _time_limit()
                    result = SkillResult("timed out", self.limit)
        self.watch.intent = None
        confirmed, actual = _confirm(rt, call.func, obj, chosen[where] if chosen else None, result)
        self.events.append(
            Event(
                "execution",
                rt.time,
                step,
                attempt=attempt,
                operation=operation,
                object=obj,
                target=actual,
                confirmed=confirmed,
                status=result.status,
                detail=result.reason,
            )
        )
        return result


def _holds_now(rt: Runtime, spec: Any) -> bool:
    """Whether a spec holds at this instant (its holds and timers read as conditions now)."""
    try:
        return Evaluator(rt, instant=True).holds(spec)
    except SpecError:
        return False


def _static_need_broken(rt: Runtime, skill: str, args: list[Any]) -> str:
    """Why an argument breaks a static precondition of its skill (`catalog.SKILL_NEEDS`,
    which `check` also reads), or "" if none does."""
    for needs in SKILL_NEEDS.get(skill, ()):
        if needs.index >= len(args):
            continue
        value = args[needs.index]
        name = value.container if needs.slot and isinstance(value, SlotTarget) else value
        info = rt.infos.get(name) if isinstance(name, str) else None
        asset = info.asset if info is not None else None
        problem = needs.broken_by(skill, name if isinstance(name, str) else None, asset, value)
        if problem:
            return problem
    return ""


def _time_limit() -> str:
    return f"the episode's budget of {MAX_EPISODE_TIME:g} s of simulated time is spent"


def premature_reason(result: EpisodeResult, touch: Event) -> str:
    """`premature interaction: the robot touched `centrifuge` at 1.24 s, before event
    `lid_off` started (at 3.96 s)`."""
    start = next((s for name, s, _, _ in result.interventions if name == touch.detail), None)
    when = f" (at {start:.2f} s)" if start is not None else ""
    return (
        f"premature interaction: the robot touched `{touch.object}` at {touch.time:.2f} s, "
        f"before event `{touch.detail}` started{when}"
    )


def coordination_events(rt: Runtime, steps: list[StepResult]) -> list[Event]:
    """The runtime's coordination log as events, each filed under the step running then."""
    out = []
    for kind, time, name, entity in rt.coordination:
        step = next((r.name for r in steps if r.end >= time - 1e-9 and r.status != "skipped"), "")
        if not step:
            step = steps[-1].name if steps else ""
        trigger = next((t for k, t, n, _ in rt.coordination if k == "trigger" and n == name), None)
        detail = name
        if kind == "response" and trigger is not None:
            detail = f"{name}: {time - trigger:.2f} s after the trigger"
        out.append(Event(kind, time, step, object=entity, detail=detail))
    return out


def _show(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        return f"{value:g}"
    return target_name(value)


def _operation(func: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    parts = [str(_show(a)) for a in args] + [f"{k}: {_show(v)}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


def _confirm(
    rt: Runtime, func: str, obj: str | None, target: Any, result: SkillResult
) -> tuple[bool, str | None]:
    """The physical confirmation of a skill call, and where its object actually is."""
    from lablang.sim.state import SlotTarget, grasped, in_slot, on, slot_of

    if obj is None or not rt.infos[obj].free:
        return result.ok, None
    where = slot_of(rt, obj)
    actual = _show(where) if where is not None else None
    if func in _PLACING:
        if isinstance(target, SlotTarget):
            return in_slot(rt, obj, target), actual
        if isinstance(target, str) and target in rt.infos and rt.infos[target].top_site:
            resting = on(rt, obj, target)
            return resting, target if resting else actual
        return result.ok, actual
    if func in _GRASPING:
        held = grasped(rt, obj)
        return held, "gripper" if held else actual
    return result.ok, actual


def observation(rt: Runtime, step: str) -> dict[str, Any]:
    """The poses of the free objects (position and quaternion, 6 decimals) at a time."""
    d = rt.data
    objects = {
        name: [
            round(float(v), 6) for v in (*d.xpos[rt.body_ids[name]], *d.xquat[rt.body_ids[name]])
        ]
        for name, info in rt.infos.items()
        if info.free
    }
    return {"time": round(rt.time, 6), "step": step, "objects": objects}


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
        later = {name for s in steps[i + 1 :] for call in s.all_calls for name in _moved(call)}
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


KEYFRAME_SIZE = (720, 960)  # height, width


class _Keyframes:
    """A 960x720 picture of the scene at each step's end, captioned with the step and its
    outcome (green when it passed, red otherwise)."""

    def __init__(self, rt: Runtime, folder: Path) -> None:
        from lablang.sim.cameras import CameraRig

        self.rt = rt
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.rig = CameraRig(rt.model, *KEYFRAME_SIZE)

    def save(self, index: int, name: str, status: str = "", task: str = "") -> str:
        from lablang.output import write_atomic
        from lablang.sim.cameras import annotate

        colour = (120, 230, 120) if status == "passed" else (240, 110, 100)
        frame = annotate(
            self.rig.render(self.rt.data, "overview"),
            [
                (f"step {index + 1} `{name}`" + (f": {status}" if status else ""), colour),
                (f"{task}  t = {self.rt.time:.2f} s", (235, 235, 235)),
            ],
        )
        path = self.folder / f"{index:02d}_{name}.png"
        write_atomic(path, encode_png(frame))
        return str(path)

    def close(self) -> None:
        self.rig.close()


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
    data = asdict(result, recurse=True)
    for step in data["steps"]:
        step["wall"] = round(step["wall"], 4)
    data["wall_time"] = round(result.wall_time, 4)
    data["credit"] = round(result.credit, 6)
    data["succeeded"] = result.succeeded
    data["score"] = result.score()  # the one Labference score (evaluate.schema.json#/$defs/score)
    return data
