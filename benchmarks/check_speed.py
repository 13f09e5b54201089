"""How fast `lablang check` is, as ratios measured in one run (never absolute targets).

(a) full check time / raw Lark parse time of the same text, for generated programs of
    1k, 10k and 50k lines (target: <= 2.5 on 10k lines, cost growing linearly);
(b) process time of `lablang check small.lab` / process time of `python -c "import lark"`
    (target: <= 2.0), for the generated unit (three backends), a protocol file and the
    10x example: the two processes alternated, median of `--runs` (21) each;
(c) with `--phases`: where each of those check processes spends its time, as fractions of
    the whole process (interpreter start, imports by package, read, parse, resolve, check,
    each backend's import and run, rendering, exit), each file checked in `--runs` fresh
    processes by `benchmarks/check_phases.py`, medians.

(d) with `--against TREE` (another checkout of lablang, e.g. a worktree of the commit before
    a change): (b)'s check processes of this tree and of TREE, alternated with each other
    and with `import lark` in one run, each tree on its own `PYTHONPATH`, so a change's
    start-up cost is a before/after pair of ratios taken under the same load; the same
    ratios of the processes' CPU time (user and system) follow, which a loaded machine
    disturbs far less than wall time (waiting for a core is not in them).

Run: python benchmarks/check_speed.py [--repeat N] [--runs N] [--startup-only] [--phases]
[--against TREE] [--smoke]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lablang.driver import check_source  # noqa: E402
from lablang.limits import Limits  # noqa: E402
from lablang.source import Source  # noqa: E402
from lablang.syntax.grammar import raw_parser  # noqa: E402

UNIT = """\
segment CB_{i} = barcode(16, onlist: "3M-february-2018")
segment UMI_{i} = umi(12)
oligo bead_{i} "Gel bead oligo {i}" {{
  seq: 5'-/5Biosg/CTACACGACGCTCTTCCGATCT {{CB_{i}}} {{UMI_{i}}} (T)30 VN-3'
  role: capture_primer  # one comment per unit
  source: doc("CG000204", page: 12, section: "2.1")
  support: explicit
}}
protocol amp_{i} "cDNA amplification {i}" {{
  materials: [amp_mix]
  step mix {{ add: 50 uL of amp_mix  to: tube1 }}
  step cycle {{
    thermocycle {{ 98 C for 3 min; repeat 11 {{ 98 C for 15 s; 63 C for 20 s; 72 C for 1 min }}; hold 4 C }}
  }}
}}
contract centrifuge_{i}(N: 8) {{
  var a: slot?  var b: slot?  var lid: bool
  balanced: a != none and b == (a + N / 2) % N
  op place_b(k: slot) requires a != none and b == none and k == (a + N / 2) % N effect b = k
  goal lid and b == (a + N / 2) % N
  invariant lid -> balanced
}}
"""


def program(lines: int) -> str:
    chunks, i = [], 0
    while sum(c.count("\n") for c in chunks) < lines:
        chunks.append(UNIT.format(i=i))
        i += 1
    return "".join(chunks)


# the 50k-line program has ~190k tokens, past the default 150k-token limit (E0021): the
# benchmark measures speed, so it raises the limits as a user with a big file would
BIG = Limits(max_tokens=2_000_000, max_file_bytes=16 * 1024 * 1024)


def check_big(text: str):  # type: ignore[no-untyped-def]
    return check_source(Source(text, "<benchmark>"), limits=BIG)


def best(function, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def run_once(args: list[str], env: dict[str, str] | None = None) -> float:
    return run_timed(args, env)[0]


def run_timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """One process's wall time and CPU time (user and system, from its resource usage):
    on a loaded machine the wall time includes waiting for a core, the CPU time hardly."""
    start = time.perf_counter()
    child = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped here: Popen must not wait for it again
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def alternated_ratio(check_args: list[str], runs: int) -> tuple[float, float]:
    """Median check and import-lark process times, the two runs alternated."""
    lark_args = [sys.executable, "-c", "import lark"]
    run_once(check_args)  # warm the parser cache and the file system
    checks, larks = [], []
    for _ in range(runs):
        larks.append(run_once(lark_args))
        checks.append(run_once(check_args))
    return statistics.median(checks), statistics.median(larks)


STARTUP_FILES = {
    "protocol file": ROOT / "examples" / "protocols" / "pcr_published.lab",
    "10x example": ROOT / "examples" / "tenx_3p_v3.lab",
}


# a protocol with two mistakes: the diagnostics registry is read too
WITH_ERRORS = """\
protocol p "with errors" {
  step a { add: 50 uL of mix to: tube1 }
  step b { wait 1 parsec }
}
"""


def startup_files(folder: Path) -> dict[str, Path]:
    """The files whose check processes (b) and (c) measure, generated ones written to `folder`."""
    # lark comes with compiled bytecode (pip compiles what it installs); so must lablang,
    # or each run recompiles it from source (e.g. with PYTHONDONTWRITEBYTECODE set)
    compileall.compile_dir(ROOT / "lablang", quiet=1)
    small = folder / "small.lab"
    small.write_text(UNIT.format(i=0))
    errors = folder / "errors.lab"
    errors.write_text(WITH_ERRORS)
    return {"small.lab (3 backends)": small, **STARTUP_FILES, "protocol, 2 errors": errors}


def startup(runs: int) -> None:
    print("(b) `lablang check FILE` process / `python -c 'import lark'` process")
    with tempfile.TemporaryDirectory() as folder:
        for label, path in startup_files(Path(folder)).items():
            check_args = [sys.executable, "-m", "lablang", "check", str(path)]
            check_time, lark_time = alternated_ratio(check_args, runs)
            print(
                f"  {label:<24} check {check_time:.3f} s, import lark {lark_time:.3f} s, "
                f"ratio {check_time / lark_time:.2f} (median of {runs}, alternated)"
            )


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes `python -m lablang` import the checkout at `tree`, run
    from this tree's folder: `PYTHONSAFEPATH` keeps `-m` from putting the working folder
    (this tree) on `sys.path` before `PYTHONPATH` (without it, both sides of (d) were
    this tree)."""
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}


def against(other: Path, runs: int) -> None:
    """(d): this tree's and `other`'s check processes, alternated with `import lark`."""
    compileall.compile_dir(other / "lablang", quiet=1)
    print(f"(d) check process / import-lark process: this tree (after) and {other} (before)")
    lark_args = [sys.executable, "-c", "import lark"]
    with tempfile.TemporaryDirectory() as folder:
        for label, path in startup_files(Path(folder)).items():
            check_args = [sys.executable, "-m", "lablang", "check", str(path)]
            envs = {"after": tree_env(ROOT), "before": tree_env(other)}
            for env in envs.values():
                run_once(check_args, env)  # warm each tree's parser cache
            times: dict[str, list[tuple[float, float]]] = {"lark": [], "after": [], "before": []}
            for _ in range(runs):
                times["lark"].append(run_timed(lark_args))
                for name, env in envs.items():
                    times[name].append(run_timed(check_args, env))
            wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
            cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
            lark, after, before = wall["lark"], wall["after"], wall["before"]
            print(
                f"  {label:<24} before {before / lark:.2f}, after {after / lark:.2f} "
                f"(x import lark {lark:.3f} s; after/before {after / before:.2f}; "
                f"median of {runs}, alternated); CPU time: before "
                f"{cpu['before'] / cpu['lark']:.2f}, after {cpu['after'] / cpu['lark']:.2f} "
                f"(x {cpu['lark']:.3f} s; after/before {cpu['after'] / cpu['before']:.2f})"
            )


PHASES_CHILD = ROOT / "benchmarks" / "check_phases.py"
STAGES = ("read", "parse", "resolve", "check")  # the driver's stages the child must see


def package(module: str) -> str:
    """What the phases table groups a module's import under."""
    top = module.partition(".")[0]
    if top == "lablang":
        return ".".join(module.split(".")[:2])
    if top in ("attr", "attrs"):
        return "attrs"
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "stdlib"
    return top


def phases_once(path: Path, out: Path) -> tuple[float, dict[str, float], list[list]]:
    """One fresh timed check process: its whole time, its phases, its imports (seconds)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(PHASES_CHILD), str(out), str(path)],
        check=False,
        capture_output=True,
        cwd=ROOT,
    )
    end = time.perf_counter()
    child = json.loads(out.read_text("utf-8"))
    missing = [stage for stage in STAGES if stage not in child["seen"]]
    if missing:  # the driver changed: the child's timers must follow it
        raise SystemExit(f"check_phases.py saw no {missing} phase: update its timers")
    times = {"python start": child["begin"] - start, "exit": end - child["end"]}
    times.update(child["phases"])
    return end - start, times, child["imports"]


def _same_output(path: Path, out: Path) -> None:
    """The timed child prints and exits exactly as `python -m lablang check FILE`."""
    runs = [
        subprocess.run(args, check=False, capture_output=True, cwd=ROOT)
        for args in (
            [sys.executable, "-m", "lablang", "check", str(path)],
            [sys.executable, str(PHASES_CHILD), str(out), str(path)],
        )
    ]
    plain, timed = ((r.returncode, r.stdout, r.stderr) for r in runs)
    if plain != timed:
        raise SystemExit(f"the timed check of {path} differs from `lablang check`: {timed}")


class Shares:
    """Per key, its fraction of the whole process in each run (0 in runs without it)."""

    def __init__(self) -> None:
        self.runs = 0
        self.values: dict[object, list[float]] = {}

    def add(self, run: dict[object, float], whole: float) -> None:
        for key in {*self.values, *run}:
            self.values.setdefault(key, [0.0] * self.runs).append(run.get(key, 0.0) / whole)
        self.runs += 1

    def median(self, key: object) -> float:
        return statistics.median(self.values.get(key, [0.0]))

    def top(self, keys: list, count: int) -> str:
        best = sorted(keys, key=lambda k: -self.median(k))[:count]
        return ", ".join(
            f"{k[-1] if isinstance(k, tuple) else k} {self.median(k):.3f}" for k in best
        )


def _ordered(phases: list) -> list:
    first = ["python start", "start-up", "driver and CLI glue", *STAGES]
    last = ["render", "exit"]
    backends = sorted(p for p in phases if p not in first and p not in last)
    return [p for p in [*first, *backends, *last] if p in phases]


PHASES_LEGEND = """\
  python start: from spawning to the child's first line (interpreter, site); start-up: the
  CLI until `check_paths` runs; driver and CLI glue: `check_paths` outside the stages (the
  driver's imports, report sorting, writing); each stage and backend as the driver calls
  it; exit: from the last line to the parent seeing the process end. `imports` is the
  share of a phase spent importing modules (each module's own time, by package)."""


def _flattened(times: dict[str, float], imports: list[list]) -> dict[object, float]:
    """One run's seconds by key: each phase, (phase, "imports"), (phase, package),
    ("package", package) and ("module", module)."""
    run: dict[object, float] = dict(times)
    for phase, module, took in imports:
        group = package(module)
        for key in ((phase, "imports"), (phase, group), ("package", group), ("module", module)):
            run[key] = run.get(key, 0.0) + took
    return run


def phases(runs: int) -> None:
    print(
        "(c) where a `lablang check FILE` process spends its time: fractions of the whole "
        f"process, medians of {runs} fresh processes (benchmarks/check_phases.py)"
    )
    print(PHASES_LEGEND)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "phases.json"
        for label, path in startup_files(Path(folder)).items():
            _same_output(path, out)
            phases_once(path, out)  # warm the file system
            wholes, shares = [], Shares()
            for _ in range(runs):
                whole, times, imports = phases_once(path, out)
                wholes.append(whole)
                shares.add(_flattened(times, imports), whole)
            keys = list(shares.values)
            tuples = [k for k in keys if isinstance(k, tuple)]
            print(f"  {label}: whole process {statistics.median(wholes):.3f} s")
            for phase in _ordered([k for k in keys if isinstance(k, str)]):
                detail = ""
                if (phase, "imports") in shares.values:
                    packages = [k for k in tuples if k[0] == phase and k[1] != "imports"]
                    imported = shares.median((phase, "imports"))
                    detail = f"  imports {imported:.3f}: {shares.top(packages, 5)}"
                print(f"    {phase:<32} {shares.median(phase):.3f}{detail}")
            print(
                "    imports by package: "
                + shares.top([k for k in tuples if k[0] == "package"], 10)
            )
            print(
                "    slowest modules:    " + shares.top([k for k in tuples if k[0] == "module"], 10)
            )


SIZES = (1_000, 10_000, 50_000)  # lines of the generated programs of (a)
SMOKE_SIZES = (200, 1_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--startup-only", action="store_true")
    parser.add_argument("--phases", action="store_true", help="only (c): each phase's share")
    parser.add_argument(
        "--against", type=Path, help="(d) only: another checkout's check processes, alternated"
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the same code paths at the smallest sizes, one repetition (the full run's "
        "largest program is still checked within the limits it is timed with)",
    )
    args = parser.parse_args()
    sizes = SIZES
    if args.smoke:
        args.repeat, args.runs, sizes = 1, 1, SMOKE_SIZES
        largest = check_big(program(SIZES[-1]))
        assert largest.ok, [d.message for d in largest.report][:3]
        print(f"  the {SIZES[-1]}-line program checks within the benchmark's limits")
    if args.against is not None:
        against(args.against.resolve(), args.runs)
        return
    if args.phases:
        phases(args.runs)
        return
    if args.startup_only:
        startup(args.runs)
        return
    raw = raw_parser()
    print("(a) full check / raw Lark parse of the same text")
    per_line = {}
    for lines in sizes:
        text = program(lines)
        result = check_big(text)
        assert result.ok, [d.message for d in result.report][:3]
        raw_time = best(lambda t=text: raw.parse(t), args.repeat)
        full_time = best(lambda t=text: check_big(t), args.repeat)
        per_line[lines] = full_time / lines
        print(
            f"  {lines:>6} lines: check {full_time:.3f} s, raw parse {raw_time:.3f} s, "
            f"ratio {full_time / raw_time:.2f}, {1e6 * full_time / lines:.1f} us/line"
        )
    first, last = sizes[0], sizes[-1]
    print(
        f"  growth: us/line at {last // 1000}k / us/line at {first / 1000:g}k = "
        f"{per_line[last] / per_line[first]:.2f} (1.0 is linear)"
    )
    startup(args.runs)
    if args.smoke:
        against(ROOT, args.runs)  # (d)'s code path, this tree against itself


if __name__ == "__main__":
    main()
