"""The scg_lib_structs atlas: every page's file checks clean and derives the page's library.

`examples/atlas/<page>.lab` writes a method page's oligos and steps; the expected
libraries were extracted from the pages into `tests/data/atlas/` by
`scripts/extract_atlas.py`, so these tests do not need the pages.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ATLAS = ROOT / "examples" / "atlas"
DATA = ROOT / "tests" / "data" / "atlas"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _script("atlas_table")
FILES = sorted(p.stem for p in ATLAS.glob("*.lab"))


@pytest.mark.parametrize("stem", FILES)
def test_atlas_file_checks_clean_and_derives_the_page_library(stem: str) -> None:
    """Every atlas file checks without a diagnostic, and each library not marked partial
    is derived and equals the library its page draws, on both strands."""
    row = TABLE.check_page(stem)
    assert row.diagnostics == ()
    assert row.libraries, f"{stem}.lab declares no library"
    for lib in row.libraries:
        assert lib.status in ("derived", "partial"), f"{lib.name}: {lib.status}: {lib.gap}"
        if lib.status == "partial":
            assert lib.gap.strip(), f"{lib.name} is partial without a reason"


@pytest.mark.parametrize("stem", FILES)
def test_atlas_file_names_its_page(stem: str) -> None:
    """Each atlas file has a page in the extracted data, and every library and workflow
    names that page with `source: doc("scg_lib_structs:<stem>", ...)`."""
    from lablang.diagnostics import Report
    from lablang.source import Source
    from lablang.syntax import parse

    assert (DATA / f"{stem}.json").is_file()
    path = ATLAS / f"{stem}.lab"
    module = parse(Source(path.read_text("utf-8"), str(path)), Report())
    decls = [d for d in module.decls if d.kind in ("library", "workflow")]
    assert decls
    for decl in decls:
        page, _ = TABLE._doc_section(decl)
        assert page == stem, f"{decl.kind} {decl.name} names page {page!r}"


def test_each_library_reproduces_a_different_drawn_library() -> None:
    """No two libraries of one atlas file claim the same drawn library of the page."""
    for stem in FILES:
        sections = [lib.section for lib in TABLE.check_page(stem).libraries]
        assert len(sections) == len(set(sections)), stem


def test_every_page_without_a_library_or_atlas_file_says_why() -> None:
    """A page that draws no library and has no atlas file has its own reason in
    `NO_LIBRARY` (what the page gives instead), and no other page has one."""
    silent = {
        stem
        for stem in TABLE.stems()
        if not dict(TABLE.drawn_libraries(TABLE.page_data(stem)))
        and not (TABLE.ATLAS / f"{stem}.lab").is_file()
    }
    assert silent == set(TABLE.NO_LIBRARY)


def test_docs_atlas_table_is_current() -> None:
    """docs/atlas.md is what `python scripts/atlas_table.py --write` writes now."""
    assert (ROOT / "docs" / "atlas.md").read_text("utf-8") == TABLE.render(TABLE.rows())


def test_extracted_pages_are_what_the_extractor_writes(tmp_path: Path) -> None:
    """The test data equals a fresh extraction when the pages are beside the repo."""
    extractor = _script("extract_atlas")
    if not extractor.DEFAULT_PAGES.is_dir():
        pytest.skip("scg_lib_structs pages not beside the repo")
    assert extractor.main([str(extractor.DEFAULT_PAGES), "-o", str(tmp_path)]) == 0
    fresh = sorted(p.name for p in tmp_path.glob("*.json"))
    assert fresh == sorted(p.name for p in DATA.glob("*.json"))
    for name in fresh:
        assert json.loads((tmp_path / name).read_text()) == json.loads((DATA / name).read_text())


@pytest.mark.skipif(not TABLE.BENCH.is_dir(), reason="libstruct-bench truths not beside the repo")
def test_atlas_libraries_exported_equal_the_libstruct_bench_truths() -> None:
    """Each mapped atlas library, exported in libstruct-bench's older convention, equals
    that protocol's public truth, and every truth is either mapped or listed as pending."""
    exports = TABLE.bench_exports()
    assert set(exports) == set(TABLE.BENCH_MAP)
    for protocol, (exported, truth) in exports.items():
        assert exported == truth, protocol
    truths = {p.stem for p in TABLE.BENCH.glob("*.json")}
    assert truths == set(TABLE.BENCH_MAP) | set(TABLE.BENCH_PENDING)


def _drawn(top: list[tuple[str, str]], bottom: list[tuple[str, str]]) -> dict[str, object]:
    def strand(runs: list[tuple[str, str]]) -> dict[str, object]:
        return {"segments": [{"tag": t, "text": x} for t, x in runs]}

    return {"label": "test", "top": strand(top), "bottom": strand(bottom)}


def _duplex(text: str):  # type: ignore[no-untyped-def]
    from lablang.molecular.molecule import Duplex
    from lablang.molecular.sequence import parse_notation

    return Duplex(core=parse_notation(text))


DRAWN_10X = _drawn(
    [("p5", "AATG"), ("cbc", "NNNN"), ("umi", "NNN"), ("", "(dT)VXXX...XXXA"), ("s7", "GATC")],
    [("p5", "TTAC"), ("cbc", "NNNN"), ("umi", "NNN"), ("", "(pA)BXXX...XXXT"), ("s7", "CTAG")],
)


def test_a_library_equal_to_the_drawing_on_both_strands_has_no_difference() -> None:
    """Barcode and UMI lengths, an oligo-dT of any length and an anchor's N inside the
    insert all read as the page draws them."""
    from lablang.molecular.atlas import difference

    lib = _duplex("5'-AATG [CELL_BARCODE:4] [UMI:3] (T)30 VN [CDNA] AGATC-3'")
    assert difference(lib, DRAWN_10X) is None


def test_a_umi_of_the_wrong_length_is_a_difference() -> None:
    """A UMI one base longer than drawn is reported on the top strand."""
    from lablang.molecular.atlas import difference

    lib = _duplex("5'-AATG [CELL_BARCODE:4] [UMI:4] (T)30 VN [CDNA] AGATC-3'")
    assert (difference(lib, DRAWN_10X) or "").startswith("top strand")


def test_n_drawn_as_a_cell_barcode_is_not_a_umi() -> None:
    """N positions the page tags `cbc` cannot be realised by a UMI, nor `umi` by a barcode."""
    from lablang.molecular.atlas import difference

    lib = _duplex("5'-AATG [UMI:4] [CELL_BARCODE:3] (T)30 VN [CDNA] AGATC-3'")
    assert difference(lib, DRAWN_10X) is not None


def test_a_bottom_strand_that_is_not_the_drawn_one_is_a_difference() -> None:
    """A single-stranded overhang changes the bottom strand while the top still matches."""
    from lablang.molecular.atlas import difference
    from lablang.molecular.molecule import Duplex, End
    from lablang.molecular.sequence import bases, parse_notation

    core = parse_notation("5'-AATG [CELL_BARCODE:4] [UMI:3] (T)30 VN [CDNA] AGATC-3'")
    lib = Duplex(core=core, right=End(bottom=bases("GG")))
    assert (difference(lib, DRAWN_10X) or "").startswith("bottom strand")


def test_a_bottom_base_the_page_draws_unpaired_is_reported_and_the_top_decides() -> None:
    """A page drawing S under W is a drawing slip: listed, and the top strand decides."""
    from lablang.molecular.atlas import difference, drawing_errors

    drawn = _drawn([("", "ACWWG")], [("", "TGSSC")])
    assert drawing_errors(drawn) == ["position 2: S drawn under W", "position 3: S drawn under W"]
    assert difference(_duplex("5'-ACWWG-3'"), drawn) is None


def test_bench_export_writes_letters_and_leaves_out_the_insert_and_oligo_dt() -> None:
    """The older libstruct-bench convention: B/U/I letters, no cDNA, no oligo-dT, no VN."""
    from lablang.molecular.atlas import bench_sequence
    from lablang.molecular.sequence import parse_notation

    seq = parse_notation(
        "5'-AC [CELL_BARCODE:2] [UMI:3] TTTTTTTTTT VN [CDNA] A GT [I7_INDEX:2] CA-3'"
    )
    assert bench_sequence(seq) == "ACBBUUUAGTIICA"


def test_every_shared_stdlib_oligo_is_listed_on_each_page_it_cites() -> None:
    """Each oligo of stdlib/scg_lib_structs.lab cites two or more pages, and each cited
    page lists an oligo of that name whose bases are the stdlib oligo's (for an adapter,
    each of its strands is on the page; a page may name it and only draw it)."""
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.atlas import bench_sequence
    from lablang.molecular.front import build_model
    from lablang.molecular.sequence import parse_notation

    path = ROOT / "stdlib" / "scg_lib_structs.lab"
    result = check_file(path)
    assert [d.code for d in result.report] == []
    oligos = {o.name: o for o in build_model(result.program, Report()).model.oligos}
    decls = [d for d in result.program.root.module.decls if d.kind == "oligo"]
    assert len(decls) >= 20
    for decl in decls:
        cites = _sources(decl)
        assert len({page for page, _ in cites}) >= 2, decl.name
        want = _letters(bench_sequence(oligos[decl.name].seq))
        for page, section in cites:
            listed = [
                strand["sequence"]
                for method in json.loads((DATA / f"{page}.json").read_text())["methods"]
                for oligo in method["oligos"]
                if oligo["name"] == section
                for strand in oligo["strands"]
            ]
            names = [o["name"] for m in _page(page)["methods"] for o in m["oligos"]]
            assert section in names, (decl.name, page, section)
            if not listed:
                continue  # the page names it and draws it but gives no sequence line
            if oligos[decl.name].kind == "double_stranded":
                # each strand is on the page, as one of its oligos or drawn 3'->5'
                texts = [_letters(s) for s in _all_oligo_texts(page)]
                for strand in oligos[decl.name].strands:
                    bases = _letters(bench_sequence(strand))
                    assert any(bases in t or bases[::-1] in t for t in texts), (decl.name, page)
                continue
            drawn = [_letters(bench_sequence(parse_notation(_notation(s)))) for s in listed]
            assert want in drawn, (decl.name, page, drawn)


def _page(page: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{page}.json").read_text())
    return data


def _all_oligo_texts(page: str) -> list[str]:
    return [
        strand["sequence"]
        for method in json.loads((DATA / f"{page}.json").read_text())["methods"]
        for oligo in method["oligos"]
        for strand in oligo["strands"]
    ]


def _sources(decl) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    from lablang import ast

    fields = {m.key: m.value for m in decl.body.members if isinstance(m, ast.Field)}
    items = fields["source"].items
    out = []
    for item in items:
        args = {a.name: a.value.value for a in item.args if a.name}
        out.append((args["url"].rsplit("/", 1)[1].removesuffix(".html"), args["section"]))
    return out


def _notation(drawn: str) -> str:
    """A page's oligo text as lablang notation: `[8-bp barcode]` as an 8-base barcode."""
    text = re.sub(r"\[(\d+)-?bp[^\]]*\]", lambda m: f" [BC:{m.group(1)}] ", drawn)
    text = re.sub(r"\[(i7|i5)\]", " [BC:6] ", text)
    text = re.sub(r"/[^/]*/", " ", text).replace("*", "")
    text = re.sub(r"r([ACGU])", r" \1 ", text).replace("+", " ")
    return f"5'-{text}-3'"


def _letters(exported: str) -> str:
    """Bases with every placeholder letter as N (pages and stdlib name roles differently)."""
    return re.sub(r"[BURLI]", "N", exported.replace("T" * 30, ""))


def test_bases_drawn_inside_an_insert_are_part_of_it() -> None:
    """`XXXCGXXX...XXXTGXXX` (a page showing methylation contexts) reads as one insert,
    but a longer designed sequence between two inserts does not."""
    from lablang.molecular.atlas import drawn_tokens

    kinds = [t.kind for t in drawn_tokens([{"tag": "", "text": "ACXXX...XXXCGXXX...XXXTGXXXAC"}])]
    assert kinds == ["base", "base", "payload", "base", "base"]
    long = drawn_tokens([{"tag": "", "text": "XXXACGTXXX"}])
    assert [t.kind for t in long] == ["payload", "base", "base", "base", "base", "payload"]


def test_an_oligo_dt_written_out_primes_on_a_tail_of_unknown_length() -> None:
    """A primer ending in 24 written-out T pairs with TdT's poly(A) tail of unknown
    length (Quartz-seq's Tagging primer); 11 T alone stays below the 12-base minimum."""
    from lablang.molecular.ops.core import anneal_sites
    from lablang.molecular.sequence import parse_notation

    tail = parse_notation("5'-ACGT [CDNA'] [POLY_A]-3'")
    assert anneal_sites(parse_notation("5'-GCGAT" + "T" * 24 + "-3'"), tail)
    assert not anneal_sites(parse_notation("5'-" + "T" * 11 + "-3'"), tail)


def test_a_differing_base_is_named_on_both_sides_at_the_drawings_position() -> None:
    """One changed base in the 3' adapter (AGATC drawn, AGTTC derived) is named on each
    side, at one position counted as the drawing counts (the 17th: 4 + 4 + 3 bases, the
    dT run, V, the payload, then A G: a run and a payload are one position each)."""
    from lablang.molecular.atlas import difference

    lib = _duplex("5'-AATG [CELL_BARCODE:4] [UMI:3] (T)30 VN [CDNA] AGTTC-3'")
    found = difference(lib, DRAWN_10X) or ""
    assert found.startswith("top strand: the page draws `A` where the derived strand has `T`")
    assert "(drawn position 17)" in found and "derived position" not in found


def test_methods_whose_headings_are_not_closed_keep_their_names(tmp_path: Path) -> None:
    """A page that ends each method heading with a second `<h1>` instead of `</h1>` gives
    two methods named by their headings, not two methods named "" (merged later)."""
    extractor = _script("extract_atlas")
    body = (
        "<h2>Adapter and primer sequences</h2><pre>5'- AATG -3'</pre>"
        "<h2>Step-by-step library generation</h2><h3>(1) Final library structure</h3>"
        "<pre>5'- AATGATACGGCGACCACCGAGATCTACAC -3'\n3'- TTACTATGCCGCTGGTGGCTCTAGATGTG -5'</pre>"
    )
    page = tmp_path / "page.html"
    page.write_text(f"<html><title>T</title><body><h1>A<h1>{body}<h1>B<h1>{body}</body></html>")
    assert [m["name"] for m in extractor.extract_page(page)["methods"]] == ["A", "B"]
