"""LeRobotDataset v3.0 (the format LeRobot 0.4 reads), written with pyarrow and PyAV: no
torch, no LeRobot (`lablang demos --format lerobot`; `lablang.sim.lerobot_dataset` records
the demonstrations and calls `write_v30`).

The layout is LeRobot's (its `lerobot.datasets.utils` names the paths): `OUT/<task>/`

- `data/chunk-000/file-000.parquet`: the frames of several episodes, one row each (a new
  file once the rows pass `DATA_FILE_SIZE_IN_MB` of Arrow data, 100 as LeRobot's default;
  `chunks_size` files per chunk folder); `timestamp` counts from each episode's start;
- `videos/observation.images.<camera>/chunk-000/file-000.mp4`: that camera's frames of the
  same episodes, one after another (file k holds the episodes of data file k), H.264
  (`libx264`) in `yuv420p` at 50 fps, every second frame a keyframe (`g` 2, as LeRobot
  encodes), `crf` 23, one encoder thread, so the same frames give the same bytes. The
  video is lossy: 4:2:0 chroma and the encoder's quantisation change pixels;
- `meta/episodes/chunk-000/file-000.parquet`: one row per episode: `episode_index`,
  `tasks`, `length`, `data/chunk_index`, `data/file_index`, `dataset_from_index`,
  `dataset_to_index`, per camera `videos/<key>/chunk_index`, `file_index`,
  `from_timestamp` and `to_timestamp` (where its frames are in the MP4),
  `meta/episodes/chunk_index` and `file_index`, and `stats/<feature>/<stat>`; also
  `lablang/seed`, `lablang/success` and `lablang/held_ticks`;
- `meta/tasks.parquet`: `task_index` indexed by the task's instruction (the pandas index
  LeRobot reads it with, as pandas' own Parquet metadata describes it);
- `meta/stats.json`: per feature over all frames: min, max, mean, std, count and the
  quantiles q01, q10, q50, q90, q99 (camera frames per channel, in [0, 1], from the
  frames before encoding);
- `meta/info.json`: `codebase_version` "v3.0", the totals, `chunks_size`,
  `data_files_size_in_mb`, `video_files_size_in_mb`, `fps`, `splits`, the `data_path` and
  `video_path` templates, and `features` (cameras: dtype `video` with their `info`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

CODEBASE_VERSION = "v3.0"
CHUNKS_SIZE = 1000  # files per chunk folder (LeRobot's DEFAULT_CHUNK_SIZE)
DATA_FILE_SIZE_IN_MB = 100  # LeRobot's defaults
VIDEO_FILE_SIZE_IN_MB = 200
CHUNK_FILE = "chunk-{chunk_index:03d}/file-{file_index:03d}"
DATA_PATH = "data/" + CHUNK_FILE + ".parquet"
VIDEO_PATH = "videos/{video_key}/" + CHUNK_FILE + ".mp4"
EPISODES_PATH = "meta/episodes/" + CHUNK_FILE + ".parquet"
CODEC, PIX_FMT = "libx264", "yuv420p"
CODEC_NAME = "h264"  # what a reader's probe calls it (`video.codec`)
# fixed options, one thread: the same frames always give the same bytes
CODEC_OPTIONS = {"g": "2", "crf": "23", "preset": "medium", "threads": "1"}
QUANTILES = (0.01, 0.10, 0.50, 0.90, 0.99)


def chunk_file(number: int) -> tuple[int, int]:
    """The (chunk, file) indices of the `number`-th file (`chunks_size` files a chunk).

    >>> chunk_file(0), chunk_file(1001)
    ((0, 0), (1, 1))
    """
    return number // CHUNKS_SIZE, number % CHUNKS_SIZE


def video_feature(height: int, width: int, fps: int) -> dict[str, Any]:
    """A camera's entry in `features`, with the `info` LeRobot's probe of the MP4 reports."""
    return {
        "dtype": "video",
        "shape": [height, width, 3],
        "names": ["height", "width", "channels"],
        "info": {
            "video.height": height,
            "video.width": width,
            "video.codec": CODEC_NAME,
            "video.pix_fmt": PIX_FMT,
            "video.is_depth_map": False,
            "video.fps": fps,
            "video.channels": 3,
            "has_audio": False,
        },
    }


def check_video_size(image_size: tuple[int, int]) -> None:
    """4:2:0 video needs even sides: else `ValueError` saying so (before anything runs)."""
    if any(side % 2 for side in image_size):
        raise ValueError(
            f"a LeRobot v3.0 video needs even image sides (yuv420p), not {image_size[0]}x"
            f"{image_size[1]}; use an even --image-size or --format lerobot-v2.1 (PNG frames)"
        )


def encode_video(path: Path, frames: Sequence[np.ndarray], fps: int) -> None:
    """Encode RGB frames (H, W, 3 uint8) as an MP4 at `fps`, frame k at k / fps seconds."""
    import av

    height, width = frames[0].shape[:2]
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w", format="mp4") as container:
        stream = container.add_stream(CODEC, rate=fps, options=dict(CODEC_OPTIONS))
        assert isinstance(stream, av.VideoStream)
        stream.width, stream.height, stream.pix_fmt = width, height, PIX_FMT
        stream.codec_context.thread_count = 1
        for image in frames:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))


def stats(values: np.ndarray, image: bool) -> dict[str, list[Any]]:
    """min, max, mean, std, count and quantiles of a feature's frames (rows), per entry;
    a camera's (frames, height, width, channel; uint8) per channel in [0, 1], 3x1x1."""
    if image:
        flat = values.reshape(-1, values.shape[-1])
        shape: tuple[int, ...] = (values.shape[-1], 1, 1)
        scale = 255.0
    else:
        flat = values.reshape(len(values), -1)
        shape, scale = (flat.shape[1],), 1.0

    def entry(array: np.ndarray) -> list[Any]:
        return (np.asarray(array, dtype=np.float64) / scale).reshape(shape).tolist()

    out: dict[str, list[Any]] = {
        "min": entry(flat.min(axis=0)),
        "max": entry(flat.max(axis=0)),
        "mean": entry(flat.mean(axis=0, dtype=np.float64)),
        "std": entry(flat.std(axis=0, dtype=np.float64)),
        "count": [len(values)],
    }
    for q in QUANTILES:
        out[f"q{round(q * 100):02d}"] = entry(np.quantile(flat, q, axis=0))
    return out


def aggregate(parts: list[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    """One feature's stats over several episodes, from theirs, as LeRobot aggregates them
    (`aggregate_feature_stats`): exact min, max, count, mean and std (pooled variance); each
    quantile the frame-weighted mean of the episodes' (an approximation)."""
    counts = np.array([p["count"][0] for p in parts], dtype=np.float64)
    means = np.array([p["mean"] for p in parts])
    weights = counts.reshape((-1,) + (1,) * (means.ndim - 1))
    total = counts.sum()
    mean = (means * weights).sum(axis=0) / total
    variance = ((np.array([p["std"] for p in parts]) ** 2 + (means - mean) ** 2) * weights).sum(
        axis=0
    ) / total
    out: dict[str, list[Any]] = {
        "min": np.min([p["min"] for p in parts], axis=0).tolist(),
        "max": np.max([p["max"] for p in parts], axis=0).tolist(),
        "mean": mean.tolist(),
        "std": np.sqrt(variance).tolist(),
        "count": [int(total)],
    }
    for key in parts[0]:
        if key.startswith("q"):
            out[key] = ((np.array([p[key] for p in parts]) * weights).sum(axis=0) / total).tolist()
    return out


def write_v30(
    root: Path,
    features: dict[str, Any],
    episodes: list[dict[str, Any]],
    instruction: str,
    fps: int,
    info: dict[str, Any],
) -> None:
    """Write the dataset in `root` (a new folder). Each of `episodes` holds its `columns`
    (every non-camera feature, one value per frame), `frames` (per camera key, the RGB
    frames) and `lablang` (seed, success, held_ticks)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema(features, pa)
    cameras = [key for key, f in features.items() if f["dtype"] == "video"]
    groups: list[list[int]] = [[]]
    size = 0
    tables = []
    for number, episode in enumerate(episodes):
        table = pa.table({k: episode["columns"][k] for k in schema.names}, schema=schema)
        tables.append(table)
        if groups[-1] and size + table.nbytes > DATA_FILE_SIZE_IN_MB * 1024**2:
            groups.append([])
            size = 0
        groups[-1].append(number)
        size += table.nbytes
    rows: list[dict[str, Any]] = []
    first = 0
    per_episode = [episode_stats(features, episode) for episode in episodes]
    for file_number, members in enumerate(groups):
        chunk, file = chunk_file(file_number)
        where = {"chunk_index": chunk, "file_index": file}
        path = root / DATA_PATH.format(**where)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.concat_tables([tables[n] for n in members]), path)
        starts = np.cumsum([0] + [tables[n].num_rows for n in members])
        for key in cameras:
            frames = [f for n in members for f in episodes[n]["frames"][key]]
            encode_video(root / VIDEO_PATH.format(video_key=key, **where), frames, fps)
        for k, number in enumerate(members):
            length = tables[number].num_rows
            row: dict[str, Any] = {
                "episode_index": number,
                "tasks": [instruction],
                "length": length,
                "data/chunk_index": chunk,
                "data/file_index": file,
                "dataset_from_index": first,
                "dataset_to_index": first + length,
            }
            first += length
            for key in cameras:
                row[f"videos/{key}/chunk_index"] = chunk
                row[f"videos/{key}/file_index"] = file
                row[f"videos/{key}/from_timestamp"] = float(starts[k]) / fps
                row[f"videos/{key}/to_timestamp"] = float(starts[k] + length) / fps
            row["meta/episodes/chunk_index"] = 0
            row["meta/episodes/file_index"] = 0
            for feature, values in per_episode[number].items():
                for stat, value in values.items():
                    row[f"stats/{feature}/{stat}"] = value
            for name, value in episodes[number]["lablang"].items():
                row[f"lablang/{name}"] = value
            rows.append(row)
    episodes_path = root / EPISODES_PATH.format(chunk_index=0, file_index=0)
    episodes_path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), episodes_path)
    pq.write_table(tasks_table([instruction], pa), root / "meta" / "tasks.parquet")
    overall = {key: aggregate([p[key] for p in per_episode]) for key in features}
    text = json.dumps(overall, indent=4) + "\n"
    (root / "meta" / "stats.json").write_text(text, encoding="utf-8")
    info = {
        "codebase_version": CODEBASE_VERSION,
        "robot_type": info["robot_type"],
        "total_episodes": len(episodes),
        "total_frames": first,
        "total_tasks": 1,
        "chunks_size": CHUNKS_SIZE,
        "data_files_size_in_mb": DATA_FILE_SIZE_IN_MB,
        "video_files_size_in_mb": VIDEO_FILE_SIZE_IN_MB,
        "fps": fps,
        "splits": {"train": f"0:{len(episodes)}"},
        "data_path": DATA_PATH,
        "video_path": VIDEO_PATH if cameras else None,
        "features": features,
        "lablang": info["lablang"],
    }
    text = json.dumps(info, indent=4) + "\n"
    (root / "meta" / "info.json").write_text(text, encoding="utf-8")


def episode_stats(features: dict[str, Any], episode: dict[str, Any]) -> dict[str, Any]:
    """Per feature, `stats` of one episode's frames."""
    out = {}
    for key, feature in features.items():
        if feature["dtype"] == "video":
            out[key] = stats(np.stack(episode["frames"][key]), image=True)
        else:
            out[key] = stats(np.asarray(episode["columns"][key], dtype=np.float64), image=False)
    return out


def arrow_schema(features: dict[str, Any], pa: Any) -> Any:
    """The Parquet columns of the non-camera features, typed as `features` says: a scalar
    (shape [1]) as its dtype, a vector as a fixed-size list (what LeRobot's Hugging Face
    `Sequence(length=n)` reads)."""
    types = {"float32": pa.float32(), "int64": pa.int64(), "bool": pa.bool_()}
    fields = []
    for key, feature in features.items():
        if feature["dtype"] not in types:
            continue  # cameras: videos, or PNG images (v2.1, typed by its writer)
        kind = types[feature["dtype"]]
        shape = feature["shape"]
        fields.append(pa.field(key, kind if shape == [1] else pa.list_(kind, shape[0])))
    return pa.schema(fields)


def tasks_table(instructions: list[str], pa: Any) -> Any:
    """`meta/tasks.parquet`: `task_index` with the instructions as the table's pandas
    index (unnamed, stored as `__index_level_0__`, as pandas writes a DataFrame built with
    `index=tasks`), so `pandas.read_parquet` gives LeRobot the frame it indexes by task."""
    index = "__index_level_0__"
    table = pa.table(
        {"task_index": pa.array(range(len(instructions)), pa.int64()), index: instructions}
    )
    pandas = {
        "index_columns": [index],
        "column_indexes": [
            {"name": None, "field_name": None, "pandas_type": "unicode", "numpy_type": "object",
             "metadata": {"encoding": "UTF-8"}}
        ],
        "columns": [
            {"name": "task_index", "field_name": "task_index", "pandas_type": "int64",
             "numpy_type": "int64", "metadata": None},
            {"name": None, "field_name": index, "pandas_type": "unicode", "numpy_type": "object",
             "metadata": None},
        ],
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": "2.2.3",
    }  # fmt: skip
    return table.replace_schema_metadata({"pandas": json.dumps(pandas)})
