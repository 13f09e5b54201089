"""Uracil in a DNA template: where a uracil-intolerant polymerase stops (no operation is
registered here; `gap_fill` and the Tn5 pages use it).

Archaeal family-B polymerases (Pfu, Q5, Phusion; the NPM of Nextera XT) bind a template
uracil in a pocket that reads it as damage and stall one base before it; Taq, Klenow and
the uracil-tolerant Q5U read it as T. s3-ATAC builds its adapter switch on this: a dU
between the Tn5 barcode and the ME keeps the gap fill from copying the barcoded arm.
"""

from __future__ import annotations

from lablang.molecular.modifications import codes_of
from lablang.molecular.ops.core import OperationFailure
from lablang.molecular.sequence import Modification, Seq

URACIL_IN_DNA = codes_of("uracil")
POLICIES = ("read", "stalls")


def copyable(template: Seq, uracil: str) -> int:
    """How many positions of `template`, from its 3' end, a polymerase copies.

    `read`: all of them; `stalls`: those 3' of the template's last uracil (a uracil
    next to where the copy starts gives none).

    >>> from lablang.molecular.sequence import parse_notation
    >>> t = parse_notation("CGTGTGCTCT [TN5_BC:8] /ideoxyU/ AGAT")
    >>> copyable(t, "read"), copyable(t, "stalls")
    (16, 4)
    """
    if uracil not in POLICIES:
        raise OperationFailure(
            "E0412", f"`uracil` is `read` (Taq, Q5U) or `stalls` (Q5, NPM), not `{uracil}`"
        )
    total = len(template)
    if uracil == "read":
        return total
    position, last = 0, -1
    for part in template.parts:
        width = len(Seq((part,)))
        if isinstance(part, Modification) and part.code in URACIL_IN_DNA and width:
            last = position
        position += width
    return total - (last + 1)
