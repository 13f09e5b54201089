"""Every script in `benchmarks/` runs: each one's `--smoke` mode (the same code paths at
the smallest sizes, one repetition, its own consistency checks included) exits 0 and
prints the figure lines it documents, so a benchmark that breaks fails CI instead of
waiting for the next person who runs it by hand (check_speed.py's 50k-line row crashed on
the token limit E0021 for two sessions and nobody noticed)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from attrs import frozen

ROOT = Path(__file__).resolve().parents[2]
# the check processes of check_speed.py's (b) and (d)
STARTUP_ROWS = (r"small\.lab \(3 backends\)", "protocol file", "10x example", "protocol, 2 errors")
BENCHMARKS = ROOT / "benchmarks"

NUM = r"-?\d[\d,]*(?:\.\d+)?"  # a printed figure: 12, 0.350, 20,000
TIMEOUT = 300.0  # seconds of wall time before a smoke run counts as hung (they take 1-10)


@frozen
class Smoke:
    """How a script's smoke run is checked: the regular expressions its output must
    match (each a figure line, with its number), the optional modules it needs (the
    test is skipped without them; CI installs every extra, so there it runs), extra
    arguments, and whether it is slow (several seconds: mostly Ray's or MuJoCo's
    start-up)."""

    figures: tuple[str, ...]
    needs: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    slow: bool = False


def _fuzz_line(command: str) -> str:
    return (
        rf"^{command} +inputs +2 +tracebacks +0 +E0000 +0 +hangs +0 +slowest +{NUM} s cpu "
        rf"+{NUM} s wall"
    )


SMOKES: dict[str, Smoke] = {
    "agent_loop.py": Smoke(
        (
            r"\(a\) check of tests/agents/tasks/mini_smart/truth\.lab \(\d+ lines\), median of 1:",
            rf"fresh `lablang check --json` process: +{NUM} ms",
            rf"`lablang serve` request: +{NUM} ms",
            rf"ratio fresh / serve: +{NUM}",
            rf"serve's first reply \(start-up included\): {NUM} ms = {NUM} x a fresh check",
            r"\(b\) bench libstruct --replay, \d+ tasks, \d+ replies \(a task's rounds, summed; median of 1 runs\):",
            rf"per task: {NUM} ms = {NUM} x a fresh check of the small file",
            rf"per reply \(.*\): {NUM} ms = {NUM} x a fresh check of the small file",
        ),
    ),
    "check_phases.py": Smoke(
        (
            rf"^phases of `lablang check examples/protocols/pcr_published\.lab`: {NUM} ms$",
            *(
                rf"^  {phase} +{NUM} ms$"
                for phase in ("start-up", "read", "parse", "resolve", "check")
            ),
            rf"^  lablang\.annealing run +{NUM} ms$",
            rf"^  imports, all phases +{NUM} ms$",
        ),
    ),
    "check_speed.py": Smoke(
        (
            r"^  the 50000-line program checks within the benchmark's limits$",
            *(
                rf"^ +{lines} lines: check {NUM} s, raw parse {NUM} s, ratio {NUM}, {NUM} us/line$"
                for lines in (200, 1000)
            ),
            rf"^  growth: us/line at 1k / us/line at 0\.2k = {NUM} \(1\.0 is linear\)$",
            *(
                rf"^  {row} +check {NUM} s, import lark {NUM} s, ratio {NUM} \(median of 1, alternated\)$"
                for row in STARTUP_ROWS
            ),
            *(
                rf"^  {row} +before {NUM}, after {NUM} \(x import lark {NUM} s; after/before "
                rf"{NUM}; median of 1, alternated\); CPU time: before {NUM}, after {NUM} "
                rf"\(x {NUM} s; after/before {NUM}\)$"
                for row in STARTUP_ROWS
            ),
        ),
        slow=True,
    ),
    "contracts.py": Smoke(
        (
            rf"^placement_recall full verify, depth 8 +{NUM} +{NUM} +\d+ +all pass$",
            rf"^centrifuge N=8 \(\d+ ground ops\) deadlock, depth 6 +{NUM} +{NUM} +\d+ +(proved|holds)$",
            rf"^centrifuge N=8 deadlock, depth 6, BMC only \(no induction\) +{NUM} +{NUM} +\d+ +holds$",
            rf"^centrifuge N=8 full verify, depth 6 +{NUM} +{NUM} +\d+ +all pass$",
            rf"^targets: slowest stdlib full verify {NUM} s .*; N=8 deadlock {NUM} s",
            rf"^all-params ring, N in 2\.\.8 with `N % 2 == 0` \(4 values\) vs N=8, depth 2: "
            rf"{NUM} s / {NUM} s = x{NUM} time, rlimit \d+ / \d+ = x{NUM}$",
            rf"^eventually `recorded` on feedback_weighing, 5 fair operations vs none, depth 2 "
            rf"\(bounded\): {NUM} s / {NUM} s = x{NUM} time, rlimit \d+ / \d+ = x{NUM}$",
            # the hostile case answers (exit code, not T/O) through both verbs
            rf"^nested exists over 0\.\.4095 \(x2\) verify +{NUM} +{NUM} +\d+ ",
            rf"^nested exists over 0\.\.4095 \(x2\) legal +{NUM} +{NUM} +\d+ ",
            rf"^2 random contracts in {NUM} s: .*'disagreed': 0",
        ),
        needs=("z3", "hypothesis"),
    ),
    "fuzz.py": Smoke(
        tuple(
            _fuzz_line(c)
            for c in (
                "check",
                "fmt",
                "export",
                "diff",
                "import",
                "import-seqspec",
                "score",
                "legal",
                "monitor",
                "grade",
                "replay",
            )
        ),
        args=("--out", "{tmp}"),
    ),
    "lsp.py": Smoke(
        (
            r"^file: \d+ lines, \d+ characters; 1 edits; target 300 ms",
            rf"^didChange -> first diagnostics \(fast path\) +median +{NUM} ms +max +{NUM} ms +median/target +{NUM}",
            rf"^didChange -> full-check diagnostics +median +{NUM} ms +max +{NUM} ms +median/target +{NUM}",
            rf"^in process, after an edit: full check {NUM} ms, reusing the unchanged declarations' trees {NUM} ms \({NUM}\)",
            rf"^in process: first full check {NUM} ms, fast path {NUM} ms \(fast/full {NUM}\)",
        ),
        needs=("pygls",),
    ),
    "molecular.py": Smoke(
        (
            rf"^ +4 states: molecular +{NUM} ms = +{NUM} ms/state \( *{NUM}% of check\)$",
            rf"^ +7 states: molecular +{NUM} ms = +{NUM} ms/state \( *{NUM}% of check\) +per-state growth x{NUM}$",
            rf"^ +100 states: molecular +{NUM} ms = +{NUM} ms/state \( *{NUM}% of check\) +per-state growth x{NUM}$",
            rf"^  \w+ +[1-9]\d* derived states: molecular +{NUM} ms = +{NUM} ms/state",
            rf"^  all +[1-9]\d* derived states: +{NUM} ms = +{NUM} ms/state",
            rf"^  \w+ +molecular +{NUM} ms +[1-9]\d* derived states +{NUM} ms/state +check +{NUM} ms",
            rf"^  whole atlas: 1 pages, molecular {NUM} ms .*, [1-9]\d* derived states",
            rf"^pydna, 2 PCRs, 2 digests and 2 ligations of two digest products in process: lablang's model over pydna, median x{NUM} \(PCR x{NUM}, digest x{NUM}, ligation x{NUM}; range x{NUM}-x{NUM}\); target median <= 2.0$",
        ),
        needs=("pydna",),
    ),
    "protocols.py": Smoke(
        (
            rf"^ +10 steps: diff +{NUM} ms, parse\+build +{NUM} ms, ratio {NUM}, 1 changes$",
            rf"^ +50 steps: diff +{NUM} ms, parse\+build +{NUM} ms, ratio {NUM}, 5 changes$",
            rf"^  growth: diff\(50\) / diff\(10\) = {NUM} \(linear = 5\)$",
            r"^\(b\) grading 3 protocols x 10 attempts x 20 items \(600 judgments\)$",
            rf"^  read\+validate {NUM} ms, grade \(.*100-resample bootstrap\) {NUM} ms, ratio {NUM}$",
            rf"^  mean {NUM}, CI \({NUM}, {NUM}\)$",
            r"^\(d\) the benchmark from files with answers: 8 tasks over 4 source protocols x 2 "
            r"attempts \(16 answer files\)$",
            rf"^  with answers {NUM} ms \({NUM} ms per task\); judged instead {NUM} ms "
            rf"\({NUM} ms per task\); answers {NUM} ms per answer file$",
            rf"^  same figures as judging the checked items: True; overall mean {NUM}$",
        ),
    ),
    "scale.py": Smoke(
        (
            *(
                rf"^{kind} x{jobs}: certify {NUM} instances/s, score {NUM} pairs/s, "
                r"identical to local x1: True$"
                for kind in ("local", "ray")
                for jobs in (1, 2)
            ),
            rf"^ray with 1 worker\(s\): start-up {NUM} s$",
            rf"^ray with 2 worker\(s\): start-up {NUM} s$",
            rf"^  overhead per unit \(`abs`, round trip\): {NUM} ms$",
            rf"^  ray x2: certify {NUM}x, score {NUM}x of local x1$",
        ),
        needs=("ray",),
        slow=True,
    ),
    "scoring.py": Smoke(
        (
            rf"^  seconds per pair: wall {NUM}, cpu {NUM}  \(target < 0\.050 cpu: (met|missed)\)$",
            rf"^  share in assignment: {NUM}%$",
            rf"^  cpu seconds per pair, grader's method only: {NUM} \(share in assignment {NUM}%\)$",
            rf"^  cpu seconds per pair, default route: {NUM} \(share in assignment {NUM}%; \d+ proven by scipy, \d+ by the grader's method\)$",
            rf"^  default / grader's-method-only cpu ratio: {NUM} \(median of 1 alternations; results identical\)$",
            rf"^  near the bound / realistic cpu ratio: {NUM}$",
            rf"^realistic pairs again, scipy loaded .*: cpu {NUM} per pair, .* ratio to the first run {NUM}$",
            rf"^tie-heavy pair at the bound \(200 identical states\): cpu {NUM} s, share in assignment {NUM}%",
        ),
    ),
    "demo_replay.py": Smoke(
        (
            rf"^move_tube +panda +: 1/1 exact, \d+ ticks, {NUM} s$",
            r"^replayed exactly, rewards and dones included: 2 of 2 demonstrations$",
        ),
        needs=("h5py", "mink"),
        slow=True,
    ),
    "suite.py": Smoke(
        (
            r"^suite: \d+ scenarios, \d+ tasks, \d+ held out, \d+ coordination$",
            *(
                rf"^  {family}: \d+ scenarios, \d+ tasks, \d+ held out, \d+ coordination$"
                for family in ("apparatus", "liquid handling")
            ),
            *(
                rf"^certify 2 tasks, 1 instance\(s\), {jobs} job\(s\), no mutants: {NUM} s, "
                rf"{NUM} instances/s, 2 certified, identical to 1 job: True$"
                for jobs in (1, 2)
            ),
            rf"^certify 1 tasks with mutants, 1 instance\(s\), 2 jobs: {NUM} s, \d+ mutants "
            r"run, \d+ killed, 1 certified$",
        ),
        needs=("mujoco", "mink"),
        slow=True,
    ),
    "simulation.py": Smoke(
        (
            rf"^  raw mj_step replaying the same inputs : +{NUM} steps/s",
            rf"^  lablang runtime running the program   : +{NUM} steps/s$",
            rf"^  runtime before the per-tick cuts      : +{NUM} steps/s",
            rf"^  runtime / raw                         : +{NUM}   \(target >= 0\.9\)$",
            rf"^  median paired runtime / raw, thread CPU time: +{NUM}$",
            rf"^  share of the runtime's wall time inside mj_step .*: {NUM}, before the cuts {NUM}$",
            rf"^  raw mj_step on the idle scene         : +{NUM} steps/s$",
            rf"^pick-and-place instance: median {NUM} s wall, best {NUM} s \({NUM} s simulated\)",
            *(
                rf"^evaluate {task} \(do nothing, {NUM} s episodes\): {NUM} episodes/min "
                rf"without the bound contract, {NUM} with, ratio {NUM}$"
                for task in ("weigh_30g", "load_pair")
            ),
            rf"^  scoring the expert's episode: {NUM}/s without the contract, {NUM}/s with, "
            rf"ratio {NUM}$",
            rf"^  lablang runtime \(skills \+ mink IK\)     : +{NUM} steps/s$",
            rf"^  share of the runtime's wall time inside mj_step: {NUM} ",
            rf"^  pick-and-place instance: median {NUM} s wall, best {NUM} s",
            rf"^PPO \(Stable-Baselines3\) on move_tube, panda, front\+wrist 64x64: {NUM} steps/s$",
            *(
                rf"^  frames/s, {robot} *: +{NUM} at 128x128, +{NUM} at 960x720$"
                for robot in ("gantry", "panda")
            ),
            *(
                rf"^  demonstrations/minute, {robot} *: +{NUM} with front\+wrist 128x128 images, +{NUM} without$"
                for robot in ("gantry", "panda")
            ),
            *(
                rf"^certify centrifuge_loading, 1 instances, {jobs} job\(s\): +{NUM} instances/s +\(success {NUM}%\)$"
                for jobs in (1, 2)
            ),
            rf"^certify centrifuge_loading, 1 instances, with and without mutants: {NUM} s / "
            rf"{NUM} s wall, ratio {NUM}; work ratio {NUM} \({NUM} mutants on 1 instance\(s\), "
            rf"{NUM} killed\)$",
        ),
        needs=("mujoco", "mink", "gymnasium_robotics", "h5py", "imageio"),
        slow=True,
    ),
}


def _scripts() -> list[str]:
    return sorted(p.name for p in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("script", _scripts())
def test_every_benchmark_script_has_a_smoke_run(script: str) -> None:
    """Each script in benchmarks/ has an entry in SMOKES, so a new benchmark cannot be
    left out of CI."""
    assert script in SMOKES, (
        f"benchmarks/{script} has no smoke run: give it a --smoke option (the same code "
        "paths at the smallest sizes, one repetition) and an entry in SMOKES"
    )


def _params() -> list[object]:
    return [
        pytest.param(name, marks=[pytest.mark.slow] if smoke.slow else [], id=name)
        for name, smoke in SMOKES.items()
    ]


@pytest.mark.parametrize("script", _params())
def test_smoke_run_exits_0_and_prints_its_figures(script: str, tmp_path: Path) -> None:
    """`python benchmarks/<script> --smoke` (from the repository root, with this
    interpreter) exits 0, its assertions and consistency checks included, and prints
    every figure line its entry names, each with its number."""
    smoke = SMOKES[script]
    for module in smoke.needs:
        pytest.importorskip(module, reason=f"benchmarks/{script} needs {module}")
    args = [a.replace("{tmp}", str(tmp_path)) for a in smoke.args]
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    try:
        done = subprocess.run(
            [sys.executable, str(BENCHMARKS / script), "--smoke", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=env,
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"benchmarks/{script} --smoke ran past {TIMEOUT:.0f} s: {hung.stdout!r}")
    shown = f"stdout:\n{done.stdout}\nstderr (end):\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"benchmarks/{script} --smoke exited {done.returncode}\n{shown}"
    missing = [f for f in smoke.figures if not re.search(f, done.stdout, re.MULTILINE)]
    assert not missing, f"benchmarks/{script} --smoke did not print {missing}\n{shown}"
