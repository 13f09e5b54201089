"""How much one derived workflow has produced so far, bounded across all its steps.

Each operation bounds its own products (`MAX_PRODUCTS`, `MAX_SEQUENCE_TOKENS`), but steps
chain: sixty `split_pool` steps of 64 rounds each are each within bounds while the
workflow's states together hold millions of positions, and every later stage (graph,
export, draw, score) pays for all of them. The totals are `max_workflow_bases` and
`max_workflow_products` of `lablang/limits.py`, reported as E0460.
"""

from __future__ import annotations

from typing import Any

from attrs import define

from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.molecular.molecule import Duplex, Pool, Single


def molecule_positions(molecule: Any) -> int:
    """Token positions of a molecule (both ends' overhangs counted once)."""
    if isinstance(molecule, Single):
        return len(molecule.strand.seq)
    if isinstance(molecule, Duplex):
        ends = (molecule.left.top, molecule.left.bottom, molecule.right.top, molecule.right.bottom)
        return len(molecule.core) + sum(len(end) for end in ends)
    return 0


@define
class Growth:
    """Running totals of one workflow's derived products."""

    limits: Limits = DEFAULT_LIMITS
    positions: int = 0
    products: int = 0

    def exceeded(self, pool: Pool) -> str | None:
        """Add a step's products; the message naming the limit when a total is exceeded."""
        self.products += len(pool.products)
        if self.products > self.limits.max_workflow_products:
            return (
                f"the workflow has derived more than {self.limits.max_workflow_products} "
                "products (the limit is `max_workflow_products`)"
            )
        for product in pool.products:
            self.positions += molecule_positions(product.molecule)
            if self.positions > self.limits.max_workflow_bases:
                return (
                    f"the workflow's products hold more than {self.limits.max_workflow_bases} "
                    "positions in all (the limit is `max_workflow_bases`)"
                )
        return None
