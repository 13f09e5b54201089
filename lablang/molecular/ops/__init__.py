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
import importlib.machinery
import os

from lablang.molecular.ops.registry import REGISTRY, Operation, Param


def _submodules() -> list[str]:
    """The package's modules, as `pkgutil.iter_modules` names them (a file with a module
    suffix, or a folder with an `__init__`), found without it: its scan imports `inspect`
    (with `ast`, `dis` and `tokenize`: ~4 ms of a check's start-up)."""
    suffixes = importlib.machinery.all_suffixes()
    names: set[str] = set()
    for folder in __path__:
        for entry in os.scandir(folder):
            stem = entry.name.partition(".")[0]
            if not stem.isidentifier() or stem == "__init__":
                continue
            if entry.is_dir():
                if os.path.exists(os.path.join(entry.path, "__init__.py")):
                    names.add(stem)
            elif any(entry.name == stem + suffix for suffix in suffixes):
                names.add(stem)
    return sorted(names)


# importing a module registers its operations: a new module needs no line here
for _module in _submodules():
    importlib.import_module(f"{__name__}.{_module}")

__all__ = ["REGISTRY", "Operation", "Param"]
