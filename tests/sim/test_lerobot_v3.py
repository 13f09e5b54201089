"""`lablang demos --format lerobot` writes LeRobotDataset v3.0 as LeRobot 0.4 lays it out
(its `lerobot.datasets.utils` paths and `LeRobotDatasetMetadata` fields): several episodes
per Parquet file, the episodes' metadata in Parquet, `meta/tasks.parquet`,
`meta/stats.json`, and each camera as one MP4 holding the episodes one after another, read
back with pyarrow and PyAV field by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

pq = pytest.importorskip("pyarrow.parquet")
av = pytest.importorskip("av")

from lablang.cli import main  # noqa: E402
from lablang.sim import load_tasks, suite  # noqa: E402
from lablang.sim.instances import TaskRef  # noqa: E402
from lablang.sim.lerobot_v3 import CODEC_OPTIONS, encode_video  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "examples" / "tasks" / "move_tube.lab"
VIDEO = "observation.images.front"
# meta/info.json of a v3.0 dataset, as LeRobot 0.4's `create_empty_dataset_info` writes it
INFO_KEYS = {
    "codebase_version", "robot_type", "total_episodes", "total_frames", "total_tasks",
    "chunks_size", "data_files_size_in_mb", "video_files_size_in_mb", "fps", "splits",
    "data_path", "video_path", "features",
}  # fmt: skip
EPISODE_KEYS = {
    "episode_index", "tasks", "length", "data/chunk_index", "data/file_index",
    "dataset_from_index", "dataset_to_index", f"videos/{VIDEO}/chunk_index",
    f"videos/{VIDEO}/file_index", f"videos/{VIDEO}/from_timestamp",
    f"videos/{VIDEO}/to_timestamp", "meta/episodes/chunk_index", "meta/episodes/file_index",
}  # fmt: skip
STATS = {"min", "max", "mean", "std", "count", "q01", "q10", "q50", "q90", "q99"}


def _demos(out: Path, *options: str) -> Any:
    args = ["demos", str(TASK), "--episodes", "2", "--out", str(out), "--no-progress"]
    return CliRunner().invoke(main, [*args, *options])


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lerobot_v3")
    done = _demos(out, "--format", "lerobot", "--cameras", "front", "--image-size", "32")
    assert done.exit_code == 0, done.output
    return out / "move_tube"


def _info(dataset: Path) -> dict[str, Any]:
    return json.loads((dataset / "meta" / "info.json").read_text())


def _episodes(dataset: Path) -> list[dict[str, Any]]:
    return pq.read_table(dataset / "meta/episodes/chunk-000/file-000.parquet").to_pylist()


def test_info_json_has_the_v3_0_fields_and_path_templates(dataset: Path) -> None:
    """meta/info.json names v3.0, LeRobot's chunk/file templates for data and videos, the
    totals, 50 fps, and the camera as a `video` feature with its codec's info."""
    info = _info(dataset)
    assert set(info) - {"lablang"} == INFO_KEYS and info["codebase_version"] == "v3.0"
    assert info["data_path"] == "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
    assert info["video_path"] == (
        "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
    )
    assert (info["total_episodes"], info["total_tasks"], info["fps"]) == (2, 1, 50)
    assert info["splits"] == {"train": "0:2"} and info["chunks_size"] == 1000
    video = info["features"][VIDEO]
    assert video["dtype"] == "video" and video["shape"] == [32, 32, 3]
    assert video["names"] == ["height", "width", "channels"]
    assert video["info"]["video.codec"] == "h264" and video["info"]["video.pix_fmt"] == "yuv420p"
    assert video["info"]["video.fps"] == 50 and video["info"]["has_audio"] is False


def test_one_parquet_file_holds_both_episodes_typed_as_the_features_say(dataset: Path) -> None:
    """data/chunk-000/file-000.parquet has both episodes' rows: the dataset-wide index,
    each episode's frame_index and timestamp from 0, fixed-size float32 vectors; the
    episodes' metadata gives each its rows (dataset_from/to_index) and its length."""
    info = _info(dataset)
    table = pq.read_table(dataset / info["data_path"].format(chunk_index=0, file_index=0))
    assert set(table.column_names) == set(info["features"]) - {VIDEO}
    state = table.schema.field("observation.state").type
    assert str(state.value_type) == "float" and state.list_size == len(info["features"]["observation.state"]["names"])  # fmt: skip
    data = table.to_pydict()
    assert data["index"] == list(range(table.num_rows)) and info["total_frames"] == table.num_rows
    episodes = _episodes(dataset)
    assert [e["episode_index"] for e in episodes] == [0, 1]
    for episode in episodes:
        assert set(episode) >= EPISODE_KEYS and episode["tasks"] == [load_tasks(TASK)[0]["move_tube"].instruction]  # fmt: skip
        rows = range(episode["dataset_from_index"], episode["dataset_to_index"])
        assert len(rows) == episode["length"]
        assert {data["episode_index"][r] for r in rows} == {episode["episode_index"]}
        assert [data["frame_index"][r] for r in rows] == list(range(len(rows)))
        assert [data["timestamp"][r] for r in rows] == pytest.approx([k / 50 for k in range(len(rows))])  # fmt: skip
        assert (episode["data/chunk_index"], episode["data/file_index"]) == (0, 0)
    assert episodes[1]["dataset_from_index"] == episodes[0]["dataset_to_index"]


def test_tasks_parquet_is_indexed_by_the_instruction_and_stats_cover_every_feature(
    dataset: Path,
) -> None:
    """meta/tasks.parquet is task_index under a pandas index of the instructions (how
    LeRobot reads it back); stats.json and each episode's stats/ columns have min, max,
    mean, std, count and LeRobot's quantiles for every feature (the camera per channel)."""
    table = pq.read_table(dataset / "meta" / "tasks.parquet")
    pandas = json.loads(table.schema.metadata[b"pandas"])
    assert pandas["index_columns"] == ["__index_level_0__"]
    assert table.to_pydict() == {
        "task_index": [0],
        "__index_level_0__": [load_tasks(TASK)[0]["move_tube"].instruction],
    }
    stats = json.loads((dataset / "meta" / "stats.json").read_text())
    info = _info(dataset)
    assert set(stats) == set(info["features"])
    assert all(set(feature) == STATS for feature in stats.values())
    assert np.asarray(stats[VIDEO]["mean"]).shape == (3, 1, 1)
    assert stats["index"]["count"] == [info["total_frames"]]
    assert stats["index"]["min"] == [0] and stats["index"]["max"] == [info["total_frames"] - 1]
    (first, second) = _episodes(dataset)
    assert first[f"stats/{VIDEO}/count"] == [first["length"]]
    pooled = (first["stats/action/mean"][0] * first["length"] + second["stats/action/mean"][0] * second["length"]) / info["total_frames"]  # fmt: skip
    assert stats["action"]["mean"][0] == pytest.approx(pooled)


def test_the_video_holds_every_frame_at_its_timestamp_close_to_the_camera(dataset: Path) -> None:
    """The MP4 (H.264, yuv420p, 50 fps) has one frame per dataset row, frame k at k/50 s;
    each episode's from/to_timestamp bound its frames; decoded frames stay within a few
    grey levels of the camera's (the video is lossy, not exact)."""
    info = _info(dataset)
    path = dataset / info["video_path"].format(video_key=VIDEO, chunk_index=0, file_index=0)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.name, stream.pix_fmt, int(stream.average_rate)) == ("h264", "yuv420p", 50)  # fmt: skip
        frames = list(container.decode(stream))
    assert len(frames) == info["total_frames"]
    assert [round(float(f.time) * 50) for f in frames] == list(range(len(frames)))
    first, second = _episodes(dataset)
    assert first[f"videos/{VIDEO}/from_timestamp"] == 0.0
    assert second[f"videos/{VIDEO}/from_timestamp"] == first[f"videos/{VIDEO}/to_timestamp"]
    assert second[f"videos/{VIDEO}/to_timestamp"] == pytest.approx(len(frames) / 50)
    decoded = np.stack([f.to_ndarray(format="rgb24") for f in frames]).astype(float)
    stats = json.loads((dataset / "meta" / "stats.json").read_text())[VIDEO]
    mean = decoded.mean(axis=(0, 1, 2)) / 255  # the stats are the camera's, before encoding
    assert np.allclose(mean, np.asarray(stats["mean"]).reshape(3), atol=0.02)


def test_encoding_the_same_frames_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    """One encoder thread and fixed options: the MP4 is a function of its frames."""
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (16, 16, 3), dtype=np.uint8) for _ in range(6)]
    encode_video(tmp_path / "a.mp4", frames, 50)
    encode_video(tmp_path / "b.mp4", frames, 50)
    assert CODEC_OPTIONS["threads"] == "1"
    assert (tmp_path / "a.mp4").read_bytes() == (tmp_path / "b.mp4").read_bytes()


def test_odd_image_sides_are_refused_before_anything_runs(tmp_path: Path) -> None:
    """yuv420p needs even sides: --image-size 33 is a usage error (exit 2) naming the way
    out, and nothing is written."""
    done = _demos(tmp_path, "--format", "lerobot", "--cameras", "front", "--image-size", "33")
    assert done.exit_code == 2 and "even image sides" in done.output
    assert "lerobot-v2.1" in done.output and not any(tmp_path.iterdir())


def test_a_suite_in_the_lerobot_formats_writes_lerobot_datasets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A suite's `--format lerobot` (or lerobot-v2.1) goes to the LeRobot writer with its
    version, not to robomimic's (it once wrote robomimic files for it)."""
    from lablang.sim import lerobot_dataset

    calls = []

    def fake(task: Any, episodes: int, out: Path, **options: Any) -> tuple[Path, dict]:
        calls.append((task.name, options["version"], "valid_fraction" in options))
        (out / task.name).mkdir(parents=True)
        return out / task.name, {"seeds": [1], "success_rate": 1.0}

    monkeypatch.setattr(lerobot_dataset, "write_lerobot", fake)
    task = load_tasks(TASK)[0]["move_tube"]
    ref = TaskRef(TASK.read_text(), str(TASK), (), "move_tube")
    for name, version in (("lerobot", "v3.0"), ("lerobot-v2.1", "v2.1")):
        out = tmp_path / name
        suite.write_suite_demos([(task, ref)], 1, out, name, valid_fraction=0.1)
        assert calls[-1] == ("move_tube", version, False)
    with pytest.raises(ValueError, match="unknown demonstrations format"):
        suite.write_suite_demos([(task, ref)], 1, tmp_path / "x", "lerobot-v9")
