"""The molecular backend: sequences, the interpreter's operations, derived and declared
workflow graphs, and LibStructBench / seqspec interchange.

Importing this package is cheap: networkx and YAML load only when a graph or a spec is
made. The public entry points:

- `build_model(program, report)`: a checked program's molecular model (`front`);
- `export_libstruct(program, task)`: LibStructBench Task 1/2/3 JSON (`libstruct`);
- `export_seqspec(program)`: a seqspec assay (`seqspec`);
- `import_libstruct(data)`, `import_seqspec(spec)`: `.lab` text from those formats.
"""

from __future__ import annotations

from typing import Any

from lablang.molecular.libstruct import export_libstruct, import_libstruct
from lablang.molecular.seqspec import export_seqspec, import_seqspec

__all__ = [
    "build_model",
    "export_libstruct",
    "export_seqspec",
    "import_libstruct",
    "import_seqspec",
]


def build_model(program: Any, report: Any) -> Any:
    """The molecular model of a checked program (see `lablang.molecular.front`)."""
    from lablang.molecular.front import build_model as build

    return build(program, report)
