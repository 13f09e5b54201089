"""s3-ATAC's chemistry: a uracil-intolerant gap fill that stops at the transposon's dU,
and adapter switching by an LNA mosaic end. Worked examples and failures."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, Pool, Single, Strand
from lablang.molecular.ops.switching import adapter_switch
from lablang.molecular.sequence import parse_notation, render

SBS12_ME = "CGTGTGCTCTTCCGATCT [CB:8] /ideoxyU/ AGATGTGTATAAGAGACAG"
TRANSPOSOME = ops.Oligo(
    "tn5",
    (parse_notation(SBS12_ME), parse_notation("/5Phos/CTGTCTCTTATACACATCT")),
    "double_stranded",
)
A14_ME_LNA = ops.oligo(
    "a14", parse_notation("TCGTCGGCAGCGTCAGATGTGTA +T A +A G +A G +A C +A G /3InvdT/")
)


def tagmented() -> Duplex:
    pool = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [TRANSPOSOME], gap_fill=False)
    fragment = pool.products[0].molecule
    assert isinstance(fragment, Duplex)
    return fragment


def test_a_uracil_intolerant_gap_fill_leaves_the_barcoded_arms_single_stranded() -> None:
    """The arm's dU sits next to the ME: a polymerase that stalls at template uracil
    copies none of the arm, so both barcoded arms stay single-stranded and only the
    gaps close; a uracil-reading polymerase copies the arms to blunt ends."""
    stalled = ops.gap_fill(tagmented(), uracil="stalls")
    assert render(stalled.left.top) == "5'-CGTGTGCTCTTCCGATCT [CB:8] /ideoxyU/-3'"
    assert stalled.right.bottom and not stalled.nicks
    read = ops.gap_fill(tagmented())
    assert not read.left.top and not read.right.bottom


def test_a_uracil_further_out_lets_the_fill_copy_up_to_it() -> None:
    """With the dU 4 bases out from the ME the stalling fill copies those 4 bases."""
    arm = ops.Oligo(
        "tn5",
        (
            parse_notation("CGTGTG /ideoxyU/ ACGT AGATGTGTATAAGAGACAG"),
            parse_notation("CTGTCTCTTATACACATCT"),
        ),
        "double_stranded",
    )
    pool = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [arm], gap_fill=False)
    filled = ops.gap_fill(pool.products[0].molecule, uracil="stalls")  # type: ignore[arg-type]
    assert render(filled.left.top) == "5'-CGTGTG /ideoxyU/-3'"
    with pytest.raises(ops.OperationFailure) as failure:
        ops.gap_fill(pool.products[0].molecule, uracil="sometimes")  # type: ignore[arg-type]
    assert failure.value.code == "E0412"


def test_the_lna_me_switches_each_strand_to_an_s5_end() -> None:
    """Worked example (s3-ATAC steps 4-5): each strand ends in ME'; A14-ME-LNA's ME
    takes it and the strand copies A14 (s5'); the oligo's /3InvdT/ keeps it from being
    extended, so each strand goes on single, ready for the i5 primer."""
    fill = ops.gap_fill(tagmented(), uracil="stalls")
    pool = adapter_switch(fill, A14_ME_LNA)
    assert len(pool.carried) == 2
    for product in pool.carried:
        assert isinstance(product.molecule, Single)
        assert render(product.molecule.strand.seq).endswith("CTGTCTCTTATACACATCTGACGCTGCCGACGA-3'")


def test_a_free_switching_oligo_is_extended_too_and_gives_a_duplex() -> None:
    """Without the 3' block the oligo primes on the strand as well: a blunt duplex."""
    free = ops.oligo("a14_free", "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG")
    strand = Single(Strand(parse_notation("ACGTACGTACGT [GDNA] CTGTCTCTTATACACATCT")))
    pool = adapter_switch(strand, free)
    (product,) = pool.carried
    assert isinstance(product.molecule, Duplex) and not product.molecule.left.top


def test_no_strand_ending_in_the_oligos_complement_is_e0426() -> None:
    """A strand that does not end in ME' gives the LNA ME nothing to take (E0426); in
    a mix, such a strand is discarded with its reason."""
    strand = Single(Strand(parse_notation("ACGTACGTACGT [GDNA] GGGGCCCCAAAATTTT")))
    with pytest.raises(ops.OperationFailure) as failure:
        adapter_switch(strand, A14_ME_LNA)
    assert failure.value.code == "E0426"
    fill = ops.gap_fill(tagmented(), uracil="stalls")
    mixed = adapter_switch(fill, A14_ME_LNA)
    assert isinstance(mixed, Pool) and not mixed.discarded
