"""Tailing, RNase H, uracil excision, gap filling, Tn5 with duplex adapters, modified
bases: hand-worked examples and failures."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, MolType, Pool, Single, Strand
from lablang.molecular.sequence import parse_notation, render

TN5_A = ops.Oligo(
    "tn5_a",
    (
        parse_notation("/5Phos/TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG"),
        parse_notation("/5Phos/CTGTCTCTTATACACATCT"),
    ),
    "double_stranded",
)
TN5_B = ops.Oligo(
    "tn5_b",
    (
        parse_notation("GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG"),
        parse_notation("/5Phos/CTGTCTCTTATACACATCT"),
    ),
    "double_stranded",
)


def rna(text: str) -> Single:
    return Single(Strand(parse_notation(text), MolType.RNA, "r"))


def test_poly_a_tail_adds_a_run_of_a_to_rna() -> None:
    """Poly(A) polymerase adds (A)n to RNA's 3' end; a run of unknown length by default."""
    tailed = ops.poly_a_tail(rna("[RNA]"))
    assert render(tailed.strand.seq) == "5'-[RNA] [POLY_A]-3'"
    assert render(ops.poly_a_tail(rna("[RNA]"), length=20).strand.seq) == "5'-[RNA] (A)20-3'"


def test_poly_a_tail_refuses_dna() -> None:
    """Poly(A) polymerase does not tail DNA (E0412 pointing to tdt_tail)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.poly_a_tail(Single(Strand(parse_notation("[GDNA]"))))
    assert "tdt_tail" in (caught.value.help or "")


def test_tdt_tails_both_3_ends_of_a_duplex() -> None:
    """Terminal transferase adds (C)15 to each 3' end: the top strand's and the bottom's."""
    tailed = ops.tdt_tail(Duplex(core=parse_notation("ACGT [GDNA]")), base="C", length=15)
    assert render(tailed.top) == "5'-ACGT [GDNA] (C)15-3'"
    assert render(tailed.bottom) == "5'-[GDNA'] ACGT (C)15-3'"


def test_tdt_cannot_tail_a_blocked_end() -> None:
    """A 3'-blocked strand gets no tail (E0421)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.tdt_tail(Single(Strand(parse_notation("[GDNA]/3ddC/"))), base="A")
    assert caught.value.code == "E0421"


def test_rnase_h_leaves_the_cdna_single_stranded() -> None:
    """RNase H removes the mRNA of a hybrid; the cDNA goes on as a single DNA strand."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), ops.oligo("dT", "ACGTACGT (T)30"))
    single = ops.rnase_h(hybrid)
    assert single.strand.moltype is MolType.DNA and single.strand.seq == hybrid.top


def test_rnase_h_degrades_a_chimera_whose_rna_was_ligated_to_a_dna_adapter() -> None:
    """RNA ligated to a DNA adapter, then reverse-transcribed from the adapter, is a
    chimera paired with cDNA: RNase H degrades it and the cDNA goes on single-stranded
    (it used to be refused with "reverse-transcribe first")."""
    from lablang.driver import check_text

    text = """
oligo ad3 { seq: 5'-/5rApp/AGATCGGAAGAGCACACGTCT/3ddC/-3' }
oligo rtp { seq: 5'-AGACGTGTGCTCTTCCGATCT-3' }
workflow w {
  input rna: RNA 5'-[CDNA]-3'
  lig = ligate(rna, adapter: ad3, ligase: rna)
  rt = reverse_transcribe(lig, primer: rtp, nontemplated: "")
  free = rnase_h(rt)
  expect free.top == 5'-AGACGTGTGCTCTTCCGATCT [CDNA']-3'
}
"""
    assert [d.code for d in check_text(text, "case.lab").report] == []


def test_rnase_h_needs_a_hybrid() -> None:
    """A DNA duplex is not an RNase H substrate (E0412)."""
    with pytest.raises(ops.OperationFailure):
        ops.rnase_h(Duplex(core=parse_notation("[GDNA]")))


def test_user_cuts_a_strand_at_its_deoxyuridine() -> None:
    """USER cuts a single strand at /ideoxyU/ into two carried pieces."""
    pool = ops.user(Single(Strand(parse_notation("ACGTACGT/ideoxyU/GGCCGGCC"))))
    assert isinstance(pool, Pool)
    assert [render(p.molecule.strand.seq) for p in pool.products] == [  # type: ignore[union-attr]
        "5'-ACGTACGT-3'",
        "5'-GGCCGGCC-3'",
    ]


def test_internal_modified_bases_take_a_position() -> None:
    """/iBiodT/ is a biotinylated T: it counts as one base and pairs as T."""
    seq = parse_notation("ACGT/iBiodT/GG")
    assert len(seq) == 7 and seq.tokens()[4] == "T"


def test_tagmentation_keeps_the_transposon_phosphate() -> None:
    """A /5Phos/ transferred strand stays phosphorylated on the tagmented fragment, so a
    ligation can follow without end repair."""
    pool = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [TN5_A, TN5_B])
    ab = next(p.molecule for p in pool.products if p.name == "tn5_a-insert-tn5_b")
    assert isinstance(ab, Duplex) and ab.top_phosphate and not ab.bottom_phosphate
    assert render(ab.top) == (
        "5'-/5Phos/ TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG [GDNA] CTGTCTCTTATACACATCTCCGAGCCCACGAGAC-3'"
    )


def test_tagmentation_without_fill_in_records_the_non_transferred_strand() -> None:
    """With `gap_fill: false` each fragment has single-stranded arms and a recorded 9-nt
    gap naming the non-transferred ME' strand; `gap_fill` then gives the filled product."""
    gapped = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [TN5_A, TN5_B], gap_fill=False)
    filled = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [TN5_A, TN5_B])
    ab = next(p.molecule for p in gapped.products if p.name == "tn5_a-insert-tn5_b")
    assert isinstance(ab, Duplex)
    assert any("CTGTCTCTTATACACATCT" in n and "9-nt gap" in n for n in ab.nicks)
    assert render(ab.left.top) == "5'-/5Phos/ TCGTCGGCAGCGTC-3'"
    done = ops.gap_fill(ab)
    want = next(p.molecule for p in filled.products if p.name == "tn5_a-insert-tn5_b")
    assert done.top == want.top and done.nicks == ()


def test_gap_fill_with_nothing_to_fill_is_e0412() -> None:
    """A blunt duplex without gaps has nothing to fill (E0412)."""
    with pytest.raises(ops.OperationFailure):
        ops.gap_fill(Duplex(core=parse_notation("[GDNA]")))
