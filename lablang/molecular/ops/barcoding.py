"""Split-pool barcoding rounds: a well-specific oligo joined to every molecule."""

from __future__ import annotations

from collections.abc import Sequence

from lablang.molecular.molecule import Molecule, MolType, Strand, top_strand
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    Oligo,
    OperationFailure,
    anneal_sites,
    no_site_failure,
)
from lablang.molecular.ops.joining import join, strand_seq, target_end
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import Seq, plain, reverse_complement

LIGASE = Param(
    "ligase",
    "text",
    "DNA ligase (needs the splint) or RNA ligase (single strands)",
    default="dna",
    choices=("dna", "rna"),
)


@operation(
    "barcode_round",
    lsb="ligation",
    rule="join the oligo to a strand end by `ligate`'s one-strand rules, or extend the 3' end across it",
    params=(
        Param("barcode", "oligo", "the round's barcode oligo", required=True),
        Param("end", "end", "strand end joined", default="5'"),
        Param("by", "text", "how", default="ligation", choices=("ligation", "extension")),
        Param(
            "splint",
            "oligo",
            "linker bridging the junction",
        ),
        LIGASE,
    ),
)
def barcode_round(
    molecule: Molecule,
    barcode: Oligo,
    *,
    end: str = "5'",
    by: str = "ligation",
    splint: Oligo | None = None,
    ligase: str = "dna",
    min_match: int = MIN_ANNEAL,
) -> Molecule:
    """One split-pool round: a well-specific barcode oligo is joined to every molecule.

    Rule: by `ligation`, the oligo is joined end to end to the chosen end of one strand
    (the top strand unless `end:` names `bottom`); ligase joins a 3'-OH to a
    5'-phosphate, so the 5' end in the junction must carry a phosphate and the 3' end
    must be free. T4 DNA ligase needs a `splint` (linker) holding the junction in a
    duplex (E0402 without one, as for `ligate`; `ligase: rna` joins single strands),
    and the splint must pair over its whole length
    across the junction with at least 6 bases on each side, as it holds the two ends
    together for ligase. By `extension`, the strand's 3' end anneals to the oligo and is
    extended across it, copying the barcode. Pooling afterwards leaves the sequence as
    it is: the round order is the order of barcodes along the molecule.
    """
    if by not in ("ligation", "extension"):
        raise OperationFailure("E0412", f"`by` must be ligation or extension, not `{by}`")
    strand, prime = target_end(molecule, end)
    if by == "extension":
        if prime != "3'":
            raise OperationFailure("E0412", "extension adds sequence at a 3' end only")
        template = Strand(plain(barcode.seq), MolType.DNA, barcode.name)
        own = strand_seq(molecule, strand)[0] if strand == "bottom" else top_strand(molecule)
        sites = anneal_sites(plain(own), template.seq, min_match)
        if not sites:
            raise no_site_failure(
                "3' end of the molecule", plain(own), [(barcode.name, template.seq)], min_match
            )
        added: Seq = reverse_complement(template.seq.slice(0, sites[0].start)).with_label(
            f"{barcode.name}'"
        )
        copied = Oligo(f"{barcode.name}'", (added,))
        return join(molecule, copied, strand, "3'", check=False)
    if ligase not in ("dna", "rna"):
        raise OperationFailure("E0412", f"`ligase` must be dna or rna, not `{ligase}`")
    return join(molecule, barcode, strand, prime, splint=splint, ligase=ligase)


@operation(
    "split_pool",
    lsb="ligation",
    rule="several `barcode_round`s in order",
    params=(
        Param("rounds", "oligos", "the barcode oligos, first round first", required=True),
        Param("end", "end", "strand end joined", default="5'"),
        Param("by", "text", "how", default="ligation", choices=("ligation", "extension")),
        LIGASE,
    ),
)
def split_pool(
    molecule: Molecule,
    rounds: Sequence[Oligo],
    *,
    end: str = "5'",
    by: str = "ligation",
    ligase: str = "dna",
) -> Molecule:
    """Several split-pool rounds in order.

    Rule: each oligo is joined as one `barcode_round`, first round first; the rounds
    are the same chemistry repeated (no splint is given here: by ligation the rounds
    need `ligase: rna`, or `barcode_round` steps with their linkers), so the molecule carries one barcode per round in
    round order.
    """
    if len(rounds) > 64:
        raise OperationFailure("E0415", f"{len(rounds)} split-pool rounds exceed the limit of 64")
    for barcode in rounds:
        molecule = barcode_round(molecule, barcode, end=end, by=by, ligase=ligase)
    return molecule
