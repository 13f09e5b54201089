"""Render every reference-protocol example to SVG pictures under examples/pictures/.

For each `examples/<protocol>.lab`: `<protocol>.library.svg` (the final library, both
strands, read arrows; `<protocol>.<library>.library.svg` when it declares several) and `<protocol>.workflow.svg` (the derived workflow graph).
`python scripts/render_pictures.py` rewrites them; `--check` exits 1 if any is stale.
Each file is written atomically (a temporary file in the same folder, then os.replace).
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

from lablang.diagnostics import Report  # noqa: E402
from lablang.driver import check_file  # noqa: E402
from lablang.molecular.draw import library_svg, workflow_svg  # noqa: E402
from lablang.molecular.front import build_model  # noqa: E402

EXAMPLES = ROOT / "examples"
PICTURES = EXAMPLES / "pictures"
PROTOCOLS = (
    "tenx_3p_v3",
    "tenx_scatac",
    "drop_seq",
    "smart_seq2",
    "smart_seq3",
    "sci_rna_seq",
    "split_seq",
)


def pictures() -> dict[str, str]:
    """File name -> SVG text for every example's library and derived workflow."""
    out: dict[str, str] = {}
    for protocol in PROTOCOLS:
        result = check_file(EXAMPLES / f"{protocol}.lab")
        model = build_model(result.program, Report()).model
        oligos = {o.name: o for o in model.oligos}
        for library in model.libraries:
            stem = protocol if len(model.libraries) == 1 else f"{protocol}.{library.name}"
            out[f"{stem}.library.svg"] = library_svg(library, oligos)
        graph = next(g for g in model.graphs if g.derived)
        out[f"{protocol}.workflow.svg"] = workflow_svg(graph, oligos)
    return out


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a picture is stale")
    args = parser.parse_args(argv)
    PICTURES.mkdir(exist_ok=True)
    stale = []
    for name, text in pictures().items():
        path = PICTURES / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            _write(path, text)
    if args.check and stale:
        print("stale: " + ", ".join(stale))
        return 1
    print(f"{len(stale)} picture(s) {'stale' if args.check else 'written'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
