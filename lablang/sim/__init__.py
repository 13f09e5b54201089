"""Embodied tasks compiled to MuJoCo: scenes, skills, success specs, simulate and certify.

>>> from lablang.sim import load_tasks
>>> tasks, report = load_tasks("examples/tasks/centrifuge_loading.lab")
>>> sorted(tasks), report.has_errors
(['load_pair'], False)

Importing this package does not import MuJoCo; running an episode does. Headless
rendering defaults to EGL (`MUJOCO_GL=egl`), set before MuJoCo is first imported.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("MUJOCO_GL", "egl")

if TYPE_CHECKING:
    from lablang.diagnostics import Report
    from lablang.sim.episode import EpisodeResult
    from lablang.sim.model import Task

__all__ = ["certify_task", "load_tasks", "make_env", "simulate_task"]


def load_tasks(
    path: str | Path, roots: Sequence[str | Path] = ()
) -> tuple[dict[str, Task], Report]:
    """Check a `.lab` file and return its tasks (empty if it has errors) and the report
    (`lablang.sim.loading.load_tasks`, which the modules of this package use)."""
    from lablang.sim.loading import load_tasks as load

    return load(path, roots)


def simulate_task(task: Task, seed: int = 0, render_dir: str | Path | None = None) -> EpisodeResult:
    """Run a task's expert program once (see `lablang.sim.episode.run_episode`)."""
    from lablang.sim.episode import run_episode

    return run_episode(task, seed, render_dir=Path(render_dir) if render_dir else None)


def certify_task(
    task: Task,
    instances: int = 20,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = False,
    records_dir: str | Path | None = None,
    executor: Any = None,
    origin: Any = None,
    mutants: str = "all",
) -> dict[str, Any]:
    """Certify a task over randomized instances (see `lablang.sim.certify`).

    `executor` is a `lablang.executors.Executor` (default: local, `jobs` processes);
    the Ray executor needs `origin`, the task's `lablang.sim.suite.TaskRef`. `mutants`
    is `"all"` (test the specs with mutants of the program) or `"none"`.
    """
    from lablang.sim.certify import certify_task as certify

    records = Path(records_dir) if records_dir is not None else None
    return certify(task, instances, seed, jobs, progress, records, executor, origin, mutants)


def make_env(task: Task, **options: Any) -> Any:
    """A `gymnasium.Env` for a task (see `lablang.sim.gym_env.LabEnv` for the options:
    robot, action_mode, cameras, image_size, render_mode, ...); needs the `robot` extra."""
    from lablang.sim.gym_env import LabEnv

    return LabEnv(task, **options)
