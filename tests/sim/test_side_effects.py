"""No success by luck: placement leaves room for the open fingers, and an object a step did
not act on that moved, fell or tipped over is a side effect that fails certification."""

from __future__ import annotations

from pathlib import Path

from lablang.sim import certify_task, load_tasks
from lablang.sim.episode import run_episode

WEIGH = Path("examples/tasks/weigh_37g.lab")


def _task():
    tasks, report = load_tasks(str(WEIGH))
    assert not report.has_errors
    return tasks["weigh_37g"]


def _without_upright_atoms(task_from):
    """The task as it was first written: the last step checks only w2 and the reading."""
    text = WEIGH.read_text(encoding="utf-8")
    text = text.replace(
        " and upright(w20) and upright(w10)\n             and upright(w5) and upright(w2)",
        " and upright(w2)",
    )
    assert "upright(w5)" not in text
    return task_from(text)


def test_weighing_37_g_leaves_every_weight_upright_and_certifies() -> None:
    """With room for the open fingers beside each weight, no weight is knocked over and the
    37 g task certifies, with no side effects recorded."""
    certificate = certify_task(_task(), instances=3, seed=0, mutants="none")  # see test_sensitivity
    assert certificate["certified"], certificate["failures"]


def test_the_old_tight_placement_knocks_a_weight_over_and_certification_names_it(
    monkeypatch, task_from
) -> None:
    """With the old 6 mm between weights, putting w2 down tips w5 over: the reading is
    still right and every step passes, but the episode is not a success and the
    certificate says "`w5` tipped over during `add_2`" (before, it certified)."""
    import lablang.sim.skills.handling as handling

    monkeypatch.setattr(handling, "FINGER_ROOM", 0.006)
    task = _without_upright_atoms(task_from)
    result = run_episode(task, 0)
    assert result.credit == 1.0 and not result.succeeded
    assert result.side_effects == ("`w5` tipped over during `add_2`",)
    assert result.score()["completion"]["side_effects"] == list(result.side_effects)
    certificate = certify_task(task, instances=1, seed=0, mutants="none")
    [failure] = certificate["failures"]
    assert failure["reason"] == "side effect: `w5` tipped over during `add_2`"
    assert failure["step"] == "add_2"


def test_a_step_may_allow_an_object_to_move(task_from) -> None:
    """`may_move: [w5]` on the step lets w5 be disturbed without a side effect."""
    import lablang.sim.skills.handling as handling

    text = WEIGH.read_text(encoding="utf-8").replace(
        "  step add_2 {\n", "  step add_2 {\n    may_move: [w5]\n"
    )
    text = text.replace("and upright(w5) and upright(w2)", "and upright(w2)")
    assert "upright(w5)" not in text
    task = task_from(text)
    original = handling.FINGER_ROOM
    try:
        handling.FINGER_ROOM = 0.006
        result = run_episode(task, 0)
    finally:
        handling.FINGER_ROOM = original
    assert result.side_effects == () and result.succeeded


def test_a_knocked_over_bystander_is_named_with_what_happened(task_from) -> None:
    """A tube pushed over by a weight put down on it is named: `tube` tipped over or moved."""
    from lablang.sim import effects

    task = task_from(
        """
scene s {
  w: weight(mass: 20 g) on table at (0.20 m, 0.10 m)
  tube: tube_1_5ml() on table at (0.30 m, 0.10 m)
}
task t in s { step a { do { pick(w) } success: grasped(w) } }
"""
    )
    import numpy as np

    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime

    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    rt.reset({})
    before = effects.snapshot(rt, effects.watched(rt, task.steps[0]))
    assert list(before) == ["tube"]
    # knock the tube onto its side, as a careless move would
    adr = rt.model.joint("tube_free").qposadr[0]
    rt.data.qpos[adr + 3 : adr + 7] = [0.7071068, 0.7071068, 0.0, 0.0]
    rt.data.qpos[adr + 2] = 0.006
    for _ in range(30):
        rt.tick()
    assert effects.disturbed(rt, before, "a", set()) == ["`tube` tipped over during `a`"]
