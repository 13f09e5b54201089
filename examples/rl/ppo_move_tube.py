"""Stable-Baselines3's PPO trained on a lablang task, then evaluated with `lablang evaluate`.

Needs the `rl` extra (`pip install 'lablang[robot,rl]'`: Stable-Baselines3 and torch pinned
to 2.13.0, the CPU wheel's release). From the repository root:

    python examples/rl/ppo_move_tube.py --steps 4096 --out ppo_move_tube.zip
    LABLANG_PPO_MODEL=ppo_move_tube.zip lablang evaluate examples/tasks/move_tube.lab --policy examples.rl.ppo_move_tube:policy --episodes 2

The policy acts in `LabEnv`'s `ee_pose` action mode (what `lablang evaluate` steps with),
rescaled to [-1, 1] with Gymnasium's `RescaleAction`, and sees the observation flattened
with `FlattenObservation` (Stable-Baselines3 reads no nested `Dict` spaces). `policy` is
the same pipeline run on the task environment's observation: it makes the wrapped
environment once, only for its spaces and wrappers, and asks the saved model.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import gymnasium
import numpy as np

from lablang.sim import load_tasks
from lablang.sim.gym_env import LabEnv

TASK_FILE = "examples/tasks/move_tube.lab"


def make_training_env(path: str = TASK_FILE, **options: Any) -> gymnasium.Env:
    """The task's `LabEnv` as Stable-Baselines3 takes it: flat observations, actions in
    [-1, 1] (absolute hand targets, as `lablang evaluate` gives them)."""
    tasks, _ = load_tasks(path)
    env = LabEnv(next(iter(tasks.values())), action_mode="ee_pose", **options)
    return gymnasium.wrappers.RescaleAction(gymnasium.wrappers.FlattenObservation(env), -1.0, 1.0)


def train(steps: int, out: str, seed: int = 0, n_steps: int = 512) -> Any:
    """PPO on the task for `steps` environment steps, saved to `out` (a .zip)."""
    from stable_baselines3 import PPO

    model = PPO("MlpPolicy", make_training_env(), n_steps=n_steps, batch_size=64, seed=seed)
    model.learn(total_timesteps=steps)
    model.save(out)
    return model


_LOADED: dict[str, Any] = {}


def policy(observation: dict[str, Any], info: dict[str, Any]) -> np.ndarray:
    """`lablang evaluate`'s policy: the model saved at `$LABLANG_PPO_MODEL`, run on the
    task environment's observation, returns an absolute hand target."""
    from stable_baselines3 import PPO

    path = os.environ.get("LABLANG_PPO_MODEL", "ppo_move_tube.zip")
    if path not in _LOADED:
        _LOADED.clear()
        _LOADED[path] = (PPO.load(path), make_training_env())
    model, env = _LOADED[path]
    flat = env.env.observation(env.unwrapped.observation(observation))
    action, _ = model.predict(flat, deterministic=True)
    return np.asarray(env.action(action), dtype=np.float64)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--out", default="ppo_move_tube.zip")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train(args.steps, args.out, args.seed)
    print(f"saved {args.out}")
