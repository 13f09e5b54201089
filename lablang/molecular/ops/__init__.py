"""The molecular interpreter's operations, one module per kind of chemistry.

Each operation is a plain function registered once with `@operation` (see
`registry.py`); importing this package imports every module, so `REGISTRY` holds them
all (every module of the package is imported). `lablang.molecular.operations`
re-exports the functions under their old names.

- `core`: failures, oligos as strands, annealing (what all operations share);
- `synthesis`: extension, reverse transcription, template switching, second strands;
- `amplification`: PCR, linear amplification;
- `enzymatic`: fragmentation, end repair, A-tailing, denaturation, digestion, bisulfite;
- `ligation`: adapter ligation (double-stranded, hairpin, single-stranded, splinted);
- `joining`: joining an oligo to one strand end (shared by ligation and barcoding);
- `barcoding`: split-pool barcoding rounds;
- `transcription`: in vitro transcription;
- `tailing`: poly(A) and terminal-transferase tails;
- `nucleases`: RNase H, uracil excision;
- `kinase`: 5' phosphorylation;
- `tagmentation`: Tn5;
- `selection`: capture, size selection, cleanup.
"""

from __future__ import annotations

import importlib
import pkgutil

from lablang.molecular.ops.registry import REGISTRY, Operation, Param

# importing a module registers its operations: a new module needs no line here
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["REGISTRY", "Operation", "Param"]
