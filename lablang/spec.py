"""The language reference printed by `lablang spec` (template: package data `spec.md`).

The template is prose and examples in sections (`<!-- section: NAME -->`); its tables
(`<!-- table: NAME -->`) are generated from the registries the checker reads
(`lablang.spec_tables`), so the reference lists exactly what `lablang check` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib import resources

__all__ = ["SECTIONS", "spec_examples", "spec_text"]

SECTIONS = ("core", "molecular", "protocols", "sim", "contracts", "rubrics")
_SECTION = re.compile(r"^<!-- section: ([a-z]+) -->\n", re.M)
_TABLE = re.compile(r"<!-- table: ([a-z_]+) -->")


@cache
def _sections() -> dict[str, str]:
    template = (resources.files("lablang") / "spec.md").read_text("utf-8")
    from lablang.spec_tables import TABLES

    text = _TABLE.sub(lambda m: TABLES[m.group(1)](), template)
    parts = _SECTION.split(text)
    # parts: [before, name1, body1, name2, body2, ...]
    found = {parts[i]: parts[i + 1].strip() + "\n" for i in range(1, len(parts), 2)}
    missing = [s for s in SECTIONS if s not in found]
    if missing or set(found) - set(SECTIONS):
        raise ValueError(f"spec.md sections do not match SECTIONS: {sorted(found)}")
    return found


def spec_text(sections: Sequence[str] = ()) -> str:
    """The reference as Markdown: all of it, or the named sections in the usual order.

    >>> spec_text().startswith("# lablang language reference")
    True
    >>> spec_text(["rubrics"]).startswith("## Rubrics")
    True
    """
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise ValueError(f"no section `{unknown[0]}`; sections: {', '.join(SECTIONS)}")
    wanted = [s for s in SECTIONS if not sections or s in sections]
    return "\n".join(_sections()[s] for s in wanted)


def spec_examples(sections: Sequence[str] = ()) -> list[str]:
    """The `lab` code blocks of the reference, in order."""
    return re.findall(r"```lab\n(.*?)```", spec_text(sections), flags=re.DOTALL)
