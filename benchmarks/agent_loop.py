"""What an agent loop pays for lablang, as ratios measured in one run.

(a) per-request latency: one `check` request answered by a running `lablang serve`
    against one fresh `lablang check --json` process on the same file (median of N
    each, alternated); also the serve process's first reply (start-up included);
(b) harness overhead: `lablang bench libstruct --replay` on the test task folders (an
    agent that costs nothing), time per task and per reply (one round of one task), against one fresh `lablang
    check` process.

Run: python benchmarks/agent_loop.py [--repeat N] [--file FILE]. `--smoke`: the small
file only, one request of each kind and one bench run (tests/core/test_benchmarks.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def fresh_check(path: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lablang", "check", "--json", str(path)],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    seconds = time.perf_counter() - start
    try:  # a process that crashed is not a check to time
        json.loads(done.stdout)
    except ValueError:
        raise SystemExit(
            f"`lablang check --json {path}` printed no JSON: {done.stderr!r}"
        ) from None
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--file", type=Path, action="append", help="(repeatable)")
    parser.add_argument(
        "--smoke", action="store_true", help="the small file, --repeat 1, one bench run"
    )
    args = parser.parse_args()
    files = args.file or [
        ROOT / "tests" / "agents" / "tasks" / "mini_smart" / "truth.lab",
        ROOT / "examples" / "tenx_3p_v3.lab",
    ]
    if args.smoke:
        files, args.repeat = files[:1], 1
    fresh_times = [latency(path.resolve(), args.repeat) for path in files]
    harness(min(fresh_times), runs=1 if args.smoke else max(3, args.repeat // 5))


def latency(path: Path, repeat: int) -> float:
    """(a) for one file; returns the median fresh-process time."""
    text = path.read_text("utf-8")
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "lablang", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert server.stdin is not None and server.stdout is not None

    def request(number: int) -> float:
        begin = time.perf_counter()
        message = {"id": number, "method": "check", "params": {"path": str(path)}}
        server.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        reply = json.loads(server.stdout.readline())  # type: ignore[union-attr]
        assert reply["id"] == number and "result" in reply, reply
        return time.perf_counter() - begin

    request(0)
    first = time.perf_counter() - start
    served, fresh = [], []
    for i in range(repeat):
        served.append(request(i + 1))
        fresh.append(fresh_check(path))
    server.stdin.write(json.dumps({"id": "end", "method": "shutdown"}) + "\n")
    server.stdin.flush()
    server.wait(timeout=30)
    s, f = statistics.median(served), statistics.median(fresh)
    lines = len(text.splitlines())
    print(f"(a) check of {path.relative_to(ROOT)} ({lines} lines), median of {repeat}:")
    print(f"    fresh `lablang check --json` process: {f * 1000:.1f} ms")
    print(f"    `lablang serve` request:              {s * 1000:.1f} ms")
    print(f"    ratio fresh / serve:                  {f / s:.1f}")
    print(
        f"    serve's first reply (start-up included): {first * 1000:.1f} ms = {first / f:.2f} x a fresh check"
    )
    return f


def harness(f: float, runs: int) -> None:
    """(b), median of `runs`, against the fresh-process time `f` of the smaller file."""
    from lablang.agent.bench import ReplayAgent, run_bench

    tasks = ROOT / "tests" / "agents" / "tasks"
    replay = ROOT / "tests" / "agents" / "replay"
    timings = []
    rounds = 0
    count = 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as out:
            begin = time.perf_counter()
            result = run_bench(tasks, Path(out), ReplayAgent(replay), repairs=3)
            timings.append(time.perf_counter() - begin)
            rounds = len(result.rounds)
            count = len({r.task for r in result.rounds})
    total = statistics.median(timings)
    per_task, per_round = total / count, total / rounds
    print(
        f"(b) bench libstruct --replay, {count} tasks, {rounds} replies (a task's rounds, summed; median of {len(timings)} runs):"
    )
    print(
        f"    per task: {per_task * 1000:.1f} ms = {per_task / f:.2f} x a fresh check of the small file"
    )
    print(
        f"    per reply (prompt, check, fixes, T1-T3 export, scoring, records): {per_round * 1000:.1f} ms = {per_round / f:.2f} x a fresh check of the small file"
    )


if __name__ == "__main__":
    main()
