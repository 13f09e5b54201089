"""Tn5 tagmentation with duplex transposons: what the loaded strands leave on each
fragment before the gap fill, and the captures that build on it. Hand-worked examples
and failures."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, MolType, Single, Strand
from lablang.molecular.ops.hybridisation import anneal
from lablang.molecular.sequence import parse_notation, render

S5_ME = "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG"
S7_ME = "GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG"
ME_BOTTOM = "/5Phos/CTGTCTCTTATACACATCT"


def duplex_oligo(name: str, a: str, b: str) -> ops.Oligo:
    return ops.Oligo(name, (parse_notation(a), parse_notation(b)), "double_stranded")


def fragment(pool: object, name: str) -> Duplex:
    assert isinstance(pool, ops.Pool)
    found = next(p.molecule for p in pool.products if p.name == name)
    assert isinstance(found, Duplex)
    return found


GDNA = Duplex(core=parse_notation("[GDNA]"))
NEXTERA_A = duplex_oligo("a", S5_ME, ME_BOTTOM)
NEXTERA_B = duplex_oligo("b", S7_ME, ME_BOTTOM)


def test_regular_transposons_leave_the_s5_and_s7_arms_single_stranded() -> None:
    """With the ME bottom strand listed, each fragment's arms beyond the ME are 5'
    overhangs, the ME duplexes are paired, and each gap names the 5'-phosphorylated ME'."""
    ab = fragment(ops.tagment(GDNA, [NEXTERA_A, NEXTERA_B], gap_fill=False), "a-insert-b")
    assert render(ab.left.top) == "5'-TCGTCGGCAGCGTC-3'" and not ab.left.bottom
    assert render(ab.right.bottom) == "5'-GTCTCGTGGGCTCGG-3'" and not ab.right.top
    assert render(ab.core) == "5'-AGATGTGTATAAGAGACAG [GDNA] CTGTCTCTTATACACATCT-3'"
    assert len(ab.nicks) == 2
    assert all("9-nt gap" in n and "5'-phosphorylated" in n for n in ab.nicks)


def test_a_capture_overhang_on_the_non_transferred_strand_sticks_out() -> None:
    """A non-transferred strand longer than the transferred one (ME' plus a capture
    sequence that pairs with s5 and runs 8 bases past it) leaves a 3' overhang on the
    bottom strand at the s5 end; a transposon whose transferred strand is only the ME
    and whose partner carries s7' leaves s7' as the top strand's 3' overhang."""
    a = duplex_oligo("a", S5_ME, "CTGTCTCTTATACACATCTGACGCTGCCGACGACAGACGCG")
    b = duplex_oligo("b", "AGATGTGTATAAGAGACAG", "CTGTCTCTTATACACATCTCCGAGCCCACGAGAC")
    ab = fragment(ops.tagment(GDNA, [a, b], gap_fill=False), "a-insert-b")
    assert not ab.left.top and render(ab.left.bottom) == "5'-CAGACGCG-3'"
    assert render(ab.right.top) == "5'-CCGAGCCCACGAGAC-3'" and not ab.right.bottom
    assert render(ab.top) == (f"5'-{S5_ME} [GDNA] CTGTCTCTTATACACATCTCCGAGCCCACGAGAC-3'")
    assert all("no 5' phosphate" in n for n in ab.nicks)


def test_the_transferred_strand_keeps_its_5_phosphate_before_the_fill_in() -> None:
    """A /5Phos/ transferred strand is the fragment's phosphorylated 5' end, gapped or
    filled; an unphosphorylated one is not."""
    a = duplex_oligo("a", "/5Phos/" + S5_ME, ME_BOTTOM)
    for filled in (False, True):
        ab = fragment(ops.tagment(GDNA, [a, NEXTERA_B], gap_fill=filled), "a-insert-b")
        assert ab.top_phosphate and not ab.bottom_phosphate


def test_a_non_transferred_strand_off_the_mosaic_end_is_e0412() -> None:
    """A partner strand that pairs with the transferred strand but not flush with its
    ME's 3' end cannot be what Tn5 holds (E0412)."""
    off = duplex_oligo("off", S5_ME, "CTCTTATACACATCTGACGC")
    with pytest.raises(ops.OperationFailure) as failure:
        ops.tagment(GDNA, [off, NEXTERA_B], gap_fill=False)
    assert failure.value.code == "E0412" and "flush" in failure.value.message


def test_a_bead_oligo_on_a_splint_captures_the_s5_arm_and_gap_fill_copies_it() -> None:
    """Worked example (10x Multiome ATAC): the splint pairs with the bead oligo's 3' end
    and leaves 14 bases complementary to s5; that sticky end ligates to the fragment's
    s5 arm, sealed where the splint's 5' phosphate meets the ME' strand and nicked at
    the unphosphorylated s5; the gap fill then copies the bead oligo onto the bottom."""
    complex_ = duplex_oligo(
        "bead", "AATGATACGGCGACCACCGAGATCTACAC [CB:16] CGCGTCTG", "/5Phos/GACGCTGCCGACGACAGACGCG"
    )
    ab = fragment(ops.tagment(GDNA, [NEXTERA_A, NEXTERA_B], gap_fill=False), "a-insert-b")
    captured = ops.ligate(ab, complex_, ends="left")
    assert isinstance(captured, Duplex)
    assert any("no 5' phosphate" in n for n in captured.nicks)
    filled = ops.gap_fill(captured)
    assert not filled.left.top and not filled.right.bottom
    assert render(filled.top) == (
        f"5'-AATGATACGGCGACCACCGAGATCTACAC [CB:16] CGCGTCTG{S5_ME} [GDNA] "
        "CTGTCTCTTATACACATCTCCGAGCCCACGAGAC-3'"
    )
    # a B-B fragment has no s5 arm: the complex cannot capture it
    bb = fragment(ops.tagment(GDNA, [NEXTERA_A, NEXTERA_B], gap_fill=False), "b-insert-b")
    with pytest.raises(ops.OperationFailure) as failure:
        ops.ligate(bb, complex_, ends="left")
    assert failure.value.code == "E0402"


ARCHIVE_A = duplex_oligo("a", S5_ME, "CTGTCTCTTATACACATCTGACGCTGCCGACGACAGACGCG")
ARCHIVE_B = duplex_oligo("b", "AGATGTGTATAAGAGACAG", "CTGTCTCTTATACACATCTCCGAGCCCACGAGAC")
BEAD = ops.oligo("bead", parse_notation("AATGATACGGCGACCACCGAGATCTACAC [CB:16] CGCGTCTG"))


def test_anneal_holds_a_bead_oligo_on_a_capture_overhang_and_gap_fill_copies_it() -> None:
    """Worked example (10x Multiome ATAC, archived page): the bead oligo's 3' CGCGTCTG
    pairs with the 8-base capture overhang; it is held, nicked, before the s5 end, and
    the gap fill extends the capture strand along it, so the bottom strand copies P5."""
    ab = fragment(ops.tagment(GDNA, [ARCHIVE_A, ARCHIVE_B], gap_fill=False), "a-insert-b")
    held = anneal(ab, BEAD, end="top 5'")
    assert render(held.left.top) == "5'-AATGATACGGCGACCACCGAGATCTACAC [CB:16]-3'"
    assert not held.left.bottom and not held.top_phosphate
    assert any("annealed before the top strand's 5' end" in n for n in held.nicks)
    filled = ops.gap_fill(held)
    assert not filled.left.top and render(filled.bottom).endswith(
        "GTGTAGATCTCGGTGGTCGCCGTATCATT-3'"
    )


def test_anneal_after_a_3_end_pairs_with_the_other_strands_5_overhang() -> None:
    """`end: "top 3'"` puts the oligo after the top strand's 3' end: its 5' part pairs
    with the bottom strand's 5' overhang (here the s7 arm) and the rest overhangs."""
    ab = fragment(ops.tagment(GDNA, [NEXTERA_A, NEXTERA_B], gap_fill=False), "a-insert-b")
    held = anneal(ab, ops.oligo("s7c", "CCGAGCCCACGAGACACGTACGT"), end="top 3'")
    assert render(held.right.top) == "5'-ACGTACGT-3'" and not held.right.bottom


def test_anneal_fails_without_an_overhang_or_with_a_mismatched_oligo() -> None:
    """A blunt end has nothing to pair with, an oligo whose 3' end is not the overhang's
    reverse complement does not pair, and one no longer than the overhang leaves
    nothing beyond it: each is E0424."""
    ab = fragment(ops.tagment(GDNA, [ARCHIVE_A, ARCHIVE_B], gap_fill=False), "a-insert-b")
    cases = [
        (GDNA, BEAD),
        (ab, ops.oligo("wrong", "AATGATACGGCGACCACCGAGATCTACACGGGGAAAA")),
        (ab, ops.oligo("short", "CGCGTCTG")),
    ]
    for molecule, oligo in cases:
        with pytest.raises(ops.OperationFailure) as failure:
            anneal(molecule, oligo, end="top 5'")
        assert failure.value.code == "E0424", oligo.name


def test_a_homodimer_gives_one_fragment_kind_with_the_transposon_at_both_ends() -> None:
    """Tn5 loaded with one transposon (LIANTI's hairpin with its T7 loop) cuts into
    fragments with that transposon on both 5' ends; filled in, each end carries the
    whole transposon, so the fragment has a T7 promoter on each strand."""
    lianti = ops.Oligo(
        "lianti",
        (
            parse_notation(
                "/5Phos/CTGTCTCTTATACACATCTGAACAGAATTTAATACGACTCACTATAGGGAGATGTGTATAAGAGACAG"
            ),
        ),
        "hairpin",
    )
    pool = ops.tagment(GDNA, [lianti])
    assert [p.name for p in pool.products] == ["lianti-insert-lianti"]
    assert pool.products[0].fraction == 1.0
    rnas = ops.ivt(pool.products[0].molecule)
    assert isinstance(rnas, ops.Pool) and len(rnas.products) == 2
    # before the fill-in a hairpin's stem strand is joined through its loop: refused
    with pytest.raises(ops.OperationFailure) as failure:
        ops.tagment(GDNA, [lianti], gap_fill=False)
    assert failure.value.code == "E0412" and "hairpin" in failure.value.message


def test_an_rna_dna_hybrid_is_tagmented_with_its_gaps_open_and_its_own_end_kept() -> None:
    """FIPRESCI tagments the RT hybrid: each strand gains the transferred strand (the
    RNA strand becomes a chimera), and the end with the cDNA's non-templated CCC keeps
    it as a 3' overhang for the template switch; a fill-in across RNA is E0412."""
    mrna = Single(Strand(parse_notation("[CDNA] (A)23"), MolType.RNA, "mrna"))
    hybrid = ops.reverse_transcribe(mrna, ops.oligo("dT", "(T)23 VN"))
    r2 = ops.oligo("r2", "GACGTGTGCTCTTCCGATCT [TN5_BC:6] AGATGTGTATAAGAGACAG")
    a_me = ops.Oligo(
        "r2_me",
        (r2.seq, parse_notation("/5Phos/CTGTCTCTTATACACATCT/3ddC/")),
        "double_stranded",
    )
    pool = ops.tagment(hybrid, [a_me], gap_fill=False)
    end = fragment(pool, "r2_me-right end")
    assert render(end.right.top) == "5'-CCC-3'"
    assert MolType.CHIMERA in (end.top_type, end.bottom_type)
    switched = ops.template_switch(end, ops.oligo("tso", "CTACACGACGCTCTTCCGATCT rGrGrG"))
    assert render(switched.top).endswith("CCCAGATCGGAAGAGCGTCGTGTAG-3'")
    with pytest.raises(ops.OperationFailure) as failure:
        ops.tagment(hybrid, [a_me])
    assert failure.value.code == "E0412"


def test_a_tagmented_hybrid_is_filled_by_a_gap_fill_step_as_the_docs_say() -> None:
    """docs/molecular.md: `tagment(rt, ..., gap_fill: false)` then `gap_fill(tn)` derives
    the filled duplexes of an RNA:DNA hybrid, each with both adapters' copies; the fill
    inside `tagment` is E0412."""
    from lablang.diagnostics import Report
    from lablang.driver import check_text
    from lablang.molecular.front import build_model
    from lablang.molecular.molecule import Duplex
    from lablang.molecular.sequence import render

    text = """
oligo dT { seq: 5'-TTTTTTTTTTTTTTTTTTTTTTTVN-3' }
oligo me { seq: 5'-/Phos/ CTGTCTCTTATACACATCT /3ddC/-3' }
oligo r2 { seq: 5'-GACGTGTGCTCTTCCGATCT [TN5_BARCODE:6] AGATGTGTATAAGAGACAG-3' }
oligo tn5 { kind: double_stranded  strand a: 5'-{r2}-3'  strand b: 5'-{me}-3' }
workflow w {
  input mrna: RNA 5'-[CDNA] (A)23-3'
  rt = reverse_transcribe(mrna, primer: dT, nontemplated: "")
  tn = tagment(rt, adapters: [tn5], gap_fill: false)
  filled = gap_fill(tn)
}
"""
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == []
    pool = build_model(result.program, Report()).derived["w.filled"]
    tops = [render(p.molecule.top) for p in pool.carried if isinstance(p.molecule, Duplex)]
    assert len(tops) == 2 and all(
        t.endswith("[TN5_BARCODE:6'] AGATCGGAAGAGCACACGTC-3'") for t in tops
    )
    direct = check_text(text.replace(", gap_fill: false", ""), "case.lab")
    assert [d.code for d in direct.report] == ["E0412"]
