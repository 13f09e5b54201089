"""The scale's reading is evidence the policy gets: an observation key, and digits drawn on
the scale that the `front` camera reads at 256 px."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from lablang.sim import load_tasks
from lablang.sim.assets.display import DIGITS, POSITIONS, SEGMENTS, segments_lit
from lablang.sim.env import make_env
from lablang.sim.episode import EpisodeRunner

SIZE = 256


@pytest.fixture(scope="module")
def weigh_30g():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/tasks/feedback_weighing.lab")
    assert not report.has_errors
    return tasks["weigh_30g"]


def _decode(lit: list[bool]) -> float | None:
    """A display value from its lit segments (None if a digit is not a digit)."""
    sign = -1 if lit[SEGMENTS.index("g")] else 1
    value = 0
    for k in range(1, POSITIONS):
        on = "".join(s for s, shown in zip(SEGMENTS, lit[7 * k : 7 * k + 7], strict=True) if shown)
        digit = next((d for d, segs in DIGITS.items() if segs == on), 0 if not on else None)
        if digit is None:
            return None
        value = value * 10 + digit
    return sign * value / 10


def test_segment_patterns_spell_the_display() -> None:
    """20.5 g, -0.1 g and 0.0 g light the digits they should; past 999.9 g it shows dashes."""
    assert _decode(segments_lit(205)) == 20.5
    assert _decode(segments_lit(-1)) == -0.1
    assert _decode(segments_lit(0)) == 0.0
    over = segments_lit(10_000)
    assert all(on == (SEGMENTS[i % 7] == "g") for i, on in enumerate(over[:-1]))


def _lit_from_camera(rt, segments) -> list[bool]:  # type: ignore[no-untyped-def]
    """Render the `front` camera at 256x256 and tell, for each segment geom, whether it is
    lit at its projected centre (its green stands out)."""
    m, d = rt.model, rt.data
    renderer = mujoco.Renderer(m, SIZE, SIZE)
    renderer.update_scene(d, camera="front")
    image = renderer.render().astype(int)
    renderer.close()
    cam = m.camera("front").id
    focal = 0.5 * SIZE / np.tan(np.radians(m.cam_fovy[cam]) / 2)
    lit = []
    for geom in segments:
        c = d.cam_xmat[cam].reshape(3, 3).T @ (d.geom_xpos[geom] - d.cam_xpos[cam])
        u = int(np.floor(SIZE / 2 + focal * c[0] / -c[2]))
        v = int(np.floor(SIZE / 2 - focal * c[1] / -c[2]))
        patch = image[max(0, v - 1) : v + 2, u]
        green = patch[:, 1] - np.maximum(patch[:, 0], patch[:, 2])
        lit.append(int(green.max()) > 25)
    return lit


def _read_from_camera(rt, segments=None) -> float | None:  # type: ignore[no-untyped-def]
    """The display value a 256 px `front` frame shows (by default the scale's)."""
    return _decode(
        _lit_from_camera(rt, rt.scales["scale"].segments if segments is None else segments)
    )


def test_the_front_camera_at_256_px_reads_the_scale(weigh_30g) -> None:
    """After w20 and after w10, the digits a 256 px `front` image shows are the display's
    20.0 g and 30.0 g (the runtime's own display value)."""
    runner = EpisodeRunner(weigh_30g, 1)
    runner.run(until="add_10")
    assert runner.rt.scales["scale"].reading() == 20.0
    assert _read_from_camera(runner.rt) == 20.0
    runner.run()
    assert runner.rt.scales["scale"].reading() == 30.0
    assert _read_from_camera(runner.rt) == 30.0


def test_the_reading_and_the_fixtures_pose_are_observation_keys(weigh_30g) -> None:
    """A policy observes the scale's display and whether it is stable, and where the
    randomized scale stands; the display starts at 0.0 g, unstable until 3 s have passed."""
    env = make_env(weigh_30g)
    obs, _info = env.reset(seed=2)
    assert obs["evidence"]["scale"].tolist() == [0.0, 0.0]
    rt = env.rt
    assert rt is not None
    assert np.allclose(obs["fixtures"]["scale"][:3], rt.data.xpos[rt.body_ids["scale"]])
    for _ in range(int(3.2 / 0.02)):
        obs, *_ = env.step(env.hold_action())
    assert obs["evidence"]["scale"].tolist() == [0.0, 1.0]


HOT_PLATE = """
scene bench {
  stirrer: stirrer() on table at (0.40 m, -0.10 m)
  flask: flask(capacity: 100 mL, contents: 40 mL of medium) on table at (0.20 m, 0.10 m)
}
task t in bench {
  instruction: "Heat the stirrer's plate to 60 C and read its thermometer."
  step heat { do { set_temperature(stirrer, 60 C); wait(20 s) } success: true }
}
"""


HOT_BLOCK = """
scene bench {
  block: thermal_block(slots: 6) on table at (0.40 m, -0.10 m)
  tube: tube_1_5ml(contents: 200 uL of sample) on table at (0.20 m, 0.10 m)
}
task t in bench {
  instruction: "Set the block to 60 C and read its thermometer."
  step heat { do { set_temperature(block, 60 C); wait(20 s) } success: true }
}
"""


@pytest.mark.parametrize(("text", "name"), [(HOT_PLATE, "stirrer"), (HOT_BLOCK, "block")])
def test_a_heaters_thermometer_is_an_observation_key_and_drawn_for_the_camera(
    make_runtime, text: str, name: str
) -> None:
    """A hot plate's and a thermal block's thermometer show the heater's temperature in
    0.1 C: the observation key holds that display and the set temperature, and the digits
    a 256 px `front` image shows are the same value, at room temperature and while the
    heater warms."""
    from lablang.sim.assets.display import temperature_tenths
    from lablang.sim.env import evidence

    rt = make_runtime(text)
    segments = rt.thermometers.segments[name]
    assert evidence(rt)[name].tolist() == [rt.temperature[name], rt.setpoint[name]]
    assert _read_from_camera(rt, segments) == rt.thermometers.reading(name)
    rt.setpoint[name] = 60.0
    for _ in range(int(4.0 / rt.dt)):
        rt.tick()
    shown = rt.thermometers.reading(name)
    assert shown == temperature_tenths(rt.temperature[name]) / 10
    assert 25.0 < shown < 60.0  # heating, not there yet
    assert evidence(rt)[name].tolist() == [shown, 60.0]
    assert _read_from_camera(rt, segments) == shown


TIMER = """
scene bench {
  clock: timer() on table at (0.45 m, 0.10 m)
  tube: tube_1_5ml(contents: 200 uL of sample) on table at (0.20 m, -0.10 m)
}
task t in bench {
  instruction: "Press the clock's start button and read the clock."
  step a { do { press_button(clock.start) } success: started(clock) }
}
"""


def test_a_timer_counts_from_its_press_as_an_observation_key_and_drawn_for_the_camera(
    make_runtime,
) -> None:
    """A bench timer shows 0.0 s and is not running until its start button is pressed,
    then counts the seconds since in 0.1 s: the observation key holds that count and
    whether it runs, and the digits a 256 px `front` image shows are the same count."""
    from lablang.sim.env import evidence
    from lablang.sim.skills import SKILLS, run_skill
    from lablang.sim.state import ButtonTarget

    rt = make_runtime(TIMER)
    segments = rt.timers.segments["clock"]
    assert evidence(rt)["clock"].tolist() == [0.0, 0.0]
    skill, timeout = SKILLS["press_button"]
    assert run_skill(rt, skill(rt, ButtonTarget("clock", "start")), timeout).ok
    pressed = next(t for t, what, how in rt.events if what == "clock.start")
    for _ in range(int(2.5 / rt.dt)):
        rt.tick()
    shown = rt.timers.reading("clock")
    assert shown == math.floor((rt.time - pressed) * 10 + 1e-6) / 10
    assert shown >= 2.5
    assert evidence(rt)["clock"].tolist() == [shown, 1.0]
    assert _read_from_camera(rt, segments) == shown


def test_displays_return_to_a_checkpoint_with_the_simulation(make_runtime) -> None:
    """A restored checkpoint shows what it showed when taken: the timer's count and a
    thermal block's thermometer go back with the physics, not only the lit segments."""
    text = HOT_BLOCK.replace(
        "tube: tube_1_5ml", "clock: timer() on table at (0.45 m, 0.15 m)\n  tube: tube_1_5ml"
    )
    rt = make_runtime(text)
    rt.setpoint["block"] = 60.0
    rt.running.add("clock")  # as a press of `clock.start` does (`Runtime._on_press`)
    for _ in range(int(1.0 / rt.dt)):
        rt.tick()
    saved = rt.checkpoint()
    before = (rt.timers.reading("clock"), rt.thermometers.reading("block"))
    assert before[0] > 0.5 and before[1] > 25.0
    for _ in range(int(1.0 / rt.dt)):
        rt.tick()
    assert (rt.timers.reading("clock"), rt.thermometers.reading("block")) != before
    rt.restore(saved)
    assert (rt.timers.reading("clock"), rt.thermometers.reading("block")) == before


READS = """
scene bench {
  block: thermal_block(slots: 6) on table at (0.40 m, -0.10 m)
  clock: timer() on table at (0.45 m, 0.15 m)
  scale: scale() on table at (0.25 m, 0.20 m)
  tube_A: tube_1_5ml(label: "A") on table at (0.20 m, 0.10 m)
  tube_B: tube_1_5ml(label: "B") on table at (0.20 m, -0.05 m)
}
task t in bench {
  instruction: "Read the clock, the block's thermometer and tube_B's label, then pick up tube_A."
  step a { do { pick(tube_A) } success: grasped(tube_A) }
}
"""


def test_evidence_is_observed_where_the_instruction_says_it_is_read(task_from) -> None:
    """The `evidence` keys, of `TaskEnv` and of `LabEnv`'s space alike, are the displays
    and labels of the entities the instruction names (the timer, the thermal block, both
    tubes; not the scale it never names), within bounds at reset; an instruction that
    names none of them gives no `evidence` at all."""
    from lablang.sim.gym_env import LabEnv

    task = task_from(READS)
    core = make_env(task)
    obs, _ = core.reset(seed=0)
    assert set(obs["evidence"]) == {"block", "clock", "tube_A", "tube_B"}
    env = LabEnv(task)
    assert set(env.observation_space["evidence"].spaces) == set(obs["evidence"])
    gym_obs, _ = env.reset(seed=0)
    assert env.observation_space["evidence"].contains(gym_obs["evidence"])
    assert gym_obs["evidence"]["clock"].tolist() == [0.0, 0.0]
    assert gym_obs["evidence"]["tube_B"].tolist() == [66.0, 0.0, 0.0]
    env.close()
    quiet = task_from(
        READS.replace(READS[READS.index('"Read') : READS.index("\n  step")], '"Pick it up."')
    )
    obs, _ = make_env(quiet).reset(seed=0)
    assert obs["evidence"] == {}
    assert "evidence" not in LabEnv(quiet).observation_space.spaces


LABELLED = """
scene bench {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.15 m)
  tube_A: tube_1_5ml(label: "B") on table at (0.40 m, 0.12 m)
  tube_C: tube_2ml(label: "C12") in rack.slot[1]
}
task t in bench {
  instruction: "Read the tubes' labels, then pick up the tube labelled B."
  step a { do { pick(tube_A) } success: grasped(tube_A) }
}
"""


def _spell(lit: list[bool]) -> str:
    """A label from its flag's lit segments (`?` for a glyph that is no character)."""
    from lablang.sim.catalog import LABEL_GLYPHS

    by_segments = {segs: c for c, segs in LABEL_GLYPHS.items()}
    out = ""
    for k in range(0, len(lit), 7):
        on = "".join(s for s, shown in zip(SEGMENTS, lit[k : k + 7], strict=True) if shown)
        out += by_segments.get(on, "?") if on else ""
    return out


def test_a_tubes_label_is_an_observation_key_and_drawn_for_the_camera(make_runtime) -> None:
    """A labelled tube's label is its observation key (code points, 0 after its end) and
    the glyphs a 256 px `front` frame shows on its flag spell the same label, for a tube
    on the table and one in a rack; rewriting a label redraws it."""
    from lablang.sim.env import evidence

    rt = make_runtime(LABELLED)
    assert rt.labels.text == {"tube_A": "B", "tube_C": "C12"}
    keys = evidence(rt)
    assert keys["tube_A"].tolist() == [66.0, 0.0, 0.0]
    assert keys["tube_C"].tolist() == [67.0, 49.0, 50.0]
    for name, text in rt.labels.text.items():
        assert _spell(_lit_from_camera(rt, rt.labels.segments[name])) == text
    rt.labels.write(rt.model, "tube_A", "D4")
    assert evidence(rt)["tube_A"].tolist() == [68.0, 52.0, 0.0]
    assert _spell(_lit_from_camera(rt, rt.labels.segments["tube_A"])) == "D4"


def test_a_label_is_checked_when_the_scene_is(task_from) -> None:
    """`label:` is a tube's parameter: a drawable one is kept on the entity, and one that
    a flag cannot show is E0746 with a fix to the capitals it meant (a long one is
    quoted only in part)."""
    from lablang.driver import check_text

    task = task_from(LABELLED)
    labels = {e.name: e.param("label", "") for e in task.scene.entities}
    assert {k: v for k, v in labels.items() if v} == {"tube_A": "B", "tube_C": "C12"}
    report = check_text(LABELLED.replace('label: "B"', 'label: "b"')).report
    [found] = [d for d in report if d.code == "E0746"]
    assert found.fix is not None and [e.replacement for e in found.fix.edits] == ['"B"']
    long = check_text(LABELLED.replace('label: "B"', f'label: "{"A" * 5000}"')).report
    [found] = [d for d in long if d.code == "E0746"]
    assert "has 5000" in found.message and len(found.message) < 100  # not echoed whole


def test_a_condition_reads_a_label_as_the_flag_shows_it(make_runtime, task_from) -> None:
    """`label(tube_A) == "B"` holds while tube A's flag shows B and not once it shows D;
    an entity without a label has none, so no comparison with it holds."""
    from lablang.sim.predicates import Evaluator

    text = LABELLED.replace(
        "success: grasped(tube_A)",
        'success: label(tube_A) == "B" and label(tube_C) != "B" and not label(rack) != "B"',
    )
    spec = task_from(text).steps[0].success
    rt = make_runtime(text)
    assert Evaluator(rt).holds(spec)
    rt.labels.write(rt.model, "tube_A", "D")
    assert not Evaluator(rt).holds(spec)
