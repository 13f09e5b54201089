"""Load a LeRobot v3.0 dataset that `lablang demos --format lerobot` wrote with LeRobot's
own reader, and check what it returns against the dataset's Parquet rows. Outside CI:
LeRobot needs torch and torchvision (about 8 GB with LeRobot here), so it runs in a venv
of its own, which needs no lablang (docs/sim.md, Demonstrations):

    python3.11 -m venv /work/venvs/lerobot-reader
    . /work/venvs/lerobot-reader/bin/activate
    pip install torch==2.9.1 torchvision==0.24.1  # LeRobot 0.4.4 asks for torch < 2.11
    pip install lerobot torch==2.9.1 torchvision==0.24.1  # so pip keeps that pair
    # in lablang's venv:
    lablang demos examples/tasks/move_tube.lab --episodes 2 --format lerobot --out demos --cameras front --image-size 64
    # in the reader's venv, offline:
    HF_HUB_OFFLINE=1 python scripts/check_lerobot.py demos/move_tube

It prints what the reader loaded and exits 1 if a frame differs from the Parquet rows
(actions, rewards, dones, state), or a camera frame is not the shape the features give or
not the MP4's frame of that row (each episode's first frame among those checked: the
episodes' `from_timestamp`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local root: nothing is fetched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the dataset folder (DIR/<task>)")
    parser.add_argument(
        "--video-backend",
        default="pyav",
        help="LeRobot's video decoder: pyav (bundles FFmpeg; the default here) or torchcodec "
        "(needs the system's FFmpeg libraries, which this machine does not have)",
    )
    args = parser.parse_args()
    import av
    import lerobot
    import numpy as np
    import pyarrow.parquet as pq
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    root = args.root.resolve()
    dataset = LeRobotDataset(f"lablang/{root.name}", root=root, video_backend=args.video_backend)
    info = json.loads((root / "meta" / "info.json").read_text())
    print(f"lerobot {lerobot.__version__}: {dataset.repo_id} from {root}")
    print(
        f"  {dataset.num_episodes} episodes, {dataset.num_frames} frames, {dataset.fps} fps, "
        f"video backend {dataset.video_backend}, cameras {dataset.meta.camera_keys}"
    )
    rows = pq.read_table(root / "data" / "chunk-000" / "file-000.parquet").to_pydict()
    videos = {}  # each camera's frames as PyAV decodes the MP4 itself, in file order
    for camera in dataset.meta.camera_keys:
        path = root / info["video_path"].format(video_key=camera, chunk_index=0, file_index=0)
        with av.open(str(path)) as container:
            videos[camera] = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    starts = {int(i) for i in dataset.meta.episodes["dataset_from_index"]}
    wrong = []
    for index in sorted({1, dataset.num_frames // 2, dataset.num_frames - 1} | starts):
        item = dataset[index]
        for key in ("action", "observation.state", "next.reward", "next.done", "timestamp"):
            got = np.asarray(item[key]).reshape(-1)
            want = np.asarray(rows[key][index], dtype=got.dtype).reshape(-1)
            if not np.allclose(got, want):
                wrong.append(f"frame {index} `{key}`: {got[:4]} != {want[:4]}")
        for camera in dataset.meta.camera_keys:
            height, width, channels = info["features"][camera]["shape"]
            shape = tuple(item[camera].shape)
            if shape != (channels, height, width):
                wrong.append(f"frame {index} `{camera}`: shape {shape}")
                continue
            # LeRobot seeks to the episode's from_timestamp plus the frame's timestamp
            pixels = np.asarray(item[camera]).transpose(1, 2, 0) * 255
            if np.abs(pixels - videos[camera][index]).max() > 1:
                wrong.append(f"frame {index} `{camera}`: not frame {index} of the MP4")
        shapes = {k: tuple(getattr(v, "shape", ())) for k, v in item.items() if k != "task"}
        print(f"  frame {index}: episode {int(item['episode_index'])}, task {item['task']!r}")
        print(f"    {shapes}")
    print(f"  stats: {sorted(dataset.meta.stats)}")
    for line in wrong:
        print(f"  MISMATCH {line}")
    print("OK: LeRobot's reader gives the written frames" if not wrong else "FAILED")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
