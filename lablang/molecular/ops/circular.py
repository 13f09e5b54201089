"""Circular molecules: a linear duplex closed on itself by ligation (`circularize`).

A circular duplex (`Duplex.circular`) is stored as its whole top strand read from an
origin, with flush ends that mean nothing: the strand goes on from its last base to its
first. `digest` opens it (one site linearizes it, n sites give n fragments) and `pcr`
amplifies across the origin; an operation that needs ends refuses it (E0428).
"""

from __future__ import annotations

from lablang.molecular.molecule import Duplex, Molecule
from lablang.molecular.ops.core import (
    CIRCLE_HAS_NO_ENDS,
    CIRCLE_HELP,
    OperationFailure,
    need_duplex,
)
from lablang.molecular.ops.ligation import junction
from lablang.molecular.ops.registry import operation


@operation(
    "circularize",
    lsb="circularization",
    rule="close a linear duplex into a circle (self-ligation) by `ligate`'s junction rules",
)
def circularize(molecule: Molecule) -> Duplex:
    """Close a linear duplex into a circle by joining its right end to its left end.

    Rule: intramolecular ligation (self-ligation, recircularization of a vector) joins
    the molecule's own two ends by the rules of any ligation junction (`junction`, the
    rule `ligate` applies): complementary sticky overhangs, a 3' A with a 3' T, blunt
    with blunt, or ends annealing over 6+ bases leaving gaps; at least one strand needs
    a 5' phosphate there (E0403), and a strand without one stays nicked. Incompatible
    ends are E0402. The circle is read from where the linear top strand began (its 5'
    end), so the origin is the left end's position; pydna's `looped()` may start a
    3'-overhang circle elsewhere on the same circle.
    """
    duplex = need_duplex(molecule, "circularization")
    if duplex.circular:
        raise OperationFailure(
            "E0428", f"the molecule is already circular: {CIRCLE_HAS_NO_ENDS}", help=CIRCLE_HELP
        )
    joined, nicks = junction(duplex, duplex, "its own left end")
    ring = duplex.core + joined
    lead = len(duplex.left.top)  # the left end's 5' overhang ends the junction's top
    if lead:
        ring = ring.slice(len(ring) - lead) + ring.slice(0, len(ring) - lead)
    return Duplex(
        core=ring,
        top_type=duplex.top_type,
        bottom_type=duplex.bottom_type,
        top_name=duplex.top_name,
        bottom_name=duplex.bottom_name,
        nicks=tuple(nicks),
        loops=duplex.loops,
        circular=True,
    )
