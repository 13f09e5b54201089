"""Capture, size selection, cleanup: which products go on."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.molecule import (
    Disposition,
    Duplex,
    Pool,
    top_strand,
)
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    Oligo,
    OperationFailure,
    anneal_sites,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Modification,
    Seq,
    Symbol,
    plain,
)

# ------------------------------------------------------------------ selection


@operation(
    "capture",
    lsb="capture",
    rule="carry what the probe binds, or what carries the named segment or modification",
    params=(
        Param("probe", "probe", "a capture oligo, a segment or a modification", required=True),
    ),
    on_pool=True,
    uses=("min_anneal",),
    subject="pool",
)
def capture(pool: Pool, probe: Oligo | str, *, min_match: int = MIN_ANNEAL) -> Pool:
    """Keep the products a capture probe binds, or that carry a named segment or
    modification (`"5Biosg"` for streptavidin capture of a biotinylated strand).

    Rule: capture (beads with a probe, streptavidin on biotin) changes which molecules
    go on, not their sequence: products with a site for the probe (or carrying the
    segment or modification) are carried, the rest discarded.
    """
    out = []
    for product in pool.carried:
        strands = [top_strand(product.molecule)]
        if isinstance(product.molecule, Duplex):
            strands.append(product.molecule.bottom)
        if isinstance(probe, str):
            hit = any(
                (isinstance(p, Symbol) and (p.name == probe or p.role == probe))
                or (isinstance(p, Modification) and p.code == probe)
                or getattr(p, "label", None) == probe
                for s in strands
                for p in s.parts
            )
            why = f"does not carry `{probe}`"
        else:
            hit = any(anneal_sites(plain(probe.seq), plain(s), min_match) for s in strands)
            why = f"no site for probe `{probe.name}`"
        out.append(
            evolve(
                product,
                disposition=Disposition.CARRIED if hit else Disposition.DISCARDED,
                reason="captured" if hit else why,
            )
        )
    return Pool(tuple(out) + pool.discarded)


@operation(
    "size_select",
    lsb="size_selection",
    rule="carry by length; payloads of unknown length are kept",
    params=(
        Param("min", "number", "shortest length carried", py="minimum"),
        Param("max", "number", "longest length carried", py="maximum"),
    ),
    on_pool=True,
    subject="pool",
)
def size_select(
    pool: Pool,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    payload_length: tuple[int, int] | None = None,
) -> Pool:
    """Keep products whose length can fall in `[minimum, maximum]` bases.

    Rule: bead ratios and gels select by length only. A product whose payload length
    is unknown is kept (its payload is assumed to fill the window) unless its designed
    part alone already exceeds the maximum; `payload_length` sets the payload's range.
    """
    if minimum is not None and maximum is not None and minimum > maximum:
        raise OperationFailure("E0412", f"size window {minimum}..{maximum} is empty")
    out = []
    for product in pool.carried:
        lo, hi = _length_window(top_strand(product.molecule), payload_length)
        reason = ""
        if maximum is not None and lo > maximum:
            reason = f"at least {lo} bases: longer than {maximum}"
        elif minimum is not None and hi is not None and hi < minimum:
            reason = f"at most {hi} bases: shorter than {minimum}"
        out.append(
            evolve(
                product,
                disposition=Disposition.DISCARDED if reason else Disposition.CARRIED,
                reason=reason or product.reason,
            )
        )
    return Pool(tuple(out) + pool.discarded)


def _length_window(seq: Seq, payload_length: tuple[int, int] | None) -> tuple[int, int | None]:
    """Shortest and longest length of a strand; a payload of unknown length takes
    `payload_length` when given, otherwise leaves the longest unbounded."""
    low, high = 0, 0
    bounded = True
    for part in seq.parts:
        if isinstance(part, Symbol) and part.min_len is None and payload_length is not None:
            low, high = low + payload_length[0], high + payload_length[1]
            continue
        piece = Seq((part,))
        low += piece.min_length
        top = piece.max_length
        if top is None:
            bounded = False
        else:
            high += top
    return low, high if bounded else None


@operation(
    "cleanup",
    lsb="cleanup",
    rule="bead cleanup: drops primers, dimers and anything shorter than `min`",
    params=(
        Param("min", "number", "size cutoff in bases", default="100", py="minimum"),
        Param("ratio", "any", "bead ratio (recorded only)", py=None),
    ),
    on_pool=True,
    subject="pool",
)
def cleanup(pool: Pool, *, minimum: int = 100) -> Pool:
    """Bead cleanup: removes primers, adapter dimers and anything shorter than `minimum`.

    Rule: SPRI beads at a given ratio bind DNA above a size cutoff; free oligos and
    short dimers stay in the supernatant. Sequence does not change.
    """
    return size_select(pool, minimum=minimum)


@operation(
    "merge",
    lsb="pooling",
    rule="pool several steps' products (any step may take a list: `barcode_round([a, b], ...)`)",
    subject="[steps]",
    on_pool=True,
)
def merge(pool: Pool) -> Pool:
    """Pool two or more branches into one tube.

    Rule: pooling mixes molecules and changes none of them, so the pool is every carried
    product of the merged steps (products that are the same molecule once). Later steps
    act on each member, as on any mix: a split-pool round in nuclei that hold both cDNA
    and tagmented chromatin barcodes both modalities at once.
    """
    return Pool(pool.carried)
