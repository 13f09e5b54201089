"""`bench --agent` bounds what an agent can do to the harness: its output is read up to the
limit and cut (the round says so), output that is not UTF-8 is a failed round, and on the
time limit the agent is killed with every process it started (its own process group).

Bounds: a normal two-task replay run takes about 0.7 s of CPU and 72 MB resident; each
test allows 60 s of CPU and 512 MB of address space (an agent printing 200 MB once
peaked at 679 MB, buffered whole)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lablang.agent.bench import MAX_OUTPUT_BYTES
from tests.hostile.bounded import ROOT, Run, run_bounded

TASKS = ROOT / "tests" / "agents" / "tasks"
CPU_SECONDS = 60
MEMORY_MB = 512


def _bench(tmp_path: Path, agent: Path, *extra: str) -> tuple[Run, list[dict]]:
    out = tmp_path / "out"
    command = f"{sys.executable} {agent}"
    run = run_bounded(
        ["bench", "libstruct", "--tasks", str(TASKS), "--out", str(out), "--agent", command,
         "--rounds", "0", *extra],
        cpu_seconds=CPU_SECONDS,
        memory_mb=MEMORY_MB,
    )  # fmt: skip
    run.assert_clean()
    lines = (out / "rounds.jsonl").read_text().splitlines() if out.is_dir() else []
    return run, [json.loads(line) for line in lines]


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "agent.py"
    path.write_text(body)
    return path


def test_endless_output_is_cut_at_the_limit_and_the_round_says_so(tmp_path: Path) -> None:
    """An agent printing without end is read up to MAX_OUTPUT_BYTES; each round records the cut."""
    agent = _script(
        tmp_path,
        "import sys\nchunk = b'# ' + b'x' * 1022 + b'\\n'\nwhile True:\n"
        "    sys.stdout.buffer.write(chunk)\n",
    )
    run, rounds = _bench(tmp_path, agent)
    assert run.returncode == 0, run.output
    assert len(rounds) == 2
    for record in rounds:
        assert record["detail"] == f"output cut at {MAX_OUTPUT_BYTES} bytes"
        assert record["status"] in ("clean", "errors")


def test_output_that_is_not_utf8_is_a_failed_round(tmp_path: Path) -> None:
    """Invalid UTF-8 on stdout gives every task a `failed` round naming the byte, no traceback."""
    agent = _script(tmp_path, "import sys\nsys.stdout.buffer.write(b'oligo a \\xff\\xfe {}')\n")
    run, rounds = _bench(tmp_path, agent)
    assert run.returncode == 0, run.output
    assert [(r["status"], r["metrics"]["reward"]) for r in rounds] == [("failed", 0.0)] * 2
    assert rounds[0]["detail"] == "output is not UTF-8: byte 8 is b'\\xff'"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_timed_out_agent_is_killed_with_its_children(tmp_path: Path) -> None:
    """On `--timeout` the agent's child is killed too: nothing it started outlives the run."""
    pids = tmp_path / "pids"
    pids.mkdir()
    agent = _script(
        tmp_path,
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open(os.path.join({str(pids)!r}, str(child.pid)), 'w').close()\n"
        "time.sleep(60)\n",
    )
    run, rounds = _bench(tmp_path, agent, "--timeout", "2")
    assert run.returncode == 0, run.output
    assert [r["status"] for r in rounds] == ["timeout", "timeout"]
    children = [int(p.name) for p in pids.iterdir()]
    assert len(children) == 2
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in children)


def test_an_agent_that_answers_leaves_no_process_behind(tmp_path: Path) -> None:
    """A background process an answering agent started is killed once the agent exits."""
    pids = tmp_path / "pids"
    pids.mkdir()
    answer = (ROOT / "tests" / "agents" / "replay" / "mini_lig" / "round_1.lab").read_text()
    agent = _script(
        tmp_path,
        "import os, subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " stdout=subprocess.DEVNULL)\n"
        f"open(os.path.join({str(pids)!r}, str(child.pid)), 'w').close()\n"
        f"sys.stdout.write({answer!r})\n",
    )
    run, rounds = _bench(tmp_path, agent)
    assert run.returncode == 0, run.output
    assert all(r["status"] in ("clean", "errors") and r["detail"] == "" for r in rounds)
    children = [int(p.name) for p in pids.iterdir()]
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children and not any(_alive(pid) for pid in children)
