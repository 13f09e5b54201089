"""A seven-segment display drawn on an instrument, readable by a camera.

The digits are visual geoms (they neither collide nor weigh, so trajectories do not
change); the runtime lights a segment by making it opaque (`lit`) and hides it otherwise.
A scale shows its display in 0.1 g in five positions (a sign, three integer digits and a
decimal digit, with a fixed decimal point): -999.9 g to 999.9 g, dashes beyond. A hot
plate's thermometer (`Thermometers`) shows its plate's temperature the same way, in 0.1 C,
and a bench timer (`Timers`) the seconds since its start button was pressed, in 0.1 s.

>>> "".join("1" if on else "0" for on in segments_lit(205)[21:28])  # the "0" of 20.5 g
'1111110'
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mujoco
from attrs import define, field, frozen

from lablang.sim.catalog import LABEL_GLYPHS, LABEL_MAX

POSITIONS = 5  # sign, hundreds, tens, units, tenths
# segments a..g of each digit, lit for 0..9 (a top, b upper right, c lower right, d bottom,
# e lower left, f upper left, g middle)
DIGITS = {int(c): segs for c, segs in LABEL_GLYPHS.items() if c.isdigit()}
SEGMENTS = "abcdefg"
LIT = [0.15, 1.0, 0.3, 1.0]
UNLIT = [0.0, 0.0, 0.0, 0.0]
# sized for the `front` camera at 256 px (about 5 mm a pixel at the scale): digits 8.6 cm
# tall (about 14 px), 2.6 cm wide, segments 6 mm thick
DIGIT_PITCH = 0.032  # m between digit centres
HALF_WIDTH = 0.01  # m, half the length of a horizontal segment
HALF_HEIGHT = 0.02  # m, half the length of a vertical segment
THICK = 0.003  # m, half the thickness of a segment


def segments_lit(tenths: int) -> list[bool]:
    """Which of the display's segments are lit for a display value in tenths of a gram:
    7 per position (a..g) for the sign and the four digits, then the decimal point. Past
    the range, every position shows a dash."""
    out: list[bool] = []
    value = abs(tenths)
    if value > 9999:
        return [s == "g" for _ in range(POSITIONS) for s in SEGMENTS] + [False]
    digits = [value // 1000, value // 100 % 10, value // 10 % 10, value % 10]
    shown = [value >= 1000, value >= 100, True, True]  # no leading zeros before the units
    out += [s == "g" and tenths < 0 for s in SEGMENTS]
    for digit, show in zip(digits, shown, strict=True):
        out += [show and s in DIGITS[digit] for s in SEGMENTS]
    return [*out, True]


@frozen
class Glyphs:
    """The size and number of a display's seven-segment positions (metres)."""

    positions: int = POSITIONS
    pitch: float = DIGIT_PITCH  # between digit centres
    half_width: float = HALF_WIDTH  # half the length of a horizontal segment
    half_height: float = HALF_HEIGHT  # half the length of a vertical segment
    thick: float = THICK  # half the thickness of a segment
    point: bool = True  # a decimal point between the last two positions


# a tube label's flag: LABEL_MAX glyphs 6.5 cm tall, 2.5 cm wide, 2.8 cm apart
LABEL = Glyphs(LABEL_MAX, 0.028, 0.008, 0.014, 0.0045, point=False)


def segment_offsets(glyphs: Glyphs = Glyphs()) -> list[tuple[float, float, float, float]]:
    """Each segment's centre and half extents in the display plane: (u, v, half u, half v),
    u to the right and v up, in the order `segments_lit` uses."""
    hw, hh, t = glyphs.half_width, glyphs.half_height, glyphs.thick
    shapes = {
        "a": (0.0, 2 * hh, hw, t),
        "b": (hw, hh, t, hh),
        "c": (hw, -hh, t, hh),
        "d": (0.0, -2 * hh, hw, t),
        "e": (-hw, -hh, t, hh),
        "f": (-hw, hh, t, hh),
        "g": (0.0, 0.0, hw, t),
    }
    out = []
    n = glyphs.positions
    for k in range(n):
        centre = (k - (n - 1) / 2) * glyphs.pitch
        out += [(centre + u, v, hu, hv) for u, v, hu, hv in (shapes[s] for s in SEGMENTS)]
    if glyphs.point:
        point = ((n - 1) / 2 - 0.5) * glyphs.pitch  # between units and tenths
        out.append((point, -2 * hh, t, t))
    return out


def add_display(
    body: mujoco.MjsBody, name: str, centre: list[float], glyphs: Glyphs = Glyphs()
) -> list[str]:
    """A dark panel facing the body's +x axis, its segments in front of it; returns the
    segment geoms' names (for the runtime to light)."""
    width = glyphs.positions * glyphs.pitch / 2 + 0.002
    height = 2 * glyphs.half_height + glyphs.thick + 0.008
    body.add_geom(
        name=f"{name}_panel",
        type=mujoco.mjtGeom.mjGEOM_BOX,
        pos=centre,
        size=[0.002, width, height],
        rgba=[0.05, 0.06, 0.06, 1.0],
        contype=0,
        conaffinity=0,
        mass=0,
        density=0,
    )
    names = []
    for k, (u, v, hu, hv) in enumerate(segment_offsets(glyphs)):
        geom = f"{name}_seg{k}"
        body.add_geom(
            name=geom,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            pos=[centre[0] + 0.0025, centre[1] + u, centre[2] + v],
            size=[0.0005, hu, hv],
            rgba=UNLIT,
            contype=0,
            conaffinity=0,
            mass=0,
            density=0,
        )
        names.append(geom)
    return names


def label_lit(text: str) -> list[bool]:
    """Which segments of a label's flag are lit for its text (left-aligned, blanks after)."""
    padded = [LABEL_GLYPHS.get(c, "") for c in text[:LABEL_MAX]]
    padded += [""] * (LABEL_MAX - len(padded))
    return [s in segs for segs in padded for s in SEGMENTS]


def label_codes(text: str) -> list[float]:
    """A label as an observation: its characters' code points, 0.0 after its end."""
    return [float(ord(c)) for c in text[:LABEL_MAX]] + [0.0] * (LABEL_MAX - len(text))


def temperature_tenths(celsius: float) -> int:
    """A thermometer's display in tenths of a degree (halves rounded up).

    >>> temperature_tenths(59.96), temperature_tenths(25.0), temperature_tenths(-0.04)
    (600, 250, 0)
    """
    return math.floor(celsius * 10 + 0.5)


@define
class Thermometers:
    """The hot plates' temperature displays: which segment geoms each lights, and the value
    (tenths of a degree) each shows. `update` lights them for the plates' temperatures;
    a display changes only when its shown value does."""

    segments: dict[str, tuple[int, ...]] = field(factory=dict)
    shown: dict[str, int] = field(factory=dict)

    @classmethod
    def of(cls, model: mujoco.MjModel, displays: Mapping[str, list[str]]) -> Thermometers:
        """The displays of the heaters that have one (a hot plate, a thermal block)."""
        return cls(
            {
                name: tuple(model.geom(g).id for g in geoms)
                for name, geoms in displays.items()
                if geoms
            }
        )

    def update(self, model: mujoco.MjModel, temperatures: Mapping[str, float]) -> None:
        for name, geoms in self.segments.items():
            tenths = temperature_tenths(temperatures[name])
            if self.shown.get(name) != tenths:
                self.shown[name] = tenths
                _light(model, geoms, tenths)

    def reading(self, name: str) -> float:
        """The displayed temperature, in degrees C."""
        return self.shown.get(name, 0) / 10


def _light(model: mujoco.MjModel, geoms: tuple[int, ...], tenths: int) -> None:
    _show(model, geoms, segments_lit(tenths))


def _show(model: mujoco.MjModel, geoms: tuple[int, ...], lit: list[bool]) -> None:
    for geom, on in zip(geoms, lit, strict=True):
        model.geom_rgba[geom] = LIT if on else UNLIT


@define
class Timers:
    """The bench timers' displays: 0.0 until the timer is started (its `start` button
    pressed, `started(timer)`), then the seconds since, in 0.1 s (truncated, as a timer
    counts), up to 999.9 s and dashes past it; a started timer keeps counting."""

    segments: dict[str, tuple[int, ...]] = field(factory=dict)
    started: dict[str, float] = field(factory=dict)  # timer -> simulated time it started
    shown: dict[str, int] = field(factory=dict)

    @classmethod
    def of(cls, model: mujoco.MjModel, displays: Mapping[str, list[str]]) -> Timers:
        timers = cls({n: tuple(model.geom(g).id for g in geoms) for n, geoms in displays.items()})
        for name, geoms in timers.segments.items():
            timers.shown[name] = 0
            _light(model, geoms, 0)
        return timers

    def update(self, model: mujoco.MjModel, now: float, running: set[str]) -> None:
        """Start the timers that were started this tick; light each for its count now."""
        for name, geoms in self.segments.items():
            if name in running:
                self.started.setdefault(name, now)
            tenths = self.tenths(name, now)
            if self.shown.get(name) != tenths:
                self.shown[name] = tenths
                _light(model, geoms, tenths)

    def tenths(self, name: str, now: float) -> int:
        """The count a timer shows at `now`, in tenths of a second."""
        start = self.started.get(name)
        return 0 if start is None else math.floor((now - start) * 10 + 1e-6)

    def reading(self, name: str) -> float:
        """The displayed time, in seconds."""
        return self.shown.get(name, 0) / 10

    def running(self, name: str) -> bool:
        return name in self.started


@define
class Labels:
    """The tubes' labels: the text each shows (`label:` in the scene, or what a branch's
    variation writes) and its flag's segment geoms."""

    segments: dict[str, tuple[int, ...]] = field(factory=dict)
    text: dict[str, str] = field(factory=dict)

    @classmethod
    def of(cls, model: mujoco.MjModel, labels: Mapping[str, tuple[str, list[str]]]) -> Labels:
        out = cls({n: tuple(model.geom(g).id for g in geoms) for n, (_, geoms) in labels.items()})
        for name, (text, _) in labels.items():
            out.write(model, name, text)
        return out

    def write(self, model: mujoco.MjModel, name: str, text: str) -> None:
        """Show `text` on a labelled tube's flag."""
        self.text[name] = text
        _show(model, self.segments[name], label_lit(text))
