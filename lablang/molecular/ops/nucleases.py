"""Nucleases that remove a strand or a base: RNase H, uracil excision (USER)."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.modifications import codes_of
from lablang.molecular.molecule import Duplex, Molecule, MolType, Pool, Product, Single, Strand
from lablang.molecular.ops.core import NoSubstrate
from lablang.molecular.ops.registry import operation
from lablang.molecular.sequence import Modification, Part, Seq

URACIL_CODES = codes_of("uracil")


@operation(
    "rnase_h",
    lsb="other",
    rule="RNA paired with DNA is degraded (a hybrid's, a ligated chimera's); the DNA goes on single-stranded",
    untouched="carried",
)
def rnase_h(molecule: Molecule) -> Single:
    """RNase H digestion of the RNA in an RNA:DNA hybrid.

    Rule: RNase H cleaves RNA only where it is paired with DNA, so after first-strand
    synthesis it removes the mRNA template and leaves the cDNA single-stranded, free for
    a second primer, tailing or ligation. A chimera (RNA to which a DNA adapter was
    ligated, then reverse-transcribed) is degraded alike: its RNA part is paired with
    the cDNA, and its short DNA part, no longer held by the rest, is counted as melted
    off (the cDNA goes on single-stranded, as `denature(keep: "DNA")` would leave it).
    Single-stranded RNA and DNA duplexes are not substrates: alone that is an error; in
    a mix they stay in the tube unchanged.
    """
    if isinstance(molecule, Duplex):
        top, bottom = molecule.top_type, molecule.bottom_type
        if (top is MolType.DNA) != (bottom is MolType.DNA) and (top.has_rna or bottom.has_rna):
            dna = molecule if top is MolType.DNA else molecule.flipped()
            return Single(Strand(dna.top, dna.top_type, dna.top_name, dna.top_phosphate))
        raise NoSubstrate(
            "E0412",
            "RNase H needs RNA paired with DNA: this duplex has "
            + ("no RNA strand" if top is bottom is MolType.DNA else "no all-DNA strand"),
            help="RNase H acts on an RNA:DNA hybrid (after reverse transcription)",
        )
    raise NoSubstrate(
        "E0412",
        "RNase H needs an RNA:DNA hybrid (it degrades RNA paired with DNA)",
        help="reverse-transcribe first; single-stranded RNA is not a substrate",
    )


def _cut_at_uracil(seq: Seq) -> list[Seq]:
    pieces: list[list[Part]] = [[]]
    for part in seq.parts:
        if isinstance(part, Modification) and part.code in URACIL_CODES:
            pieces.append([])
        else:
            pieces[-1].append(part)
    return [Seq.of(p) for p in pieces if Seq.of(p)]


@operation(
    "user",
    lsb="other",
    rule="USER excises each `/ideoxyU/`: a strand falls into pieces, a hairpin's loop opens",
    untouched="carried",
)
def user(molecule: Molecule) -> Pool | Molecule:
    """Uracil excision (USER enzyme).

    Rule: uracil DNA glycosylase removes uracil from DNA and endonuclease VIII cuts the
    backbone at the abasic site, leaving a one-base gap with phosphorylated ends. A
    single strand is cut into its pieces (each a product, carried); in a duplex the cut
    leaves a gap, and a hairpin adapter's loop, which carries the dU for this purpose
    (NEBNext), opens, so the ligated adapter becomes a Y-shaped end. A molecule without a
    deoxyuridine is not a substrate: alone that is an error; in a mix it stays unchanged.
    """
    match molecule:
        case Single(strand=strand):
            pieces = _cut_at_uracil(strand.seq)
            if len(pieces) == 1 and pieces[0] == strand.seq:
                raise NoSubstrate("E0412", "no deoxyuridine (`/ideoxyU/`) to excise")
            return Pool(
                tuple(
                    Product(
                        Single(evolve(strand, seq=piece, phosphate_5p=k > 0)),
                        name=f"USER piece {k + 1}",
                    )
                    for k, piece in enumerate(pieces)
                )
            )
        case Duplex():
            top_u = any(
                isinstance(p, Modification) and p.code in URACIL_CODES
                for s in (molecule.top, molecule.bottom)
                for p in s.parts
            )
            if not molecule.loops and not top_u:
                raise NoSubstrate("E0412", "no deoxyuridine (`/ideoxyU/`) or hairpin loop to open")
            nicks = list(molecule.nicks)
            if top_u:
                nicks.append("one-base gap where USER excised a deoxyuridine")
            return evolve(
                molecule,
                core=_without_uracil(molecule.core),
                left=evolve(
                    molecule.left,
                    top=_without_uracil(molecule.left.top),
                    bottom=_without_uracil(molecule.left.bottom),
                ),
                right=evolve(
                    molecule.right,
                    top=_without_uracil(molecule.right.top),
                    bottom=_without_uracil(molecule.right.bottom),
                ),
                loops=(),
                nicks=tuple(nicks),
            )
    raise AssertionError(molecule)


def _without_uracil(seq: Seq) -> Seq:
    return Seq.of(
        p for p in seq.parts if not (isinstance(p, Modification) and p.code in URACIL_CODES)
    )
