"""The Panda's inverse kinematics: its closed form is mink's objective, number for number."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mink")
pytest.importorskip("gymnasium_robotics")

from lablang.sim.robots import panda


def _mink_objective(solver: panda._Solver) -> tuple[np.ndarray, np.ndarray]:
    """The QP objective as mink assembles it, through its task objects."""
    solver.task.set_target(solver.mink.SE3(wxyz_xyz=solver.target))
    hessian = np.zeros((solver.nv, solver.nv))
    linear = np.zeros(solver.nv)
    for task in solver.tasks:
        h, c = task.compute_qp_objective(solver.config)
        hessian += h
        linear += c
    hessian.flat[:: solver.nv + 1] += panda.IK_DAMPING
    return hessian, linear


def test_closed_form_objective_is_minks_bit_for_bit_on_random_poses() -> None:
    """Far from the joint limits the IK minimises its objective in closed form; the Hessian
    and linear term it computes equal mink's FrameTask + PostureTask + damping exactly, for
    random arm configurations and hand targets (so the shortcut changes no trajectory)."""
    if panda._lie is None:
        pytest.skip("mink computes without its compiled SE(3) operations here")
    rng = np.random.default_rng(7)
    solver = panda._Solver(0.02)
    for _ in range(20):
        q = np.zeros(solver.model.nq)
        q[:7] = panda.HOME_Q + rng.uniform(-0.4, 0.4, 7)
        solver.config.update(q)
        x, y = rng.uniform(0.1, 0.5), rng.uniform(-0.3, 0.3)
        z, yaw, tilt = rng.uniform(-0.5, -0.2), rng.uniform(-1.5, 1.5), rng.uniform(-0.5, 0.5)
        solver.set_command([x, y, z, yaw, tilt])
        hessian, linear = solver._objective()
        expected_h, expected_c = _mink_objective(solver)
        assert np.array_equal(hessian, expected_h) and np.array_equal(linear, expected_c)


def test_reset_solution_is_solved_once_and_equals_a_fresh_solve() -> None:
    """The IK's reset solve (200 QP iterations from the home posture) is cached per command
    and tick: a second runtime reuses it, and it equals what a fresh solve computes."""
    command = (0.3, -0.25, -0.255, 0.0, 0.0)
    panda._home_solution.cache_clear()
    first, converged = panda._home_solution(command, 0.02)
    again, _ = panda._home_solution(command, 0.02)
    assert again is first and panda._home_solution.cache_info().hits == 1
    solver = panda._Solver(0.02)
    state = np.zeros(solver.model.nq)
    state[:7] = panda.HOME_Q
    solver.solve(state, list(command), 200)
    assert np.array_equal(state, first) and solver.converged == converged
    with pytest.raises(ValueError):
        first[0] = 0.0  # shared between runtimes: read-only


SCENE = """
scene s {
  robot: panda
  w: weight(mass: 20 g) on table at (0.40 m, 0.15 m)
}
task t in s { step a { do { wait(1 s) } success: true } }
"""


def _ramp(rt, ticks: int) -> list[tuple[bool, bool]]:  # type: ignore[no-untyped-def]
    """Move the hand along x for `ticks` ticks; per tick, whether the IK solved and whether
    the arm's servo targets were the midpoint of the previous and the new solution."""
    controller = rt._robot
    nq = controller.nq
    seen = []
    for _ in range(ticks):
        rt.cmd[0] += 0.002
        before = rt.robot_state[:7].copy()
        solving = rt.robot_state[nq + 7] == 0.0
        rt.tick()
        after = rt.robot_state[:7]
        midpoint = np.array_equal(rt.data.ctrl[controller.arm_ctrl], (before + after) * 0.5)
        seen.append((solving and not np.array_equal(before, after), midpoint))
    return seen


def test_ik_solves_every_other_tick_and_the_targets_interpolate_one_tick_behind(
    make_runtime,
) -> None:
    """While the hand's command ramps, the IK solves on every other tick (25 Hz); on a
    solving tick the servos aim at the midpoint of the last two solutions, on the next at
    the newest (which the configuration holds unchanged)."""
    rt = make_runtime(SCENE)
    seen = _ramp(rt, 10)
    solved = [s for s, _ in seen]
    assert solved in ([True, False] * 5, [False, True] * 5)
    assert all(m for s, m in seen if s)


def test_a_restore_between_a_solve_and_its_next_tick_continues_bit_identically(
    make_runtime,
) -> None:
    """The IK's phase and previous solution are part of the checkpointed robot state: a
    checkpoint taken right after a solving tick continues as the uninterrupted run does."""
    rt = make_runtime(SCENE)
    _ramp(rt, 3)
    if rt.robot_state[rt._robot.nq + 7] == 0.0:  # stop right after a solving tick
        _ramp(rt, 1)
    checkpoint = rt.checkpoint()
    _ramp(rt, 9)
    first = rt.trace_digest()
    rt.restore(checkpoint)
    _ramp(rt, 9)
    assert rt.trace_digest() == first


def test_near_a_limit_a_feasible_closed_form_step_is_the_qps_and_an_infeasible_one_is_not_used() -> (
    None
):
    """Near a joint limit the closed-form step is taken only when it keeps within mink's
    joint-limit constraints, and then it is the QP's solution (to rounding); a step that
    would cross a limit is refused, so mink's QP solves that tick."""
    solver = panda._Solver(0.02)
    q = np.zeros(solver.model.nq)
    q[:7] = panda.HOME_Q
    q[6] = solver.high[6] - 0.1  # joint 7 within LIMIT_MARGIN of its upper limit
    feasible = infeasible = 0
    for yaw in (0.05, -0.05, 1.5, -1.5):  # small turns, and a quarter turn each way
        solver.config.update(q)
        solver.set_command([0.3, -0.2, -0.25, yaw, 0.0])
        hessian, linear = solver._objective()
        solution = panda._solve_linear(hessian, linear)
        qp = solver._qp_velocity() * solver.dt
        limit = solver.limits[0]
        step = -solution
        if solver._feasible(solution):
            feasible += 1
            np.testing.assert_allclose(step, qp, rtol=1e-9, atol=1e-12)
        else:
            infeasible += 1
            assert np.any(step > limit.gain * (limit.upper - q)) or np.any(
                step < -limit.gain * (q - limit.lower)
            )
            assert not np.allclose(step, qp)  # the QP's step is not the unconstrained one
    assert feasible and infeasible
