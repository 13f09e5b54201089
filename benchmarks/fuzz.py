"""Fuzz `lablang check` with as many mutated inputs as asked (outside CI).

Each input is an example (tests/data, examples/) with 1-3 random edits (cut, duplicate,
delete, insert a token of the language, reverse a slice, or a token soup). An input that
produces an internal error (E0000) or a Python exception is saved under fuzz-failures/.

Run: python benchmarks/fuzz.py --count 100000 [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lablang.driver import check_text  # noqa: E402
from tests.core.mutations import mutate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    seeds = [p.read_text("utf-8") for p in sorted((ROOT / "tests" / "data").glob("*.lab"))]
    seeds += [p.read_text("utf-8") for p in sorted((ROOT / "examples").rglob("*.lab"))]
    rng = random.Random(args.seed)
    failures = 0
    out = ROOT / "fuzz-failures"
    start = time.perf_counter()
    for index in range(args.count):
        text = rng.choice(seeds)
        for _ in range(rng.randrange(1, 4)):
            text = mutate(text, rng)
        try:
            result = check_text(text, "fuzz.lab")
            bad = any(d.code == "E0000" for d in result.report)
        except Exception:  # a crash the driver did not catch is the worst failure
            bad = True
        if bad:
            failures += 1
            out.mkdir(exist_ok=True)
            (out / f"case-{args.seed}-{index}.lab").write_text(text, "utf-8", errors="replace")
        if (index + 1) % 10_000 == 0:
            print(
                f"{index + 1} inputs, {failures} failures, {time.perf_counter() - start:.0f} s",
                flush=True,
            )
    print(f"done: {args.count} inputs, {failures} failures, {time.perf_counter() - start:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
