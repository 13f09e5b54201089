"""Rewrite the operation table of docs/molecular.md from the operation registry.

Usage: python scripts/molecular_docs.py   (tests/molecular/test_registry.py checks it is current)
"""

from __future__ import annotations

from pathlib import Path

from lablang.molecular.ops.registry import with_table
from lablang.output import write_atomic

DOC = Path(__file__).resolve().parent.parent / "docs" / "molecular.md"

if __name__ == "__main__":
    import lablang.molecular.ops  # noqa: F401  (registers every operation)

    write_atomic(DOC, with_table(DOC.read_text("utf-8")))
