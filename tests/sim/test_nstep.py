"""A control tick steps physics with `mj_step(m, d, nstep)`: the same numbers as single steps."""

from __future__ import annotations

import copy

import mujoco
import numpy as np
import pytest

SCENE = """
scene s {
  ROBOT
  rack: tube_rack(slots: 6) on table at (0.25 m, -0.1 m)
  tube: tube_1_5ml(contents: 200 uL of sample) in rack.slot[0]
  w: weight(mass: 20 g) on table at (0.40 m, 0.15 m)
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
"""


def _state(m: mujoco.MjModel, d: mujoco.MjData) -> np.ndarray:
    """The full physics state (time, qpos, qvel, act, warmstart, ctrl, ...)."""
    kind = mujoco.mjtState.mjSTATE_FULLPHYSICS | mujoco.mjtState.mjSTATE_WARMSTART
    state = np.empty(mujoco.mj_stateSize(m, kind))
    mujoco.mj_getState(m, d, state, kind)
    return state


@pytest.mark.parametrize("robot", ["gantry", "panda"])
def test_a_ticks_nstep_call_is_bit_identical_to_its_single_steps_mid_grasp(
    robot: str, make_runtime, task_from
) -> None:
    """Mid-episode, with contacts and a grasp weld active, one `mj_step(m, d, substeps)`
    leaves the same state bit for bit as `substeps` calls of `mj_step(m, d)`, on both
    robots (so a tick may step with nstep without changing a trajectory)."""
    if robot == "panda":
        pytest.importorskip("mink")
        pytest.importorskip("gymnasium_robotics")
    from lablang.sim.episode import EpisodeRunner

    task = task_from(SCENE.replace("ROBOT", f"robot: {robot}"))
    runner = EpisodeRunner(task, 0)
    runner.run()
    assert runner.results[0].status == "passed"  # the tube is held: contacts, a weld
    rt = runner.rt
    m, d = rt.model, rt.data
    assert d.ncon > 0 and d.eq_active.any()
    for tick in range(5):
        rt.cmd[2] += 0.002  # the hand moves, so every tick's control differs
        rt._robot.write()
        single = copy.copy(d)
        for _ in range(rt.substeps):
            mujoco.mj_step(m, single)
        mujoco.mj_step(m, d, rt.substeps)
        assert _state(m, single).tobytes() == _state(m, d).tobytes(), tick
        assert np.array_equal(single.contact.dist, d.contact.dist)
