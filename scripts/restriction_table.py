"""Write `lablang/molecular/ops/rebase.py`: REBASE's commercially available restriction
enzymes, from Biopython's `Bio.Restriction`, as the table `digest` reads.

    python scripts/restriction_table.py            # rewrite the module
    python scripts/restriction_table.py --check    # exit 1 if the module is stale

Run once when Biopython (pinned in the `test` extra) moves to a newer REBASE release:
`check` never imports Biopython (about 0.3-0.9 s), it reads the generated table.
`tests/molecular/test_restriction_table.py` regenerates the text and compares.

Kept: every enzyme of `Bio.Restriction.CommOnly` that cuts once on each strand at a
known position, on DNA, at a site of at least 4 bases. Left out, each with its reason
in the module: enzymes that cut on both sides of their site (BaeI, BcgI...), enzymes
whose cut is not known, and modification-dependent ones (AbaSI's one-base `C`).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "lablang" / "molecular" / "ops" / "rebase.py"


def table_text(date: str) -> str:
    """The module's text for the installed Biopython."""
    import Bio
    import Bio.Restriction as restriction
    from Bio.Restriction import CommOnly
    from Bio.Restriction.Restriction_Dictionary import __doc__ as rebase_doc

    release = next(
        (line.strip() for line in (rebase_doc or "").splitlines() if "REBASE" in line), ""
    )
    release = release.removeprefix("Used ").rstrip(".")  # "REBASE emboss files version 404 (2024)"
    kept: list[str] = []
    left_out: dict[str, list[str]] = {"cuts twice": [], "cut unknown": [], "not a DNA site": []}
    for enzyme in sorted(CommOnly, key=str):
        name = str(enzyme)
        info = restriction.Restriction_Dictionary.rest_dict[name]
        if enzyme.cut_twice():
            left_out["cuts twice"].append(name)
        elif enzyme.fst5 is None or enzyme.is_unknown():
            left_out["cut unknown"].append(name)
        elif info["substrat"] != "DNA" or enzyme.size < 4:
            left_out["not a DNA site"].append(name)
        else:
            # Biopython: fst5 from the site's start on the top strand, fst3 from its end on
            # the bottom strand (negative: inside the site); both in top-strand positions here
            top, bottom = enzyme.fst5, enzyme.size + enzyme.fst3
            kept.append(f'    "{name}": ("{enzyme.site}", {top}, {bottom}),')
    lines = [
        '"""Restriction enzymes of REBASE\'s commercially available set: generated, do not edit.',
        "",
        f"Written by scripts/restriction_table.py on {date} from Biopython {Bio.__version__}'s",
        f"`Bio.Restriction` ({release}), its `CommOnly` set: {len(kept)} enzymes.",
        "Each is (site 5'->3' on the top strand, IUPAC codes allowed; top cut; bottom cut),",
        "the cuts counted in bases from the site's 5' start on the top strand's coordinates.",
        "REBASE (rebase.neb.com, New England Biolabs) distributes its data freely; Biopython",
        "is under the Biopython License Agreement (BSD-style). Left out:",
    ]
    for reason, names in left_out.items():
        if names:
            lines.append(f"{reason}: {', '.join(names)}.")
    lines += [
        '"""',
        "",
        f'REBASE_RELEASE = "{release}"',
        "",
        "REBASE: dict[str, tuple[str, int, int]] = {",
        *kept,
        "}  # fmt: skip",
        "",
    ]
    return "\n".join(lines)


def _date_of(text: str) -> str | None:
    marker = "scripts/restriction_table.py on "
    at = text.find(marker)
    return text[at + len(marker) : at + len(marker) + 10] if at >= 0 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the module is stale")
    args = parser.parse_args(argv)
    current = TARGET.read_text("utf-8") if TARGET.exists() else ""
    if args.check:
        # the table, not the date it was written, must match
        return 0 if table_text(_date_of(current) or "") == current else 1
    TARGET.write_text(table_text(datetime.date.today().isoformat()), "utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
