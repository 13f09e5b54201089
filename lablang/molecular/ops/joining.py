"""Joining an oligo end to end to one strand end: what single-stranded, splinted and
barcode-round ligations share (no operation is registered here).

An end is written as in the `end:` argument: a strand (`top`, `bottom`; a single strand
is `top`) and a terminus (`5'`, `3'`). Ligase joins a 3'-OH to a 5'-phosphate (or a
5'-adenylate, for pre-adenylated adapters), so which chemistry must be present depends
on which end is joined:

- joining to a strand's 3' end: the oligo's 5' end is the donor (`/5Phos/` or
  `/5rApp/`), the strand's 3' end the acceptor (not blocked);
- joining to a strand's 5' end: the strand's 5' end is the donor (phosphorylated), the
  oligo's 3' end the acceptor (not blocked: `/3ddC/`, `/3SpC3/` and similar prevent it).
"""

from __future__ import annotations

import attrs

from lablang.molecular.molecule import Duplex, Molecule, MolType, Single
from lablang.molecular.ops.core import (
    Oligo,
    OperationFailure,
    adenylated,
    anneal_sites,
    has_phosphate,
    no_site_failure,
    oligo_moltype,
    parse_end,
    strip_leading_modifications,
    three_prime_blocked,
)
from lablang.molecular.sequence import Seq, plain

MIN_SPLINT_ARM = 6  # bases a splint (or a hairpin's own overhang) pairs on each side of a nick


def target_end(molecule: Molecule, end: str) -> tuple[str, str]:
    """The (strand, prime) an `end:` argument names; E0412 when malformed or when a
    single strand is asked for its bottom strand."""
    parsed = parse_end(end)
    if parsed is None:
        raise OperationFailure(
            "E0412",
            f"`end` is a strand end such as 3', 5', top 3' or bottom 5', not `{end}`",
        )
    if isinstance(molecule, Single) and parsed[0] == "bottom":
        raise OperationFailure(
            "E0412", "a single-stranded molecule has no bottom strand", help="write `end: 3'`"
        )
    return parsed


def strand_seq(molecule: Molecule, strand: str) -> tuple[Seq, MolType, bool]:
    """The sequence, type and 5' phosphate of one strand of the molecule."""
    match molecule:
        case Single(strand=s):
            return s.seq, s.moltype, s.phosphate_5p or has_phosphate(s.seq)
        case Duplex():
            if strand == "top":
                return (
                    molecule.top,
                    molecule.top_type,
                    molecule.top_phosphate or has_phosphate(molecule.top),
                )
            return (
                molecule.bottom,
                molecule.bottom_type,
                molecule.bottom_phosphate or has_phosphate(molecule.bottom),
            )
    raise AssertionError(molecule)


def check_donor_acceptor(molecule: Molecule, oligo: Oligo, strand: str, prime: str) -> None:
    """E0403 when the 5' donor has neither phosphate nor adenylate, E0421 when the 3'
    acceptor is blocked."""
    seq, _moltype, phosphate = strand_seq(molecule, strand)
    if prime == "3'":
        blocked = three_prime_blocked(seq)
        if blocked:
            raise OperationFailure(
                "E0421",
                f"the {strand} strand's 3' end is blocked (/{blocked}/): `{oligo.name}` cannot "
                "be ligated to it",
                help="ligase needs a free 3'-OH on the acceptor",
            )
        if not (has_phosphate(oligo.seq) or adenylated(oligo.seq)):
            raise OperationFailure(
                "E0403",
                f"`{oligo.name}` has no 5' phosphate (or adenylate) to ligate to the "
                f"{strand} strand's 3' end",
                help="add /5Phos/ (or use a pre-adenylated /5rApp/ adapter)",
            )
    else:
        blocked = three_prime_blocked(oligo.seq)
        if blocked:
            raise OperationFailure(
                "E0421",
                f"`{oligo.name}`'s 3' end is blocked (/{blocked}/): it cannot be ligated to the "
                f"{strand} strand's 5' end",
                help="a 3'-blocked adapter only ligates by its 5' end (to a 3' end)",
            )
        if not phosphate:
            raise OperationFailure(
                "E0403",
                f"the {strand} strand's 5' end has no phosphate for `{oligo.name}` to ligate to",
                help="phosphorylate (PNK) or use a /5Phos/ primer",
            )


def check_splint(splint: Oligo, added: Seq, strand: Seq, prime: str) -> None:
    """A splint must pair over its whole length across the junction, >= 6 bases each side
    (`MIN_SPLINT_ARM`)."""
    junction = added + strand if prime == "5'" else strand + added
    joint = len(added) if prime == "5'" else len(strand)
    whole = plain(splint.seq).min_length
    sites = anneal_sites(plain(splint.seq), junction, whole)
    arm = MIN_SPLINT_ARM
    if not any(site.start <= joint - arm and site.stop >= joint + arm for site in sites):
        failure = no_site_failure(
            splint.name, plain(splint.seq), [("joined ends", junction)], whole
        )
        raise OperationFailure(
            "E0402",
            f"splint `{splint.name}` does not bridge the junction: it must pair over its whole "
            "length with at least 6 bases on each side",
            notes=failure.notes,
            help="check the splint's two halves against the molecule's end and the oligo",
        )


def join(
    molecule: Molecule,
    oligo: Oligo,
    strand: str,
    prime: str,
    *,
    splint: Oligo | None = None,
    check: bool = True,
) -> Molecule:
    """`oligo` joined end to end to the given end of one strand of the molecule.

    The joined strand becomes a chimera when the oligo's type (DNA, or RNA for an
    all-ribo oligo) differs from the strand's. A 5'-joined oligo keeps its own 5'
    chemistry (a biotin stays at the new 5' end); a 3'-joined oligo's 5' phosphate or
    adenylate goes into the new bond.
    """
    if check:
        check_donor_acceptor(molecule, oligo, strand, prime)
    added = oligo.seq if prime == "5'" else strip_leading_modifications(oligo.seq)
    if splint is not None:
        check_splint(splint, plain(added), plain(strand_seq(molecule, strand)[0]), prime)
    kind = oligo_moltype(oligo.seq)
    if isinstance(molecule, Duplex) and strand == "bottom":
        return _join_top(molecule.flipped(), added, prime, kind, oligo).flipped()  # type: ignore[union-attr]
    return _join_top(molecule, added, prime, kind, oligo)


def _join_top(molecule: Molecule, added: Seq, prime: str, kind: MolType, oligo: Oligo) -> Molecule:
    phosphate = has_phosphate(oligo.seq)
    match molecule:
        case Single(strand=s):
            seq = added + strip_leading_modifications(s.seq) if prime == "5'" else s.seq + added
            return Single(
                attrs.evolve(
                    s,
                    seq=seq,
                    moltype=s.moltype.joined(kind),
                    phosphate_5p=phosphate if prime == "5'" else s.phosphate_5p,
                )
            )
        case Duplex():
            top_type = molecule.top_type.joined(kind)
            if prime == "5'":
                # the old 5' end is now internal: its phosphate went into the new bond
                if molecule.left.top:
                    left_top, core = strip_leading_modifications(molecule.left.top), molecule.core
                else:
                    left_top, core = molecule.left.top, strip_leading_modifications(molecule.core)
                return attrs.evolve(
                    molecule,
                    core=core,
                    left=attrs.evolve(molecule.left, top=added + left_top),
                    top_type=top_type,
                    top_phosphate=phosphate,
                )
            return attrs.evolve(
                molecule,
                right=attrs.evolve(molecule.right, top=molecule.right.top + added),
                top_type=top_type,
            )
    raise AssertionError(molecule)
