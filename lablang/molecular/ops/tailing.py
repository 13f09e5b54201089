"""Template-independent tailing: poly(A) polymerase on RNA, terminal transferase on DNA."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.molecule import Duplex, Molecule, MolType, Single
from lablang.molecular.ops.core import NoSubstrate, OperationFailure, three_prime_blocked
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import Homopolymer, Seq

MAX_TAIL = 10_000


def _tail(base: str, length: int | None, label: str) -> Seq:
    if length is not None and not 1 <= length <= MAX_TAIL:
        raise OperationFailure("E0412", f"a tail is 1 to {MAX_TAIL} bases, not {length}")
    return Seq((Homopolymer(base, length, label),))


def _check_free(seq: Seq, what: str) -> None:
    blocked = three_prime_blocked(seq)
    if blocked:
        raise NoSubstrate(
            "E0421",
            f"{what} cannot be tailed: its 3' end is blocked (/{blocked}/)",
            help="tailing enzymes add to a free 3'-OH only",
        )


@operation(
    "poly_a_tail",
    lsb="other",
    rule="poly(A) polymerase adds (A)n to RNA's 3' end",
    untouched="carried",
    params=(
        Param(
            "length",
            "number",
            "bases added (default: unknown)",
        ),
    ),
)
def poly_a_tail(molecule: Molecule, length: int | None = None) -> Single:
    """Poly(A) tailing of RNA.

    Rule: poly(A) polymerase adds adenosines to the free 3'-OH of single-stranded RNA
    without a template; the tail's length depends on time and enzyme, so it is a run of
    unknown length unless given. It does not act on DNA (use `tdt_tail`).
    """
    if not isinstance(molecule, Single) or not molecule.strand.moltype.has_rna:
        raise NoSubstrate(
            "E0412",
            "poly(A) polymerase tails single-stranded RNA",
            help="use `tdt_tail` for DNA, or denature a hybrid first",
        )
    strand = molecule.strand
    _check_free(strand.seq, f"RNA `{strand.name}`")
    tail = _tail("A", length, "poly(A) tail")
    return Single(evolve(strand, seq=strand.seq + tail))


@operation(
    "tdt_tail",
    lsb="other",
    rule="terminal transferase adds a homopolymer to every free DNA 3' end",
    untouched="carried",
    params=(
        Param("base", "text", "the nucleotide", required=True, choices=tuple("ACGT")),
        Param(
            "length",
            "number",
            "bases added (default: unknown)",
        ),
    ),
)
def tdt_tail(molecule: Molecule, base: str, length: int | None = None) -> Molecule:
    """Terminal deoxynucleotidyl transferase (TdT) tailing of DNA.

    Rule: TdT adds deoxynucleotides to a free 3'-OH of DNA without a template (best on
    single strands and 3' overhangs), so with one dNTP it makes a homopolymer tail, such
    as the poly(C) that an oligo-dG primer then anneals to (Quartz-seq-like, SMART-free
    methods) or the poly(A) of an oligo-dT capture. Both 3' ends of a duplex are tailed.
    """
    tail = _tail(base, length, f"poly({base}) tail")
    match molecule:
        case Single(strand=strand):
            if strand.moltype is not MolType.DNA:
                raise NoSubstrate(
                    "E0412", "terminal transferase tails DNA", help="use `poly_a_tail` for RNA"
                )
            _check_free(strand.seq, f"strand `{strand.name}`")
            return Single(evolve(strand, seq=strand.seq + tail))
        case Duplex():
            if molecule.top_type is not MolType.DNA or molecule.bottom_type is not MolType.DNA:
                raise NoSubstrate("E0412", "terminal transferase tails DNA, not RNA")
            _check_free(molecule.top, "the top strand")
            _check_free(molecule.bottom, "the bottom strand")
            return evolve(
                molecule,
                left=molecule.left.with_overhangs(bottom=molecule.left.bottom + tail),
                right=molecule.right.with_overhangs(top=molecule.right.top + tail),
            )
    raise AssertionError(molecule)
