"""Whole episodes: the example tasks certify, runs are deterministic, failures are structured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lablang.sim import certify_task, load_tasks, simulate_task
from lablang.sim.episode import episode_json

EXAMPLES = sorted(Path("examples/tasks").glob("*.lab"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_task_certifies_on_three_randomized_instances(path: Path) -> None:
    """Every example task's expert program passes all steps on 3 seeded random instances."""
    tasks, report = load_tasks(path)
    assert not report.has_errors and len(tasks) == 1
    certificate = certify_task(next(iter(tasks.values())), instances=3, seed=7)
    assert certificate["faults"] == [] and certificate["failures"] == []
    assert certificate["certified"] is True
    assert set(certificate["step_pass_rates"].values()) == {1.0}
    assert len(set(certificate["trace_digests"])) == 3  # the instances really differ


def test_same_seed_gives_a_bit_identical_trace_and_another_seed_does_not() -> None:
    """Two runs with one seed produce the same qpos digest and results; a new seed changes them."""
    tasks, _ = load_tasks("examples/tasks/feedback_weighing.lab")
    task = tasks["weigh_30g"]
    first, second, other = simulate_task(task, 11), simulate_task(task, 11), simulate_task(task, 12)
    assert first.trace_digest == second.trace_digest
    strip = lambda r: {k: v for k, v in episode_json(r).items() if k != "wall_time"}  # noqa: E731
    a, b = strip(first), strip(second)
    for data in (a, b):
        for step in data["steps"]:
            step.pop("wall")
    assert a == b
    assert other.trace_digest != first.trace_digest


def test_trace_is_identical_in_a_separate_process() -> None:
    """`lablang simulate --json` in a fresh process reproduces the in-process digest."""
    tasks, _ = load_tasks("examples/tasks/centrifuge_loading.lab")
    digest = simulate_task(tasks["load_pair"], 5).trace_digest
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "lablang",
            "simulate",
            "examples/tasks/centrifuge_loading.lab",
            "--seed",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["trace_digest"] == digest


def test_certificate_does_not_depend_on_the_number_of_jobs() -> None:
    """Certifying with 2 worker processes gives the same certificate as with 1."""
    tasks, _ = load_tasks("examples/tasks/feedback_weighing.lab")
    one = certify_task(tasks["weigh_30g"], instances=2, seed=3, jobs=1)
    two = certify_task(tasks["weigh_30g"], instances=2, seed=3, jobs=2)
    assert one == two
    assert one["mujoco_version"] == "4.0.0" and len(one["task_hash"]) == 64


def test_inserting_into_a_closed_centrifuge_fails_the_step_with_a_reason(task_from) -> None:
    """Without opening the lid, the insert skill fails its precondition; later steps are skipped."""
    task = task_from("""
scene s {
  rotor: centrifuge(slots: 8) on table at (0.45 m, 0.12 m)
  tube: tube_1_5ml() on table at (0.2 m, -0.1 m)
}
task t in s {
  step a { do { pick(tube); insert_into_slot(tube, rotor.slot[0]) } success: in(tube, rotor) }
  step b { do { home() } success: on(tube, rotor) }
}
""")
    result = simulate_task(task, 0)
    assert result.fault is None
    first, second = result.steps
    assert first.status == "failed"
    assert first.reason == "skill `insert_into_slot` failed: the lid of `rotor` is not open"
    assert second.status == "skipped" and result.credit == 0.0


def test_unmet_success_spec_names_the_false_atoms(task_from) -> None:
    """When a spec does not hold in its window, the step lists which atoms were false."""
    task = task_from("""
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[0]
}
task t in s { step a { do { wait(0.2 s) } success: in(tube, rack.slot[1]) and upright(tube) within 1 s } }
""")
    [step] = simulate_task(task, 0).steps
    assert step.status == "failed"
    assert step.failing == ("in(tube, rack.slot[1])",)
    assert step.end - step.start == pytest.approx(1.2, abs=0.021)


def test_pour_moves_liquid_between_ledgers_and_changes_the_carriers_masses(task_from) -> None:
    """Pouring 20 mL moves exactly 20 mL and 20 g from the source's to the target's mass."""
    import numpy as np

    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime
    from lablang.sim.skills import run_skill, skill_pick, skill_pour

    task = task_from("""
scene s {
  src: beaker(capacity: 50 mL, contents: 30 mL of water) on table at (0.2 m, 0 m)
  dst: beaker(capacity: 50 mL) on table at (0.4 m, 0.05 m)
}
task t in s { step a { do { pick(src) } success: grasped(src) } }
""")
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    rt.reset({"src": [("water", 30e-6, "liquid")]})
    src_mass, dst_mass = rt.object_mass("src"), rt.object_mass("dst")
    assert run_skill(rt, skill_pick(rt, "src"), 10).ok
    result = run_skill(rt, skill_pour(rt, "src", "dst", 20e-6), 20)
    assert result.ok, result.reason
    assert rt.ledger.amounts["dst"]["water"] == pytest.approx(20e-6, abs=1e-12)
    assert rt.ledger.amounts["src"]["water"] == pytest.approx(10e-6, abs=1e-12)
    assert rt.object_mass("dst") - dst_mass == pytest.approx(0.020, abs=1e-9)
    assert src_mass - rt.object_mass("src") == pytest.approx(0.020, abs=1e-9)
    assert rt.ledger.spilled == {}


def test_liquid_handling_preconditions_are_checked_in_the_simulator(task_from) -> None:
    """Aspirating from a capped tube is E0712 at check time and still fails in the
    simulator if a program gets there (built past the front end); aspirating more than the
    pipette holds fails."""
    from attrs import evolve

    from lablang.driver import check_text
    from lablang.sim.model import Call, Num, Ref

    text = """
scene s {
  stand: pipette_stand(slots: 2) on table at (0.10 m, 0.15 m)
  p: pipette(volume: 20 uL) in stand.slot[0]
  rack: tube_rack(slots: 6) on table at (0.45 m, -0.10 m)
  closed_tube: tube_1_5ml(contents: 500 uL of buffer) in rack.slot[1]
  stock: beaker(capacity: 50 mL, contents: 5 mL of buffer) on table at (0.25 m, -0.05 m)
}
task t in s {
  step a { do { pick(p); aspirate(p, stock, 10 uL) } success: contains(p, buffer) }
  step b { do { aspirate(p, stock, 50 uL) } success: contains(p, buffer) }
}
"""
    capped = text.replace("aspirate(p, stock, 10 uL)", "aspirate(p, closed_tube, 10 uL)")
    assert [d.code for d in check_text(capped).report] == ["E0712"]
    task = task_from(text)
    first = task.steps[0]
    past_the_front = Call("aspirate", (Ref("p"), Ref("closed_tube"), Num(10e-9, "volume")))
    task_capped = evolve(task, steps=(evolve(first, program=(first.program[0], past_the_front)),))
    assert simulate_task(task_capped, 0).steps[0].reason == (
        "skill `aspirate` failed: `closed_tube` is capped"
    )
    task = attrs_evolve_first_step_program(task)
    second = simulate_task(task, 0).steps[0]
    assert second.reason == "skill `aspirate` failed: `p` holds at most 20 uL"


def attrs_evolve_first_step_program(task):  # type: ignore[no-untyped-def]
    """The task with its first step doing `pick(p)` and the second step's aspirate."""
    from attrs import evolve

    first, second = task.steps
    program = (first.program[0], *second.program)
    return evolve(task, steps=(evolve(first, program=program),))


def test_scripted_intervention_moves_the_rack_and_is_recorded_apart_from_success(task_from) -> None:
    """An `event` slides the rack (and the tube in it) at a seeded random time; the episode
    records gripper contact before the move and the first contact after it."""
    import numpy as np

    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime

    task = task_from(Path("examples/tasks/placement_recall.lab").read_text())
    [event] = task.scene.interventions
    assert (event.entities, event.start_low, event.start_high) == (("rack",), 9.0, 11.0)
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(5)))
    rt.reset({})
    [state] = rt.interventions
    assert 9.0 <= state.start <= 11.0
    before = rt.data.site("rack_s4").xpos.copy()
    while rt.time < state.start + state.duration + 0.1:
        rt.tick()
    moved = rt.data.site("rack_s4").xpos - before
    assert moved[:2] == pytest.approx([0.10, 0.06], abs=1e-9)
    result = simulate_task(task, 5)
    assert result.succeeded
    [(name, start, contact_before, first_after)] = result.interventions
    assert name == "slide" and start == state.start
    assert contact_before > 0  # storing the tube touched it before the move
    assert first_after is not None and first_after > start + 1.0  # retrieval after the move


def test_dispensing_outside_any_container_counts_as_spilled(task_from) -> None:
    """With the tip aimed 2 cm off a well, `dispense` fails and the ledger records a spill."""
    import numpy as np

    from lablang.sim import skills
    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime
    from lablang.sim.skills import pipetting
    from lablang.sim.state import WellTarget

    task = task_from("""
scene s {
  stand: pipette_stand(slots: 2) on table at (0.10 m, 0.15 m)
  p: pipette(volume: 200 uL) in stand.slot[0]
  stock: beaker(capacity: 50 mL, contents: 5 mL of buffer) on table at (0.25 m, -0.05 m)
  plate: well_plate(wells: 96) on table at (0.45 m, 0.05 m)
}
task t in s { step a { do { pick(p) } success: grasped(p) } }
""")
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    rt.reset({"stock": [("buffer", 5e-6, "liquid")]})
    assert skills.run_skill(rt, skills.skill_pick(rt, "p"), 10).ok
    assert skills.run_skill(rt, skills.skill_aspirate(rt, "p", "stock", 40e-9), 15).ok
    well = WellTarget("plate", 0)

    def beside(rt_, pipette, container, depth_goal):  # aim 2 cm off the well's centre
        vessel = pipetting._vessel(rt_, container)
        offset = rt_.tcp() - pipetting._tip(rt_, pipette)
        goal = vessel.centre + offset + np.array([0.02, 0.0, 0.0])
        goal[2] = depth_goal(vessel) + offset[2]
        return (yield from skills.move_tcp(rt_, goal))

    original = pipetting._tip_into
    pipetting._tip_into = beside
    try:
        result = skills.run_skill(rt, skills.skill_dispense(rt, "p", well), 15)
    finally:
        pipetting._tip_into = original
    assert result.status == "failed" and "spilled" in result.reason
    assert rt.ledger.spilled["p"] == pytest.approx(40e-9)
    assert rt.ledger.total(well.key) == 0.0


def test_simulated_time_per_episode_is_bounded(task_from, monkeypatch) -> None:
    """Once the episode's simulated-time budget is spent, further skills time out at once."""
    import lablang.sim.episode as episode

    monkeypatch.setattr(episode, "MAX_EPISODE_TIME", 2.0)
    task = task_from("""
scene s { tube: tube_1_5ml() on table at (0.2 m, 0 m) }
task t in s {
  step a { do { wait(1.5 s) } success: upright(tube) }
  step b { do { wait(10 s); wait(10 s) } success: upright(tube) }
}
""")
    result = simulate_task(task, 0)
    first, second = result.steps
    assert first.status == "passed"
    assert second.status == "failed" and "timed out" in second.reason
    assert result.sim_time <= 2.0 + 1e-9
