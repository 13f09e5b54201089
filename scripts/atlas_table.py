"""The scg_lib_structs atlas: each page's status, and `docs/atlas.md` generated from it.

For every page extracted into `tests/data/atlas/<stem>.json` (by
`scripts/extract_atlas.py`) this finds `examples/atlas/<stem>.lab`, checks it, and
says for each library the page draws whether the atlas derives it (the interpreter's
library equals the page's on both strands), declares it partial with a reason, or has
not written it yet, with the operations its workflow uses.

    python scripts/atlas_table.py            # print the table
    python scripts/atlas_table.py --write    # rewrite docs/atlas.md
    python scripts/atlas_table.py --check    # exit 1 if docs/atlas.md is stale

`tests/molecular/test_atlas.py` runs the same functions.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from attrs import evolve, fields, frozen, has

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "atlas"
ATLAS = ROOT / "examples" / "atlas"
DOC = ROOT / "docs" / "atlas.md"
PREFIX = "scg_lib_structs:"
TOLERATED = frozenset({"W0406"})
BENCH = ROOT.parent.parent / "shared" / "data" / "libstruct_bench" / "protocols"

# libstruct-bench protocol -> (atlas page, library) whose exported library is its truth
BENCH_MAP: dict[str, tuple[str, str]] = {
    "10x-chromium-3prime-v1": ("10xChromium3v1", "gex_library"),
    "10x-chromium-3prime-v2": ("10xChromium3", "gex_v2_library"),
    "10x-chromium-3prime-v3": ("10xChromium3", "gex_v3_library"),
    "10x-chromium-3prime-v3.1": ("10xChromium3", "gex_v3_library"),
    "10x-chromium-3prime-v4": ("10xChromium3", "gex_v3_library"),
    "10x-chromium-5prime-v1": ("10xChromium5", "gex_v2_library"),
    "10x-chromium-5prime-v2": ("10xChromium5", "gex_v2_library"),
    "10x-chromium-5prime-v3": ("10xChromium5", "gex_v3_library"),
    "bd-rhapsody": ("BD_Rhapsody", "v1_library"),
    "drop-seq": ("Drop-seq", "dropseq_library"),
    "fipresci": ("FIPRESCI", "fipresci_library"),
    "hydrop-rna": ("HyDrop_RNA", "rna_library"),
    "mars-seq2": ("MARS-seq", "mars_library"),
    "microwell-seq": ("Microwell-seq", "microwell_library"),
    "pip-seq": ("PIP-seq", "pip_v2_library"),
    "quartz-seq2": ("Quartz-seq_family", "quartz2_library"),
    "seq-well-s3": ("SeqWell_S3", "seq_well_s3_library"),
    "sci-rna-seq3": ("sci-RNA-seq_family", "sci3_library"),
    "smart-seq2": ("SMART-seq_family", "ss2_library"),
    "split-seq": ("SPLiT-seq", "splitseq_library"),
    "strt-seq-2i": ("STRT-seq_family", "strt_seq_2i_library"),
    "surecell": ("SureCell", "surecell_library"),
    "tang2009": ("tang2009", "tang_2009_library"),
}
# the pages that draw no library and name no page of the collection that does, and why
NO_LIBRARY: dict[str, str] = {
    "CoBATCH": "no library drawn and no oligo listed: the page says CoBATCH uses "
    "sci-ATAC-seq's oligo design and steps (with protein A-Tn5) and sends the reader to the "
    "sci-ATAC-seq page, which is not in the collection",
    "Delley2021": "the page makes barcoded beads, not a library: three split-pool ligation "
    "rounds and the UMI-oligo-dT arm, ending in the bead oligo (bead synthesis is not "
    "derived; its 96 plain barcodes are in a linked file); it draws no final library",
    "snATAC-seq": "no library drawn and no oligo listed: the page says the steps are "
    "sci-ATAC-seq's (its page is not in the collection) with other 8-bp index PCR primers, "
    "which are in the paper's Supplementary Table 5",
}
# where a truth departs from the convention the others follow
BENCH_OPTIONS: dict[str, dict[str, bool]] = {"quartz-seq2": {"a_tail": False}}
# the other truths, and why their atlas library is not derived yet
BENCH_PENDING: dict[str, str] = {}


@frozen
class LibraryRow:
    """One library of an atlas file and what became of it."""

    name: str
    section: str  # the page's label for the drawn library it reproduces
    status: str  # derived | partial | differs | not derived
    operations: tuple[str, ...] = ()
    gap: str = ""  # the partial reason, or where the derived library differs


@frozen
class PageRow:
    stem: str
    title: str
    drawn: tuple[str, ...]  # "method: label" of every library the page draws
    libraries: tuple[LibraryRow, ...] = ()
    diagnostics: tuple[str, ...] = ()
    not_extracted: tuple[str, ...] = ()
    grader_warnings: int = 0  # W0406: roles the older Task 1 grader does not expand

    @property
    def unwritten(self) -> tuple[str, ...]:
        """Drawn libraries no library of the atlas file reproduces yet."""
        covered = {lib.section for lib in self.libraries}
        return tuple(label for label in self.drawn if label not in covered)

    @property
    def status(self) -> str:
        if not (ATLAS / f"{self.stem}.lab").is_file():
            return "not yet written" if self.drawn else "no library drawn"
        if self.diagnostics:
            return "does not check"
        states = {lib.status for lib in self.libraries}
        if not states:
            return "not yet written"
        if not states <= {"derived", "partial"}:
            return "differs"
        if not self.drawn:
            return "derived by reference" if states == {"derived"} else "partial by reference"
        if self.unwritten:
            return "in part written"
        return "derived" if states == {"derived"} else "partial"


def page_data(stem: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{stem}.json").read_text("utf-8"))
    return data


def drawn_libraries(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(section, drawn library) for every library the page draws; section is the label,
    prefixed by the method's name on a page with several methods."""
    many = len(data["methods"]) > 1
    for method in data["methods"]:
        for lib in method["libraries"]:
            label = lib["label"]
            yield (f"{method['name']}: {label}" if many and label != method["name"] else label), lib


def _doc_section(decl: Any) -> tuple[str | None, str | None]:
    """(page stem, section) of a declaration's first `source: doc("scg_lib_structs:STEM", ...)`."""
    docs = _doc_sections(decl)
    return docs[0] if docs else (None, None)


def _doc_sections(decl: Any) -> list[tuple[str, str | None]]:
    """(page stem, section) of every `doc("scg_lib_structs:STEM", section: ...)` it cites.

    A library of a page that draws no library of its own (it says "this part is made as
    on page X") cites its page first, then `X` with the section of X's drawn library."""
    from lablang import ast

    fields = {m.key: m.value for m in decl.body.members if isinstance(m, ast.Field)}
    value = fields.get("source")
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    out: list[tuple[str, str | None]] = []
    for item in items:
        if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.args:
            first = item.args[0].value
            if isinstance(first, ast.String) and first.value.startswith(PREFIX):
                section = next(
                    (
                        a.value.value
                        for a in item.args[1:]
                        if a.name == "section" and isinstance(a.value, ast.String)
                    ),
                    None,
                )
                out.append((first.value[len(PREFIX) :], section))
    return out


def _calls(node: Any) -> Iterator[str]:
    """The names of the operations a workflow calls (`x = op(...)`, `|> op`), in order."""
    from lablang import ast

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id != "doc":
        yield node.func.id
    if isinstance(node, ast.Binary) and node.op == "|>" and isinstance(node.right, ast.Name):
        yield from _calls(node.left)
        yield node.right.id
        return
    if has(type(node)):
        for field in fields(type(node)):
            yield from _calls(getattr(node, field.name))
    elif isinstance(node, tuple):
        for item in node:
            yield from _calls(item)


def _partial_reason(decl: Any) -> str | None:
    from lablang import ast

    for member in decl.body.members:
        if (
            isinstance(member, ast.Field)
            and member.key == "partial"
            and isinstance(member.value, ast.String)
        ):
            return member.value.value
    return None


def check_page(stem: str) -> PageRow:
    """Check `examples/atlas/<stem>.lab` and compare each of its libraries with the page."""
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.atlas import difference, drawing_errors
    from lablang.molecular.front import build_model

    data = page_data(stem)
    drawn = dict(drawn_libraries(data))
    row = PageRow(stem, data["title"], tuple(drawn), not_extracted=tuple(data["not_extracted"]))
    path = ATLAS / f"{stem}.lab"
    if not path.is_file():
        return row
    result = check_file(path)
    # W0406 (a role the older Task 1 grader does not expand) is not a fault of the page's
    # chemistry: several distinct barcodes need distinct roles, which the grader's fixed
    # list of role names cannot all carry. It is counted, not failed.
    diagnostics = tuple(f"{d.code} {d.message}" for d in result.report if d.code not in TOLERATED)
    grader = sum(1 for d in result.report if d.code == "W0406")
    built = build_model(result.program, Report())
    graphs = {g.name: g for g in built.model.graphs if g.derived}
    libraries = []
    decls = {d.name: d for d in result.program.root.module.decls if d.kind == "library"}
    for lib in built.model.libraries:
        decl = decls[lib.name]
        cited = _doc_sections(decl)
        section = (cited[0][1] if cited else None) or lib.title or lib.name
        target = drawn.get(section)
        elsewhere = [(page, sec) for page, sec in cited[1:] if page != stem and sec]
        if target is None and elsewhere:
            # made as the page says another page makes it: compare with that drawing
            page, sec = elsewhere[0]
            target = dict(drawn_libraries(page_data(page))).get(sec or "")
            section = f"as {page}: {sec}"
        workflow = (lib.source or "").split(".")[0]
        graph = graphs.get(workflow)
        wf_decl = result.program.root.decls.get(workflow)
        operations = tuple(dict.fromkeys(_calls(wf_decl))) if graph and wf_decl else ()
        reason = _partial_reason(decl)
        if reason is not None:
            libraries.append(LibraryRow(lib.name, section, "partial", operations, reason))
            continue
        pool = built.derived.get(lib.source or "")
        if pool is None or target is None:
            gap = "no derived workflow output" if pool is None else f"page draws no {section!r}"
            libraries.append(LibraryRow(lib.name, section, "not derived", operations, gap))
            continue
        problems = [difference(p.molecule, target) for p in pool.carried]
        if any(p is None for p in problems):
            slips = drawing_errors(target)
            note = f"the page's bottom strand does not pair at {', '.join(slips)}" if slips else ""
            libraries.append(LibraryRow(lib.name, section, "derived", operations, note))
        else:
            gap = (problems[0] if problems else None) or "the step carries no product"
            libraries.append(LibraryRow(lib.name, section, "differs", operations, gap))
    return evolve(row, libraries=tuple(libraries), diagnostics=diagnostics, grader_warnings=grader)


def bench_exports() -> dict[str, tuple[str, str]]:
    """protocol -> (the atlas library exported in libstruct-bench's older convention, its
    truth's `library_sequence`), for every mapped protocol whose truth is beside the repo."""
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.atlas import bench_sequence
    from lablang.molecular.front import build_model

    out: dict[str, tuple[str, str]] = {}
    built: dict[str, Any] = {}
    for protocol, (stem, library) in sorted(BENCH_MAP.items()):
        truth_file = BENCH / f"{protocol}.json"
        if not truth_file.is_file():
            continue
        if stem not in built:
            built[stem] = build_model(check_file(ATLAS / f"{stem}.lab").program, Report())
        lib = next(lib for lib in built[stem].model.libraries if lib.name == library)
        truth = json.loads(truth_file.read_text("utf-8"))["library_sequence"]
        out[protocol] = (bench_sequence(lib.seq, **BENCH_OPTIONS.get(protocol, {})), truth)
    return out


def stems() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.json"))


def rows() -> list[PageRow]:
    return [check_page(stem) for stem in stems()]


def render(pages: list[PageRow]) -> str:
    """`docs/atlas.md`: every page, its status, operations and gaps."""
    from lablang.molecular.atlas import BENCH_LETTERS, MIN_DROPPED_RUN

    counts: dict[str, int] = {}
    library_counts: dict[str, int] = {}
    for page in pages:
        counts[page.status] = counts.get(page.status, 0) + 1
        for lib in page.libraries:
            library_counts[lib.status] = library_counts.get(lib.status, 0) + 1
    drawn = sum(len(p.drawn) for p in pages)
    libraries = [lib for p in pages for lib in p.libraries]
    lines = [
        "# The scg_lib_structs atlas",
        "",
        "<!-- generated by `python scripts/atlas_table.py --write`; "
        "tests/molecular/test_atlas.py checks it is current -->",
        "",
        "`examples/atlas/<page>.lab` writes each method page of the public scg_lib_structs",
        "collection (Teichlab, commit 27a6ea9) as lablang: the page's oligos, and its steps",
        "as molecular operations, so the interpreter derives the final library. Each",
        "library names the page and the drawn library it reproduces with",
        '`source: doc("scg_lib_structs:<page>", section: "<label>")`. The expected',
        "structures were extracted from the pages by `scripts/extract_atlas.py` into",
        "`tests/data/atlas/`; a library is **derived** when the interpreter's library equals",
        "the page's on both strands (`lablang.molecular.atlas.difference`: bases, barcode",
        "and UMI lengths, payload, oligo-dT) and every read is primed on its template",
        "strand; **partial** when the file declares what it cannot derive, with the reason.",
        "",
        "Pages: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + ".",
        "Libraries: "
        + ", ".join(f"{n} {s}" for s, n in sorted(library_counts.items()))
        + f": the {drawn} final libraries the pages draw, and {len(libraries) - drawn} that"
        " pages make by another page's method (counted again on the page that refers).",
        "",
        "How a page is written:",
        "",
        '- oligos the page lists are declared with `source: doc("scg_lib_structs:<page>",',
        '  section: "<the page\'s name for it>")`; those two or more pages share come from the',
        "  stdlib (`stdlib/scg_lib_structs.lab` holds the ones the rest of the stdlib lacked),",
        "  and the Nextera transposons, drawn on most Tn5 pages but listed on none, from",
        "  `illumina`;",
        "- each workflow follows the page's numbered steps; a library is `from:` its output",
        "  and declares the page's reads (each primer must pair over its whole length with",
        "  its template strand);",
        '- a library that is not derived says so with `partial: "<what is missing>"` and',
        "  declares the page's drawing as its `seq`;",
        "- a page that draws no library of its own but says which method makes each part",
        '  (G&T-seq: "it uses the SMART-seq method") cites its page, then that method\'s page',
        "  and drawn library, which the derived library must equal (*by reference*);",
        "- bead synthesis (split-pool extension or ligation on beads) is not derived: a",
        "  workflow starts from the finished bead oligo the page lists;",
        "- a bottom-strand base the page draws unpaired with the base over it (a drawing",
        "  slip) is listed in the gap column; the top strand decides there.",
        "",
        "Atlas files check without errors or warnings but W0406 (a placeholder role",
        "LibStructBench's Task 1 grader does not expand, so it would be scored as literal",
        "text). A library with several distinct barcodes needs a distinct role for each, as",
        "a segment's identity is its role; each takes a role the grader expands, of the same",
        "meaning: a cell barcode's parts are `CELL_BARCODE`, `BEAD_BARCODE`, `CB` and",
        "`BARCODE` (BD, HyDrop, PIP-seq), SPLiT-seq's rounds `RT_BARCODE`, `LIGATION_BARCODE`",
        "and `LIGATION`, two transposons' barcodes `TN5_BARCODE` and `TN5_INDEX`, two random",
        "blocks `RANDOM` and `SPACER`; each file says so in a comment. "
        + f"{sum(p.grader_warnings for p in pages)} libraries still have W0406.",
        "",
        "Regenerate: `python scripts/extract_atlas.py` (the pages into `tests/data/atlas/`),",
        "`python scripts/atlas_table.py --write` (this file); timings:",
        "`python benchmarks/molecular.py --atlas`.",
        "",
        "| page | status | library (page label) | operations | gap |",
        "|---|---|---|---|---|",
    ]
    for page in pages:
        if not page.libraries:
            gap = NO_LIBRARY.get(page.stem) or "; ".join(page.not_extracted) or "-"
            drawn = ", ".join(page.drawn) or "(none drawn)"
            lines.append(f"| {page.stem} | {page.status} | {_cell(drawn)} | | {_cell(gap)} |")
            continue
        entries = [
            (f"{lib.section} ({lib.status})", ", ".join(lib.operations), lib.gap)
            for lib in page.libraries
        ] + [(f"{label} (not yet written)", "", "") for label in page.unwritten]
        for i, (label, operations, gap) in enumerate(entries):
            first = i == 0
            lines.append(
                f"| {page.stem if first else ''} | {page.status if first else ''} | "
                f"{_cell(label)} | {operations} | {_cell(gap) or '-'} |"
            )
    lines += [
        "",
        "## libstruct-bench truths",
        "",
        "The 23 public libstruct-bench ground truths (seqmachines/libstruct-bench, commit",
        "048e4c3) write a final library in an older Task 1 convention: one",
        "`library_sequence` string where a letter repeated stands for a variable segment",
        "and the insert is left out. `lablang.molecular.atlas.bench_sequence` exports an",
        "atlas library in that convention:",
        "",
        "- concrete bases as they are (ribo and LNA bases as their base; modifications",
        "  and thioates take no position);",
        "- a barcode, UMI or index as its letter, once per base, by role (first prefix",
        "  that matches): "
        + ", ".join(f"`{prefix or '(any other)'}` {letter}" for prefix, letter in BENCH_LETTERS)
        + ";",
        "- the insert (payloads), the oligo-dT or poly(A) beside it (a homopolymer, or",
        f"  {MIN_DROPPED_RUN} or more letters of one base) and the degenerate bases touching",
        "  them (an anchor's `VN`) left out; the A-tail base after the insert kept, except",
        "  for "
        + ", ".join(sorted(BENCH_OPTIONS))
        + ", whose truth leaves it out too (`a_tail=False`).",
        "",
        "`tests/molecular/test_atlas.py` checks that each mapped atlas library, exported so,",
        "equals its truth's `library_sequence` character for character.",
        "",
        "| libstruct-bench protocol | atlas page | library |",
        "|---|---|---|",
    ]
    for protocol, (stem, library) in sorted(BENCH_MAP.items()):
        lines.append(f"| {protocol} | {stem} | `{library}` |")
    if BENCH_PENDING:
        lines += ["", "Not mapped yet:", ""]
        lines += [f"- {protocol}: {why}" for protocol, why in sorted(BENCH_PENDING.items())]
    else:
        lines += ["", f"Every one of the {len(BENCH_MAP)} truths is mapped."]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="rewrite docs/atlas.md")
    parser.add_argument("--check", action="store_true", help="fail if docs/atlas.md is stale")
    args = parser.parse_args(argv)
    text = render(rows())
    if args.write:
        _write(DOC, text)
    elif args.check:
        current = DOC.read_text("utf-8") if DOC.is_file() else ""
        if current != text:
            print("docs/atlas.md is stale: run python scripts/atlas_table.py --write")
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
