"""The Franka Panda arm: every example task certifies with it, deterministically per seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lablang.sim import certify_task, load_tasks, simulate_task
from lablang.sim.robots import RobotMissing, with_robot

pytest.importorskip("mink")
pytest.importorskip("gymnasium_robotics")

EXAMPLES = sorted(Path("examples/tasks").glob("*.lab"))


def _panda_task(path: str | Path):
    tasks, report = load_tasks(path)
    assert not report.has_errors and len(tasks) == 1
    return with_robot(next(iter(tasks.values())), "panda")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_task_certifies_with_the_panda_on_three_instances(path: Path) -> None:
    """Every example task's expert program passes every step with the Panda on 3 seeds (the
    specs' mutants run on the gantry: `test_sensitivity.py`)."""
    certificate = certify_task(_panda_task(path), instances=3, seed=3, mutants="none")
    assert certificate["faults"] == [] and certificate["failures"] == []
    assert certificate["certified"] is True and certificate["robot"] == "panda"
    assert len(set(certificate["trace_digests"])) == 3


def test_panda_trace_is_bit_identical_in_process_and_across_processes() -> None:
    """One seed gives one qpos digest twice in this process and once in a fresh process."""
    task = _panda_task("examples/tasks/move_tube.lab")
    first, second = simulate_task(task, 5), simulate_task(task, 5)
    assert first.succeeded and first.trace_digest == second.trace_digest
    assert simulate_task(task, 6).trace_digest != first.trace_digest
    script = (
        "from lablang.sim import load_tasks, simulate_task\n"
        "from lablang.sim.robots import with_robot\n"
        "tasks, _ = load_tasks('examples/tasks/move_tube.lab')\n"
        "print(simulate_task(with_robot(tasks['move_tube'], 'panda'), 5).trace_digest)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == first.trace_digest


def test_robot_entry_in_a_scene_selects_the_panda(task_from) -> None:
    """`robot: panda` in a scene runs its tasks on the arm; the default stays the gantry."""
    text = """
scene s {{
  {robot}
  tube: tube_1_5ml() on table at (0.25 m, 0.05 m)
}}
task t in s {{
  instruction: "Pick up the tube."
  step a {{ do {{ pick(tube) }} success: grasped(tube) }}
}}
"""
    arm = task_from(text.format(robot="robot: panda"))
    assert arm.scene.robot == "panda"
    assert task_from(text.format(robot="")).scene.robot == "gantry"
    result = simulate_task(arm, 0)
    assert result.succeeded
    assert with_robot(arm, "gantry").scene.robot == "gantry"


def test_missing_robot_extra_is_an_error_naming_the_extra(monkeypatch) -> None:
    """Without gymnasium-robotics installed, building a Panda scene says to install `robot`."""
    import importlib.util

    from lablang.sim.robots import panda

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "gymnasium_robotics" else real(name, *a),
    )
    panda._source.cache_clear()
    try:
        with pytest.raises(RobotMissing, match=r"lablang\[robot\]"):
            panda.assets_dir()
    finally:
        panda._source.cache_clear()


def test_certify_robot_option_runs_a_suite_on_the_panda(tmp_path: Path) -> None:
    """`lablang certify FILES --robot panda --out DIR` certifies every task of the suite
    on the Panda, and each certificate says so."""
    import json

    from click.testing import CliRunner

    from lablang.cli.sim import certify_command

    result = CliRunner().invoke(
        certify_command,
        ["examples/tasks/move_tube.lab", "examples/tasks/move_chosen_tube.lab",
         "--instances", "1", "--robot", "panda", "--out", str(tmp_path), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    certificates = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*.json"))]
    tasks = [c for c in certificates if "robot" in c]
    assert len(tasks) == 2 and all(c["robot"] == "panda" and c["certified"] for c in tasks)


def test_panda_screws_a_cap_home_by_regrasping_when_its_wrist_lacks_a_quarter_turn(
    make_runtime,
) -> None:
    """After unscrewing one turn the Panda's joint 7 has less than a quarter turn left in the
    screwing direction; `close_cap` first turns the open hand a quarter turn the other way
    (a re-grasp), and its strokes then turn the cap home (before, the stroke stopped at the
    joint limit and the cap stayed 1.2 turns open)."""
    from lablang.sim.skills import STROKE_ROOM, run_skill, skill_close_cap, skill_twist_cap
    from lablang.sim.state import CAP_CLOSED_TURNS, cap_turns

    rt = make_runtime(
        """
scene s {
  robot: panda
  b: bottle(capacity: 100 mL, contents: 50 mL of water) on table at (0.30 m, 0.00 m)
}
task t in s { step a { do { twist_cap(b, 1) } success: true } }
"""
    )
    assert run_skill(rt, skill_twist_cap(rt, "b", 1), 40).ok
    assert 0.9 < cap_turns(rt, "b") < 1.5
    assert rt.yaw_room(-1.0) < STROKE_ROOM <= rt.yaw_room(1.0)  # screwing on turns yaw -
    result = run_skill(rt, skill_close_cap(rt, "b"), 40)
    assert result.ok, result.reason
    assert cap_turns(rt, "b") <= CAP_CLOSED_TURNS


def test_yaw_room_is_the_wrist_joints_distance_to_its_limits(make_runtime) -> None:
    """The Panda's yaw room is joint 7's distance to its ±2.9 rad limits (turning the hand
    by +a about the vertical turns joint 7 by -a); the gantry's is its yaw hinge's."""
    text = """
scene s {{
  {robot}
  w: weight(mass: 20 g) on table at (0.30 m, 0.00 m)
}}
task t in s {{ step a {{ do {{ wait(1 s) }} success: true }} }}
"""
    arm = make_runtime(text.format(robot="robot: panda"))
    q7 = float(arm.robot_state[6])
    low, high = arm.model.joint("panda/robot:panda0_joint7").range
    assert arm.yaw_room(1.0) == pytest.approx(q7 - low)
    assert arm.yaw_room(-1.0) == pytest.approx(high - q7)
    gantry = make_runtime(text.format(robot=""))
    gantry.cmd[3] = 1.0
    assert gantry.yaw_room(1.0) == pytest.approx(2.2)
    assert gantry.yaw_room(-1.0) == pytest.approx(4.2)
