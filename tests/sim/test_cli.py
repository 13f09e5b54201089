"""The `simulate` and `certify` verbs, run as their docstrings show."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

from lablang.cli import episodes as cli_episodes
from lablang.cli import sim as cli_sim


def _example(command) -> list[str]:  # type: ignore[no-untyped-def]
    match = re.search(r"Example: `lablang ([^`]*)`", command.help or "")
    assert match is not None
    # `lablang A && lablang B`: the last command is the verb's own
    return match.group(1).split(" && lablang ")[-1].split()


def _run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    root = Path.cwd()
    return subprocess.run(
        [sys.executable, "-m", "lablang", *args],
        capture_output=True,
        text=True,
        cwd=cwd or root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def test_simulate_docstring_example_passes_every_step() -> None:
    """The example in `simulate`'s help runs the centrifuge task to full credit (exit 0)."""
    out = _run(_example(cli_sim.simulate_command))
    assert out.returncode == 0, out.stderr
    assert [line.split()[1] for line in out.stdout.splitlines() if line.startswith("  passed")] == [
        "open",
        "place_A",
        "place_B",
        "close",
        "spin",
    ]


def test_simulate_render_writes_one_png_per_step_and_the_trace(tmp_path: Path) -> None:
    """`--render DIR` leaves a 960x720 PNG keyframe per step and trace.json with the digest."""
    out = _run(["simulate", "examples/tasks/move_tube.lab", "--render", str(tmp_path), "--json"])
    assert out.returncode == 0, out.stderr
    episode = json.loads(out.stdout)
    [png] = sorted(tmp_path.glob("*.png"))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (960, 720)
    assert (
        json.loads((tmp_path / "trace.json").read_text())["trace_digest"] == episode["trace_digest"]
    )
    assert episode["steps"][0]["keyframe"] == str(tmp_path / "00_move.png")


def test_certify_docstring_example_writes_a_certificate(tmp_path: Path) -> None:
    """The example in `certify`'s help certifies the weighing task and writes its JSON."""
    args = _example(cli_sim.certify_command)
    out = _run([a if not a.endswith(".lab") else str(Path.cwd() / a) for a in args], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    certificate = json.loads((tmp_path / "cert.json").read_text())
    assert certificate["certified"] and certificate["instances"] == 2
    assert certificate["steps"] == ["zero", "add_20", "add_10"]
    assert "\r" not in out.stderr and "certify weigh_30g" not in out.stderr  # a pipe: no bar


def test_a_file_with_errors_is_reported_not_simulated(tmp_path: Path) -> None:
    """A task file with diagnostics prints them and exits 1 without running MuJoCo."""
    bad = tmp_path / "bad.lab"
    bad.write_text(
        "scene s { tube: tube_15ml() on table at (0.2 m, 0 m) }\n"
        "task t in s { step a { do { pick(tube) } success: grasped(tube) } }\n"
    )
    out = _run(["simulate", str(bad)])
    assert out.returncode == 1
    assert "error[E0701]: unknown asset `tube_15ml`" in out.stderr


def test_replay_docstring_example_rescores_a_recorded_episode(tmp_path: Path) -> None:
    """The replay example, run after the simulate it names, re-scores identically (exit 0)."""
    root = Path.cwd()
    task = root / "examples/tasks/move_tube.lab"
    recorded = _run(["simulate", str(task), "--record", "episode.jsonl"], cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    out = _run(_example(cli_episodes.replay_command), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "re-scored identically" in out.stdout


def test_evaluate_docstring_example_reports_the_do_nothing_baseline() -> None:
    """`lablang evaluate` with the hold policy runs and scores zero credit."""
    out = _run(_example(cli_sim.evaluate_command))
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert results["mean_credit"] == 0.0 and results["step_pass_rates"] == {"move": 0.0}
    assert results["outcomes"][0]["time"] == 1.0
