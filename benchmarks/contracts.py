"""Contract verification speed: full verify of each stdlib contract at depth 8, and the
centrifuge with N = 8, 16, 32 slots at depth 12 (deadlock and full verify).

Run: `python benchmarks/contracts.py`. Prints wall seconds and Z3 rlimit units (the
deterministic cost measure); targets: each stdlib contract's full verify < 2 s, the
N = 32 deadlock check < 2 s. Times are also printed relative to the fastest run of the
table, since absolute seconds depend on the machine and its load.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lablang.contracts.checks import DEFAULT_RLIMIT, bmc, check_deadlock, verify  # noqa: E402
from lablang.contracts.front import compile_contracts  # noqa: E402
from lablang.contracts.model import Contract, ground  # noqa: E402
from lablang.diagnostics import Report  # noqa: E402
from lablang.source import Source  # noqa: E402
from lablang.syntax import parse  # noqa: E402

STDLIB = ROOT / "stdlib" / "contracts"


def load(path: Path, params: dict[str, int] | None = None) -> Contract:
    source = Source(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    report = Report()
    contracts = compile_contracts(parse(source, report), source, report, params)
    if report.has_errors or len(contracts) != 1:
        raise SystemExit(f"cannot compile {path}: {[d.message for d in report]}")
    return contracts[0]


def timed(run):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def main() -> None:
    rows: list[tuple[str, float, int, str]] = []
    for path in sorted(STDLIB.glob("*.lab")):
        contract = load(path)
        seconds, results = timed(lambda c=contract: verify(c, 8, DEFAULT_RLIMIT))
        ok = all(r.passed for r in results)
        rows.append(
            (
                f"{path.stem} full verify, depth 8",
                seconds,
                sum(r.rlimit for r in results),
                "all pass" if ok else "FAILED",
            )
        )
    for n in (8, 16, 32):
        contract = load(STDLIB / "centrifuge.lab", {"N": n})
        ops = len(ground(contract))
        seconds, result = timed(lambda c=contract: check_deadlock(c, 12, DEFAULT_RLIMIT))
        rows.append(
            (
                f"centrifuge N={n} ({ops} ground ops) deadlock, depth 12",
                seconds,
                result.rlimit,
                result.status,
            )
        )
        seconds, (result,) = timed(
            lambda c=contract: bmc(c, 12, DEFAULT_RLIMIT, frozenset({"deadlock"}), induction=False)
        )
        rows.append(
            (
                f"centrifuge N={n} deadlock, depth 12, BMC only (no induction)",
                seconds,
                result.rlimit,
                result.status,
            )
        )
        seconds, results = timed(lambda c=contract: verify(c, 12, DEFAULT_RLIMIT))
        rows.append(
            (
                f"centrifuge N={n} full verify, depth 12",
                seconds,
                sum(r.rlimit for r in results),
                "all pass" if all(r.passed for r in results) else "FAILED",
            )
        )
    fastest = min(r[1] for r in rows)
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'seconds':>8}  {'x fastest':>9}  {'rlimit':>11}  result")
    for name, seconds, rlimit, result in rows:
        print(f"{name:<{width}}  {seconds:8.3f}  {seconds / fastest:9.1f}  {rlimit:11d}  {result}")
    stdlib_max = max(r[1] for r in rows if "full verify, depth 8" in r[0])
    n32 = next(
        r[1]
        for r in rows
        if r[0].startswith("centrifuge N=32") and r[0].endswith("deadlock, depth 12")
    )
    print(
        f"targets: slowest stdlib full verify {stdlib_max:.2f} s (< 2 s: "
        f"{'met' if stdlib_max < 2 else 'NOT met'}); N=32 deadlock {n32:.2f} s (< 2 s: "
        f"{'met' if n32 < 2 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
