"""Expert demonstrations as a Minari dataset (`lablang demos --format minari`).

`write_minari(task, episodes, out, source=...)` records and labels the demonstrations as
`write_demos` does (`lablang.sim.demos.record_demos`: each ends at the tick `LabEnv`
terminates, with the environment's own rewards, terminations and truncations) and writes
them with Minari's `create_dataset_from_buffers`, one episode per demonstration, as
`OUT/lablang/<task>/expert-v0` (dataset id `lablang/<task>/expert-v0`), so that

    MINARI_DATASETS_PATH=OUT python -c "import minari; minari.load_dataset('lablang/move_tube/expert-v0')"

loads it. The stored environment spec is the task's Gymnasium environment
(`lablang.sim.gym_env.make_gym_env` with the task file's absolute path, the task, the
robot, the action mode and the cameras), so `recover_environment()` makes it; the
dataset's metadata carries `lablang`: the task, its hash, the robot, the action mode, the
base seed, the instance seeds and the certificate of these very episodes. Images (only
with `cameras`) are stored as raw arrays, not JPEG (Minari's default is lossy).

Minari writes below its data folder (`MINARI_DATASETS_PATH`): it is pointed at a scratch
folder inside `out` while it writes, and the finished dataset is then moved into place,
so nothing is written elsewhere and a dataset appears whole or not at all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from lablang.sim.certify import task_hash
from lablang.sim.demos import NAMESPACE, Demo, record_demos
from lablang.sim.model import Task

DATASET_NAME = "expert"
VERSION = 0


def dataset_id(task: Task) -> str:
    """The Minari id of a task's demonstrations.

    >>> from lablang.sim import load_tasks
    >>> dataset_id(load_tasks("examples/tasks/move_tube.lab")[0]["move_tube"])
    'lablang/move_tube/expert-v0'
    """
    return f"{NAMESPACE}/{task.name}/{DATASET_NAME}-v{VERSION}"


def env_spec(
    task: Task, source: str | Path, action_mode: str, cameras: Sequence[str], image_size: Any
) -> Any:
    """The Gymnasium spec that makes the task's environment (`recover_environment`)."""
    from gymnasium.envs.registration import EnvSpec

    return EnvSpec(
        id=f"{NAMESPACE}/{task.name}",
        entry_point="lablang.sim.gym_env:make_gym_env",
        kwargs={
            "path": str(Path(source).resolve()),
            "task": task.name,
            "robot": task.scene.robot,
            "action_mode": action_mode,
            "cameras": list(cameras),
            "image_size": list(image_size),
        },
    )


def write_minari(
    task: Task,
    episodes: int,
    out: str | Path,
    *,
    source: str | Path,
    seed: int = 0,
    action_mode: str = "ee_delta",
    cameras: Sequence[str] = (),
    image_size: tuple[int, int] = (128, 128),
    show_progress: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Record `episodes` expert demonstrations of the task in `source` and write them as a
    Minari dataset below `out`; returns the dataset's folder and the certificate."""
    try:
        import minari
    except ImportError:
        raise ImportError(
            "writing a Minari dataset needs `minari[create]`, which is not installed; "
            "install lablang's `datasets` extra: pip install 'lablang[datasets]'"
        ) from None
    demos, certificate = record_demos(
        task, episodes, seed, action_mode, cameras, image_size, show_progress
    )
    spec = env_spec(task, source, action_mode, cameras, image_size)
    identifier = dataset_id(task)
    root = Path(out)
    final = root / identifier
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".minari-", dir=root))
    try:
        # Minari warns when no author or evaluation environment is named (the spec is both)
        with _datasets_path(scratch), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            dataset = minari.create_dataset_from_buffers(
                identifier,
                [_buffer(i, demo) for i, demo in enumerate(demos)],
                env=spec,
                eval_env=spec,
                author="lablang",
                algorithm_name="lablang expert program",
                description=f"Expert demonstrations of the lablang task `{task.name}`",
                jpeg_encoding=False,
            )
            dataset.storage.update_metadata(
                {
                    "lablang": {
                        "task": task.name,
                        "task_hash": task_hash(task),
                        "robot": task.scene.robot,
                        "action_mode": action_mode,
                        "seed": seed,
                        "seeds": [d.seed for d in demos],
                        "certificate": certificate,
                    }
                }
            )
        final.parent.mkdir(parents=True, exist_ok=True)
        _copy_namespace_metadata(scratch, root)
        old = None
        if final.exists():  # replaced whole: moved aside, then removed
            old = scratch / "replaced"
            final.rename(old)
        (scratch / identifier).rename(final)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final, certificate


def _buffer(index: int, demo: Demo) -> Any:
    from minari.data_collector import EpisodeBuffer

    return EpisodeBuffer(
        id=index,
        seed=demo.seed,
        observations=_stacked(demo.env_obs),
        actions=np.array(demo.recording.actions).reshape(demo.ticks, -1),
        rewards=list(demo.rewards),
        terminations=list(demo.terminated),
        truncations=list(demo.truncated),
    )


def _stacked(frames: list[Any]) -> Any:
    """A list of (nested dict) observations as one nested dict of stacked arrays."""
    if isinstance(frames[0], dict):
        return {key: _stacked([f[key] for f in frames]) for key in frames[0]}
    return np.array(frames)


def _copy_namespace_metadata(scratch: Path, root: Path) -> None:
    """Minari's namespace metadata files (written for `lablang/...`), where missing."""
    for written in scratch.rglob("namespace_metadata.json"):
        target = root / written.relative_to(scratch)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(written, target)


@contextmanager
def _datasets_path(folder: Path) -> Iterator[None]:
    """Minari's data folder pointed at `folder` while the block runs (then restored)."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = before
