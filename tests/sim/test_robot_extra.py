"""Without the `robot` extra the core still works, and what needs the extra says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BLOCK = (
    "import sys\n"
    "for name in ('gymnasium', 'gymnasium_robotics', 'mink', 'h5py', 'imageio'):\n"
    "    sys.modules[name] = None  # as if not installed: importing it fails\n"
)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code],
        capture_output=True,
        text=True,
        cwd=Path.cwd(),
        timeout=300,
    )


def test_core_simulates_on_the_gantry_without_the_robot_extra() -> None:
    """With gymnasium, mink, h5py and imageio unavailable, the gantry still simulates a task."""
    out = _run(
        "from lablang.sim import load_tasks, simulate_task\n"
        "tasks, _ = load_tasks('examples/tasks/move_tube.lab')\n"
        "print(simulate_task(tasks['move_tube'], 1).succeeded)\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_panda_and_gymnasium_without_the_extra_name_it() -> None:
    """A Panda run and `make_env` fail with messages naming `lablang[robot]`, no traceback
    from the CLI (exit 2)."""
    out = _run(
        "from lablang.sim import load_tasks, simulate_task, make_env\n"
        "from lablang.sim.robots import with_robot\n"
        "tasks, _ = load_tasks('examples/tasks/move_tube.lab')\n"
        "for attempt in (lambda: simulate_task(with_robot(tasks['move_tube'], 'panda'), 1),\n"
        "                lambda: make_env(tasks['move_tube'])):\n"
        "    try:\n"
        "        attempt()\n"
        "    except Exception as error:\n"
        "        print(type(error).__name__, error)\n"
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and all("lablang[robot]" in line for line in lines), lines
    cli = _run(
        "from lablang.cli import main\n"
        "main(['simulate', 'examples/tasks/move_tube.lab', '--robot', 'panda'])\n"
    )
    assert cli.returncode == 2 and "lablang[robot]" in cli.stderr
    assert "Traceback" not in cli.stderr
