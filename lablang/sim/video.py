"""An episode as an MP4 (imageio with its ffmpeg plugin, from the `robot` extra).

`record_video(task, seed, path)` runs the expert program once and writes the `front`
camera every other control tick (25 frames per simulated second) at 960x720, each frame
captioned with the step being run and the steps passed so far.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lablang.sim.build import compile_scene
from lablang.sim.cameras import CameraRig, annotate
from lablang.sim.episode import EpisodeResult, EpisodeRunner
from lablang.sim.model import Task
from lablang.sim.runtime import Runtime

FRAME_SIZE = (720, 960)  # height, width
EVERY = 2  # ticks per frame: 25 frames per simulated second at 20 ms ticks
PASSED, FAILED, RUNNING = (120, 230, 120), (240, 110, 100), (235, 235, 235)


class VideoRuntime(Runtime):
    """A runtime that hands every `EVERY`-th tick's frame to a writer."""

    writer: Any = None
    runner: EpisodeRunner | None = None
    rig: CameraRig | None = None

    def tick(self) -> None:
        super().tick()
        if self.writer is not None and self.rig is not None and self.ticks % EVERY == 0:
            frame = self.rig.render(self.data, "front")
            self.writer.append_data(annotate(frame, self.caption()))

    def caption(self) -> list[tuple[str, tuple[int, int, int]]]:
        runner = self.runner
        assert runner is not None
        done = {r.name: r.status for r in runner.results}
        lines = [(f"{runner.task.name}  seed {runner.seed}  t = {self.time:6.2f} s", RUNNING)]
        current = runner.current
        if current in done:
            status = done[current]
            lines.append((f"step {current}: {status}", PASSED if status == "passed" else FAILED))
        else:
            lines.append((f"step {current}: running", RUNNING))
        return lines


def record_video(task: Task, seed: int, path: str | Path) -> EpisodeResult:
    """Simulate the task once and write the episode as an MP4 at `path` (atomically)."""
    try:
        import imageio.v2 as imageio
    except ImportError as err:
        raise RuntimeError(
            "writing an MP4 needs imageio and imageio-ffmpeg: install lablang's `robot` "
            "extra: pip install 'lablang[robot]'"
        ) from err
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.stem}.partial{target.suffix}")
    rt = VideoRuntime(compile_scene(task.scene, np.random.default_rng(seed)))
    runner = EpisodeRunner(task, seed, runtime=rt)
    rig = CameraRig(rt.model, *FRAME_SIZE)
    writer = imageio.get_writer(
        partial, format="FFMPEG", fps=round(1 / (rt.dt * EVERY)), codec="libx264", quality=7
    )
    rt.runner, rt.rig, rt.writer = runner, rig, writer
    try:
        runner.run()
        result = runner.finish()
    finally:
        rt.writer = None
        writer.close()
        rig.close()
    partial.replace(target)
    return result
