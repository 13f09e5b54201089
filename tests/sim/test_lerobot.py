"""`lablang demos --format lerobot-v2.1` writes LeRobotDataset v2.1 as the format's
published description lays it out (meta/info.json, episodes.jsonl, tasks.jsonl,
episodes_stats.jsonl, one Parquet file per episode at `data_path`), read back with pyarrow,
field by field, and its frames are the environment's own labels of the demonstrations
(v3.0, the default: tests/sim/test_lerobot_v3.py)."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pq = pytest.importorskip("pyarrow.parquet")

from lablang.cli import main  # noqa: E402
from lablang.sim import load_tasks  # noqa: E402
from lablang.sim.demos import record_demos  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "examples" / "tasks" / "move_tube.lab"
INFO_KEYS = {
    "codebase_version", "robot_type", "total_episodes", "total_frames", "total_tasks",
    "total_videos", "total_chunks", "chunks_size", "fps", "splits", "data_path",
    "video_path", "features",
}  # fmt: skip


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lerobot")
    args = ["demos", str(TASK), "--episodes", "1", "--format", "lerobot-v2.1", "--out", str(out)]
    done = CliRunner().invoke(main, [*args, "--cameras", "front", "--image-size", "32", "--no-progress"])  # fmt: skip
    assert done.exit_code == 0, done.output
    return out / "move_tube"


def test_info_json_has_every_field_of_the_v2_1_layout(dataset: Path) -> None:
    """meta/info.json names v2.1, the totals the files hold, 50 fps, the train split, the
    data path template (no videos), and a dtype, shape and names for every feature."""
    info = json.loads((dataset / "meta" / "info.json").read_text())
    assert set(info) >= INFO_KEYS and info["codebase_version"] == "v2.1"
    assert (info["total_episodes"], info["total_tasks"], info["total_chunks"]) == (1, 1, 1)
    assert info["fps"] == 50 and info["splits"] == {"train": "0:1"}
    assert info["video_path"] is None and info["total_videos"] == 0
    assert info["robot_type"] == "gantry" and info["lablang"]["task"] == "move_tube"
    for name, feature in info["features"].items():
        assert set(feature) == {"dtype", "shape", "names"}, name
        assert feature["dtype"] in {"float32", "int64", "bool", "image"}, name
    image = info["features"]["observation.images.front"]
    assert image["shape"] == [32, 32, 3] and image["names"] == ["height", "width", "channel"]
    state = info["features"]["observation.state"]
    assert len(state["names"]) == state["shape"][0]


def test_each_episode_is_one_parquet_file_with_the_features_as_columns(dataset: Path) -> None:
    """The file at `data_path` has exactly the features' columns, one row per frame:
    frame_index 0..n-1, timestamp frame/fps, the dataset-wide index, the episode's length as
    episodes.jsonl gives it, and the instruction as task 0."""
    info = json.loads((dataset / "meta" / "info.json").read_text())
    path = dataset / info["data_path"].format(episode_chunk=0, episode_index=0)
    table = pq.read_table(path)
    assert set(table.column_names) == set(info["features"])
    rows = table.num_rows
    (episode,) = [json.loads(line) for line in (dataset / "meta" / "episodes.jsonl").open()]
    assert episode == {"episode_index": 0, "tasks": [load_tasks(TASK)[0]["move_tube"].instruction], "length": rows}  # fmt: skip
    (task,) = [json.loads(line) for line in (dataset / "meta" / "tasks.jsonl").open()]
    assert task == {"task_index": 0, "task": episode["tasks"][0]}
    data = table.to_pydict()
    assert data["frame_index"] == list(range(rows)) == data["index"]
    assert data["timestamp"] == pytest.approx([k / 50 for k in range(rows)])
    assert set(data["episode_index"]) == {0} and set(data["task_index"]) == {0}
    for name, feature in info["features"].items():  # shape [1]: one value, not a list
        if feature["shape"] == [1]:
            assert all(not isinstance(v, list) for v in data[name]), name
        elif feature["dtype"] != "image":
            assert {len(v) for v in data[name]} == {feature["shape"][0]}, name
    types = {"float32": "float", "int64": "int64", "bool": "bool"}
    for field in table.schema:  # typed as the features say (float32, not float64)
        feature = info["features"][field.name]
        if feature["dtype"] in types:
            kind = field.type if feature["shape"] == [1] else field.type.value_type
            assert str(kind) == types[feature["dtype"]], field
    assert info["total_frames"] == rows


def test_frames_are_the_environments_labels_and_images_are_png(dataset: Path) -> None:
    """Actions, rewards, dones and step success equal the labelled demonstration of the same
    seed (the episode ends where LabEnv terminates: only the last frame is done); each image
    decodes as a 32x32 RGB PNG equal to the camera's frame."""
    from PIL import Image

    task = load_tasks(TASK)[0]["move_tube"]
    (demo,), _ = record_demos(task, 1, 0, cameras=("front",), image_size=(32, 32))
    data = pq.read_table(dataset / "data" / "chunk-000" / "episode_000000.parquet").to_pydict()
    assert np.allclose(data["action"], np.asarray(demo.recording.actions).reshape(demo.ticks, -1))
    assert data["next.reward"] == pytest.approx(list(demo.rewards))
    assert data["next.done"] == [False] * (demo.ticks - 1) + [True]
    assert data["next.step_success"] == np.asarray(demo.step_success)[:, 0].tolist()  # one step
    assert data["next.success"][-1] is True
    first = Image.open(io.BytesIO(data["observation.images.front"][0]["bytes"]))
    assert first.format == "PNG" and first.size == (32, 32)
    assert np.array_equal(np.asarray(first), demo.env_obs[0]["images"]["front"])


def test_the_stats_cover_every_feature_and_the_folder_honours_the_umask(dataset: Path) -> None:
    """episodes_stats.jsonl has min, max, mean, std and count per feature (images per
    channel, shape 3x1x1); the dataset's folders take the umask's permissions."""
    (line,) = (dataset / "meta" / "episodes_stats.jsonl").read_text().splitlines()
    stats = json.loads(line)["stats"]
    info = json.loads((dataset / "meta" / "info.json").read_text())
    assert set(stats) == set(info["features"])
    for feature in stats.values():
        assert set(feature) == {"min", "max", "mean", "std", "count"}
    assert np.asarray(stats["observation.images.front"]["mean"]).shape == (3, 1, 1)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(dataset.stat().st_mode) == 0o777 & ~umask
