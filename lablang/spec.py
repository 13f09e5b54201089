"""The compact language reference printed by `lablang spec` (package data: spec.md)."""

from __future__ import annotations

import re
from importlib import resources

# where the molecular operation list, generated from its registry, goes
MOLECULAR_OPERATIONS = "<!-- molecular operations -->"


def spec_text() -> str:
    """The reference as Markdown.

    >>> spec_text().startswith("# lablang language reference")
    True
    """
    text = (resources.files("lablang") / "spec.md").read_text("utf-8")
    if MOLECULAR_OPERATIONS in text:
        import lablang.molecular.ops  # noqa: F401  (registers every operation)
        from lablang.molecular.ops import registry

        text = text.replace(MOLECULAR_OPERATIONS, registry.operations_list().rstrip())
    return text


def spec_examples() -> list[str]:
    """The `lab` code blocks of the reference, in order."""
    return re.findall(r"```lab\n(.*?)```", spec_text(), flags=re.DOTALL)
