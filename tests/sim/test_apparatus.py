"""The apparatus with moving parts (a vortex mixer, a drawer, an incubator, a timer): each
asset compiles with its joints' ranges, each skill on it runs on a hand-placed scene and
changes the state its predicate reads, and each has a failing precondition."""

from __future__ import annotations

import json
import math

import mujoco
import pytest

from lablang.sim.assets import BUILDERS
from lablang.sim.model import Entity
from lablang.sim.skills import SKILLS, run_skill
from lablang.sim.state import DRAWER_CLOSED, DRAWER_OPEN, ButtonTarget, drawer_travel, lid_angle

BENCH = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  vx: vortex_mixer() on table at (0.40 m, -0.12 m)
  tube: tube_1_5ml(contents: 500 uL of buffer) in rack.slot[0]
  open_tube: tube_1_5ml(capped: 0, contents: 500 uL of buffer) in rack.slot[2]
  cab: drawer() on table at (0.42 m, 0.14 m)
  cup: beaker(capacity: 50 mL, contents: 20 mL of buffer) on table at (0.15 m, 0.12 m)
  clock: timer() on table at (0.62 m, -0.15 m)
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
"""

WARM = """
scene s {
  inc: incubator() on table at (0.40 m, 0.10 m)
  flask: flask(capacity: 100 mL, contents: 40 mL of medium) on table at (0.15 m, -0.15 m)
}
task t in s { step a { do { pick(flask) } success: grasped(flask) } }
"""


def _run(rt, name: str, *args):  # type: ignore[no-untyped-def]
    skill, timeout = SKILLS[name]
    return run_skill(rt, skill(rt, *args), timeout)


def _holds(rt, spec: str) -> bool:  # type: ignore[no-untyped-def]
    """Evaluate a success spec, written as in a task over the runtime's scene, on its state."""
    from lablang.driver import check_text
    from lablang.sim.front import tasks_of
    from lablang.sim.predicates import Evaluator

    scene = WARM if "inc" in rt.infos else BENCH
    text = scene[: scene.index("task t")] + f"task t in s {{ step a {{ success: {spec} }} }}"
    result = check_text(text)
    task = next(iter(tasks_of(result.program, result.report).values()))
    return bool(Evaluator(rt).holds(task.steps[0].success))


@pytest.mark.parametrize(
    ("asset", "joint", "low", "high"),
    [
        ("vortex_mixer", "e_cup_joint", -0.005, 0.0),
        ("drawer", "e_slide", 0.0, 0.13),
        ("incubator", "e_lid_hinge", 0.0, 1.9),
        ("timer", "e_start_joint", -0.005, 0.0),
    ],
)
def test_each_apparatus_compiles_with_its_moving_part_and_joint_range(
    asset: str, joint: str, low: float, high: float
) -> None:
    """Each new asset builds into a model that compiles, and its moving part's joint has
    the range the skills and predicates rely on."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False  # as `build.compile_scene` compiles scenes
    BUILDERS[asset](spec, Entity("e", asset), [0.0, 0.0, 0.0], 0.0)
    model = spec.compile()
    assert tuple(model.joint(joint).range) == pytest.approx((low, high))


def test_vortex_mixes_a_capped_tube_pressed_on_the_cup(make_runtime) -> None:
    """`vortex` presses the held tube on the cup (the cup registers as pressed) and the
    tube counts as mixed, which it did not before."""
    rt = make_runtime(BENCH)
    assert _run(rt, "pick", "tube").ok
    assert "tube" not in rt.ledger.mixed
    result = _run(rt, "vortex", "tube", "vx", 3.0)
    assert result.ok, result.reason
    assert dict(result.detail)["vortexed_s"] >= 2.0
    assert "tube" in rt.ledger.mixed
    assert any(what == "vx.cup" for _, what, _ in rt.events)


def test_vortex_for_less_than_the_mixing_time_fails_and_leaves_it_unmixed(make_runtime) -> None:
    """A 1 s vortex runs the cup but fails, saying mixing takes 2 s; the tube is not mixed."""
    rt = make_runtime(BENCH)
    assert _run(rt, "pick", "tube").ok
    result = _run(rt, "vortex", "tube", "vx", 1.0)
    assert result.status == "failed" and "mixes after 2 s" in result.reason
    assert "tube" not in rt.ledger.mixed


def test_vortex_refuses_an_open_tube_and_a_tube_it_does_not_hold(make_runtime) -> None:
    """Vortexing an open tube would spill it, and the tube must be in the gripper."""
    rt = make_runtime(BENCH)
    assert "is not holding `tube`" in _run(rt, "vortex", "tube", "vx", 3.0).reason
    assert _run(rt, "pick", "open_tube").ok
    assert "would spill" in _run(rt, "vortex", "open_tube", "vx", 3.0).reason
    assert "is not a vortex mixer" in _run(rt, "vortex", "open_tube", "rack", 3.0).reason


def test_a_drawer_opens_takes_a_beaker_and_closes_with_it_inside(make_runtime) -> None:
    """`open_drawer` pulls the tray out past the open mark, `place` puts a beaker on the
    tray, and `close_drawer` pushes it home with the beaker riding in, upright."""
    rt = make_runtime(BENCH)
    assert drawer_travel(rt, "cab") <= DRAWER_CLOSED and _holds(rt, "closed(cab)")
    assert not _holds(rt, "open(cab)")
    assert _run(rt, "open_drawer", "cab").ok
    assert drawer_travel(rt, "cab") >= DRAWER_OPEN and _holds(rt, "open(cab)")
    assert _run(rt, "pick", "cup").ok
    assert _run(rt, "place", "cup", "cab").ok
    assert _run(rt, "close_drawer", "cab").ok
    assert _holds(rt, "closed(cab) and on(cup, cab) and upright(cup)")


def test_a_drawer_needs_empty_fingers_and_is_only_a_drawer(make_runtime) -> None:
    """Working a drawer while holding something fails, and so does `open_drawer` on a rack."""
    rt = make_runtime(BENCH)
    assert _run(rt, "pick", "tube").ok
    assert "needs empty fingers" in _run(rt, "open_drawer", "cab").reason
    assert "is not a drawer" in _run(rt, "close_drawer", "rack").reason
    assert drawer_travel(rt, "cab") <= DRAWER_CLOSED


def test_a_drawer_a_little_short_of_the_open_mark_is_neither_open_nor_closed(
    make_runtime,
) -> None:
    """Borderline: a tray 9.5 cm out is not `open` (10 cm) and not `closed` (5 mm)."""
    rt = make_runtime(BENCH)
    adr = rt.model.joint("cab_slide").qposadr[0]
    rt.data.qpos[adr] = DRAWER_OPEN - 0.005
    mujoco.mj_forward(rt.model, rt.data)
    assert not _holds(rt, "open(cab)") and not _holds(rt, "closed(cab)")


def test_an_incubator_door_opens_a_flask_goes_in_and_warms_behind_the_closed_door(
    make_runtime,
) -> None:
    """The incubator's door is a hinged lid (`open_lid`/`close_lid`); a flask put on its
    floor warms toward the 37 C setpoint (more than 60 % of the way after 8 s behind the
    closed door), and the door is closed at the end."""
    rt = make_runtime(WARM)
    assert _holds(rt, "closed(inc)") and not _holds(rt, "open(inc)")
    assert _run(rt, "set_temperature", "inc", 37.0).ok
    assert _run(rt, "open_lid", "inc").ok and _holds(rt, "open(inc)")
    assert _run(rt, "pick", "flask").ok
    assert _run(rt, "place", "flask", "inc").ok
    assert _run(rt, "close_lid", "inc").ok
    assert lid_angle(rt, "inc") < math.radians(3)
    before = rt.temperature["flask"]
    assert _run(rt, "wait", 8.0).ok  # a few of the floor's 10 s time constants are enough
    assert _holds(rt, "closed(inc) and on(flask, inc)")
    assert 22.0 < before < rt.temperature["flask"] < 37.0
    assert rt.temperature["flask"] - 22.0 > 0.6 * (37.0 - 22.0)


def test_an_incubator_door_cannot_be_opened_with_a_full_hand(make_runtime) -> None:
    """`open_lid` on the incubator with a flask in the gripper fails and leaves it closed."""
    rt = make_runtime(WARM)
    assert _run(rt, "pick", "flask").ok
    assert "holds `flask`" in _run(rt, "open_lid", "inc").reason
    assert _holds(rt, "closed(inc)")


def test_pressing_a_timer_starts_it(make_runtime) -> None:
    """`press_button(clock.start)` is a state change the scene sees: `started(clock)`
    holds after it and not before; pressing with a full hand fails."""
    rt = make_runtime(BENCH)
    assert not _holds(rt, "started(clock)")
    assert _run(rt, "press_button", ButtonTarget("clock", "start")).ok
    assert _holds(rt, "started(clock)")
    assert _run(rt, "pick", "tube").ok
    assert "needs empty fingers" in _run(rt, "press_button", ButtonTarget("clock", "start")).reason


VORTEX_TRACE = """
protocol resuspend "Resuspend" {
  materials: [cells]
  containers: {pellet: 500 uL of cells}
  step vortex { mix: vortex for 3 s  container: pellet }
}
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  vx: vortex_mixer() on table at (0.40 m, 0.05 m)
  t1: tube_1_5ml(contents: 500 uL of cells) in rack.slot[0]
  t2: tube_1_5ml(contents: 500 uL of cells) in rack.slot[1]
}
task t in s realizes resuspend {
  bind: {pellet: t1}
  instruction: "Vortex tube t1 on vx for 3 s."
  step mix realizes vortex { do { pick(t1); vortex(t1, vx, 3 s) }  success: mixed(t1) }
}
"""


def test_a_protocols_vortexing_is_realized_by_vortex_on_the_bound_tube() -> None:
    """`vortex()` realizes a protocol's `mix: vortex` on the bound tube, and vortexing
    another tube is E0844 at the call."""
    from lablang.driver import check_text

    assert list(check_text(VORTEX_TRACE, "t.lab").report.errors) == []
    wrong = VORTEX_TRACE.replace(
        "pick(t1); vortex(t1, vx, 3 s) }  success: mixed(t1)",
        "pick(t2); vortex(t2, vx, 3 s) }  success: mixed(t2)",
    )
    errors = list(check_text(wrong, "t.lab").report.errors)
    assert [e.code for e in errors] == ["E0844"]
    assert wrong[errors[0].span.start : errors[0].span.end] == "vortex(t2, vx, 3 s)"


SCENARIOS = (
    "vortex_resuspend",
    "drawer_store",
    "drawer_fetch",
    "incubator_warm",
    "incubator_colleague",
    "button_timer",
)


def test_the_apparatus_scenarios_are_traced_families_with_a_heldout_binding() -> None:
    """Each apparatus scenario of examples/suite checks clean, realizes its protocol, and
    is a task family of four bindings of which one is held out; together they are 24 tasks
    in the mixing, thermal and apparatus families, each using its asset's skill, four of
    them with a colleague who opens the incubator."""
    from pathlib import Path

    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.sim.front import tasks_of

    suite = Path(__file__).parents[2] / "examples" / "suite"
    skill = {
        "vortex": "vortex",
        "drawer": "open_drawer",
        "incubator": "close_lid",
        "button": "press_button",
    }
    families = []
    colleagues = 0
    for name in SCENARIOS:
        result = check_file(suite / f"{name}.lab")
        assert list(result.report) == [], name
        tasks = list(tasks_of(result.program, Report()).values())
        assert len(tasks) == 4 and sum(t.binding.heldout for t in tasks) == 1, name
        assert all(t.trace is not None for t in tasks), name
        calls = {c.func for s in tasks[0].steps for c in s.all_calls}
        assert skill[name.split("_")[0]] in calls, name
        families += [t.family for t in tasks]
        colleagues += sum(bool(t.scene.interventions) for t in tasks)
    assert len(families) == 24 and set(families) == {"mixing", "thermal", "apparatus"}
    assert colleagues == 4


def test_the_heldout_vial_of_the_vortex_scenario_certifies(tmp_path) -> None:
    """The vortex family's held-out binding (a vial for a rack tube) certifies on one
    instance without mutants: the skill and its spec work on the other shape too."""
    from pathlib import Path

    from click.testing import CliRunner

    from lablang.cli import main

    path = str(Path(__file__).parents[2] / "examples/suite/vortex_resuspend.lab")
    out = tmp_path / "vial.json"
    args = ["certify", path, "--task", "vortex_pellet-vial", "--instances", "1"]
    result = CliRunner().invoke(main, [*args, "--mutants", "none", "--out", str(out)])
    assert result.exit_code == 0, result.output
    certificate = json.loads(out.read_text())
    assert certificate["certified"] and certificate["family_binding"]["heldout"]


def test_explain_names_a_skills_arguments_and_the_preconditions_it_is_refused_for() -> None:
    """`lablang explain vortex` prints the signature, what each argument takes and, from
    `SKILL_NEEDS`, that the second must be a vortex mixer and the third 1 to 60 s; a skill
    without preconditions lists its arguments only."""
    from click.testing import CliRunner

    from lablang.cli import main

    result = CliRunner().invoke(main, ["explain", "vortex"])
    assert result.exit_code == 0, result.output
    assert "`vortex(object, entity, duration)` — skill (mixing and agitation)" in result.output
    assert "second, entity: any entity; must be a vortex mixer" in result.output
    assert "third, duration: a time; must be a time in s from 1 to 60" in result.output
    pick = CliRunner().invoke(main, ["explain", "pick"]).output
    assert "first, object: a free entity" in pick and "must be" not in pick


def test_a_drawers_handle_is_a_closure_choice_the_scorer_judges() -> None:
    """Labference's scorer takes a drawer's handle as it takes a lid's (open or close, by
    the tray's travel), so the expert storing a jar makes every choice correctly: it used
    to look for a lid hinge on the drawer and stop the episode with an internal error."""
    from pathlib import Path

    from click.testing import CliRunner

    from lablang.cli import main

    suite = Path(__file__).resolve().parents[2] / "examples" / "suite"
    args = ["simulate", str(suite / "drawer_store.lab"), "--task", "store_in_drawer-small"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    assert "choice 3/3 correct, execution 3/3 executed" in done.output
