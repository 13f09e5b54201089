"""Mixing, pouring and pipetting as Labference obligations, scored from scripted policies.

Each scripted policy is the expert program with its decisions logged and changed where the
policy says (`Decision`: another tube, another receiver; a rewritten duration: the vortex
held on the cup too briefly), or raw hand targets through `TaskEnv` (a pour beside the
receiver; doing nothing). The expected numbers are computed from the logs: a decision on
the required object is a correct choice, one that achieved its effect (the tube mixed,
the volume moved) an executed one, and the opportunities stay what the task requires.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pytest
from attrs import define, field

from lablang.sim import load_tasks
from lablang.sim.env import make_env
from lablang.sim.episode import run_episode
from lablang.sim.interventions import Decision
from lablang.sim.labference import evaluate_schema, obligations
from lablang.sim.model import Ref
from lablang.sim.skills.pouring import lip_of
from tests.sim.labference_policies import evaluate_hold


@define
class Logged:
    """One logged decision of a scripted policy: the operation it commits to, whether
    that is the task's, and whether the policy does it in the way that achieves it."""

    operation: str
    required: bool
    achieves: bool


@define
class ScriptedProgram:
    """The expert program with some of its calls' arguments replaced, every decision
    logged: `choices` maps (step, call, argument) to the entity chosen instead;
    `durations` maps (step, call) to a shorter duration the call executes with."""

    decisions: tuple[tuple[str, str, bool, bool], ...]  # (operation, object, req., achieves)
    choices: dict[tuple[str, int, int], str] = field(factory=dict)
    durations: dict[tuple[str, int], float] = field(factory=dict)
    log: list[Logged] = field(factory=list)

    def run(self, task: Any, seed: int = 0) -> dict[str, Any]:
        self.log = [Logged(op, req, ach) for op, _obj, req, ach in self.decisions]
        interventions = tuple(
            Decision(step, call, arg, Ref(name)) for (step, call, arg), name in self.choices.items()
        )

        def shorten(_rt: Any, step: str, k: int, values: list[Any]) -> list[Any]:
            if (step, k) in self.durations:
                return [*values[:-1], self.durations[step, k]]
            return values

        return run_episode(task, seed, interventions=interventions, arguments=shorten).score()


def expected(log: list[Logged]) -> tuple[int, int]:
    """(correct choices, executed choices) a log calls for."""
    return sum(d.required for d in log), sum(d.achieves for d in log)


def totals(score: dict[str, Any]) -> tuple[int, int, int]:
    return (
        score["choice"]["opportunities"],
        score["choice"]["correct"],
        score["execution"]["executed"],
    )


def scored(task: Any, opportunities: int, *policies: ScriptedProgram) -> list[dict[str, Any]]:
    """Each policy's score, its totals and its frozen choices checked against its log."""
    scores = []
    for policy in policies:
        score = policy.run(task)
        assert totals(score) == (opportunities, *expected(policy.log))
        assert [c["operation"] for c in score["choice"]["frozen"]] == [
            d.operation for d in policy.log
        ]
        scores.append(score)
    return scores


@pytest.fixture(scope="module")
def vortex_task():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/suite/vortex_resuspend.lab")
    assert not report.has_errors
    return tasks["vortex_pellet-first"]


@pytest.fixture(scope="module")
def pour_task():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/suite/pour_medium.lab")
    assert not report.has_errors
    return tasks["pour_20ml-beaker"]


@pytest.fixture(scope="module")
def pipette_task():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/tasks/pipette_from_tube.lab")
    assert not report.has_errors
    return tasks["tube_to_tube"]


def test_mixing_pouring_and_pipetting_calls_are_obligations(
    vortex_task, pour_task, pipette_task
) -> None:
    """A vortex is one mixing obligation, a pour one pouring obligation beside the source's
    transfer back to the table, a draw and an expulsion one pipetting obligation each."""
    assert [o.key for o in obligations(vortex_task)] == ["vortex:mix:t1"]
    assert [o.key for o in obligations(pour_task)] == [
        "pour:pour:src",
        "pour:transfer:src",
    ]
    assert [o.key for o in obligations(pipette_task)] == ["draw:aspirate:p", "give:dispense:p"]


def test_mix_by_pipetting_is_a_draw_and_an_expulsion_per_cycle() -> None:
    """`mix_by_pipetting(p200, cup, 3)` requires three draws from `cup` and three
    expulsions into it, each its own obligation (a repeat numbered `#2`, `#3`)."""
    tasks, _ = load_tasks("examples/suite/tip_transfer_mix.lab")
    keys = [o.key for o in obligations(next(iter(tasks.values()))) if o.step == "mix"]
    assert keys == [
        "mix:aspirate:p200",
        "mix:dispense:p200",
        "mix:aspirate:p200#2",
        "mix:dispense:p200#2",
        "mix:aspirate:p200#3",
        "mix:dispense:p200#3",
    ]


def test_vortex_policies_score_choice_and_execution_from_their_logs(vortex_task) -> None:
    """The expert vortexes the sample (right, mixed); a policy that picks and vortexes t2
    makes a wrong choice well executed; one that holds the sample on the cup for 1 s (it
    mixes after 2 s) a right choice not executed; doing nothing scores 0 of 1."""
    policies = {
        "right": ScriptedProgram((("mix(t1)", "t1", True, True),)),
        "wrong": ScriptedProgram(
            (("mix(t2)", "t2", False, True),),
            choices={("vortex", 0, 0): "t2", ("vortex", 1, 0): "t2"},
        ),
        "brief": ScriptedProgram((("mix(t1)", "t1", True, False),), durations={("vortex", 1): 1.0}),
    }
    for name, policy in policies.items():
        score = policy.run(vortex_task)
        assert totals(score) == (1, *expected(policy.log)), name
        frozen = score["choice"]["frozen"]
        assert [c["operation"] for c in frozen] == [d.operation for d in policy.log], name
    held = evaluate_hold("examples/suite/vortex_resuspend.lab", 1, "--task", "vortex_pellet-first")
    assert (held["labference"]["opportunities"], held["labference"]["correct"]) == (1, 0)
    assert held["labference"]["executed"] == 0


def test_pour_policies_score_choice_and_execution_from_their_logs(pour_task) -> None:
    """The expert pours into the receiver and sets the source down (2 of 2 right, both
    executed, clean); pouring into `small` instead is a wrong choice well executed (the
    source set down is still right); doing nothing scores 0 of 2. Each score, its pour
    choices among them, is valid under `evaluate`'s schema."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = evaluate_schema()
    right = ScriptedProgram(
        (("pour(src, dst)", "src", True, True), ("transfer(src, table)", "src", True, True))
    )
    wrong = ScriptedProgram(
        (("pour(src, small)", "src", False, True), ("transfer(src, table)", "src", True, True)),
        choices={("pour", 1, 1): "small"},
    )
    scores = scored(pour_task, 2, right, wrong)
    for score in scores:
        jsonschema.validate(score, {"$ref": "#/$defs/score", "$defs": schema["$defs"]})
    assert [s["completion"]["status"] for s in scores] == ["clean", "incomplete"]
    held = evaluate_hold("examples/suite/pour_medium.lab", 1, "--task", "pour_20ml-beaker")
    assert [held["labference"][k] for k in ("opportunities", "correct", "executed")] == [2, 0, 0]


def test_a_pour_beside_the_receiver_is_the_right_choice_not_executed(pour_task) -> None:
    """A policy's raw hand targets that tilt the source with its lip 1 cm beyond the
    receiver's mouth choose `pour(src, dst)` (the lip is within the receiver's footprint)
    and move nothing into it: a right choice not executed; setting the source back down
    on the table is a right choice, executed."""
    env = make_env(pour_task, max_seconds=30.0)
    env.reset(seed=0)
    log = [Logged("pour(src, dst)", True, False), Logged("transfer(src, table)", True, True)]
    for action in _pour_beside(env, "src", "dst"):
        env.step(action)
    score = env.score()
    assert totals(score) == (2, *expected(log))
    assert [c["operation"] for c in score["choice"]["frozen"]] == [d.operation for d in log]
    assert env.rt is not None and env.rt.ledger.total("dst") == 0.0


def test_pipette_policies_score_choice_and_execution_from_their_logs(pipette_task) -> None:
    """The expert draws from stock and dispenses into dest (2 of 2, executed); a policy
    that dispenses back into stock makes the second choice wrong but executed; doing
    nothing scores 0 of 2."""
    right = ScriptedProgram(
        (("aspirate(p, stock)", "p", True, True), ("dispense(p, dest)", "p", True, True))
    )
    wrong = ScriptedProgram(
        (("aspirate(p, stock)", "p", True, True), ("dispense(p, stock)", "p", False, True)),
        choices={("give", 0, 1): "stock"},
    )
    scored(pipette_task, 2, right, wrong)
    held = evaluate_hold("examples/tasks/pipette_from_tube.lab", 1)
    assert [held["labference"][k] for k in ("opportunities", "correct", "executed")] == [2, 0, 0]


@pytest.fixture(scope="module")
def scoop_task():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/suite/solid_scoop_salt.lab")
    assert not report.has_errors
    return tasks["scoop_salt-small"]


def test_scoop_and_empty_scoop_are_a_draw_and_a_pour(scoop_task) -> None:
    """`scoop(spoon, jar, 1 g)` is one draw obligation and `empty_scoop(spoon, vessel)` one
    pour obligation, between the vessel's and the spoon's transfers and the tare."""
    assert [o.key for o in obligations(scoop_task)] == [
        "load:transfer:small",
        "tare:press:scale.tare",
        "dose:scoop:spoon",
        "dose:pour:spoon",
        "dose:transfer:spoon",
    ]


def test_scoop_policies_score_choice_and_execution_from_their_logs(scoop_task) -> None:
    """The expert scoops from the jar and empties into the vessel on the scale (5 of 5
    right, all executed, clean); emptying into `mid` instead is a wrong choice well
    executed (the task then incomplete); doing nothing scores 0 of 5."""
    setup = (
        ("transfer(small, scale)", "small", True, True),
        ("press(scale.tare)", "scale", True, True),
        ("scoop(spoon, jar)", "spoon", True, True),
    )
    right = ScriptedProgram(
        (
            *setup,
            ("pour(spoon, small)", "spoon", True, True),
            ("transfer(spoon, table)", "spoon", True, True),
        )
    )
    wrong = ScriptedProgram(
        (
            *setup,
            ("pour(spoon, mid)", "spoon", False, True),
            ("transfer(spoon, table)", "spoon", True, True),
        ),
        choices={("dose", 2, 1): "mid"},
    )
    scores = scored(scoop_task, 5, right, wrong)
    assert [s["completion"]["status"] for s in scores] == ["clean", "incomplete"]
    held = evaluate_hold("examples/suite/solid_scoop_salt.lab", 1, "--task", "scoop_salt-small")
    assert [held["labference"][k] for k in ("opportunities", "correct", "executed")] == [5, 0, 0]


def test_a_draw_from_the_wrong_jar_is_a_wrong_choice_well_executed() -> None:
    """Scooping the first dose from `kcl_jar` instead of `salt_jar` is a wrong draw that
    took a dose (the draw's source is read from where the bowl went down); emptied into
    the vessel it leaves the `nacl` step failed, so the episode ends there: 3 of 7 right,
    4 of 7 executed, incomplete."""
    tasks, _ = load_tasks("examples/suite/solid_two_salts.lab")
    wrong = ScriptedProgram(
        (
            ("transfer(small, scale)", "small", True, True),
            ("press(scale.tare)", "scale", True, True),
            ("scoop(spoon, kcl_jar)", "spoon", False, True),
            ("pour(spoon, small)", "spoon", True, True),
        ),
        choices={("nacl", 1, 1): "kcl_jar"},
    )
    (score,) = scored(tasks["two_salts-small"], 7, wrong)
    assert score["completion"]["status"] == "incomplete"


# ------------------------------------------------------------ a raw-action pour policy


def _ramp(env: Any, goal: Any, tilt: float, grip: float, ticks: int) -> Generator[np.ndarray]:
    rt = env.rt
    here, start = rt.cmd_tcp(), float(rt.cmd[4])
    for i in range(1, ticks + 1):
        f = i / ticks
        yield np.array(
            [*(here + (np.asarray(goal) - here) * f), 0.0, start + (tilt - start) * f, grip]
        )


def _pour_beside(env: Any, source: str, receiver: str) -> Generator[np.ndarray]:
    """Grasp the source, lift it, tilt it to 1.9 rad with its lip held 1 cm beyond the
    receiver's mouth (above its rim), stand it up, set it down where it was, let go."""
    rt = env.rt
    info, dest = rt.infos[source], rt.infos[receiver]
    x, y, z = rt.data.xpos[rt.body_ids[source]]
    opening = info.radius + 0.01
    yield from _ramp(env, [x, y, 0.2], 0.0, opening, 40)
    yield from _ramp(env, [x, y, z + info.grasp_z], 0.0, opening, 60)
    for _ in range(50):
        yield np.array([x, y, z + info.grasp_z, 0.0, 0.0, 0.0])
        if rt.held == source:
            break
    yield from _ramp(env, [x, y, 0.25], 0.0, 0.0, 40)
    centre = rt.data.xpos[rt.body_ids[receiver]]
    rim = centre[2] + dest.half_height
    away = np.array([x, y]) - centre[:2]
    spot = centre[:2] + away / np.linalg.norm(away) * (dest.opening + 0.01)
    yield from _ramp(env, [*spot, 0.25], 0.0, 0.0, 40)
    for k in range(150):  # tilt at 0.64 rad/s, keeping the lip over `spot`, 3 cm above the rim
        tilt = min(1.9, 0.0128 * (k + 1))
        pos, R = rt.data.xpos[rt.body_ids[source]], rt.data.xmat[rt.body_ids[source]]
        lip = lip_of(pos, R.reshape(3, 3)[:, 2], info.half_height, info.opening)
        err = np.array([spot[0] - lip[0], spot[1] - lip[1], rim + 0.03 - lip[2]])
        yield np.array([*(rt.cmd_tcp() + np.clip(0.3 * err, -0.005, 0.005)), 0.0, tilt, 0.0])
    yield from _ramp(env, rt.cmd_tcp(), 0.0, 0.0, 100)
    yield from _ramp(env, [x, y, 0.25], 0.0, 0.0, 40)
    yield from _ramp(env, [x, y, z + info.grasp_z + 0.005], 0.0, 0.0, 60)
    yield from _ramp(env, [x, y, z + info.grasp_z + 0.005], 0.0, opening, 20)
    yield from _ramp(env, [x, y, 0.25], 0.0, opening, 60)
