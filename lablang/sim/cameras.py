"""Named cameras rendered headless (EGL by default, or OSMesa after `apt-get install libosmesa6`).

Every scene has three cameras: `front` (facing the robot across the table), `overview`
(from the side) and `wrist` (on the hand, looking down past the fingers, on both robots).
`CameraRig` renders any of them at one size; `annotate` draws a caption (a step name and
its success) on a frame.

>>> CAMERAS
('front', 'overview', 'wrist')
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

CAMERAS = ("front", "overview", "wrist")
MAX_SIZE = (960, 1280)  # height, width: the offscreen buffer every scene allocates


class CameraRig:
    """Renders named cameras of one model at `height` x `width`, shadows and reflections off."""

    def __init__(self, model: mujoco.MjModel, height: int, width: int) -> None:
        if not (1 <= height <= MAX_SIZE[0] and 1 <= width <= MAX_SIZE[1]):
            raise ValueError(
                f"a camera image is at most {MAX_SIZE[1]}x{MAX_SIZE[0]} (width x height); "
                f"{width}x{height} was asked for"
            )
        self.model = model
        self.height, self.width = height, width
        self._renderer: mujoco.Renderer | None = None

    def render(self, data: mujoco.MjData, camera: str) -> np.ndarray:
        """An RGB frame (uint8, height x width x 3) from a named camera."""
        if camera not in CAMERAS:
            raise ValueError(f"unknown camera `{camera}` (known: {', '.join(CAMERAS)})")
        if self._renderer is None:
            self._renderer = mujoco.Renderer(self.model, height=self.height, width=self.width)
        renderer = self._renderer
        # sites are markers for the predicates (slot frames, a surface's top), not objects
        option = mujoco.MjvOption()
        option.sitegroup[:] = 0
        renderer.update_scene(data, camera=camera, scene_option=option)
        renderer.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
        renderer.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
        renderer.scene.flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = False
        return np.array(renderer.render(), copy=True)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def annotate(frame: np.ndarray, lines: list[tuple[str, tuple[int, int, int]]]) -> np.ndarray:
    """The frame with caption lines (text, RGB colour) drawn on a dark band at the top."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.fromarray(frame)
    draw = ImageDraw.Draw(image)
    size = max(14, frame.shape[0] // 30)
    font: Any
    try:
        font = ImageFont.load_default(size=size)
    except TypeError:  # an old Pillow without scalable default fonts
        font = ImageFont.load_default()
    band = (size + 8) * len(lines) + 8
    draw.rectangle([0, 0, frame.shape[1], band], fill=(20, 20, 24))
    for i, (text, colour) in enumerate(lines):
        draw.text((12, 8 + i * (size + 8)), text, fill=colour, font=font)
    return np.asarray(image).copy()
