"""Certification: run a task's expert program on many randomized instances.

Instances are seeded from one base seed (numpy SeedSequence), run as units on an
executor (this process, local worker processes or Ray: `lablang.executors`) and
aggregated in instance order, so the certificate is the same for any executor and
any number of workers. A simulator fault is rerun once with a 1 ms
physics step: if the rerun is clean the fault was transient (a numerical
artefact of the 2 ms step) and the rerun counts; otherwise the fault stands and
is reported separately from task failures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lablang.executors import Executor, UnitFailure
from lablang.sim.catalog import MAX_CERTIFY_WORK, RERUN_TIMESTEP
from lablang.sim.episode import premature_reason
from lablang.sim.instances import (
    InstanceOutcome,
    TaskRef,
    instance_seeds,
    run_instance,
    run_instances,
    sensitivities,
    task_hash,
)
from lablang.sim.model import Task

# the instance-level names live in `instances`, below this module and `suite`
__all__ = [
    "RERUN_TIMESTEP",
    "InstanceOutcome",
    "certificate_json",
    "certificate_of",
    "certify_task",
    "instance_seeds",
    "run_instance",
    "task_hash",
]


def certify_task(
    task: Task,
    instances: int = 20,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = False,
    records_dir: Path | None = None,
    executor: Executor | None = None,
    origin: TaskRef | None = None,
    mutants: str = "all",
) -> dict[str, Any]:
    """The certificate (a JSON-ready dict) for `instances` randomized runs of a task.

    Instances run on `executor` (default: local with `jobs` processes); the Ray
    executor needs the task's `origin` (its file's text), which is what workers get.
    With `records_dir`, each instance's event, observation and score records are written
    there as `SEED.jsonl` (re-scored by `lablang replay`). `mutants="all"` tests the
    specs' sensitivity with mutants of the expert program (`lablang.sim.mutants`);
    `"none"` skips that, and the certificate says so.
    """
    from lablang.sim.mutants import no_sensitivity

    if mutants not in ("all", "none"):
        raise ValueError(f"mutants must be `all` or `none`, not `{mutants}`")
    executor = executor if executor is not None else Executor("local", jobs)
    seeds = instance_seeds(seed, instances)
    label = f"certify {task.name}" if progress else None
    outcomes = run_instances([(task, origin, seeds)], executor, label)[0]
    if mutants == "all":
        label = f"mutants of {task.name}" if progress else None
        section = sensitivities([(task, origin, seeds)], executor, label)[0]
    else:
        section = no_sensitivity(task)
    return certificate_of(task, seed, seeds, outcomes, records_dir, section)


def certificate_of(
    task: Task,
    seed: int,
    seeds: list[int],
    outcomes: list[InstanceOutcome | UnitFailure],
    records_dir: Path | None = None,
    sensitivity: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Aggregate instance outcomes (in seed order) into the certificate.

    A unit that produced no outcome (its worker died on every attempt) is listed under
    `unit_failures` with its seed and the task is not certified. `sensitivity` is the
    mutants' section (`lablang.sim.mutants.sensitivity_of`); without it, none were run.
    A step whose spec already held when it started, in any instance, is listed under
    `already_held` (success by luck) and the task is not certified, unless the step
    says `may_already_hold: true`.
    """
    from lablang.sim.mutants import no_sensitivity

    if sensitivity is None:
        sensitivity = no_sensitivity(task)
    import mujoco

    import lablang

    instances = len(seeds)
    lost_units = [o.as_dict() for o in outcomes if isinstance(o, UnitFailure)]
    done: list[InstanceOutcome] = []
    spent = 0
    limit: str | None = None
    # the certification's work budget, applied in instance order: whatever the executor
    # ran, the instances after the one that crossed it do not count (so the certificate
    # is the same on one process or a cluster)
    for outcome in outcomes:
        if not isinstance(outcome, InstanceOutcome):
            continue
        done.append(outcome)
        spent += outcome.work
        if spent > MAX_CERTIFY_WORK and len(done) < instances:
            limit = (
                f"E0713: the certification's physics budget of {MAX_CERTIFY_WORK:,} work "
                f"units was spent after {len(done)} of {instances} instances"
            )
            break
    names = [s.name for s in task.steps]
    passed = dict.fromkeys(names, 0)
    failures: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    reruns: list[dict[str, Any]] = []
    credits: list[float] = []
    lucky: dict[str, list[int]] = {}
    successes = 0
    completions = {"clean": 0, "recovered": 0, "incomplete": 0}
    labference = {"opportunities": 0, "reached": 0, "correct": 0, "executed": 0}
    # steps that choose from the evidence: how many instances took each alternative
    taken = {s.name: [0] * len(s.alternatives) for s in task.steps if s.alternatives}
    for outcome in done:
        result = outcome.result
        for event in result.events:
            if event.kind == "alternative" and event.step in taken:
                taken[event.step][int(event.detail)] += 1
        sc = result.score()
        completions[sc["completion"]["status"]] += 1
        labference["opportunities"] += sc["choice"]["opportunities"]
        labference["reached"] += sc["choice"]["reached"]
        labference["correct"] += sc["choice"]["correct"]
        labference["executed"] += sc["execution"]["executed"]
        if records_dir is not None:
            from lablang.sim.records import write_records

            write_records(records_dir / f"{outcome.seed}.jsonl", result.record_lines())
        credits.append(result.credit)
        successes += result.succeeded
        for step in result.steps:
            if step.status == "passed":
                passed[step.name] += 1
            if step.held_at_start:
                lucky.setdefault(step.name, []).append(outcome.seed)
        if outcome.rerun_of_fault:
            reruns.append({"seed": outcome.seed, "fault": outcome.rerun_of_fault})
        if result.fault is not None:
            faults.append(
                {
                    "seed": outcome.seed,
                    "step": result.fault.step,
                    "kind": result.fault.kind,
                    "detail": result.fault.detail,
                    "time": round(result.fault.time, 4),
                }
            )
            continue
        first = next((s for s in result.steps if s.status != "passed"), None)
        if first is not None:
            failures.append(
                {
                    "seed": outcome.seed,
                    "step": first.name,
                    "reason": first.reason,
                    "failing": list(first.failing),
                }
            )
        elif result.side_effects:
            failures.append(
                {
                    "seed": outcome.seed,
                    "step": result.side_effects[0].rsplit("`", 2)[-2],
                    "reason": f"side effect: {result.side_effects[0]}",
                    "failing": list(result.side_effects),
                }
            )
        elif result.premature:
            first_touch = result.premature[0]
            failures.append(
                {
                    "seed": outcome.seed,
                    "step": first_touch.step,
                    "reason": premature_reason(result, first_touch),
                    "failing": [],
                }
            )
        elif not all(result.persisted):
            lost = [n for n, ok in zip(names, result.persisted, strict=False) if not ok]
            failures.append(
                {
                    "seed": outcome.seed,
                    "step": lost[0],
                    "reason": "the step's success spec no longer held at the end",
                    "failing": [],
                }
            )
    return {
        "task": task.name,
        "task_hash": task_hash(task),
        "robot": task.scene.robot,
        "lablang_version": lablang.__version__,
        "mujoco_version": mujoco.__version__,
        "seed": seed,
        "instances": instances,
        "seeds": seeds,
        "steps": names,
        "step_pass_rates": {n: round(passed[n] / instances, 6) for n in names},
        "mean_credit": round(sum(credits) / instances, 6) if instances else 0.0,
        "success_rate": round(successes / instances, 6) if instances else 0.0,
        # every alternative of a step that chooses from the evidence must have been taken
        # (and succeeded) in some instance: a branch no instance reached is not certified
        "certified": instances > 0
        and successes == instances
        and limit is None
        and not lost_units
        and not lucky
        and sensitivity["surviving"] == 0
        and sensitivity["limit"] is None
        and all(all(counts) for counts in taken.values()),
        "alternatives": {
            step: {
                "taken": counts,
                "uncovered": [k for k, n in enumerate(counts) if not n],
                "messages": uncovered_messages(task, step, counts),
            }
            for step, counts in taken.items()
        },
        # the bound that stopped the certification early (the remaining instances do not
        # count and are not succeeded), and the instances a bound stopped
        "limit": limit,
        "limited": [{"seed": o.seed, "limit": o.result.limit} for o in done if o.result.limit],
        "work": spent,
        "failures": failures,
        "faults": faults,
        "transient_faults_rerun": reruns,
        # units that produced no outcome after their retries (never silently dropped)
        "unit_failures": lost_units,
        # choice apart from execution, summed over the instances (Labference)
        "labference": labference,
        "completion": completions,  # Labference: clean, recovered after a wrong or
        # unconfirmed attempt, or incomplete
        "trace_digests": [o.result.trace_digest for o in done],
        # `randomize role from [...]`: the entity each role was bound to, per instance
        "bindings": [
            {"seed": o.seed, **dict(o.result.bindings)} for o in done if o.result.bindings
        ],
        # a task family's binding this task is (`roles:` and `bindings:`), null for others
        "family_binding": task.binding.to_json() if task.binding else None,
        # no success by luck: steps whose spec held before they did anything
        "already_held": [
            {
                "step": name,
                "seeds": lucky[name],
                "reason": f"`{name}`'s spec already held when the step started (seed "
                f"{lucky[name][0]}): it would pass without the step doing anything (say "
                "`may_already_hold: true` in the step if that is intended)",
            }
            for name in names
            if name in lucky
        ],
        # spec sensitivity: mutants of the expert program and whether each spec rejected them
        "sensitivity": sensitivity,
        "unchecked": {s.name: s.unchecked for s in task.steps if s.unchecked},
    }


def certificate_json(certificate: dict[str, Any]) -> str:
    return json.dumps(certificate, indent=2, sort_keys=True) + "\n"


def uncovered_messages(task: Task, step: str, counts: list[int]) -> list[str]:
    """E0719 for each alternative of a step that chooses from the evidence which no
    instance took: the certificate cannot vouch for a branch it never ran."""
    from lablang.sim.predicates import expr_text

    alternatives = next(s.alternatives for s in task.steps if s.name == step)
    out = []
    for k, n in enumerate(counts):
        if n:
            continue
        guard = alternatives[k][0]
        which = f"`requires {expr_text(guard)}`" if guard is not None else "(the unguarded one)"
        out.append(
            f"E0719: step `{step}`'s `do` block {k + 1} of {len(counts)} {which} was taken by "
            f"none of the {sum(counts)} instances: randomize the evidence its condition reads "
            "(such as `randomize w5 within [table, scale]`) or certify more instances"
        )
    return out
