"""Adapter switching: a strand's 3' end is re-templated by an oligo that out-competes
its partner (s3-ATAC's LNA mosaic end)."""

from __future__ import annotations

from lablang.molecular.molecule import Duplex, Molecule, Pool, Product, Single, Strand, strands
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    Oligo,
    OperationFailure,
    anneal_sites,
    three_prime_blocked,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import Seq, plain, render, reverse_complement


@operation(
    "adapter_switch",
    lsb="extension",
    rule="the oligo anneals to each strand's 3' end (>= 12 bases), displacing its partner; "
    "the 3' end copies the oligo's 5' part; strands go on single (a free oligo also copies)",
    params=(Param("adapter", "oligo", "the switching oligo (3'-blocked, LNA)", required=True),),
)
def adapter_switch(molecule: Molecule, adapter: Oligo) -> Pool:
    """Adapter switching (s3-ATAC): a new adapter is copied onto each strand's 3' end.

    Rule: at annealing temperature the oligo's 3' part, strengthened with locked
    nucleic acids, pairs with the last 12 or more bases of a strand (the ME' each
    tagmented strand ends in) and displaces the strand that was paired there; the
    strand's 3' end, now paired with the oligo, is extended across the oligo's 5' part,
    copying it (s3-ATAC's A14-ME-LNA gives each strand an s5' end). A 3'-blocked oligo
    (`/3InvdT/`) is not extended itself, so each strand goes on single-stranded: both
    strands of a homodimer fragment become the same library strand. An oligo with a
    free 3' end is extended too, across the strand: the product is then a duplex.
    Strands whose 3' end does not pair are discarded with the reason; none is E0426.
    """
    blocked = three_prime_blocked(adapter.seq) is not None
    template = plain(adapter.seq)
    products: list[Product] = []
    tried: list[tuple[str, Seq]] = []
    for strand in strands(molecule):
        if three_prime_blocked(strand.seq):
            products.append(_discarded(strand, "its 3' end is blocked"))
            continue
        sites = [s for s in anneal_sites(plain(strand.seq), template, MIN_ANNEAL) if s.start > 0]
        tried.append((strand.name, strand.seq))
        if not sites:
            products.append(_discarded(strand, f"its 3' end does not pair with `{adapter.name}`"))
            continue
        copy = reverse_complement(template.slice(0, sites[0].start)).with_label(f"{adapter.name}'")
        switched = Strand(strand.seq + copy, strand.moltype, strand.name, strand.phosphate_5p)
        molecule_out: Single | Duplex = (
            Single(switched)
            if blocked
            else Duplex(core=switched.seq, top_type=strand.moltype, top_name=strand.name)
        )
        products.append(Product(molecule_out, name=f"{strand.name or 'strand'} switched"))
    if not any(p.name.endswith("switched") and not p.reason for p in products):
        raise OperationFailure(
            "E0426",
            f"`{adapter.name}` pairs with no strand's 3' end (its 3' part must pair with the "
            f"last {MIN_ANNEAL}+ bases of a strand)",
            notes=[
                f"the 3' end of {name or 'a strand'}: {render(seq.slice(len(seq) - 24))}"
                for name, seq in tried
            ],
            help="the switching oligo's 3' part is the complement of what the strands end in "
            "(an ME for tagmented strands that end in ME')",
        )
    return Pool(tuple(products))


def _discarded(strand: Strand, why: str) -> Product:
    from lablang.molecular.molecule import Disposition

    return Product(
        Single(strand),
        disposition=Disposition.DISCARDED,
        reason=f"not switched: {why}",
        name=f"{strand.name or 'strand'} not switched",
    )
