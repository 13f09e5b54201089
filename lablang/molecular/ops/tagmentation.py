"""Tn5 tagmentation."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve, frozen

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    MolType,
    Pool,
    Product,
)
from lablang.molecular.ops.core import (
    Oligo,
    OperationFailure,
    as_fragments,
    has_phosphate,
    need_duplex,
    payload_positions,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    plain,
    render,
    render_libstruct,
    reverse_complement,
)
from lablang.records import Compared

# ------------------------------------------------------------------ tagmentation


ME = "AGATGTGTATAAGAGACAG"  # the 19-bp Tn5 mosaic end, 3' end of the transferred strand
TN5_GAP = 9  # bases between a transferred strand and the next, on the other strand


def transferred_strand(adapter: Oligo) -> tuple[Seq, Seq | None]:
    """The strand Tn5 transfers (ends in the mosaic end, ME) and the non-transferred one.

    A single-stranded adapter is the transferred strand (its ME' partner implied); of a
    double-stranded adapter, the strand whose 3' end is the ME, else the longer strand.
    """
    if len(adapter.strands) == 1:
        return adapter.seq, None
    a, b = adapter.strands[0], adapter.strands[1]
    ends_in_me = [s for s in (a, b) if render_libstruct(plain(s)).endswith(ME)]
    chosen = ends_in_me[0] if ends_in_me else max((a, b), key=lambda s: len(plain(s)))
    other = b if chosen is a else a
    return chosen, other


@operation(
    "tagment",
    lsb="tagmentation",
    rule="payload pieces carry A-A, A-B, B-B (1:2:1), ends one adapter; transferred strands keep their 5' chemistry; a hybrid only with gap_fill: false",
    params=(
        Param(
            "adapters",
            "oligos",
            "adapter A and B, or one (a homodimer); each its transferred strand, or with its partner",
            required=True,
        ),
        Param(
            "gap_fill",
            "bool",
            "fill the 9-nt gaps now (false: a later `gap_fill`)",
            default="true",
        ),
    ),
)
def tagment(molecule: Molecule, adapters: Sequence[Oligo], *, gap_fill: bool = True) -> Pool:
    """Tn5 tagmentation with transposomes loaded with adapter A and adapter B.

    Rule: each cut inserts a transferred strand (the adapter's s5-ME or s7-ME) on the
    5' end of each new fragment, with its own 5' chemistry (a `/5Phos/` transposon stays
    phosphorylated, ready for a later ligation); the non-transferred strand (listed as
    the adapter's second strand, else the ME' implied) stays annealed to the ME, not
    joined, across a 9-nt gap, with its own 5' chemistry recorded at the gap; its 3'
    part beyond the transferred strand (a capture overhang) sticks out, and so does the
    transferred strand's arm beyond it (see `load`). The gap is filled at 72 C by a
    strand-displacing polymerase that copies the adapter onto the other strand and
    displaces ME' (`gap_fill: true`, the default; else a later `gap_fill` step).
    Internal fragments carry A-A, A-B or B-B (about 1:2:1); a Tn5 loaded with one
    transposon (a homodimer: LIANTI, s3-ATAC, FIPRESCI) gives A-A only. The molecule's
    own ends keep their sequence, overhangs and 5' chemistry and get one adapter. Only
    A-B fragments can later receive P5 and P7 in index PCR. An RNA:DNA hybrid is
    tagmented as DNA is (Tn5 cuts hybrids; each strand gains its transferred strand,
    an RNA one becomes a chimera), but its gaps are left open (`gap_fill: false`): no
    DNA polymerase fill-in is modelled across an RNA strand.
    """
    if len(adapters) not in (1, 2):
        raise OperationFailure(
            "E0412",
            "tagmentation takes one adapter (a Tn5 homodimer) or two (A and B), got "
            f"{len(adapters)}",
        )
    duplex = need_duplex(molecule, "tagmentation")
    if MolType.RNA in (duplex.top_type, duplex.bottom_type) and gap_fill:
        # the fill-in copies each transferred adapter onto the other strand: on a
        # tagmented RNA:DNA hybrid one of those strands is RNA, which a DNA polymerase
        # does not extend across the ME as it does DNA
        raise OperationFailure(
            "E0412",
            "filling the gaps of a tagmented RNA:DNA hybrid is not modelled",
            notes=[
                "Tn5 tagments hybrids (FIPRESCI, SHERRY); what copies the adapters then "
                "is a later step: a template switch, a linear amplification, an RT fill-in"
            ],
            help="write `tagment(..., gap_fill: false)` and copy the DNA strand in the "
            "page's next step, or make the second strand first (`second_strand(rt)`)",
        )
    cuts = payload_positions(duplex.core)
    if not cuts:
        raise OperationFailure("E0412", "nothing to tagment: the molecule has no payload segment")
    if not gap_fill and any(a.kind == "hairpin" for a in adapters):
        raise OperationFailure(
            "E0412",
            "a hairpin transposon before the fill-in is not modelled: its ME' is joined to "
            "the transferred strand through the loop",
            help="tagment with `gap_fill: true` (the fill-in displaces the stem and copies "
            "the whole transposon, as LIANTI's Q5 step does)",
        )
    loaded = [load(a) for a in adapters]
    pairs = (
        ((loaded[0], loaded[0], 1.0),)
        if len(loaded) == 1
        else (
            (loaded[0], loaded[0], 0.25),
            (loaded[0], loaded[1], 0.5),
            (loaded[1], loaded[1], 0.25),
        )
    )
    products: list[Product] = []
    # every payload piece Tn5 leaves is a fragment (tens to hundreds of bases)
    duplex = evolve(duplex, core=as_fragments(duplex.core))
    insert = duplex.core.slice(cuts[0], cuts[0] + 1)
    for x, y, share in pairs:
        piece = _fragment(x, insert, y, gap_fill, duplex)
        products.append(Product(piece, name=f"{x.name}-insert-{y.name}", fraction=share))
    # the molecule's own ends keep what they were (overhangs, 5' chemistry) on one side
    if duplex.left.top or duplex.left.bottom or len(duplex.core.slice(0, cuts[0])) > 0:
        left = duplex.core.slice(0, cuts[0] + 1)
        for y in loaded:
            end = _fragment(None, left, y, gap_fill, duplex)
            products.append(Product(end, name=f"left end-{y.name}", fraction=None))
    if len(duplex.core.slice(cuts[-1] + 1)) > 0 or duplex.right.top or duplex.right.bottom:
        right = duplex.core.slice(cuts[-1])
        for x in loaded:
            end = _fragment(x, right, None, gap_fill, duplex)
            products.append(Product(end, name=f"{x.name}-right end", fraction=None))
    return Pool(tuple(products))


@frozen(repr=False, eq=False)
class Loaded(Compared):
    """One transposon as Tn5 holds it: the transferred strand and, when listed, the
    non-transferred one paired with it.

    `arm` is the transferred strand's 5' part that the non-transferred strand does not
    cover (single-stranded on the fragment until gap filling); `stem` the paired rest,
    ending in the mosaic end; `overhang` the non-transferred strand's 3' part beyond the
    transferred strand's 5' end (a capture overhang, single-stranded on the fragment).
    """

    name: str
    transferred: Seq
    other: Seq | None
    arm: Seq
    stem: Seq
    overhang: Seq


def load(adapter: Oligo) -> Loaded:
    """The transposon `adapter` as loaded on Tn5.

    Rule: the transferred strand ends in the mosaic end; the non-transferred strand pairs
    with it from the ME's 3' end back toward its 5' end (Tn5 binds the 19-bp ME duplex
    blunt at the end it transfers). Unlisted, the non-transferred strand is the ME' the
    transferred strand's last 19 bases imply. A non-transferred strand that does not pair
    with the ME flush at the transferred 3' end is E0412.
    """
    xs, other = transferred_strand(adapter)
    if other is None:
        cut = max(0, len(xs) - len(ME))
        return Loaded(adapter.name, xs, None, xs.slice(0, cut), xs.slice(cut), Seq())
    from lablang.molecular.ops.ligation import adapter_duplex

    paired = adapter_duplex(Oligo(adapter.name, (xs, other), "double_stranded"))
    if paired.right.top or paired.right.bottom or len(paired.core) < len(ME):
        raise OperationFailure(
            "E0412",
            f"the non-transferred strand of `{adapter.name}` does not pair with its mosaic end "
            "flush at the transferred strand's 3' end",
            notes=[f"transferred: {render(xs)}", f"non-transferred: {render(other)}"],
            help="the non-transferred strand starts (5') with ME' `CTGTCTCTTATACACATCT`",
        )
    cut = len(paired.left.top)
    overhang = other.slice(len(other) - len(paired.left.bottom)) if paired.left.bottom else Seq()
    return Loaded(adapter.name, xs, other, xs.slice(0, cut), xs.slice(cut), overhang)


def _fragment(
    x: Loaded | None,
    insert: Seq,
    y: Loaded | None,
    filled: bool,
    source: Duplex,
) -> Duplex:
    """One tagmented fragment: transferred strand `x` on the top strand's 5' end, `y` on
    the bottom's; gap-filled (blunt, the adapters copied) or with the gaps open. A side
    without a transposon (`None`) is `source`'s own end, kept as it was."""
    xs = x.transferred if x else Seq()
    ys = y.transferred if y else Seq()
    # the molecule's own end fragments keep plain strand names
    inner = x is not None and y is not None
    top_name = f"{x.name} strand" if inner and x is not None else "top"
    bottom_name = f"{y.name} strand" if inner and y is not None else "bottom"
    top_p = has_phosphate(xs) if x else source.top_phosphate
    bottom_p = has_phosphate(ys) if y else source.bottom_phosphate
    # each strand gains DNA (a transferred strand, or the copy or ME' across the gap)
    top_type = source.top_type.joined(MolType.DNA)
    bottom_type = source.bottom_type.joined(MolType.DNA)
    if filled:
        return Duplex(
            core=xs + insert + reverse_complement(ys),
            left=End() if x else source.left,
            right=End() if y else source.right,
            top_type=top_type,
            bottom_type=bottom_type,
            top_name=top_name,
            bottom_name=bottom_name,
            top_phosphate=top_p,
            bottom_phosphate=bottom_p,
        )
    # before the fill-in: each transferred strand's arm is single-stranded, its stem is
    # paired with the non-transferred strand, which is annealed but not joined across a
    # 9-nt gap (drawn as one strand with the gap recorded); a capture overhang of the
    # non-transferred strand sticks out beyond the transferred strand's 5' end
    return Duplex(
        core=(x.stem if x else Seq()) + insert + reverse_complement(y.stem if y else Seq()),
        left=End(top=x.arm, bottom=x.overhang, annealed=len(x.stem)) if x else source.left,
        right=End(top=y.overhang, bottom=y.arm, annealed=len(y.stem)) if y else source.right,
        nicks=tuple(_gap(t) for t in (x, y) if t is not None),
        top_type=top_type,
        bottom_type=bottom_type,
        top_name=top_name,
        bottom_name=bottom_name,
        top_phosphate=top_p,
        bottom_phosphate=bottom_p,
    )


def _gap(t: Loaded) -> str:
    """The recorded 9-nt gap at one transposon's end: which strand is annealed there and
    whether its 5' end (at the gap) is phosphorylated, so a gap fill can be sealed."""
    if t.other is None:
        return f"{TN5_GAP}-nt gap at `{t.name}`'s mosaic end"
    phosphate = "5'-phosphorylated" if has_phosphate(t.other) else "no 5' phosphate"
    return (
        f"{TN5_GAP}-nt gap, non-transferred strand `{render_libstruct(plain(t.other))}` of "
        f"`{t.name}` ({phosphate}) annealed to its ME, not joined"
    )
