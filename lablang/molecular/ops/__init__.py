"""The molecular interpreter's operations, one module per kind of chemistry.

Each operation is a plain function registered once with `@operation` (see
`registry.py`); importing this package imports every module, so `REGISTRY` holds them
all. `lablang.molecular.operations` re-exports the functions under their old names.

- `core`: failures, oligos as strands, annealing (what all operations share);
- `synthesis`: extension, reverse transcription, template switching, second strands;
- `amplification`: PCR, linear amplification;
- `enzymatic`: fragmentation, end repair, A-tailing, denaturation, digestion, bisulfite;
- `ligation`: adapter ligation, split-pool barcoding rounds;
- `tagmentation`: Tn5;
- `selection`: capture, size selection, cleanup.
"""

from __future__ import annotations

from lablang.molecular.ops import (  # noqa: F401  (importing registers the operations)
    amplification,
    enzymatic,
    ligation,
    selection,
    synthesis,
    tagmentation,
)
from lablang.molecular.ops.registry import REGISTRY, Operation, Param

__all__ = ["REGISTRY", "Operation", "Param"]
