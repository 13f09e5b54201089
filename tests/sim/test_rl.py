"""A real RL library on the environment: Stable-Baselines3's own checker and PPO, and the
trained model evaluated by `lablang evaluate` (examples/rl/ppo_move_tube.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("mink")
pytest.importorskip("stable_baselines3")

from click.testing import CliRunner

from examples.rl.ppo_move_tube import make_training_env, policy, train


def test_stable_baselines3_check_env_passes_on_the_wrapped_environment() -> None:
    """SB3's `check_env` finds nothing to refuse in the flattened, rescaled `LabEnv`."""
    from stable_baselines3.common.env_checker import check_env

    env = make_training_env()
    check_env(env, warn=True, skip_render_check=True)
    env.close()


def test_ppo_trains_and_lablang_evaluate_runs_the_saved_model(tmp_path: Path, monkeypatch) -> None:
    """PPO learns for 128 steps and saves a model, and the example's `lablang evaluate`
    command (docs/sim.md) runs it as a policy: the JSON names the task and one episode,
    and the policy returns hand targets within the action bounds."""
    import numpy as np

    from lablang.cli.sim import evaluate_command
    from lablang.sim.env import ACTION_HIGH, ACTION_LOW

    model = tmp_path / "ppo.zip"
    trained = train(128, str(model), n_steps=64)
    assert trained.num_timesteps == 128 and model.exists()
    monkeypatch.setenv("LABLANG_PPO_MODEL", str(model))
    result = CliRunner().invoke(
        evaluate_command,
        ["examples/tasks/move_tube.lab", "--policy", "examples.rl.ppo_move_tube:policy",
         "--episodes", "1", "--max-seconds", "0.2"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert report["task"] == "move_tube" and report["episodes"] == 1
    env = make_training_env()
    obs, info = env.unwrapped.core.reset(seed=0)
    action = policy(obs, info)
    assert action.shape == (6,) and np.all(action >= ACTION_LOW) and np.all(action <= ACTION_HIGH)
    env.close()
