"""The molecular backend: sequences, the interpreter's operations, derived and declared
workflow graphs, and LibStructBench / seqspec interchange.

Importing this package is cheap: submodules load on first use (networkx and YAML only
when a graph or a spec is made). The public entry points:

- `build_model(program, report)`: a checked program's molecular model (`front`);
- `export_libstruct(program, task)`: LibStructBench Task 1/2/3 JSON (`libstruct`);
- `export_seqspec(program)`: a seqspec assay (`seqspec`);
- `import_libstruct(data)`, `import_seqspec(spec)`: `.lab` text from those formats.
"""

from __future__ import annotations

from lablang.exports import lazy_exports

__all__ = [
    "build_model",
    "export_libstruct",
    "export_seqspec",
    "import_libstruct",
    "import_seqspec",
]

_WHERE = {
    "build_model": "lablang.molecular.front",
    "export_libstruct": "lablang.molecular.libstruct",
    "import_libstruct": "lablang.molecular.libstruct",
    "export_seqspec": "lablang.molecular.seqspec_export",
    "import_seqspec": "lablang.molecular.seqspec",
}


__getattr__ = lazy_exports("lablang.molecular", _WHERE)
