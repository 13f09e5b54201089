"""Source text and spans: character offsets, turned into lines and columns on demand."""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from attrs import frozen


@frozen
class Span:
    """A half-open range of character offsets `[start, end)` into one source."""

    start: int
    end: int

    def union(self, other: Span) -> Span:
        return Span(min(self.start, other.start), max(self.end, other.end))


NO_SPAN = Span(0, 0)
_NEWLINE = re.compile("\n")


@frozen(slots=False)
class Source:
    """One `.lab` text and the name it is reported under (a path or `<stdin>`)."""

    text: str
    name: str = "<input>"

    @cached_property
    def _line_starts(self) -> list[int]:
        # per line, not per character: a 4 MB one-line file costs one search
        starts = [0]
        starts.extend(match.end() for match in _NEWLINE.finditer(self.text))
        return starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset.

        >>> Source("ab\\ncd").position(3)
        (2, 1)
        """
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        """The character offset of a 1-based (line, column)."""
        starts = self._line_starts
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + column - 1, len(self.text))

    def line_text(self, line: int) -> str:
        starts = self._line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end]
