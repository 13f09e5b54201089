"""Tn5 tagmentation."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

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
    has_phosphate,
    need_duplex,
    payload_positions,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    plain,
    render_libstruct,
    reverse_complement,
)

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
    rule="payload pieces carry A-A, A-B, B-B (1:2:1), ends one adapter; transferred strands keep their 5' chemistry; hybrids are E0412",
    params=(
        Param(
            "adapters",
            "oligos",
            "adapters A and B (transferred strand, or with its ME' strand)",
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
    phosphorylated, ready for a later ligation); the non-transferred ME' strand stays
    annealed to the ME, not joined, across a 9-nt gap. The gap is filled at 72 C by a
    strand-displacing polymerase that copies the adapter onto the other strand and
    displaces ME' (`gap_fill: true`, the default; else a later `gap_fill` step).
    Internal fragments carry A-A, A-B or B-B (about 1:2:1); the molecule's own ends keep
    their sequence and get one adapter. Only A-B fragments can later receive P5 and P7
    in index PCR.
    """
    if len(adapters) != 2:
        raise OperationFailure(
            "E0412", f"tagmentation takes two adapters (A and B), got {len(adapters)}"
        )
    duplex = need_duplex(molecule, "tagmentation")
    if MolType.RNA in (duplex.top_type, duplex.bottom_type):
        # Nextera gap filling copies the transferred adapter with a DNA polymerase across
        # the other strand; on an RNA:DNA hybrid that strand is RNA
        raise OperationFailure(
            "E0412",
            "tagmentation of an RNA:DNA hybrid is not modelled",
            notes=[
                "Nextera workflows tagment double-stranded DNA; tagmenting hybrids directly "
                "(as SHERRY does) needs a reverse transcriptase for the gap fill-in"
            ],
            help="make the second strand first, e.g. `ds = second_strand(rt)`",
        )
    a, b = adapters
    cuts = payload_positions(duplex.core)
    if not cuts:
        raise OperationFailure("E0412", "nothing to tagment: the molecule has no payload segment")
    loaded = {a.name: transferred_strand(a), b.name: transferred_strand(b)}
    products: list[Product] = []
    insert = duplex.core.slice(cuts[0], cuts[0] + 1)
    for x, y, share in ((a, a, 0.25), (a, b, 0.5), (b, b, 0.25)):
        products.append(
            Product(
                _fragment(loaded[x.name], insert, loaded[y.name], x.name, y.name, gap_fill),
                name=f"{x.name}-insert-{y.name}",
                fraction=share,
            )
        )
    if duplex.left.top or duplex.left.bottom or len(duplex.core.slice(0, cuts[0])) > 0:
        left = duplex.left.top + duplex.core.slice(0, cuts[0] + 1)
        for x in (a, b):
            end = _fragment(None, left, loaded[x.name], "", x.name, gap_fill)
            end = attrs.evolve(end, left=attrs.evolve(end.left, five_prime=duplex.left.five_prime))
            products.append(Product(end, name=f"left end-{x.name}", fraction=None))
    if len(duplex.core.slice(cuts[-1] + 1)) > 0 or duplex.right.top:
        right = duplex.core.slice(cuts[-1]) + duplex.right.top
        for x in (a, b):
            end = _fragment(loaded[x.name], right, None, x.name, "", gap_fill)
            # the molecule's own end keeps its bottom strand's 5' group (a primer's biotin)
            end = attrs.evolve(
                end, right=attrs.evolve(end.right, five_prime=duplex.right.five_prime)
            )
            products.append(Product(end, name=f"{x.name}-right end", fraction=None))
    return Pool(tuple(products))


def _fragment(
    x: tuple[Seq, Seq | None] | None,
    insert: Seq,
    y: tuple[Seq, Seq | None] | None,
    x_name: str,
    y_name: str,
    filled: bool,
) -> Duplex:
    """One tagmented fragment: transferred strand `x` on the top strand's 5' end, `y` on
    the bottom's; gap-filled (blunt, the adapters copied) or with the gaps open."""
    xs = x[0] if x else Seq()
    ys = y[0] if y else Seq()
    x_me = xs.slice(len(xs) - len(ME)) if x else Seq()
    y_me = ys.slice(len(ys) - len(ME)) if y else Seq()
    # the molecule's own end fragments keep plain strand names
    end_piece = x is None or y is None
    top_name = "top" if end_piece else f"{x_name} strand"
    bottom_name = "bottom" if end_piece else f"{y_name} strand"
    top_p, bottom_p = bool(x) and has_phosphate(xs), bool(y) and has_phosphate(ys)
    if filled:
        top = xs + insert + reverse_complement(ys)
        return Duplex(
            core=top,
            top_name=top_name,
            bottom_name=bottom_name,
            top_phosphate=top_p,
            bottom_phosphate=bottom_p,
        )
    # before the fill-in: the arms beyond each ME are single-stranded; each ME is paired
    # with its non-transferred ME' strand, which is annealed but not joined (9-nt gap)
    x_arm = xs.slice(0, len(xs) - len(ME)) if x else Seq()
    y_arm = ys.slice(0, len(ys) - len(ME)) if y else Seq()
    gaps = tuple(
        f"{TN5_GAP}-nt gap, non-transferred strand `{render_libstruct(plain(other))}` of `{name}` "
        "annealed to its ME, not joined"
        for name, pair in ((x_name, x), (y_name, y))
        if pair is not None and (other := pair[1]) is not None
    )
    return Duplex(
        core=x_me + insert + reverse_complement(y_me),
        left=End(top=x_arm),
        right=End(bottom=y_arm),
        nicks=gaps
        or tuple(f"{TN5_GAP}-nt gap at `{n}`'s mosaic end" for n in (x_name, y_name) if n),
        top_name=top_name,
        bottom_name=bottom_name,
        top_phosphate=top_p,
        bottom_phosphate=bottom_p,
    )
