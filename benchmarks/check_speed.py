"""How fast `lablang check` is, as ratios measured in one run (never absolute targets).

(a) full check time / raw Lark parse time of the same text, for generated programs of
    1k, 10k and 50k lines (target: <= 2.5 on 10k lines, cost growing linearly);
(b) process time of `lablang check small.lab` / process time of `python -c "import lark"`
    (target: <= 2.0).

Run: python benchmarks/check_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lablang.driver import check_text  # noqa: E402
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


def best(function, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def process_time(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=False, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    raw = raw_parser()
    print("(a) full check / raw Lark parse of the same text")
    per_line = {}
    for lines in (1_000, 10_000, 50_000):
        text = program(lines)
        result = check_text(text)
        assert result.ok, [d.message for d in result.report][:3]
        raw_time = best(lambda t=text: raw.parse(t), args.repeat)
        full_time = best(lambda t=text: check_text(t), args.repeat)
        per_line[lines] = full_time / lines
        print(
            f"  {lines:>6} lines: check {full_time:.3f} s, raw parse {raw_time:.3f} s, "
            f"ratio {full_time / raw_time:.2f}, {1e6 * full_time / lines:.1f} us/line"
        )
    print(
        f"  growth: us/line at 50k / us/line at 1k = {per_line[50_000] / per_line[1_000]:.2f} "
        "(1.0 is linear)"
    )
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "small.lab"
        small.write_text(UNIT.format(i=0))
        check_args = [sys.executable, "-m", "lablang", "check", str(small)]
        subprocess.run(check_args, check=False, capture_output=True, cwd=ROOT)  # warm the cache
        repeat = max(5, args.repeat * 3)
        lark_time = process_time([sys.executable, "-c", "import lark"], repeat)
        check_time = process_time(check_args, repeat)
    print("(b) `lablang check small.lab` process / `python -c 'import lark'` process")
    print(
        f"  check {check_time:.3f} s, import lark {lark_time:.3f} s, ratio {check_time / lark_time:.2f}"
    )


if __name__ == "__main__":
    main()
