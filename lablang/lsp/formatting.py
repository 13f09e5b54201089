"""Range formatting: the changes `lablang fmt` makes to the whole document, kept where
they touch the lines the editor asked for.

The formatter works on whole modules (it re-parses its output to prove the meaning
unchanged), so a range is formatted by formatting everything and keeping only the
differing line runs that overlap the range.

>>> range_edits("a\\nb\\nc\\n", "A\\nb\\nC\\n", 0, 0)
[(0, 1, 'A\\n')]
"""

from __future__ import annotations

import difflib

__all__ = ["range_edits"]


def range_edits(text: str, formatted: str, first: int, last: int) -> list[tuple[int, int, str]]:
    """(start line, end line exclusive, new text) for each run of lines that formatting
    changes and that overlaps lines `first`..`last` (0-based, inclusive) of `text`."""
    old = text.splitlines(keepends=True)
    new = formatted.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        touches = i1 <= last and (i2 > first if i2 > i1 else i1 >= first)
        if touches:
            edits.append((i1, i2, "".join(new[j1:j2])))
    return edits
