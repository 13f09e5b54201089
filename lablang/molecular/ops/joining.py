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

from attrs import evolve

from lablang.molecular.molecule import Duplex, Molecule, MolType, Single
from lablang.molecular.ops.core import (
    Oligo,
    OperationFailure,
    adenylated,
    has_phosphate,
    no_site_failure,
    oligo_moltype,
    pairing_sites,
    parse_end,
    strip_leading_modifications,
    three_prime_blocked,
)
from lablang.molecular.pairing import Position, positions, positions_pair
from lablang.molecular.sequence import Seq, SymbolToken, Token, plain, reverse_complement

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


MAX_SPLINT_GAP = 64  # splint bases a gapped splinted join may leave unpaired between its arms


def check_splint(splint: Oligo, added: Seq, strand: Seq, prime: str) -> Seq:
    """The splint's bridge across the junction: the fill a gap between the two ends
    needs (empty for a nick); E0402 when it does not bridge.

    Rule: a splint must pair over its whole length across the junction, at least 6
    bases (`MIN_SPLINT_ARM`) on each side, so that ligase finds the two ends held in a
    duplex; its end bases may pair inside a placeholder that admits them
    (`pairing_sites`: a linker ending in S on a barcode the page gives as `S...`). A splint may also hold the two ends apart (CH-ATAC's HY oligo holds the head
    oligo 10 bases, its barcode, short of the Tn5 oligo): each of its arms pairs with
    one end and its middle stays unpaired (`splint_arms`); a polymerase extending the
    upstream 3' end copies the middle, and ligase then seals the nick.
    """
    junction = added + strand if prime == "5'" else strand + added
    joint = len(added) if prime == "5'" else len(strand)
    whole = plain(splint.seq).min_length
    sites = pairing_sites(plain(splint.seq), junction, whole)
    arm = MIN_SPLINT_ARM
    if any(site.start <= joint - arm and site.stop >= joint + arm for site in sites):
        return Seq()
    upstream, downstream = (added, strand) if prime == "5'" else (strand, added)
    arms = splint_arms(plain(splint.seq), upstream, downstream)
    if arms is not None:
        x, y = arms
        middle = plain(splint.seq).slice(y, len(plain(splint.seq)) - x)
        return reverse_complement(middle).with_label(f"gap fill across {splint.name}")
    failure = no_site_failure(splint.name, plain(splint.seq), [("joined ends", junction)], whole)
    raise OperationFailure(
        "E0402",
        f"splint `{splint.name}` does not bridge the junction: it must pair over its whole "
        f"length with at least {arm} bases on each side, or pair each end with an arm of "
        f"{arm}+ bases and leave at most {MAX_SPLINT_GAP} bases between them",
        notes=failure.notes,
        help="check the splint's two halves against the molecule's end and the oligo",
    )


def splint_arms(splint: Seq, upstream: Seq, downstream: Seq) -> tuple[int, int] | None:
    """The splint's two arms when it holds `upstream` (its 3' end at the junction) and
    `downstream` (its 5' end at the junction) apart: (x, y) tokens, its 3'-terminal `x`
    tokens paired with upstream's 3'-terminal bases and its 5'-terminal `y` tokens with
    downstream's 5'-terminal bases, each arm >= `MIN_SPLINT_ARM` bases and the middle
    <= `MAX_SPLINT_GAP` bases; the widest arms win, None when there are none."""
    sp, up, down = splint.tokens(), upstream.tokens(), downstream.tokens()
    if not any(isinstance(tok, SymbolToken) for tok in sp):
        # a linker's bases against the ends' placeholders position by position (its own
        # placeholders pair as tokens, so its arms count tokens)
        up, down = positions(up), positions(down)  # type: ignore[assignment]
    n = len(sp)
    xs = [x for x in range(1, min(n, len(up)) + 1) if _arm(sp, up, x, three_prime=True)]
    ys = [y for y in range(1, min(n, len(down)) + 1) if _arm(sp, down, y, three_prime=False)]
    best: tuple[int, int] | None = None
    for x in xs:
        for y in ys:
            middle = splint.slice(y, n - x)
            if x + y > n or middle.min_length > MAX_SPLINT_GAP:
                continue
            if _bases(splint.slice(n - x)) < MIN_SPLINT_ARM or _bases(splint.slice(0, y)) < (
                MIN_SPLINT_ARM
            ):
                continue
            if best is None or x + y > sum(best):
                best = (x, y)
    return best


def _arm(sp: tuple[Token, ...], piece: tuple[Position, ...], k: int, *, three_prime: bool) -> bool:
    """Whether the splint's `k` terminal tokens (3' or 5') pair antiparallel with the
    piece's `k` positions at the junction (upstream's 3' end, downstream's 5' end)."""
    if three_prime:  # splint 3' end pairs upstream's bases from the junction backwards
        return all(positions_pair(sp[len(sp) - k + i], piece[len(piece) - 1 - i]) for i in range(k))
    return all(positions_pair(sp[k - 1 - i], piece[i]) for i in range(k))


def _bases(seq: Seq) -> int:
    return seq.min_length


def join(
    molecule: Molecule,
    oligo: Oligo,
    strand: str,
    prime: str,
    *,
    splint: Oligo | None = None,
    ligase: str = "dna",
    check: bool = True,
) -> Molecule:
    """`oligo` joined end to end to the given end of one strand of the molecule.

    Rule (every single-strand join, `ligate` and `barcode_round` alike): T4 RNA ligase
    joins single strands; T4 DNA ligase seals only a nick held in a duplex, so the
    junction needs a `splint` (E0402 without one). The joined strand becomes a chimera
    when the oligo's type (DNA, or RNA for an all-ribo oligo) differs from the strand's.
    A 5'-joined oligo keeps its own 5' chemistry (a biotin stays at the new 5' end); a
    3'-joined oligo's 5' phosphate or adenylate goes into the new bond.
    """
    if check:
        if ligase == "dna" and splint is None:
            raise OperationFailure(
                "E0402",
                f"DNA ligase cannot join single-stranded `{oligo.name}` without a splint: it "
                "seals nicks in a duplex",
                help="give `splint:` (a bridging oligo) or use `ligase: rna` (T4 RNA ligase)",
            )
        check_donor_acceptor(molecule, oligo, strand, prime)
    added = oligo.seq if prime == "5'" else strip_leading_modifications(oligo.seq)
    fill = Seq()
    if splint is not None:
        fill = check_splint(splint, plain(added), plain(strand_seq(molecule, strand)[0]), prime)
    if fill and not isinstance(molecule, Duplex):
        raise OperationFailure(
            "E0402",
            f"splint `{splint.name if splint else ''}` holds `{oligo.name}` {fill.min_length} "
            "bases from the strand's end: a gapped splinted join is modelled on a strand of a "
            "duplex only (where the gap is recorded until `gap_fill`)",
            help="use a splint whose arms meet, or join to a strand of a duplex and fill the "
            "gap with `gap_fill`",
        )
    kind = oligo_moltype(oligo.seq)
    added = (added + fill) if prime == "5'" else (fill + added)
    if isinstance(molecule, Duplex) and strand == "bottom":
        joined = _join_top(molecule.flipped(), added, prime, kind, oligo).flipped()  # type: ignore[union-attr]
    else:
        joined = _join_top(molecule, added, prime, kind, oligo)
    if fill and isinstance(joined, Duplex):
        gap = (
            f"{fill.min_length}-base gap on the {strand} strand between `{oligo.name}` and the "
            f"strand's {prime} end, held by splint `{splint.name if splint else ''}` (a "
            "polymerase fills it: `gap_fill`)"
        )
        return evolve(joined, nicks=(*joined.nicks, gap))
    return joined


def _join_top(molecule: Molecule, added: Seq, prime: str, kind: MolType, oligo: Oligo) -> Molecule:
    phosphate = has_phosphate(oligo.seq)
    match molecule:
        case Single(strand=s):
            seq = added + strip_leading_modifications(s.seq) if prime == "5'" else s.seq + added
            return Single(
                evolve(
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
                return evolve(
                    molecule,
                    core=core,
                    left=evolve(molecule.left, top=added + left_top),
                    top_type=top_type,
                    top_phosphate=phosphate,
                )
            return evolve(
                molecule,
                right=evolve(molecule.right, top=molecule.right.top + added),
                top_type=top_type,
            )
    raise AssertionError(molecule)
