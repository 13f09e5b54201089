"""The Gymnasium environment: check_env on every example task with both robots, action
modes, cameras, registration, and a long random rollout without a simulator fault."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mink")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from lablang.sim import load_tasks, make_env  # noqa: E402
from lablang.sim.gym_env import DELTA_SCALE, LabEnv, register_tasks  # noqa: E402

EXAMPLES = sorted(Path("examples/tasks").glob("*.lab"))
ROBOTS = ("gantry", "panda")


def _task(name: str = "move_tube"):
    tasks, report = load_tasks(f"examples/tasks/{name}.lab")
    assert not report.has_errors
    return next(iter(tasks.values()))


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_check_env_passes_without_a_warning_for_every_example_task(path: Path, robot: str) -> None:
    """Gymnasium's own checker accepts each example task's environment, made through
    `gymnasium.make("lablang/<task>")`, and warns about nothing."""
    (env_id,) = register_tasks(path)
    env = gymnasium.make(env_id, robot=robot, action_mode="ee_delta", render_mode="rgb_array")
    assert isinstance(env.unwrapped, gymnasium.Env) and isinstance(env.unwrapped, LabEnv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    env.close()


@pytest.mark.parametrize("robot", ROBOTS)
def test_random_rollout_of_1000_steps_has_no_simulator_fault(robot: str) -> None:
    """A thousand uniformly random end-effector deltas (resetting at episode ends) never
    make the simulation unstable: no fault in `info`."""
    env = make_env(_task("centrifuge_loading"), robot=robot, action_mode="ee_delta")
    env.action_space.seed(3)
    obs, info = env.reset(seed=3)
    for i in range(1000):
        obs, _reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert info["fault"] is None, (i, info["fault"])
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            obs, info = env.reset(seed=i)
    env.close()


@pytest.mark.parametrize("robot", ROBOTS)
def test_camera_images_have_the_declared_shape_and_show_the_scene(robot: str) -> None:
    """`front` and `wrist` frames are uint8 arrays of the chosen size with real content
    (not one flat colour), and differ from each other; render() gives the front view."""
    env = make_env(
        _task(),
        robot=robot,
        cameras=("front", "wrist"),
        image_size=(96, 128),
        render_mode="rgb_array",
        render_size=(240, 320),
    )
    obs, _ = env.reset(seed=0)
    front, wrist = obs["images"]["front"], obs["images"]["wrist"]
    for image in (front, wrist):
        assert image.shape == (96, 128, 3) and image.dtype == np.uint8
        assert image.std() > 10 and len(np.unique(image.reshape(-1, 3), axis=0)) > 50
    assert not np.array_equal(front, wrist)
    assert env.observation_space.contains(obs)
    frame = env.render()
    assert frame is not None and frame.shape == (240, 320, 3) and frame.std() > 10
    env.close()


def test_ee_delta_moves_the_commanded_hand_by_the_scaled_action() -> None:
    """An `ee_delta` action shifts the commanded hand pose by action x scale, and the
    gripper value maps +1 to closed and -1 to fully open."""
    env = make_env(_task(), robot="panda", action_mode="ee_delta")
    env.reset(seed=0)
    before = env.hold_action()
    env.step(np.array([0.5, -0.5, 0.25, 0.0, 0.0, 1.0]))
    after = env.hold_action()
    assert np.allclose(after[:5] - before[:5], np.array([0.5, -0.5, 0.25, 0, 0]) * DELTA_SCALE)
    assert after[5] == 0.0
    env.step(np.array([0, 0, 0, 0, 0, -1.0]))
    assert env.hold_action()[5] == pytest.approx(0.04)
    env.close()


@pytest.mark.parametrize("robot", ROBOTS)
def test_joint_actions_drive_the_arm_joints_to_their_targets(robot: str) -> None:
    """In `joint` mode the arm's joints settle at the commanded targets (no IK involved)."""
    env = make_env(_task(), robot=robot, action_mode="joint")
    obs, _ = env.reset(seed=0)
    arm = len(obs["proprio"]) - 2
    goal = obs["proprio"][:arm].copy()
    goal[0] += 0.05
    action = np.concatenate([goal, [0.02]])
    for _ in range(60):
        obs, *_ = env.step(action)
    assert np.allclose(obs["proprio"][:arm], goal, atol=2e-3)
    assert obs["proprio"][-1] == pytest.approx(0.02, abs=1e-3)
    env.close()


def test_reset_with_a_seed_reproduces_the_instance_bit_for_bit() -> None:
    """The same seed gives the same observation (Panda included); another seed does not."""
    env = make_env(_task(), robot="panda")
    a = env.reset(seed=5)[0]
    b = env.reset(seed=5)[0]
    c = env.reset(seed=6)[0]
    assert np.array_equal(a["proprio"], b["proprio"])
    assert np.array_equal(a["objects"]["tube"], b["objects"]["tube"])
    assert not np.array_equal(a["objects"]["tube"], c["objects"]["tube"])
    env.close()


def test_registered_ids_make_through_gymnasium_by_call_and_by_module_import() -> None:
    """`register_tasks` registers `lablang/<task>`; the module-style id works too."""
    assert register_tasks("examples/tasks/move_tube.lab") == ["lablang/move_tube"]
    env = gymnasium.make("lablang.sim.gym_env:lablang/move_chosen_tube", robot="gantry")
    obs, info = env.reset(seed=2)
    assert info["bindings"] and set(obs) == {"proprio", "tcp", "objects", "fixtures"}
    env.close()


def test_unknown_action_mode_and_camera_are_refused_with_the_known_names() -> None:
    """A misspelt action mode or camera is a ValueError listing the valid ones."""
    with pytest.raises(ValueError, match="ee_delta"):
        make_env(_task(), action_mode="delta")
    with pytest.raises(ValueError, match="wrist"):
        make_env(_task(), cameras=("side",))


def test_docs_gymnasium_snippet_runs_as_shown() -> None:
    """The Python block of docs/sim.md that makes `lablang/move_tube` runs and its
    assertions hold."""
    import re

    doc = Path("docs/sim.md").read_text("utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "gymnasium.make" in b]
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/sim.md", "exec"), {})
