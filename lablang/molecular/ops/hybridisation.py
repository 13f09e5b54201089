"""Hybridisation of an oligo to a duplex's single-stranded end (held, not joined)."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.molecule import Duplex, End, Molecule
from lablang.molecular.ops.core import (
    MIN_STEM,
    Oligo,
    OperationFailure,
    has_phosphate,
    need_duplex,
    parse_end,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.pairing import pair_whole
from lablang.molecular.sequence import Seq, plain, render, reverse_complement


def _pairs(a: Seq, b: Seq) -> bool:
    """Whether `a` and `b` (both 5'->3') form a perfect duplex over their whole lengths."""
    return pair_whole(plain(a).tokens(), plain(b).tokens())


@operation(
    "anneal",
    lsb="capture",
    rule="the oligo pairs with a strand end's single-stranded overhang (its whole length, "
    ">= 6 bases) and is held there, nicked, not joined",
    params=(
        Param("oligo", "oligo", "the oligo that hybridises", required=True),
        Param("end", "end", 'the strand end it lands beyond: `"top 5\'"`', default="top 5'"),
    ),
)
def anneal(molecule: Molecule, oligo: Oligo, *, end: str = "top 5'") -> Duplex:
    """Hybridisation of a single-stranded oligo to a duplex's single-stranded end.

    Rule: the oligo lands beyond the named strand end (`top 5'`: before the top
    strand's 5' end, on the bottom strand's 3' overhang; `top 3'`: after the top's 3'
    end, on the bottom's 5' overhang), its end next to the junction pairing with the
    whole overhang, at least 6 bases: a bead oligo captured by a capture overhang, a
    probe on a sticky end. Nothing is joined: the oligo is held by base pairing next
    to the strand end (a nick, recorded) and what of it does not pair is the new
    single-stranded end, which a later `gap_fill` copies onto the other strand (the
    polymerase extends the overhang's 3' end along the oligo). Use `ligate` to seal
    the nick. No overhang at that end, or an oligo that does not pair with all of it,
    is E0424.
    """
    parsed = parse_end(end)
    if parsed is None:
        raise OperationFailure(
            "E0412", f'`end` is a strand end such as "top 5\'" or "bottom 3\'", not `{end}`'
        )
    duplex = need_duplex(molecule, "hybridisation to a single-stranded end")
    strand, prime = parsed
    # work on the top strand: `bottom 5'` is the top's 3' side turned over, and so on
    turned = strand == "bottom"
    target = duplex.flipped() if turned else duplex
    joined = _anneal_before_5p(target, oligo) if prime == "5'" else _anneal_after_3p(target, oligo)
    return joined.flipped() if turned else joined


def _anneal_before_5p(duplex: Duplex, oligo: Oligo) -> Duplex:
    """The oligo's 3' part pairs with the bottom strand's 3' overhang at the left end."""
    overhang = duplex.left.bottom
    _check(duplex.left.top, overhang, oligo, "5'")
    n = len(oligo.seq) - len(overhang)
    paired = oligo.seq.slice(n)
    if not _pairs(paired, overhang):
        raise _mismatch(oligo, overhang, "3'")
    return evolve(
        duplex,
        core=plain(paired) + duplex.core,
        left=End(top=oligo.seq.slice(0, n)),
        top_phosphate=has_phosphate(oligo.seq),
        nicks=(
            *duplex.nicks,
            f"`{oligo.name}` annealed before the top strand's 5' end, not joined",
        ),
    )


def _anneal_after_3p(duplex: Duplex, oligo: Oligo) -> Duplex:
    """The oligo's 5' part pairs with the bottom strand's 5' overhang at the right end."""
    overhang = duplex.right.bottom
    _check(duplex.right.top, overhang, oligo, "3'")
    paired = oligo.seq.slice(0, len(overhang))
    if not _pairs(paired, overhang):
        raise _mismatch(oligo, overhang, "5'")
    return evolve(
        duplex,
        core=duplex.core + plain(paired),
        right=End(top=oligo.seq.slice(len(overhang))),
        nicks=(*duplex.nicks, f"`{oligo.name}` annealed after the top strand's 3' end, not joined"),
    )


def _check(same_strand: Seq, overhang: Seq, oligo: Oligo, prime: str) -> None:
    """E0424 unless the other strand overhangs there (the named strand recessed) by at
    least 6 bases and the oligo is longer than the overhang."""
    if same_strand or len(overhang) < MIN_STEM:
        raise OperationFailure(
            "E0424",
            f"no single-stranded overhang of {MIN_STEM}+ bases beyond the strand's {prime} end "
            f"for `{oligo.name}` to pair with",
            notes=[f"overhang there: {render(overhang) if overhang else 'none'}"],
            help="anneal to the end that a transposon's or adapter's capture overhang leaves "
            "single-stranded (`end: \"top 5'\"` pairs with the bottom strand's 3' overhang)",
        )
    if len(oligo.seq) <= len(overhang):
        raise OperationFailure(
            "E0424",
            f"`{oligo.name}` is no longer than the {len(overhang)}-base overhang: it would "
            "leave nothing to copy",
            help="anneal an oligo that pairs with the whole overhang and runs beyond it",
        )


def _mismatch(oligo: Oligo, overhang: Seq, oligo_end: str) -> OperationFailure:
    return OperationFailure(
        "E0424",
        f"`{oligo.name}`'s {oligo_end} end does not pair with the {len(overhang)}-base overhang",
        notes=[
            f"overhang: {render(overhang)}",
            f"it pairs with: {render(reverse_complement(plain(overhang)))}",
        ],
        help="the oligo's end next to the junction must be the overhang's reverse complement",
    )
