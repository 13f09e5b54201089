"""Expert demonstrations as a LeRobot dataset, written without torch or LeRobot: Parquet
files and JSON, with cameras as MP4 videos (PyAV) in v3.0 or PNG images in v2.1.

`lablang demos --format lerobot` writes LeRobotDataset v3.0, the format LeRobot 0.4
reads (`lablang.sim.lerobot_v3` lays it out); `--format lerobot-v2.1` writes the older
layout below, which LeRobot 0.4 converts with its own script
(`lerobot.datasets.v30.convert_dataset_v21_to_v30`). Both hold the same frames and
columns. The v2.1 layout, as LeRobot's datasets on the Hugging Face Hub publish it
(`meta/info.json` names it): `OUT/<task>/`

- `meta/info.json`: `codebase_version` "v2.1", `robot_type`, the totals, `chunks_size`
  1000, `fps` (50: one 20 ms control tick per frame), `splits` {"train": "0:N"},
  `data_path` "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet",
  `video_path` null, and `features` (dtype, shape, names of every column);
- `meta/episodes.jsonl` ({"episode_index", "tasks", "length"}), `meta/tasks.jsonl`
  ({"task_index", "task"}: the task's instruction), `meta/episodes_stats.jsonl`
  ({"episode_index", "stats": per feature min, max, mean, std, count});
- `data/chunk-000/episode_000000.parquet`, one row per frame: `observation.state` (the
  environment's observation flattened in its own key order; `names` lists each entry),
  `observation.images.<camera>` with `--cameras` (PNG), `action`, `next.reward`,
  `next.done`, `next.success` (every step passed, as the environment reported),
  `next.step_success` (which steps have passed, named in `features`), `timestamp`,
  `frame_index`, `episode_index`, `index` (over the dataset), `task_index`; each column
  typed as its feature says (float32 vectors as fixed-size lists).

Frames are the demonstrations `record_demos` labels (each ends where `LabEnv` ends the
episode; rewards and dones are the environment's own), so a frame's action replayed
from the episode's seed gives its `next.reward` and `next.done`. `meta/info.json` also
carries a `lablang` entry: the task, its hash, the robot, the action mode, the seeds and
the certificate. The folder is written in a scratch folder beside it and moved into place
whole.
"""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lablang.sim.certify import task_hash
from lablang.sim.demos import Demo, record_demos
from lablang.sim.lerobot_v3 import video_feature
from lablang.sim.model import Task

VERSIONS = ("v3.0", "v2.1")
CODEBASE_VERSION = "v2.1"  # the layout this module writes itself
FPS = 50  # LabEnv's control tick is 20 ms
CHUNKS_SIZE = 1000
DATA_PATH = "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet"


def write_lerobot(
    task: Task,
    episodes: int,
    out: str | Path,
    *,
    source: str | Path,
    version: str = "v3.0",
    **recording: Any,
) -> tuple[Path, dict[str, Any]]:
    """Record `episodes` expert demonstrations of the task in `source` and write them as a
    LeRobot dataset (`version` v3.0 or v2.1) in `out/<task>`; returns the folder and the
    certificate. `recording` is `record_demos`' options (seed, action_mode, cameras,
    image_size, show_progress), as the other writers take them."""
    from lablang.sim import lerobot_v3

    if version not in VERSIONS:
        raise ValueError(f"LeRobot dataset version must be one of {', '.join(VERSIONS)}")
    cameras = tuple(recording.get("cameras", ()))
    try:
        import pyarrow  # noqa: F401 (the Parquet files)

        if version == "v3.0" and cameras:
            import av  # noqa: F401 (the videos)
    except ImportError as error:
        raise ImportError(
            f"writing this LeRobot dataset needs {error.name}, which is not installed; "
            "install lablang's `datasets` extra: pip install 'lablang[datasets]'"
        ) from None
    if version == "v3.0" and cameras:
        lerobot_v3.check_video_size(tuple(recording.get("image_size", (128, 128))))
    demos, certificate = record_demos(task, episodes, **recording)
    seed, action_mode = recording.get("seed", 0), recording.get("action_mode", "ee_delta")
    names = _state_names(demos[0].env_obs[0])
    features = _features(task, names, demos[0], cameras, version)
    lablang = {
        "task": task.name,
        "task_hash": task_hash(task),
        "source": str(Path(source).resolve()),
        "robot": task.scene.robot,
        "action_mode": action_mode,
        "seed": seed,
        "seeds": [d.seed for d in demos],
        "certificate": certificate,
    }
    final = Path(out) / task.name
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{task.name}-lerobot-", dir=final.parent))
    root = scratch / task.name  # made by mkdir, so it honours the umask (scratch does not)
    try:
        if version == "v3.0":
            root.mkdir()
            lerobot_v3.write_v30(
                root,
                features,
                _v30_episodes(demos, cameras),
                task.instruction,
                FPS,
                {"robot_type": task.scene.robot, "lablang": lablang},
            )
        else:
            _write_v21(root, task, demos, features, cameras, lablang)
        if final.exists():  # replaced whole: moved aside (then removed with the scratch)
            final.rename(scratch / "replaced")
        root.rename(final)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final, certificate


def _v30_episodes(demos: list[Demo], cameras: Sequence[str]) -> list[dict[str, Any]]:
    """The episodes as `lerobot_v3.write_v30` takes them: columns (`index` over the
    dataset), each camera's frames, and lablang's own entries."""
    out, first = [], 0
    for number, demo in enumerate(demos):
        frames = demo.env_obs[: demo.ticks]
        out.append(
            {
                "columns": _columns(demo, number, first, ()),
                "frames": {
                    f"observation.images.{camera}": [
                        np.asarray(o["images"][camera], dtype=np.uint8) for o in frames
                    ]
                    for camera in cameras
                },
                "lablang": {
                    "seed": demo.seed,
                    "success": demo.success,
                    "held_ticks": demo.held_ticks,
                },
            }
        )
        first += demo.ticks
    return out


def _write_v21(
    root: Path,
    task: Task,
    demos: list[Demo],
    features: dict[str, Any],
    cameras: Sequence[str],
    lablang: dict[str, Any],
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lablang.sim.lerobot_v3 import arrow_schema

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    typed = arrow_schema(features, pa)
    schema = pa.schema(
        [typed.field(k) if k in typed.names else pa.field(k, image) for k in features]
    )
    index = 0
    episode_lines, stats_lines = [], []
    for number, demo in enumerate(demos):
        columns = _columns(demo, number, index, cameras)
        index += demo.ticks
        path = root / DATA_PATH.format(episode_chunk=number // CHUNKS_SIZE, episode_index=number)
        path.parent.mkdir(parents=True, exist_ok=True)
        table = pa.table({key: columns[key] for key in features}, schema=schema)
        pq.write_table(table, path)
        episode_lines.append(
            {"episode_index": number, "tasks": [task.instruction], "length": demo.ticks}
        )
        images = {
            f"observation.images.{camera}": [
                np.asarray(o["images"][camera], dtype=np.uint8) for o in demo.env_obs[: demo.ticks]
            ]
            for camera in cameras
        }
        stats = _stats(columns, features, images)
        stats_lines.append({"episode_index": number, "stats": stats})
    info = {
        "codebase_version": CODEBASE_VERSION,
        "robot_type": task.scene.robot,
        "total_episodes": len(demos),
        "total_frames": index,
        "total_tasks": 1,
        "total_videos": 0,
        "total_chunks": (len(demos) + CHUNKS_SIZE - 1) // CHUNKS_SIZE,
        "chunks_size": CHUNKS_SIZE,
        "fps": FPS,
        "splits": {"train": f"0:{len(demos)}"},
        "data_path": DATA_PATH,
        "video_path": None,
        "features": features,
        "lablang": lablang,
    }
    meta = root / "meta"
    meta.mkdir(parents=True)
    (meta / "info.json").write_text(json.dumps(info, indent=4) + "\n", encoding="utf-8")
    _jsonl(meta / "episodes.jsonl", episode_lines)
    _jsonl(meta / "tasks.jsonl", [{"task_index": 0, "task": task.instruction}])
    _jsonl(meta / "episodes_stats.jsonl", stats_lines)


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def _leaves(obs: Any, prefix: str = "") -> list[tuple[str, np.ndarray]]:
    """The observation's arrays with their dotted paths, in the observation's own order."""
    if isinstance(obs, dict):
        out = []
        for key, value in obs.items():
            out += _leaves(value, f"{prefix}.{key}" if prefix else str(key))
        return out
    return [(prefix, np.asarray(obs, dtype=np.float32).reshape(-1))]


def _state_names(obs: dict[str, Any]) -> list[str]:
    """One name per entry of `observation.state`: `tcp[0]`, `objects.tube.pos[2]`, ..."""
    return [f"{path}[{i}]" for path, array in _leaves(_state(obs)) for i in range(array.size)]


def _state(obs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obs.items() if k != "images"}


def _features(
    task: Task, names: list[str], demo: Demo, cameras: Sequence[str], version: str
) -> dict[str, Any]:
    def scalar(dtype: str) -> dict[str, Any]:
        return {"dtype": dtype, "shape": [1], "names": None}

    actions = np.asarray(demo.recording.actions).reshape(demo.ticks, -1).shape[1]
    features: dict[str, Any] = {
        "observation.state": {"dtype": "float32", "shape": [len(names)], "names": names}
    }
    for camera in cameras:
        height, width, channels = np.asarray(demo.env_obs[0]["images"][camera]).shape
        if version == "v3.0":
            features[f"observation.images.{camera}"] = video_feature(int(height), int(width), FPS)
            continue
        features[f"observation.images.{camera}"] = {
            "dtype": "image",
            "shape": [int(height), int(width), int(channels)],
            "names": ["height", "width", "channel"],
        }
    features["action"] = {"dtype": "float32", "shape": [actions], "names": None}
    features["next.reward"] = scalar("float32")
    features["next.done"] = scalar("bool")
    features["next.success"] = scalar("bool")
    steps = [step.name for step in task.steps]
    features["next.step_success"] = {"dtype": "bool", "shape": [len(steps)], "names": steps}
    for name, dtype in (("timestamp", "float32"), ("frame_index", "int64"),
                        ("episode_index", "int64"), ("index", "int64"),
                        ("task_index", "int64")):  # fmt: skip
        features[name] = scalar(dtype)
    return features


def _columns(demo: Demo, number: int, first: int, cameras: Sequence[str]) -> dict[str, Any]:
    """The episode's columns: frame t holds the observation before action t and what the
    environment returned for it."""
    ticks = demo.ticks
    frames = demo.env_obs[:ticks]
    states = [np.concatenate([a for _, a in _leaves(_state(o))]) for o in frames]
    passed = np.asarray(demo.step_success, dtype=bool).reshape(ticks, -1)
    columns: dict[str, Any] = {
        "observation.state": [s.tolist() for s in states],
        "action": np.asarray(demo.recording.actions, dtype=np.float32).reshape(ticks, -1).tolist(),
        "next.reward": [float(r) for r in demo.rewards],
        "next.done": [bool(a or b) for a, b in zip(demo.terminated, demo.truncated, strict=True)],
        "next.success": [bool(row.all()) for row in passed],
        # a feature of shape [1] is a scalar column (LeRobot reads it as one value)
        "next.step_success": [
            [bool(s) for s in row] if len(row) > 1 else bool(row[0]) for row in passed.tolist()
        ],
        "timestamp": [float(np.float32(t / FPS)) for t in range(ticks)],
        "frame_index": list(range(ticks)),
        "episode_index": [number] * ticks,
        "index": list(range(first, first + ticks)),
        "task_index": [0] * ticks,
    }
    for camera in cameras:
        columns[f"observation.images.{camera}"] = [
            {"bytes": _png(o["images"][camera]), "path": None} for o in frames
        ]
    return columns


def _png(image: Any) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def _stats(
    columns: dict[str, Any], features: dict[str, Any], images: dict[str, list[np.ndarray]]
) -> dict[str, Any]:
    """Per feature: min, max, mean, std and count over the episode (images per channel,
    scaled to [0, 1], as LeRobot computes them)."""
    out: dict[str, Any] = {}
    for key, feature in features.items():
        if feature["dtype"] == "image":
            # frames, height, width, channel: the camera frames the PNGs were made from
            values = np.stack(images[key]).astype(np.float64) / 255.0
            axes: tuple[int, ...] = (0, 1, 2)
            shape: tuple[int, ...] = (3, 1, 1)
        else:
            values = np.asarray(columns[key], dtype=np.float64).reshape(len(columns[key]), -1)
            axes, shape = (0,), (values.shape[1],)
        out[key] = {
            "min": values.min(axis=axes).reshape(shape).tolist(),
            "max": values.max(axis=axes).reshape(shape).tolist(),
            "mean": values.mean(axis=axes).reshape(shape).tolist(),
            "std": values.std(axis=axes).reshape(shape).tolist(),
            "count": [len(columns[key])],
        }
    return out
