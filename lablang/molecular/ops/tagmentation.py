"""Tn5 tagmentation."""

from __future__ import annotations

from collections.abc import Sequence

from lablang.molecular.molecule import (
    Duplex,
    Molecule,
    MolType,
    Pool,
    Product,
)
from lablang.molecular.ops.core import (
    Oligo,
    OperationFailure,
    need_duplex,
    payload_positions,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    plain,
    reverse_complement,
)

# ------------------------------------------------------------------ tagmentation


@operation(
    "tagment",
    lsb="tagmentation",
    rule="internal payload pieces carry A-A, A-B, B-B (1:2:1) after gap filling; the molecule's "
    "ends get one adapter; an RNA:DNA hybrid is E0412",
    params=(Param("adapters", "oligos", "adapter A and adapter B", required=True),),
)
def tagment(molecule: Molecule, adapters: Sequence[Oligo]) -> Pool:
    """Tn5 tagmentation with transposomes loaded with adapter A and adapter B.

    Rule: each cut inserts a transferred strand (the adapter's s5-ME or s7-ME) on the
    5' end of each new fragment; the 9-bp gap is filled at 72 C, copying the adapter
    onto the other strand. Internal fragments carry A-A, A-B or B-B (about 1:2:1);
    the molecule's own ends keep their sequence and get one adapter. Only A-B
    fragments can later receive P5 and P7 in index PCR.
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
    a_seq, b_seq = plain(a.seq), plain(b.seq)
    cuts = payload_positions(duplex.core)
    if not cuts:
        raise OperationFailure("E0412", "nothing to tagment: the molecule has no payload segment")
    products: list[Product] = []
    insert = duplex.core.slice(cuts[0], cuts[0] + 1)
    for (x, xs), (y, ys), share in (
        ((a, a_seq), (a, a_seq), 0.25),
        ((a, a_seq), (b, b_seq), 0.5),
        ((b, b_seq), (b, b_seq), 0.25),
    ):
        top = xs + insert + reverse_complement(ys)
        products.append(
            Product(
                Duplex(core=top, top_name=f"{x.name} strand", bottom_name=f"{y.name} strand"),
                name=f"{x.name}-insert-{y.name}",
                fraction=share,
            )
        )
    if duplex.left.top or duplex.left.bottom or len(duplex.core.slice(0, cuts[0])) > 0:
        for x, xs in ((a, a_seq), (b, b_seq)):
            top = duplex.left.top + duplex.core.slice(0, cuts[0] + 1) + reverse_complement(xs)
            products.append(Product(Duplex(core=top), name=f"left end-{x.name}", fraction=None))
    if len(duplex.core.slice(cuts[-1] + 1)) > 0 or duplex.right.top:
        for x, xs in ((a, a_seq), (b, b_seq)):
            top = xs + duplex.core.slice(cuts[-1]) + duplex.right.top
            products.append(Product(Duplex(core=top), name=f"{x.name}-right end", fraction=None))
    return Pool(tuple(products))
