"""In vitro transcription and random priming, on hand-worked examples and their failures."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, MolType, Single, Strand
from lablang.molecular.sequence import parse_notation, render

T7_DT = ops.oligo("t7dT", "GGCCGGTAATACGACTCACTATAGGGAGA [CELL_BARCODE:6] (T)20")
RANDOM = ops.oligo("rand", "CCTTGGAACC NNNNNN")


def dna(text: str, name: str = "t") -> Single:
    return Single(Strand(parse_notation(text), MolType.DNA, name))


def rna(text: str, name: str = "mrna") -> Single:
    return Single(Strand(parse_notation(text), MolType.RNA, name))


def t7_cdna() -> Duplex:
    """An oligo-dT-T7 primed, second-stranded cDNA (CEL-seq, MARS-seq)."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)20"), T7_DT, nontemplated="")
    return ops.second_strand(hybrid)


def test_ivt_copies_the_sense_strand_downstream_of_the_t7_promoter_as_rna() -> None:
    """T7 transcription of a dT-T7 cDNA gives antisense RNA starting at +1 (the G after
    TATA): GGGAGA, barcode, poly(T) read as U, the cDNA's complement."""
    transcript = ops.ivt(t7_cdna())
    assert transcript.strand.moltype is MolType.RNA
    assert render(transcript.strand.seq) == "5'-GGGAGA [CELL_BARCODE:6] (T)20 [CDNA']-3'"


def test_ivt_finds_the_promoter_on_either_strand() -> None:
    """The same duplex turned over (promoter on the bottom strand) gives the same aRNA."""
    assert ops.ivt(t7_cdna().flipped()) == ops.ivt(t7_cdna())


def test_ivt_without_a_promoter_is_e0419() -> None:
    """A duplex with no T7 promoter cannot be transcribed: E0419, showing both strands."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ivt(Duplex(core=parse_notation("ACGTACGTACGT [CDNA]")))
    assert caught.value.code == "E0419" and "no T7 promoter" in caught.value.message


def test_ivt_needs_a_double_stranded_promoter() -> None:
    """A single strand carrying the promoter is E0419: T7 RNA polymerase binds a duplex."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ivt(dna("TAATACGACTCACTATAGGG [CDNA]"))
    assert caught.value.code == "E0419"


def test_ivt_with_another_polymerase_needs_its_own_promoter() -> None:
    """SP6 polymerase does not read a T7 promoter (E0419)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ivt(t7_cdna(), promoter="SP6")
    assert caught.value.code == "E0419"


def test_random_primer_primes_only_inside_the_payload() -> None:
    """A random hexamer primer primes in the cDNA, not in the poly(T) or the known bases:
    the new strand is the whole primer, then the payload's copy, then the copy of the
    template's 5' part; the template's 3' part (poly(T)) stays single-stranded."""
    template = dna("ACGTACGTACGTACGTAC [CDNA] TTTTTTTTTTTTTTTTTTTTTTTT")
    duplex = ops.extend(template, RANDOM)
    assert render(duplex.top) == "5'-CCTTGGAACCNNNNNN [CDNA'] GTACGTACGTACGTACGT-3'"
    assert render(duplex.left.bottom) == "5'-TTTTTTTTTTTTTTTTTTTTTTTT-3'"
    assert render(duplex.bottom) == render(template.strand.seq)


def test_random_primed_rt_gives_a_hybrid_with_the_primer_at_the_cdna_5_end() -> None:
    """Random-primed reverse transcription of mRNA: cDNA = primer + cDNA' + CCC."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), RANDOM)
    assert render(hybrid.top) == "5'-CCTTGGAACCNNNNNN [CDNA'] CCC-3'"
    assert hybrid.bottom_type is MolType.RNA


def test_random_primer_with_no_payload_is_e0420() -> None:
    """A template of known bases only gives a random primer nothing to prime (E0420)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.extend(dna("ACGTACGTACGTACGTACGTTTTTTTTTTT"), RANDOM)
    assert caught.value.code == "E0420"


def test_a_primer_with_a_blocked_3_end_is_not_extended() -> None:
    """A /3ddC/-blocked primer cannot be extended (E0421), even where it pairs."""
    blocked = ops.oligo("blk", "GGTTGTACGTACGTAAAACCCC/3ddC/")
    with pytest.raises(ops.OperationFailure) as caught:
        ops.extend(dna("AAAACCCCGGGGTTTTACGTACGTAC"), blocked)
    assert caught.value.code == "E0421"


LIANTI = ops.oligo("lianti", "GAATTTAATACGACTCACTATAGGGAGATGTGTATAAGAGACAG")


def test_ivt_transcribes_each_strand_from_its_own_promoter() -> None:
    """A tagmented fragment with a T7 transposon at both ends (LIANTI) gives two
    transcripts, one per strand, each starting at the G after the promoter."""
    pool = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [LIANTI, LIANTI])
    fragment = next(p.molecule for p in pool.products if p.name == "lianti-insert-lianti")
    transcripts = ops.ivt(fragment)
    assert isinstance(transcripts, ops.Pool) and len(transcripts.products) == 2
    seqs = [render(p.molecule.strand.seq) for p in transcripts.products]  # type: ignore[union-attr]
    assert seqs[0] == (
        "5'-GGGAGATGTGTATAAGAGACAG [GDNA] CTGTCTCTTATACACATCTCCCTATAGTGAGTCGTATTAAATTC-3'"
    )
    assert seqs[1].startswith("5'-GGGAGATGTGTATAAGAGACAG [GDNA']")


def test_phosphorylate_gives_every_5_end_a_phosphate() -> None:
    """T4 PNK phosphorylates both strands' 5' ends; the sequence does not change."""
    duplex = Duplex(core=parse_notation("ACGT [GDNA]"))
    done = ops.phosphorylate(duplex)
    assert isinstance(done, Duplex) and done.top_phosphate and done.bottom_phosphate
    assert done.top == duplex.top


def test_linear_amplification_with_a_random_primer_copies_each_payload_strand() -> None:
    """A MALBAC-style tailed random 8-mer copies both strands of a gDNA duplex, priming in
    the payload; the copies carry the primer's tail at their 5' end."""
    malbac = ops.oligo("malbac", "GTGAGTGATGGTTGAGGTAGTGTGGAG NNNNNNNN")
    pool = ops.linear_amplify(Duplex(core=parse_notation("[GDNA]")), malbac)
    tops = sorted(render(p.molecule.top) for p in pool.carried)
    assert tops == [
        "5'-GTGAGTGATGGTTGAGGTAGTGTGGAGNNNNNNNN [GDNA']-3'",
        "5'-GTGAGTGATGGTTGAGGTAGTGTGGAGNNNNNNNN [GDNA]-3'",
    ]


def test_digest_with_a_four_cutter_leaves_its_overhang() -> None:
    """FatI cuts ^CATG: the left piece ends with a 5' CATG overhang on the bottom strand."""
    pool = ops.digest(Duplex(core=parse_notation("ACGTACGTCATGGGTTAACC [GDNA]")), "FatI")
    left = pool.products[0].molecule
    assert isinstance(left, Duplex) and render(left.right.bottom) == "5'-CATG-3'"
