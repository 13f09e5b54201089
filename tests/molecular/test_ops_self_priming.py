"""Self-priming: a strand's 3' end that folds back on it primes its own copy. Worked
examples (LIANTI's aRNA) and failures."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, MolType, Single, Strand
from lablang.molecular.ops.self_priming import hairpin_site, self_prime
from lablang.molecular.sequence import parse_notation, render

# LIANTI's aRNA: ME at the 5' end, the fragment, then ME' + the T7 loop + ME at the 3'
ARNA = "GGGAGATGTGTATAAGAGACAG [GDNA] CTGTCTCTTATACACATCT CCCTATAGTGAGTCGTATTAAATTCTGTTC AGATGTGTATAAGAGACAG"


def rna(text: str) -> Single:
    return Single(Strand(parse_notation(text), MolType.RNA, "arna"))


def test_the_arna_3_me_primes_a_copy_of_everything_upstream_of_its_me() -> None:
    """Worked example (LIANTI step 5-6): the 3' ME pairs with the ME' upstream (a 19-base
    stem, 30-base loop); RT copies the aRNA from there to its 5' end, and after RNase
    the cDNA is the complement of `GGG ME [GDNA]`, as the page draws it."""
    folded = self_prime(rna(ARNA))
    assert isinstance(folded, Duplex)
    assert folded.top_type is MolType.RNA and folded.bottom_type is MolType.DNA
    assert render(folded.bottom) == "5'-[GDNA'] CTGTCTCTTATACACATCTCCC-3'"
    assert "19-base stem, loop of 30" in folded.loops[0]
    cdna = ops.rnase_h(folded)
    assert cdna.strand.moltype is MolType.DNA
    assert render(cdna.strand.seq) == "5'-[GDNA'] CTGTCTCTTATACACATCTCCC-3'"


def test_the_longest_stem_nearest_the_3_end_is_the_fold() -> None:
    """Of two upstream stretches the 3' end could pair with, the longer stem wins; the
    doctest's 8-base offset is where the ME' starts."""
    seq = parse_notation("ACGTACGT CTGTCTCTTATACACATCT GGGAAATTT AGATGTGTATAAGAGACAG")
    assert hairpin_site(seq) == (8, 19)
    assert hairpin_site(parse_notation("ACGTACGTAAAACCCCGGGG")) is None


def test_a_strand_without_a_3_hairpin_is_e0425() -> None:
    """An aRNA whose 3' end has no complement upstream cannot prime itself (E0425), nor
    can one whose stem reaches its 5' end (nothing left to copy)."""
    for text in (
        "GGGAGATGTGTATAAGAGACAG [GDNA] CCCTATAGTGAGTCGTATTA",
        "CTGTCTCTTATACACATCT CCCTATAG AGATGTGTATAAGAGACAG",
    ):
        with pytest.raises(ops.OperationFailure) as failure:
            self_prime(rna(text))
        assert failure.value.code == "E0425"


def test_a_blocked_3_end_or_a_duplex_cannot_self_prime() -> None:
    """A 3'-blocked strand is E0421; a duplex (its 3' ends already paired) is E0412."""
    with pytest.raises(ops.OperationFailure) as failure:
        self_prime(rna(ARNA + " /3ddC/"))
    assert failure.value.code == "E0421"
    with pytest.raises(ops.OperationFailure) as failure:
        self_prime(Duplex(core=parse_notation("[GDNA]")))
    assert failure.value.code == "E0412"
