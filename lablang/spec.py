"""The compact language reference printed by `lablang spec` (package data: spec.md)."""

from __future__ import annotations

import re
from importlib import resources


def spec_text() -> str:
    """The reference as Markdown.

    >>> spec_text().startswith("# lablang language reference")
    True
    """
    return (resources.files("lablang") / "spec.md").read_text("utf-8")


def spec_examples() -> list[str]:
    """The `lab` code blocks of the reference, in order."""
    return re.findall(r"```lab\n(.*?)```", spec_text(), flags=re.DOTALL)
