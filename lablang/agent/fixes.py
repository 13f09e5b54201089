"""Applying the machine-applicable fixes of one check: what a harness does between rounds."""

from __future__ import annotations

from collections.abc import Iterable

from lablang.diagnostics import Diagnostic, Edit

__all__ = ["apply_fixes"]


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """The text with every fix applied (in reverse order of offset; a fix whose edits
    overlap an edit already taken is left for the next round), and how many were applied.

    >>> from lablang.driver import check_text
    >>> text = "protocol p { step b { incubate: 37 C for 20 sec } }"
    >>> apply_fixes(text, check_text(text).report)
    ('protocol p { step b { incubate: 37 C for 20 s } }', 1)
    """
    fixes = [d.fix for d in diagnostics if d.fix is not None and d.fix.edits]
    taken: list[Edit] = []
    applied = 0
    for fix in sorted(fixes, key=lambda f: max(e.span.start for e in f.edits), reverse=True):
        if any(_overlaps(edit, other) for edit in fix.edits for other in taken):
            continue
        taken.extend(fix.edits)
        applied += 1
    for edit in sorted(taken, key=lambda e: (e.span.start, e.span.end), reverse=True):
        text = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    return text, applied


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end == b.span.start == b.span.end:
        return True  # two insertions at one place: their order would be a guess
    return a.span.start < b.span.end and b.span.start < a.span.end
