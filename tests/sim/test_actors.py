"""Scripted colleagues: events that remove or open a lid, hand over or take away an object,
press a button, and move and turn fixtures (composing on one fixture); robot contact with
what an event guards before it starts is premature and stops certification."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lablang.driver import check_text
from lablang.sim import certify_task, load_tasks
from lablang.sim.build import compile_scene
from lablang.sim.episode import run_episode
from lablang.sim.runtime import Runtime

LID = Path("examples/tasks/colleague_lid.lab")
# the premature variant of the example: it does not wait for the colleague, opens the lid
# itself and loads the tube while the lid is still on; its step passes
EARLY = """
task load_without_waiting in bench {
  instruction: "Open the rotor and put the tube in slot 0 of it."
  step load {
    do { open_lid(rotor); pick(tube); insert_into_slot(tube, rotor.slot[0]) }
    success: open(rotor) and in(tube, rotor.slot[0]) and stable(tube, 0.5 s)
  }
}
"""


def _lid_tasks() -> dict:
    from lablang.sim.front import tasks_of

    result = check_text(LID.read_text(encoding="utf-8") + EARLY)
    assert not result.report.has_errors, [d.message for d in result.report]
    return tasks_of(result.program, result.report)


def _runtime(task, seed: int = 0) -> Runtime:
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(seed)))
    rt.reset({})
    return rt


def _run_until(rt: Runtime, t: float) -> None:
    while rt.time < t - 1e-9:
        rt.tick()


def test_waiting_for_the_colleague_certifies_and_loading_early_does_not() -> None:
    """The colleague-lid task certifies when the program waits for the lid to come off; the
    variant that opens the lid itself passes its step yet fails certification, and the
    certificate names the premature touch."""
    tasks = _lid_tasks()
    waiting = certify_task(tasks["load_after_colleague"], instances=3, seed=0, mutants="none")
    assert waiting["certified"], waiting["failures"]
    early = certify_task(tasks["load_without_waiting"], instances=3, seed=0, mutants="none")
    assert not early["certified"] and early["step_pass_rates"] == {"load": 1.0}
    assert len(early["failures"]) == 3
    reason = early["failures"][0]["reason"]
    assert reason.startswith("premature interaction: the robot touched `rotor` at")
    assert "before event `lid_off` started" in reason


def test_the_premature_episode_records_its_touch_and_is_deterministic() -> None:
    """The early program's episode records a premature event before the trigger, and two runs
    of one seed are bit-identical."""
    tasks = _lid_tasks()
    first = run_episode(tasks["load_without_waiting"], 4)
    again = run_episode(tasks["load_without_waiting"], 4)
    assert first.trace_digest == again.trace_digest
    [(name, start, before, _)] = first.interventions
    assert name == "lid_off" and before > 0
    assert first.premature and all(e.time < start for e in first.premature)
    assert first.credit == 1.0 and not first.succeeded


def test_a_removed_lid_is_gone_and_the_centrifuge_counts_as_open(task_from) -> None:
    """After `remove_lid` the lid neither collides nor weighs, `open` holds and `closed` not."""
    from lablang.sim.model import Call, Ref
    from lablang.sim.predicates import Evaluator

    task = _lid_tasks()["load_after_colleague"]
    rt = _runtime(task, 2)
    [event] = rt.interventions
    evaluator = Evaluator(rt)
    assert not evaluator.holds(Call("open", (Ref("rotor"),)))
    _run_until(rt, event.start + 0.1)
    lid = rt.model.body("rotor_lid").id
    geom = rt.model.body_geomadr[lid]
    assert rt.model.geom_contype[geom] == 0 and rt.model.body_mass[lid] < 1e-5
    assert evaluator.holds(Call("open", (Ref("rotor"),)))
    assert not evaluator.holds(Call("closed", (Ref("rotor"),)))


TWO_MOVES = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  event first at 1 s { move(rack, by: (6 cm, 0 cm)) }
  event second at 1.5 s { move(rack, by: (0 cm, 5 cm)) }
  event third at 3 s { move(rack, by: (-2 cm, 0 cm), turn: 30 deg) }
}
task t in s { step a on third { do { wait(0.5 s) } success: true } }
"""


def _yaw(rt: Runtime, body: str) -> float:
    R = rt.data.xmat[rt.model.body(body).id].reshape(3, 3)
    return math.atan2(R[1, 0], R[0, 0])


def _task(text: str):
    from lablang.sim.front import tasks_of

    result = check_text(text)
    assert not result.report.has_errors, [d.message for d in result.report]
    return next(iter(tasks_of(result.program, result.report).values()))


def test_two_events_on_one_rack_end_at_the_sum_of_both_moves() -> None:
    """Overlapping events on one fixture compose: the rack ends at the sum of all moves and
    turns (before, the last event's target overwrote the others)."""
    rt = _runtime(_task(TWO_MOVES))
    before = rt.data.xpos[rt.model.body("rack").id].copy()
    _run_until(rt, 2.8)
    moved = rt.data.xpos[rt.model.body("rack").id] - before
    assert moved[:2] == pytest.approx([0.06, 0.05], abs=1e-4)
    _run_until(rt, 4.5)
    moved = rt.data.xpos[rt.model.body("rack").id] - before
    assert moved[:2] == pytest.approx([0.04, 0.05], abs=1e-4)
    assert _yaw(rt, "rack") == pytest.approx(math.radians(30), abs=1e-3)


TURN = Path("examples/tasks/turning_rack.lab")


def test_a_rotating_rack_carries_its_tube_and_a_skill_finds_the_slot_by_identity() -> None:
    """A rack turned by 90 degrees and slid by an event still holds the stored tube, and
    `remove_from_slot(tube, rack.slot[4])` retrieves it from the slot's new pose (the task
    certifies); the slot really moved away from where it was."""
    tasks, report = load_tasks(str(TURN))
    assert not report.has_errors
    task = next(iter(tasks.values()))
    rt = _runtime(task, 1)
    site = rt.data.site("rack_s4").xpos.copy()
    _run_until(rt, 16.0)
    assert float(np.linalg.norm(rt.data.site("rack_s4").xpos[:2] - site[:2])) > 0.05
    assert _yaw(rt, "rack") == pytest.approx(math.pi / 2, abs=1e-3)
    certificate = certify_task(task, instances=2, seed=0)
    assert certificate["certified"], certificate["failures"]


COLLEAGUES = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  scale: scale() on table at (0.45 m, 0.12 m)
  rotor: centrifuge(slots: 8) on table at (0.10 m, 0.15 m)
  tube: tube_1_5ml() in rack.slot[2]
  spare: tube_1_5ml() in rack.slot[4]
  event bring at 2 s .. 3 s { hand_over(tube) }
  event take at 4 s { take_away(spare) }
  event tare_it at 1 s { press(scale.tare) }
  event open_it at 1 s for 2 s { open_lid(rotor) }
}
task t in s {
  step get on bring {
    do { pick(tube) }
    success: grasped(tube)
  }
}
"""


def test_a_colleague_hands_over_takes_away_presses_and_opens() -> None:
    """The handed-over tube is off the bench until its event, then stands in its declared
    slot; the spare leaves at 4 s; the tare button and the lid are worked by the colleague."""
    from lablang.sim.model import Call, Ref
    from lablang.sim.predicates import Evaluator
    from lablang.sim.state import SlotTarget, slot_of

    task = _task(COLLEAGUES)
    rt = _runtime(task, 0)
    evaluator = Evaluator(rt)
    bring = next(e for e in rt.interventions if e.name == "bring")
    assert "tube" in rt.parked and slot_of(rt, "tube") is None
    assert rt.data.xpos[rt.body_ids["tube"]][0] < -0.3  # parked off the bench
    _run_until(rt, 3.2)
    assert any(e[1:] == ("scale.tare", "pressed") for e in rt.events)
    assert evaluator.holds(Call("open", (Ref("rotor"),)))
    _run_until(rt, bring.start + 1.0)
    assert "tube" not in rt.parked and slot_of(rt, "tube") == SlotTarget("rack", 2)
    assert slot_of(rt, "spare") == SlotTarget("rack", 4)
    _run_until(rt, 4.5)
    assert "spare" in rt.parked and slot_of(rt, "spare") is None
    result = run_episode(task, 0)
    assert result.succeeded and not result.premature


def test_touching_an_object_before_a_colleague_takes_it_is_premature() -> None:
    """`take_away` guards its object: picking it up before the event is premature."""
    task = _task(
        """
scene s {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  spare: tube_1_5ml() in rack.slot[4]
  event take at 5 s .. 6 s { take_away(spare) }
}
task t in s { step a { do { pick(spare) } success: true } }
"""
    )
    result = run_episode(task, 0)
    assert result.steps[0].status == "passed" and result.premature
    assert not result.succeeded
    assert result.premature[0].object == "spare"


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("move(tube, by: (1 cm, 0 cm))", "an event moves a fixture; `tube` is a tube_1_5ml"),
        ("remove_lid(rack)", "`rack` (tube_rack) has no lid to remove"),
        ("press(rack.start)", "`rack` (tube_rack) has no button `start`"),
        ("hand_over(rack)", "a colleague hands over or takes away objects; `rack` is a"),
        ("turn(rack, by: 200 deg)", "an event turns a fixture by an angle of at most 180 deg"),
        ("juggle(rack)", "`juggle` is not an event action"),
    ],
)
def test_event_actions_that_do_not_fit_their_entity_are_diagnosed(event, message) -> None:
    """Each misfit action is a located diagnostic from `lablang check`, never a crash."""
    text = f"""
scene s {{
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  tube: tube_1_5ml() in rack.slot[0]
  event e at 1 s {{ {event} }}
}}
task t in s {{ step a {{ do {{ wait(1 s) }} success: true }} }}
"""
    result = check_text(text)
    messages = [d.message for d in result.report]
    assert any(message in m for m in messages), messages


def test_an_object_is_handed_over_or_taken_away_once() -> None:
    """Two `hand_over`s of one tube are E0714."""
    text = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  tube: tube_1_5ml() in rack.slot[0]
  event a at 1 s { hand_over(tube) }
  event b at 2 s { hand_over(tube) }
}
task t in s { step a { do { wait(1 s) } success: true } }
"""
    codes = [d.code for d in check_text(text).report]
    assert codes == ["E0714"]


def test_a_guard_makes_touching_a_moved_racks_load_premature() -> None:
    """`guard: [rack, tube]` on a move: picking the tube before the move is premature."""
    task = _task(
        """
scene s {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  tube: tube_1_5ml() in rack.slot[2]
  event watch at 6 s { move(rack, by: (5 cm, 0 cm)); guard: [rack, tube] }
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
"""
    )
    result = run_episode(task, 0)
    assert result.credit == 1.0 and not result.succeeded
    assert result.premature[0].detail == "watch"


def test_the_event_forms_documented_in_docs_sim_md_check_cleanly() -> None:
    """Every `event` line of the documentation's event block checks without diagnostics."""
    text = Path("docs/sim.md").read_text(encoding="utf-8")
    block = text.split("time in its range it performs its actions together", 1)[1]
    block = block.split("```", 2)[1]
    events = [line.split("  #")[0] for line in block.splitlines() if line.startswith("event ")]
    assert len(events) == 8
    declared = "\n".join(f"  {e}" for e in events)
    scene = f"""
scene s {{
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.10 m)
  rotor: centrifuge(slots: 8) on table at (0.10 m, 0.15 m)
  scale: scale() on table at (0.45 m, 0.12 m)
  tube: tube_1_5ml() in rack.slot[0]
  spare: tube_1_5ml() in rack.slot[1]
{declared}
}}
task t in s {{ step a {{ do {{ wait(1 s) }} success: true }} }}
"""
    report = check_text(scene).report
    assert [d.message for d in report] == []
