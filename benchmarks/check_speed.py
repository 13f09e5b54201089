"""How fast `lablang check` is, as ratios measured in one run (never absolute targets).

(a) full check time / raw Lark parse time of the same text, for generated programs of
    1k, 10k and 50k lines (target: <= 2.5 on 10k lines, cost growing linearly);
(b) process time of `lablang check small.lab` / process time of `python -c "import lark"`
    (target: <= 2.0), for the generated unit (three backends), a protocol file and the
    10x example: the two processes alternated, median of `--runs` (21) each.

Run: python benchmarks/check_speed.py [--repeat N] [--runs N] [--startup-only]
"""

from __future__ import annotations

import argparse
import compileall
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


def run_once(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=False, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


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


def startup(runs: int) -> None:
    # lark comes with compiled bytecode (pip compiles what it installs); so must lablang,
    # or each run recompiles it from source (e.g. with PYTHONDONTWRITEBYTECODE set)
    compileall.compile_dir(ROOT / "lablang", quiet=1)
    print("(b) `lablang check FILE` process / `python -c 'import lark'` process")
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "small.lab"
        small.write_text(UNIT.format(i=0))
        errors = Path(folder) / "errors.lab"
        errors.write_text(WITH_ERRORS)
        files = {"small.lab (3 backends)": small, **STARTUP_FILES, "protocol, 2 errors": errors}
        for label, path in files.items():
            check_args = [sys.executable, "-m", "lablang", "check", str(path)]
            check_time, lark_time = alternated_ratio(check_args, runs)
            print(
                f"  {label:<24} check {check_time:.3f} s, import lark {lark_time:.3f} s, "
                f"ratio {check_time / lark_time:.2f} (median of {runs}, alternated)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--startup-only", action="store_true")
    args = parser.parse_args()
    if args.startup_only:
        startup(args.runs)
        return
    raw = raw_parser()
    print("(a) full check / raw Lark parse of the same text")
    per_line = {}
    for lines in (1_000, 10_000, 50_000):
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
    print(
        f"  growth: us/line at 50k / us/line at 1k = {per_line[50_000] / per_line[1_000]:.2f} "
        "(1.0 is linear)"
    )
    startup(args.runs)


if __name__ == "__main__":
    main()
