"""Spec sensitivity: mutants of the expert program that each step's spec must reject.

A certificate says that the expert program succeeds; it proves something only if a
wrong program would fail. For each step, `derive_mutants` makes one mutant of the
expert program per kind (`KINDS`): the step's calls removed, its target object swapped
for another of the same asset, its destination changed (the next slot or well, another
surface), its durations cut to a tenth, and the program stopped before the step. A
mutant runs on at most `MUTANT_INSTANCES` of the certification's instances, in order
(of a step that chooses from the evidence, on instances that took the first alternative,
the one the mutant changes: an instance that took another cannot tell);
its run stops at the first spec that fails, a skill that fails ends its step's program
but not the step (the specs alone judge a mutant), and it is *killed* only when, on
every instance it ran, the mutated step's own spec failed (for `stopped`, a spec of the
step or of a later one). One instance it survives is enough to report it, so its
remaining instances are not run. A step that says why it needs no check
(`unchecked: "reason"`) has no mutants.

Mutants are applied after the instance binds its roles, so a role's target swap picks
an entity the instance did not bind. Each mutant is one unit on the executors
(`lablang.sim.suite.run_mutants`), and the certificate's sensitivity section
aggregates them in derivation order under a work budget of their own
(`catalog.MAX_MUTANT_WORK`), so it is the same bytes on any executor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import (
    asdict,
    evolve,  # the model's classes are records (attrs for this module's)
    frozen,
)

from lablang.sim.catalog import (
    ASSET_KINDS,
    DESTINATION_ARGUMENT,
    MAX_MUTANT_WORK,
    MUTANT_INSTANCES,
    RERUN_TIMESTEP,
    SKILL_SIGNATURES,
)
from lablang.sim.model import Call, Expr, Num, Ref, Scene, Step, Task, bind_task

KINDS = ("removed", "target", "destination", "durations", "stopped")
DURATION_FACTOR = 0.1  # a mutant's durations: a tenth of the expert's


@frozen
class Mutant:
    """One wrong program: `kind` applied to step `step` (see `KINDS`)."""

    step: str
    kind: str
    change: str  # what changed, in words: "`tube_B` instead of `tube_A`"
    call: int = -1  # destination: the call whose destination changes
    argument: int = -1  # ... and its argument

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.step}"

    def message(self, steps: Sequence[str]) -> str:
        """Why a surviving mutant matters, in the task's words."""
        s = self.step
        match self.kind:
            case "removed":
                return (
                    f"removing the calls of `{s}` still meets every spec: `{s}`'s spec does "
                    "not check its outcome"
                )
            case "target":
                return (
                    f"`{s}` acting on {self.change} still meets its spec: `{s}`'s spec does "
                    "not check which object it acts on"
                )
            case "destination":
                return (
                    f"`{s}` delivering to {self.change} still meets its spec: `{s}`'s spec "
                    "does not check where it ends up"
                )
            case "durations":
                return (
                    f"`{s}` with its durations cut to a tenth ({self.change}) still meets its "
                    f"spec: `{s}`'s spec does not check how long it lasted"
                )
            case _:
                index = list(steps).index(s)
                where = f"after `{steps[index - 1]}`" if index else "before it starts"
                return (
                    f"stopping the program {where} still meets every spec from `{s}` on: no "
                    "spec checks that the program went on"
                )


@frozen
class MutantRun:
    """One instance of a mutant: killed or not, and by what."""

    seed: int
    killed: bool
    step: str  # the step whose spec failed ("" when every spec held)
    reason: str


@frozen
class MutantOutcome:
    mutant: Mutant
    runs: tuple[MutantRun, ...]
    work: int = 0

    @property
    def killed(self) -> bool:
        return bool(self.runs) and all(r.killed for r in self.runs)


# ---------------------------------------------------------------- deriving mutants


def derive_mutants(task: Task) -> list[Mutant]:
    """The mutants of a task's expert program, step by step, in `KINDS` order.

    >>> from lablang.sim import load_tasks
    >>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
    >>> [m.key for m in derive_mutants(tasks["move_tube"])]
    ['removed:move', 'destination:move']
    """
    scene = task.scene
    out: list[Mutant] = []
    for index, step in enumerate(task.steps):
        if step.unchecked:
            continue
        if step.program:
            out.append(Mutant(step.name, "removed", "no calls"))
        swap = _target_swap(step, scene, {})
        if swap is not None:
            old, new = swap
            if old in scene.roles():  # the stand-in depends on the instance's binding
                change = f"another `{_asset(scene, old)}` than the one `{old}` is bound to"
            else:
                change = f"`{new}` instead of `{old}`"
            out.append(Mutant(step.name, "target", change))
        where = _destination(step, scene)
        if where is not None:
            out.append(Mutant(step.name, "destination", where[2], where[0], where[1]))
        durations = [_text(n) for c in step.program for n in _times(c)]
        if durations:
            cut = ", ".join(f"`{t}`" for t in dict.fromkeys(durations))
            out.append(Mutant(step.name, "durations", f"{cut} cut to a tenth"))
        # stopping before the step differs from removing its calls only if a later step acts
        if any(s.program for s in task.steps[index + 1 :]):
            out.append(Mutant(step.name, "stopped", "no calls from here on"))
    return out


def apply_mutant(task: Task, mutant: Mutant, bindings: dict[str, str]) -> Task:
    """The bound task (roles already replaced) with the mutant's change made. In a step
    that chooses from the evidence the change is made to its first alternative (which is
    its `program`, the calls a mutant is derived from); `stopped` empties every
    alternative of the step and the later steps."""
    task = bind_task(task, bindings)
    names = [s.name for s in task.steps]
    at = names.index(mutant.step)
    steps = list(task.steps)
    step = steps[at]
    match mutant.kind:
        case "removed":
            steps[at] = _with_program(step, ())
        case "target":
            swap = _target_swap(step, task.scene, bindings)
            if swap is not None:
                old, new = swap
                steps[at] = _with_program(step, tuple(_rename(c, old, new) for c in step.program))
        case "durations":
            steps[at] = _with_program(step, tuple(_shorten(c) for c in step.program))
        case "stopped":
            steps[at:] = [
                evolve(s, program=(), alternatives=tuple((g, ()) for g, _c in s.alternatives))
                for s in steps[at:]
            ]
        case _:
            pass  # the destination changes at run time (`shift_destination`)
    return evolve(task, steps=tuple(steps))


def _with_program(step: Step, program: tuple[Call, ...]) -> Step:
    """The step running `program` instead of its first alternative's calls."""
    if not step.alternatives:
        return evolve(step, program=program)
    (guard, _calls), *rest = step.alternatives
    return evolve(step, program=program, alternatives=((guard, program), *rest))


def takes_first(step: Step, rt: Any) -> bool:
    """Will the step, starting in the runtime's state now, take its first alternative
    (the one mutants change)? True for a step that does not choose."""
    from lablang.sim.predicates import Evaluator, SpecError

    if not step.alternatives:
        return True
    evaluator = Evaluator(rt)
    for k, (guard, _calls) in enumerate(step.alternatives):
        try:
            if guard is None or evaluator.holds(guard):
                return k == 0
        except SpecError:
            return False
    return False


def _entity_names(step: Step) -> list[str]:
    """The entities a step's calls act on (arguments of kind object, entity or container),
    in order, each once."""
    found: dict[str, None] = {}
    for call in step.program:
        kinds = SKILL_SIGNATURES.get(call.func, ((), ""))[0]
        for kind, arg in zip(kinds, call.args, strict=False):
            acts_on = kind.lstrip("?") in ("object", "entity", "container")
            if acts_on and isinstance(arg, Ref) and not arg.path:
                found.setdefault(arg.name)
    return list(found)


def _asset(scene: Scene, name: str) -> str | None:
    entity = scene.entity(name)
    if entity is not None:
        return entity.asset
    candidates = scene.roles().get(name)
    if candidates:
        first = scene.entity(candidates[0])
        return first.asset if first is not None else None
    return None


def _target_swap(step: Step, scene: Scene, bindings: dict[str, str]) -> tuple[str, str] | None:
    """(the step's target, its stand-in): the first entity the step's calls act on that has
    another of the same asset in the scene (one the instance did not bind to a role)."""
    bound = set(bindings.values())
    for name in _entity_names(step):
        asset = _asset(scene, name)
        if asset is None or asset == "table":
            continue
        others = [
            e.name
            for e in scene.entities
            if e.asset == asset and e.name != name and e.name not in bound
        ]
        if name in scene.roles() and not bindings:
            others = [e for e in others if e not in scene.roles()[name]] or others
        if others:
            return name, others[0]
    return None


def _destination(step: Step, scene: Scene) -> tuple[int, int, str] | None:
    """(call, argument, what the mutant delivers to instead) for the step's first call
    that has a destination which can be changed."""
    for k, call in enumerate(step.program):
        i = DESTINATION_ARGUMENT.get(call.func)
        if i is None or i >= len(call.args):
            continue
        arg = call.args[i]
        if isinstance(arg, Call):
            return k, i, f"the next slot instead of `{_text(arg)}`"
        if not isinstance(arg, Ref):
            continue
        asset = _asset(scene, arg.name)
        if asset is None:
            continue
        if arg.path[:1] in (("slot",), ("well",)) and isinstance(arg.path[-1], int):
            count = _parts(scene, arg.name, str(arg.path[0]))
            if count > 1:
                moved = Ref(arg.name, (arg.path[0], (arg.path[-1] + 1) % count))
                return k, i, f"`{moved.text()}` instead of `{arg.text()}`"
            continue
        other = _other_place(scene, arg.name, asset)
        if other is not None:
            return k, i, f"`{other}` instead of `{arg.text()}`"
    return None


def _parts(scene: Scene, name: str, part: str) -> int:
    entity = scene.entity(name)
    if entity is None:
        return 0
    key = "slots" if part == "slot" else "wells"
    spec = ASSET_KINDS[entity.asset].params.get(key)
    default = spec.default if spec is not None else 0
    return int(entity.param(key, default))


def _other_place(scene: Scene, name: str, asset: str) -> str | None:
    """Another entity of the same asset, or the table for a surface."""
    for entity in scene.entities:
        if entity.asset == asset and entity.name != name:
            return entity.name
    if ASSET_KINDS[asset].surface and asset != "table":
        return "table"
    return None


def shift_destination(mutant: Mutant, scene: Scene) -> Any:
    """The argument rewrite (`EpisodeRunner(arguments=...)`) of a destination mutant."""
    from lablang.sim.state import SlotTarget, WellTarget

    def rewrite(rt: Any, step: str, k: int, values: list[Any]) -> list[Any]:
        if step != mutant.step or k != mutant.call:
            return values
        values = list(values)
        value = values[mutant.argument]
        match value:
            case SlotTarget(container=c, index=i):
                values[mutant.argument] = SlotTarget(c, (i + 1) % len(rt.infos[c].slots))
            case WellTarget(plate=p, index=i):
                values[mutant.argument] = WellTarget(p, (i + 1) % len(rt.infos[p].wells))
            case str() if value in rt.infos:
                other = _other_place(scene, value, rt.infos[value].asset)
                if other is not None:
                    values[mutant.argument] = other
            case _:
                pass
        return values

    return rewrite


def _times(call: Call) -> list[Num]:
    values = [*call.args, *(v for _, v in call.kwargs)]
    return [v for v in values if isinstance(v, Num) and v.dimension == "time" and v.value > 0]


def _shorten(call: Call) -> Call:
    def cut(value: Expr) -> Expr:
        if isinstance(value, Num) and value.dimension == "time":
            return evolve(value, value=value.value * DURATION_FACTOR)
        return value

    return evolve(
        call,
        args=tuple(cut(a) for a in call.args),
        kwargs=tuple((k, cut(v)) for k, v in call.kwargs),
    )


def _rename(call: Call, old: str, new: str) -> Call:
    from lablang.sim.model import bind_expr

    renamed = bind_expr(call, {old: new})
    assert isinstance(renamed, Call)
    return renamed


def _text(expr: Expr) -> str:
    from lablang.sim.predicates import expr_text

    return expr_text(expr)


# ---------------------------------------------------------------- running mutants


def run_step_mutants(
    task: Task, mutants: Sequence[Mutant], seeds: Sequence[int]
) -> list[MutantOutcome]:
    """A step's mutants on each seed in order (one unit on an executor), each until the
    first instance it survives.

    The expert program up to the step is run once per seed and checkpointed there; each
    mutant continues from the checkpoint (`Runtime.restore`: bit-identical continuations),
    so the shared prefix is paid once, not once per mutant. Stopping the program before
    the step runs exactly as removing the step's calls until the step's spec is evaluated,
    so when the removal is killed there by the step's spec, so is the stop, on that run."""
    runs: dict[str, list[MutantRun]] = {m.key: [] for m in mutants}
    work = dict.fromkeys(runs, 0)
    for seed in seeds:
        alive = [
            m
            for m in mutants
            if all(r.killed for r in runs[m.key]) and len(runs[m.key]) < MUTANT_INSTANCES
        ]
        if not alive:
            break
        for mutant, run, spent in _on_instance(task, alive, seed):
            if run is not None:
                runs[mutant.key].append(run)
            work[mutant.key] += spent
    return [MutantOutcome(m, tuple(runs[m.key]), work[m.key]) for m in mutants]


def _on_instance(
    task: Task, mutants: Sequence[Mutant], seed: int
) -> list[tuple[Mutant, MutantRun | None, int]]:
    """The step's mutants on one instance, continued from one checkpoint before the step;
    a mutant whose continuation faults is rerun from the start (at 1 ms, if it faults again).
    A run is None where the step chose another alternative than the first, which the
    mutant changed (the instance cannot tell whether the spec checks it)."""
    from lablang.sim.build import compile_scene
    from lablang.sim.episode import EpisodeRunner
    from lablang.sim.runtime import Runtime

    step = mutants[0].step
    built = compile_scene(task.scene, np.random.default_rng(seed))
    runner = EpisodeRunner(task, seed, runtime=Runtime(built), spec_decides=True)
    runner.run(until=step)
    prefix = runner.rt.work
    if runner.stopped:  # the expert's own program did not reach the step on this instance
        found = [_judge(task, m, seed, runner) for m in mutants]
        return [(m, run, prefix) for m, run in zip(mutants, found, strict=True)]
    checkpoint = runner.checkpoint()
    out: list[tuple[Mutant, MutantRun | None, int]] = []
    removed: MutantRun | None = None
    first = takes_first(next(s for s in task.steps if s.name == step), runner.rt)
    for mutant in mutants:
        if mutant.kind == "stopped" and removed is not None and removed.killed:
            out.append((mutant, removed, 0))
            continue
        if mutant.kind != "stopped" and not first:
            out.append((mutant, None, 0))  # the step takes an alternative it did not change
            continue
        runner.restore(checkpoint, ())
        runner.task = apply_mutant(task, mutant, runner.bindings)
        runner.arguments = (
            shift_destination(mutant, task.scene) if mutant.kind == "destination" else None
        )
        runner.run()
        spent = runner.rt.work - prefix
        if runner.fault is not None:
            run, again = _from_scratch(task, mutant, seed)
            out.append((mutant, run, spent + again))
        else:
            out.append((mutant, _judge(task, mutant, seed, runner), spent))
        if mutant.kind == "removed":
            removed = out[-1][1]
    out[0] = (out[0][0], out[0][1], out[0][2] + prefix)  # the prefix, counted once
    return out


def _from_scratch(task: Task, mutant: Mutant, seed: int) -> tuple[MutantRun, int]:
    """The mutant run from the start, rerun once at 1 ms on a simulator fault."""
    from lablang.sim.build import compile_scene
    from lablang.sim.episode import EpisodeRunner
    from lablang.sim.runtime import Runtime

    arguments = shift_destination(mutant, task.scene) if mutant.kind == "destination" else None
    work = 0
    for timestep in (None, RERUN_TIMESTEP):
        built = compile_scene(task.scene, np.random.default_rng(seed))
        mutated = apply_mutant(task, mutant, dict(built.bindings))
        runner = EpisodeRunner(
            mutated,
            seed,
            runtime=Runtime(built, timestep=timestep),
            spec_decides=True,
            arguments=arguments,
        )
        runner.run()
        work += runner.rt.work
        if runner.fault is None:
            break
    return _judge(task, mutant, seed, runner), work


def _judge(task: Task, mutant: Mutant, seed: int, runner: Any) -> MutantRun:
    """Killed or not: by the mutated step's spec (for `stopped`, by one from the step on)."""
    if runner.fault is not None:
        fault = runner.fault
        return MutantRun(seed, False, fault.step, f"simulator fault: {fault.kind}: {fault.detail}")
    names = [s.name for s in task.steps]
    failed = next((r for r in runner.results if r.status != "passed"), None)
    if failed is None:
        return MutantRun(seed, False, "", "every spec held")
    at, index = names.index(failed.name), names.index(mutant.step)
    killed = at >= index if mutant.kind == "stopped" else at == index
    reason = failed.reason if killed else f"`{failed.name}` failed before the mutated step"
    return MutantRun(seed, killed, failed.name, reason)


# ---------------------------------------------------------------- the certificate's section


def sensitivity_of(
    task: Task,
    mutants: Sequence[Mutant],
    outcomes: Sequence[Any],
    instances: int,
) -> dict[str, Any]:
    """The certificate's sensitivity section, aggregated in mutant order.

    `outcomes` holds a `MutantOutcome` per mutant, or a unit failure (its worker died on
    every attempt), which counts as not killed. Mutants past the budget do not count.
    """
    names = [s.name for s in task.steps]
    per_step: dict[str, dict[str, Any]] = {
        s.name: {"run": 0, "killed": 0, "surviving": [], "unchecked": s.unchecked or None}
        for s in task.steps
    }
    rows: list[dict[str, Any]] = []
    surviving: list[str] = []
    spent = 0
    limit: str | None = None
    for mutant, outcome in zip(mutants, outcomes, strict=True):
        if limit is not None:
            break
        row: dict[str, Any] = {"step": mutant.step, "kind": mutant.kind, "change": mutant.change}
        if isinstance(outcome, MutantOutcome):
            spent += outcome.work
            row["killed"] = outcome.killed
            row["runs"] = [asdict(r) for r in outcome.runs]
        else:
            row["killed"] = False
            row["runs"] = []
            row["lost"] = outcome.as_dict()
        step = per_step[mutant.step]
        step["run"] += 1
        if row["killed"]:
            step["killed"] += 1
        else:
            step["surviving"].append(mutant.kind)
            if "lost" in row:
                surviving.append(f"mutant `{mutant.key}` was lost")
            elif not row["runs"]:
                surviving.append(
                    f"mutant `{mutant.key}` ran on no instance: none took `{mutant.step}`'s "
                    "first alternative, the one it changes"
                )
            else:
                surviving.append(mutant.message(names))
        rows.append(row)
        if spent > MAX_MUTANT_WORK and len(rows) < len(mutants):
            limit = (
                f"E0713: the mutants' physics budget of {MAX_MUTANT_WORK:,} work units was "
                f"spent after {len(rows)} of {len(mutants)} mutants"
            )
    return {
        "mutants": "all",
        "instances": min(instances, MUTANT_INSTANCES),
        "run": len(rows),
        "killed": sum(r["killed"] for r in rows),
        "surviving": len(rows) - sum(r["killed"] for r in rows),
        "limit": limit,
        "work": spent,
        "steps": per_step,
        "results": rows,
        "messages": surviving,
    }


def no_sensitivity(task: Task) -> dict[str, Any]:
    """The section of a certification run with `--mutants none`: nothing was tested."""
    return {
        "mutants": "none",
        "instances": 0,
        "run": 0,
        "killed": 0,
        "surviving": 0,
        "limit": None,
        "work": 0,
        "steps": {
            s.name: {"run": 0, "killed": 0, "surviving": [], "unchecked": s.unchecked or None}
            for s in task.steps
        },
        "results": [],
        "messages": [],
    }
