"""Instability is reported as a simulator fault, separately from task failure."""

from __future__ import annotations

import numpy as np
import pytest

from lablang.sim import certify_task
from lablang.sim.episode import run_episode
from lablang.sim.runtime import WARNING_EVERY, Runtime, SimFault

TASK = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[0]
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
"""


def test_runaway_velocity_is_a_fault(make_runtime) -> None:
    """A tube flung at 1 km/s raises a `runaway velocity` fault on the next tick."""
    rt = make_runtime(TASK)
    rt.data.qvel[rt.model.joint("tube_free").dofadr[0]] = 1000.0
    with pytest.raises(SimFault) as caught:
        rt.tick()
    assert caught.value.kind == "runaway velocity"


def test_non_finite_state_is_a_fault_even_though_mujoco_resets_it(
    make_runtime, tmp_path, monkeypatch
) -> None:
    """A NaN in qpos makes MuJoCo warn and auto-reset; the warning counter (read every
    few ticks) still reports it."""
    monkeypatch.chdir(tmp_path)  # MuJoCo appends its warning to MUJOCO_LOG.TXT in the cwd
    rt = make_runtime(TASK)
    rt.data.qpos[rt.model.joint("tube_free").qposadr[0]] = np.nan
    with pytest.raises(SimFault) as caught:
        for _ in range(WARNING_EVERY):  # the counters are read every few ticks
            rt.tick()
    assert (caught.value.kind, caught.value.detail) == ("warning", "mjWARN_BADQPOS")


def test_deep_penetration_is_a_fault(make_runtime) -> None:
    """A light tube welded to the hand and rammed into the rack's floor is caught overlapping."""
    rt = make_runtime(TASK)
    rt.activate_weld("tube")
    here = rt.cmd_tcp()
    rt.set_tcp([here[0], here[1], here[2] - 0.1])
    with pytest.raises(SimFault) as caught:
        for _ in range(100):
            rt.tick()
    assert caught.value.kind == "penetration"
    assert caught.value.detail.startswith("`tube` and `rack` overlap by")


def test_injected_instability_in_an_episode_is_a_fault_not_a_failure(
    task_from, monkeypatch
) -> None:
    """An episode whose state blows up ends as `fault`; certification lists it under faults."""
    task = task_from(TASK)
    original = Runtime.reset

    def unstable_reset(self: Runtime, contents) -> None:
        original(self, contents)
        self.data.qvel[self.model.joint("tube_free").dofadr[0] + 2] = 500.0

    monkeypatch.setattr(Runtime, "reset", unstable_reset)
    result = run_episode(task, 0)
    assert result.fault is not None and result.fault.kind == "runaway velocity"
    assert [s.status for s in result.steps] == ["fault"]
    certificate = certify_task(task, instances=1, seed=0)
    assert certificate["failures"] == []
    assert [f["kind"] for f in certificate["faults"]] == ["runaway velocity"]
    assert certificate["certified"] is False


def test_a_fault_that_disappears_at_1_ms_is_rerun_as_transient(task_from, monkeypatch) -> None:
    """A fault only the 2 ms step shows is rerun at 1 ms; the rerun counts and is recorded."""
    task = task_from(TASK)
    original = Runtime.reset

    def fragile_reset(self: Runtime, contents) -> None:
        original(self, contents)
        if self.model.opt.timestep > 0.0015:
            self.data.qvel[self.model.joint("tube_free").dofadr[0] + 2] = 500.0

    monkeypatch.setattr(Runtime, "reset", fragile_reset)
    certificate = certify_task(task, instances=1, seed=0)
    assert certificate["faults"] == []
    assert [r["fault"].split(":")[0] for r in certificate["transient_faults_rerun"]] == [
        "runaway velocity"
    ]
    assert certificate["certified"] is True
