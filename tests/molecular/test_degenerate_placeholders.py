"""Degenerate bases against placeholders: a placeholder's pattern (`[RT_BARCODE:7 "SNNNNNN"]`)
is read and checked in the syntax stage, decides what pairs with its positions, and leaves
every export and picture with one segment of its role and full length."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from lablang import ast
from lablang.cli import main
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.draw import library_svg
from lablang.molecular.front import build_model
from lablang.molecular.interchange import (
    export_seqspec_text,
    export_t1_text,
    export_t2_text,
    export_t3_text,
)
from lablang.molecular.ops.core import anneal_sites, pairing_sites
from lablang.molecular.ops.joining import splint_arms
from lablang.molecular.pairing import BASES_PAIR, PAIRS_PLACEHOLDER, pair_whole
from lablang.molecular.sequence import bases, parse_notation, render, reverse_complement
from lablang.source import Source
from lablang.syntax import parse

SVG = "{http://www.w3.org/2000/svg}"
# A linker whose 5' base S pairs with the barcode's first base, which the page gives as S;
# its other 17 bases pair with the strand's end and the barcode oligo's 5' linker.
PAGE = """module deg
oligo bc { seq: 5'-/5Phos/TTCCGGAA BARCODE ACGTTGCA-3' }
oligo linker { seq: 5'-LINKER TTCCGGAA AAATTTGGG-3' }
workflow w {
  input frag: DNA 5'-ACGTACGTACGTACGTGGGCCCAAATTT-3'
  joined = barcode_round(frag, barcode: bc, end: "3'", splint: linker)
  output joined as gene_expression
}
library lib { from: w.joined  modality: "gene expression" }
"""
# The same geometry at the other edge: the linker's 3' base S pairs with the barcode's last.
PAGE_3P = """module deg
oligo bc { seq: 5'-GGAACCTTGG BARCODE TTCCGGAA-3' }
oligo linker { seq: 5'-ACGTACGT TTCCGGAA LINKER-3' }
workflow w {
  input frag: DNA 5'-/5Phos/ACGTACGTACGTACGTGGGCCCAAATTT-3'
  joined = barcode_round(frag, barcode: bc, splint: linker)
  output joined as gene_expression
}
"""


def _page(barcode: str, linker: str = "S", page: str = PAGE):  # type: ignore[no-untyped-def]
    return check_text(page.replace("BARCODE", barcode).replace("LINKER", linker), "deg.lab")


def _codes(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.code for d in result.report]


def test_a_pattern_is_read_into_the_placeholder_node() -> None:
    """`[RT_BARCODE:7 "SNNNNNN"]` parses to one placeholder of length 7 carrying its pattern."""
    text = "oligo x { seq: 5'-ACGT [RT_BARCODE:7 \"SNNNNNN\"] ACGT-3' }\n"
    report = Report()
    module = parse(Source(text), report)
    assert list(report) == []
    found = [node for node in _walk(module) if isinstance(node, ast.Placeholder)]
    assert [(p.role, p.min_len, p.max_len, p.pattern) for p in found] == [
        ("RT_BARCODE", 7, 7, "SNNNNNN")
    ]


def _walk(node: object) -> Iterator[object]:
    yield node
    children = [getattr(node, a.name) for a in getattr(node, "__attrs_attrs__", ())]
    for value in children:
        for child in value if isinstance(value, tuple) else (value,):
            yield from _walk(child)


def test_a_pattern_that_does_not_fit_is_e0106_located_with_its_fix() -> None:
    """A pattern of the wrong length, without a length, on a range, in lower case or with a
    letter that is no IUPAC code is E0106 at the placeholder; where the repair is mechanical
    (no length, lower case) the fix gives a text that checks clean."""
    cases = {
        '[RT:7 "NNNNNS"]': None,
        '[RT "NNS"]': '[RT:3 "NNS"]',
        '[RT:6-7 "NNNNNS"]': None,
        '[RT:3 "nns"]': '[RT:3 "NNS"]',
        '[RT:3 "NNX"]': None,
        '[RT:3 "NNß"]': None,  # upper case `SS`: two letters, no code
    }
    for written, fixed in cases.items():
        text = f"oligo x {{ seq: 5'-ACGT {written} ACGT-3' }}\n"
        (diag,) = list(check_text(text, "x.lab").report)
        assert diag.code == "E0106", written
        assert text[diag.span.start : diag.span.end] == written
        if fixed is None:
            assert diag.fix is None and diag.help, written
            continue
        assert diag.fix is not None, written
        (edit,) = diag.fix.edits
        repaired = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
        assert fixed in repaired and _codes(check_text(repaired, "x.lab")) == []


def test_degenerate_codes_pair_by_their_base_sets() -> None:
    """Two written codes pair when they share a pairing (S with S, W with W, never S with W);
    a base pairs with a placeholder position only when it pairs every base the position
    admits (S on S, N on anything; a G does not pair a position that may be C or G)."""
    assert BASES_PAIR["S", "S"] and BASES_PAIR["W", "W"] and BASES_PAIR["N", "G"]
    assert not BASES_PAIR["S", "W"] and not BASES_PAIR["W", "S"]
    assert PAIRS_PLACEHOLDER["S", "S"] and PAIRS_PLACEHOLDER["N", "W"]
    assert PAIRS_PLACEHOLDER["C", "G"] and PAIRS_PLACEHOLDER["B", "S"]
    assert not PAIRS_PLACEHOLDER["W", "S"] and not PAIRS_PLACEHOLDER["G", "S"]
    assert not PAIRS_PLACEHOLDER["S", "N"]


def test_a_linker_ending_in_s_bridges_to_a_barcode_the_page_starts_with_s() -> None:
    """The linker's 5' S pairs the barcode's first position given as S: the round derives;
    without the pattern, or with a W linker, or a W-only position, it is E0402."""
    assert _codes(_page('[RT_BARCODE:7 "SNNNNNN"]')) == []
    assert _codes(_page('[RT_BARCODE:7 "SNNNNNN"]', linker="N")) == []
    assert _codes(_page("[RT_BARCODE:7]")) == ["E0402"]
    assert _codes(_page('[RT_BARCODE:7 "SNNNNNN"]', linker="W")) == ["E0402"]
    assert _codes(_page('[RT_BARCODE:7 "WNNNNNN"]')) == ["E0402"]


def test_a_linker_whose_3_end_is_s_bridges_to_a_barcode_ending_in_s() -> None:
    """The linker's 3'-terminal S pairs the barcode's last position given as S (a 3' end
    inside a placeholder counts for pairing); W against an S-only position does not."""
    assert _codes(_page('[RT_BARCODE:7 "NNNNNNS"]', page=PAGE_3P)) == []
    assert _codes(_page('[RT_BARCODE:7 "NNNNNNW"]', page=PAGE_3P)) == ["E0402"]
    assert _codes(_page('[RT_BARCODE:7 "NNNNNNS"]', linker="W", page=PAGE_3P)) == ["E0402"]


def test_the_patterned_page_exports_the_unsplit_regions_where_the_split_one_did_not() -> None:
    """The split workaround (`S [RT_BARCODE:6]`) derived but exported a base and a 6-base
    barcode; the patterned page derives and exports one `[RT_BARCODE:7]` in T1, T2, T3 and
    seqspec (no pattern in LibStructBench's strings), and the picture draws one box."""
    split, patterned = _page("S [RT_BARCODE:6]"), _page('[RT_BARCODE:7 "SNNNNNN"]')
    assert _codes(split) == [] and _codes(patterned) == []
    t1_split = json.loads(export_t1_text(split)[0] or "")
    t1 = json.loads(export_t1_text(patterned)[0] or "")
    frag = "ACGTACGTACGTACGTGGGCCCAAATTT"
    assert t1["libraries"][0]["library_sequence"] == f"{frag}TTCCGGAA[RT_BARCODE:7]ACGTTGCA"
    assert t1_split["libraries"][0]["library_sequence"] == f"{frag}TTCCGGAAS[RT_BARCODE:6]ACGTTGCA"
    for text in (export_t2_text(patterned)[0], export_t3_text(patterned)[0]):
        assert text is not None and "[RT_BARCODE:7]" in text
        assert "RT_BARCODE:6" not in text and "SNNNNNN" not in text
    spec = export_seqspec_text(patterned)[0] or ""
    assert "min_len: 7\n" in spec and "RT_BARCODE:6" not in spec and "min_len: 6\n" not in spec
    model = build_model(patterned.program, Report()).model
    svg = library_svg(model.libraries[0], {o.name: o for o in model.oligos})
    boxes = ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert boxes.count("RT BC 7") == 2 and not any("BC 6" in t for t in boxes)  # one a strand


def test_a_pattern_reads_along_its_strand_and_complements_with_it() -> None:
    """A pattern is written along the strand: the reverse complement of `[RT:4 "NNNS"]` is
    `[RT:4' "SNNN"]`, the notation reads back the same, and LibStructBench's string omits it."""
    seq = parse_notation("5'-ACGT [RT:4 \"NNNS\"]-3'")
    assert render(reverse_complement(seq)) == "5'-[RT:4' \"SNNN\"] ACGT-3'"
    assert parse_notation(render(reverse_complement(seq))) == reverse_complement(seq)
    assert reverse_complement(reverse_complement(seq)) == seq
    assert render(parse_notation(render(seq))) == render(seq)


def test_a_primer_pairs_across_or_into_a_patterned_barcode_but_extends_from_no_3_end_in_it() -> (
    None
):
    """A primer pairs over a whole placeholder whose positions it pairs, or with its 5' end
    inside it; a primer whose 3' end would lie inside is no extension site, only a pairing
    site (a polymerase's copy would start inside the barcode)."""
    template = parse_notation("5'-GGGGAAAACC [BC:4 \"GSNN\"] TTTTGGGG-3'")
    across = bases("CCCCAAAANNSCGGTTTTCCCC")  # pairs the whole barcode: 22 bases
    (site,) = anneal_sites(across, template, 20)
    assert (site.start, site.stop, site.bases) == (0, 19, 22)
    into = bases("NSCGGTTTTCCCC")  # its 5' NSC pair the barcode's first three positions
    (site,) = anneal_sites(into, template, 12)
    assert (site.start, site.stop, site.bases) == (0, 11, 13)
    assert [s.bases for s in anneal_sites(bases("SCGGTTTTCCCC"), template, 10)] == [12]
    # a G on the position that may be C or G ends the pairing before the barcode
    assert [s.bases for s in anneal_sites(bases("GCGGTTTTCCCC"), template, 10)] == [10]
    three = bases("CCCCAAAAN")  # its 3' N on the barcode's last position, then 8 bases
    assert not anneal_sites(three, template, 9)
    assert [(s.start, s.bases) for s in pairing_sites(three, template, 9)] == [(10, 9)]


def test_a_patterned_barcode_in_a_primer_pairs_with_the_template_bases_it_admits() -> None:
    """A primer's own barcode pairs template bases when each of its positions pairs them
    (a fixed `C` on a template G), not where the pattern leaves the base open."""
    template = bases("GGGGAAAACCGTTTTGGGG")
    fixed = parse_notation("5'-CCCCAAAA [BC:3 \"CGG\"] TTTTCCCC-3'")
    assert [(s.start, s.stop, s.bases) for s in anneal_sites(fixed, template, 19)] == [(0, 19, 19)]
    open_ = parse_notation("5'-CCCCAAAA [BC:3 \"CGN\"] TTTTCCCC-3'")
    assert [s.bases for s in anneal_sites(open_, template, 8)] == [8]


def test_a_splint_arm_ending_in_s_holds_an_end_whose_barcode_ends_in_s() -> None:
    """A splint holding two ends apart pairs its 3' arm's S with the upstream barcode's last
    position given as S (arms of 7 and 6 bases); a W there, or no pattern, holds nothing."""
    upstream = parse_notation("5'-TTTTGGGG [RT:7 \"NNNNNNS\"] ACGTAC-3'")
    downstream = bases("GCATTCAAGG")
    assert splint_arms(bases("GAATGCTTTTGTACGTS"), upstream, downstream) == (7, 6)
    assert splint_arms(bases("GAATGCTTTTGTACGTW"), upstream, downstream) is None
    plain = parse_notation("5'-TTTTGGGG [RT:7] ACGTAC-3'")
    assert splint_arms(bases("GAATGCTTTTGTACGTS"), plain, downstream) is None


def test_an_oligo_pairs_an_end_position_by_position_across_a_patterned_barcode() -> None:
    """Whole-length pairing (an oligo on an overhang) spells a placeholder out: `NNS AC`
    pairs `GT [RT:3 "SNN"]`, `SAC` (three bases for five positions) does not, and a
    barcode still pairs its own reverse complement as one token."""
    end = parse_notation("5'-GT [RT:3 \"SNN\"]-3'").tokens()
    assert pair_whole(bases("NNSAC").tokens(), end)
    assert not pair_whole(bases("WNSAC").tokens(), end)
    assert not pair_whole(bases("SAC").tokens(), end)
    rc = parse_notation("5'-[RT:3' \"NNS\"] AC-3'").tokens()
    assert pair_whole(rc, end)


def test_lablang_notation_in_check_json_keeps_the_pattern(tmp_path: Path) -> None:
    """`check --json` lists the joined strand in lablang's notation with the barcode's
    pattern, one placeholder of length 7 (LibStructBench's strings leave the pattern out)."""
    path = tmp_path / "deg.lab"
    path.write_text(PAGE.replace("BARCODE", '[RT_BARCODE:7 "SNNNNNN"]').replace("LINKER", "S"))
    result = CliRunner().invoke(main, ["check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert '[RT_BARCODE:7 \\"SNNNNNN\\"] ACGTTGCA-3' in result.output


def test_a_declared_segment_takes_a_pattern_that_fits_it_and_e0106_otherwise() -> None:
    """`[CB:4 "NNNS"]` of `segment CB = barcode(4)` carries the pattern on the segment (the
    reverse complement reads it from its strand); on a segment of bases it is E0106."""
    text = (
        'segment CB = barcode(4, role: "CELL_BARCODE")\n'
        "oligo a { seq: 5'-ACGTACGT [CB:4 \"NNNS\"] TTTT-3' }\n"
        "oligo b { seq: 5'-ACGTACGT [CB:4' \"SNNN\"] TTTT-3' }\n"
    )
    result = check_text(text, "seg.lab")
    assert _codes(result) == []
    model = build_model(result.program, Report()).model
    patterns = {
        o.name: [(p.rc, p.pattern) for p in o.strands[0].parts if hasattr(p, "pattern")]
        for o in model.oligos
    }
    assert patterns == {"a": [(False, "NNNS")], "b": [(True, "NNNS")]}
    bad = "segment L = 5'-ACGT-3'\noligo c { seq: 5'-ACGTACGT [L:4 \"NNNS\"] TTTT-3' }\n"
    assert _codes(check_text(bad, "seg.lab")) == ["E0106"]
