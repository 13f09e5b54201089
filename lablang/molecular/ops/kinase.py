"""T4 polynucleotide kinase: 5' phosphates on every strand."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.molecule import Duplex, Molecule, Single
from lablang.molecular.ops.core import kinase_accepts
from lablang.molecular.ops.registry import operation


@operation(
    "phosphorylate",
    lsb="other",
    rule="T4 PNK phosphorylates every 5'-OH",
    untouched="carried",
)
def phosphorylate(molecule: Molecule) -> Molecule:
    """5' phosphorylation by T4 polynucleotide kinase.

    Rule: PNK transfers ATP's gamma-phosphate to free 5'-OH ends of DNA and RNA, so each
    strand's 5' end can be the donor of a later ligation; sequence and pairing do not
    change (end repair includes this step; here it stands alone, as when primers or a
    cDNA's 5' end are phosphorylated before ligation). A 5' end blocked by another group
    (an amine, biotin) is not phosphorylated (see `kinase_accepts`).
    """
    match molecule:
        case Single(strand=strand):
            return Single(evolve(strand, phosphate_5p=kinase_accepts(strand.seq)))
        case Duplex():
            return evolve(
                molecule,
                top_phosphate=kinase_accepts(molecule.top),
                bottom_phosphate=kinase_accepts(molecule.bottom),
            )
    raise AssertionError(molecule)
