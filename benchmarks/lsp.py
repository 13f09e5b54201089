"""Language server latency: from `didChange` to published diagnostics, 2,000-line file.

Run: `python benchmarks/lsp.py [--edits N]`. It starts `python -m lablang lsp`, opens a
generated 2,000-line file, then makes N edits in the middle of the file (each changes
its length) and times, for each, the first publication (the fast path of
`lablang.lsp.incremental`: changed declarations' syntax, earlier results kept for the
others) and the second (the full check, which parses again only the declarations that
changed: `lablang.syntax.reuse`). It prints both against the 300 ms target, and the
in-process times of a full check after an edit with and without the reused trees, and
of the fast path, all measured in this run. `--smoke` is `--lines 200 --edits 1`: the same
code paths in a few seconds (tests/core/test_benchmarks.py runs it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lablang.lsp.analysis import analyze  # noqa: E402
from lablang.lsp.client import LspClient  # noqa: E402
from lablang.lsp.incremental import ChunkCache, quick_diagnostics  # noqa: E402
from lablang.syntax.reuse import ParseCache  # noqa: E402

TARGET = 0.300


def program(lines: int) -> str:
    """A file of `lines` lines that checks clean: oligos, protocols and contracts."""
    parts: list[str] = []
    index = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(
            f'oligo p{index} "primer {index}" {{\n'
            f"  seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT [CB:16] [UMI:12] (T)30 VN-3'\n"
            f"  role: capture_primer\n"
            f"}}\n"
            f'protocol amp{index} "cDNA amplification" {{\n'
            f"  materials: [amp_mix]\n"
            f"  step mix {{ add: 50 uL of amp_mix  to: tube1 }}\n"
            f"  step cycle {{ thermocycle {{ 98 C for 3 min; repeat 11 {{ 98 C for 15 s; "
            f"63 C for 20 s; 72 C for 1 min }}; hold 4 C }} }}\n"
            f"}}\n"
            f"contract c{index}(N: 8) {{\n"
            f"  var a: slot?  var lid: bool\n"
            f"  op close requires not lid effect lid = true\n"
            f"  goal lid\n"
            f"}}\n"
        )
        index += 1
    return "".join(parts)


def edit(text: str, round_: int) -> str:
    """Change a volume in the middle of the file from 50 uL to 5, 500 or 5000 uL (in turn):
    each edit changes the text's length, so everything after it moves."""
    middle = text.index("add: 50 uL", len(text) // 2)
    volume = (5, 500, 5000)[round_ % 3]
    return text[:middle] + f"add: {volume} uL" + text[middle + len("add: 50 uL") :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="--lines 200 --edits 1")
    args = parser.parse_args()
    if args.smoke:
        args.lines, args.edits = 200, 1

    text = program(args.lines)
    lines = text.count("\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.lab"
        path.write_text(text, "utf-8")

        started = time.perf_counter()
        base = analyze(text, str(path))
        full_in_process = time.perf_counter() - started
        started = time.perf_counter()
        analyze(edit(text, 1), str(path))
        warm_full = time.perf_counter() - started
        parses = ParseCache()
        analyze(text, str(path), parses=parses)
        started = time.perf_counter()
        analyze(edit(text, 1), str(path), parses=parses)
        reusing = time.perf_counter() - started
        cache = ChunkCache()
        cache.warm()
        started = time.perf_counter()
        quick_diagnostics(edit(text, 1), str(path), base, cache)
        fast_in_process = time.perf_counter() - started

        client = LspClient(pythonpath=ROOT)
        client.initialize(Path(folder))
        uri = client.open(path, text)
        client.diagnostics(uri, version=1)
        firsts: list[float] = []
        fulls: list[float] = []
        for round_ in range(1, args.edits + 1):
            version = round_ + 1
            changed = edit(text, round_)
            started = time.perf_counter()
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": changed}],
                },
            )
            client.diagnostics(uri, version=version)
            firsts.append(time.perf_counter() - started)
            client.diagnostics(uri, version=version)
            fulls.append(time.perf_counter() - started)
        client.close()

    def row(label: str, seconds: list[float]) -> str:
        median = statistics.median(seconds)
        return (
            f"{label:<44} median {median * 1000:7.1f} ms  max {max(seconds) * 1000:7.1f} ms"
            f"  median/target {median / TARGET:5.2f}"
        )

    print(f"file: {lines} lines, {len(text)} characters; {args.edits} edits; target 300 ms")
    print(row("didChange -> first diagnostics (fast path)", firsts))
    print(row("didChange -> full-check diagnostics", fulls))
    print(
        f"in process, after an edit: full check {warm_full * 1000:.1f} ms, reusing the "
        f"unchanged declarations' trees {reusing * 1000:.1f} ms ({reusing / warm_full:.2f})"
    )
    print(
        f"in process: first full check {full_in_process * 1000:.1f} ms, "
        f"fast path {fast_in_process * 1000:.1f} ms "
        f"(fast/full {fast_in_process / full_in_process:.3f})"
    )


if __name__ == "__main__":
    main()
