"""Small behaviours of simulate and certify: `success: true`, a faulted step's times,
rounded credit, the certify summary for faults, no progress bar into a non-terminal,
keyframes without marker spheres."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from lablang.cli.sim import certify_command, certify_summary, simulate_command
from lablang.sim import certify_task
from lablang.sim.episode import run_episode
from lablang.sim.runtime import Runtime

SCENE = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[0]
}
"""

TRUE_SPEC = SCENE + "task t in s { step a { do { wait(0.2 s) } success: true } }"

# five steps, the second of which never holds: credit 1/5 per instance
FIFTH = (
    SCENE
    + """task t in s {
  step a { do { wait(0.1 s) } success: true }
  step b { do { wait(0.1 s) } success: false within 0.1 s }
  step c { do { wait(0.1 s) } success: true }
  step d { do { wait(0.1 s) } success: true }
  step e { do { wait(0.1 s) } success: true }
}"""
)


def test_a_step_whose_success_is_true_passes_once_its_program_ran(task_from) -> None:
    """`success: true` is accepted by the front end and passes the step (was E0708)."""
    result = run_episode(task_from(TRUE_SPEC), 0)
    assert result.succeeded and result.steps[0].end >= 0.5


def test_a_faulted_step_keeps_its_start_and_the_time_of_the_fault(task_from, monkeypatch) -> None:
    """A fault at about 1 s into a step reports the step's start and the fault's time, not
    `0.00 s -> 0.00 s`."""
    original = Runtime.tick

    def tick(self: Runtime) -> None:
        original(self)
        if abs(self.time - 1.3) < 1e-9:
            self.data.qvel[self.model.joint("tube_free").dofadr[0] + 2] = 500.0

    monkeypatch.setattr(Runtime, "tick", tick)
    result = run_episode(task_from(SCENE + "task t in s { step a { do { wait(3 s) } } }"), 0)
    step = result.steps[0]
    assert step.status == "fault"
    assert step.start == pytest.approx(0.3) and step.end == pytest.approx(1.32)


def test_credit_is_rounded_in_certificates_and_episode_json(task_from) -> None:
    """Three instances at credit 1/5 give a mean credit of 0.2, not 0.20000000000000004."""
    certificate = certify_task(task_from(FIFTH), instances=3, seed=0)
    assert certificate["mean_credit"] == 0.2
    assert json.dumps(certificate["mean_credit"]) == "0.2"


def test_certify_summary_says_faulted_when_every_instance_faulted() -> None:
    """When every instance faulted the summary says so instead of `0% succeeded`."""
    certificate = {
        "instances": 3,
        "success_rate": 0.0,
        "faults": [{}, {}, {}],
        "failures": [],
        "step_pass_rates": {"a": 0.0},
    }
    line = certify_summary("t", certificate)
    assert "3 of 3 instances faulted" in line and "succeeded" not in line
    mixed = dict(certificate, faults=[{}], success_rate=1 / 3)
    assert (
        certify_summary("t", mixed) == "t: 1 of 3 instances succeeded, 1 failed, 1 faulted (a 0%)"
    )


def test_certify_writes_no_carriage_return_progress_into_a_non_terminal(tmp_path) -> None:
    """With stderr not a terminal, `certify` writes no `\\r` progress bar into it (the
    `success: true` task succeeds on both instances and, vacuous, is not certified: exit 1)."""
    lab = tmp_path / "t.lab"
    lab.write_text(TRUE_SPEC, encoding="utf-8")
    out = tmp_path / "cert.json"
    result = CliRunner().invoke(
        certify_command, [str(lab), "--instances", "2", "--out", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 1 and "success by luck: `a`'s spec already held" in result.output
    assert "\r" not in result.output and "2 of 2 instances succeeded" in result.output


def test_keyframes_hide_the_marker_sites(tmp_path, task_from) -> None:
    """A keyframe of an empty table shows no grey marker sphere at the table's centre: the
    centre pixel column is the table's colour, the same as next to it."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    import numpy as np

    from lablang.sim.episode import _Keyframes

    task = task_from("scene s { } task t in s { step a { do { wait(0.1 s) } success: true } }")
    from lablang.sim.build import compile_scene

    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    rt.reset({})
    frames = _Keyframes(rt, tmp_path)
    site = rt.data.site("table_top").xpos.copy()
    frames.save(0, "a")
    frames.close()
    pixels = _read_png(tmp_path / "00_a.png")
    # project the site into the overview camera and compare it with a patch beside it
    cam = rt.data.camera("overview")
    rel = cam.xmat.reshape(3, 3).T @ (site - cam.xpos)
    fovy = np.radians(rt.model.cam_fovy[rt.model.camera("overview").id])
    h, w, _ = pixels.shape
    f = (h / 2) / np.tan(fovy / 2)
    u, v = int(w / 2 + f * rel[0] / -rel[2]), int(h / 2 - f * rel[1] / -rel[2])
    centre = pixels[v - 1 : v + 2, u - 1 : u + 2].reshape(-1, 3).astype(int)
    beside = pixels[v - 1 : v + 2, u + 20 : u + 23].reshape(-1, 3).astype(int)
    assert np.abs(centre.mean(axis=0) - beside.mean(axis=0)).max() < 12


def _read_png(path):
    import struct
    import zlib

    import numpy as np

    data = path.read_bytes()
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    rows = [raw[r * (3 * width + 1) + 1 : (r + 1) * (3 * width + 1)] for r in range(height)]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width, 3)


def test_simulate_prints_the_credit_with_two_decimals(tmp_path) -> None:
    """`simulate` prints `credit 0.20` for a five-step task that passes one step."""
    lab = tmp_path / "t.lab"
    lab.write_text(FIFTH, encoding="utf-8")
    result = CliRunner().invoke(simulate_command, [str(lab)], catch_exceptions=False)
    assert result.exit_code == 1 and "credit 0.20," in result.output


def test_transparent_containers_show_their_liquid_level(make_runtime) -> None:
    """A beaker's liquid is drawn as a level of V / (pi r^2) that neither collides nor
    weighs; an empty beaker shows none, and adding liquid raises the level."""
    import math

    rt = make_runtime(
        """
scene s {
  b: beaker(capacity: 100 mL, contents: 60 mL of water) on table at (0.25 m, 0.0 m)
  e: beaker(capacity: 100 mL) on table at (0.35 m, 0.0 m)
}
task t in s { step a { do { wait(0.1 s) } success: true } }
"""
    )
    m = rt.model
    full, empty = rt.level_geoms["b"], rt.level_geoms["e"]
    radius = float(m.geom_size[full, 0])
    assert 2 * float(m.geom_size[full, 1]) == pytest.approx(60e-6 / (math.pi * radius**2))
    assert m.geom_rgba[full, 3] > 0 and m.geom_rgba[empty, 3] == 0
    assert m.geom_contype[full] == m.geom_conaffinity[full] == 0
    body = m.geom_bodyid[full]
    assert m.body_mass[body] == pytest.approx(rt.infos["b"].base_mass + 0.06)
    before = float(m.geom_size[full, 1])
    rt.add_contents("b", "water", 10e-6)
    assert float(m.geom_size[full, 1]) > before
