"""Write examples/answers/<protocol>.lab: each example's derived workflow as a declared
LibStructBench answer (explicit states and transitions).

The same as running, per example,
    lablang export examples/P.lab --to libstruct-t2 > t2.json
    lablang export examples/P.lab --to libstruct-t3 > t3.json
    lablang import t2.json t3.json --name P_answer -o examples/answers/P.lab
with a header comment added. tests/library/test_protocols.py scores each answer against
the derived workflow. `--check` exits 1 if an answer differs from what this writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lablang.driver import check_file  # noqa: E402
from lablang.molecular import export_libstruct, import_libstruct  # noqa: E402

PROTOCOLS = (
    "tenx_3p_v3",
    "tenx_scatac",
    "drop_seq",
    "smart_seq2",
    "smart_seq3",
    "sci_rna_seq",
    "split_seq",
)
HEADER = """\
# Declared answer for ../{p}.lab in LibStructBench style: the oligos (Task 2) and every
# molecular state and transition (Task 3) written out explicitly, products carried or
# discarded as the interpreter derives them, drawn by the benchmark's state-modelling
# rules (lablang/molecular/workflow_export.py). Written by scripts/make_answers.py
# (`lablang export --to libstruct-t2/-t3`, then `lablang import`); do not edit by hand.
# tests/library/test_protocols.py scores it against the derived workflow (reward 1.0).
"""


def answer(protocol: str) -> str:
    result = check_file(ROOT / "examples" / f"{protocol}.lab")
    t2 = export_libstruct(result.program, "t2")
    t3 = export_libstruct(result.program, "t3")
    if protocol == "tenx_3p_v3":  # its declared graph would be exported: take the derived
        from lablang.diagnostics import Report
        from lablang.molecular.front import build_model
        from lablang.molecular.libstruct import workflow_record

        model = build_model(result.program, Report()).model
        t3["workflows"] = [workflow_record(g) for g in model.graphs if g.derived]
    return HEADER.format(p=protocol) + import_libstruct({**t2, **t3}, name=f"{protocol}_answer")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if an answer is stale")
    args = parser.parse_args(argv)
    stale = []
    for protocol in PROTOCOLS:
        path = ROOT / "examples" / "answers" / f"{protocol}.lab"
        text = answer(protocol)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(protocol)
        if not args.check:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
    print(f"{len(stale)} answer(s) {'stale' if args.check else 'written'}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
