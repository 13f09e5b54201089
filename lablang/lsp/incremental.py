"""Fast diagnostics while typing: re-parse only the top-level declarations that changed.

A full check of a 2,000-line file takes longer than a keystroke should wait (it
parses, resolves and checks everything). Top-level declarations parse independently,
so after an edit the server first publishes

- syntax diagnostics of each declaration whose text changed, parsed on its own
  (cached by text, so an unchanged declaration is never parsed twice), and
- the previous full check's diagnostics for declarations whose text did not change,
  moved to where those declarations now are;

then the full check runs and its result replaces these. A declaration starts at a
line that begins, in column 0, with `module`, `use` or a declaration keyword.

>>> from lablang.lsp.analysis import analyze
>>> before = analyze("segment A = umi(8)\\noligo B { seq: 5'-ACGT-3' }\\n", "x.lab")
>>> after = "segment A = umi(8)\\noligo B { seq: 5'-AC GT-3' role: }\\n"
>>> [d.code for d in quick_diagnostics(after, "x.lab", before, ChunkCache())]
['E0101']
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from attrs import evolve

from lablang.diagnostics import Diagnostic, Edit, Fix, Label, Report
from lablang.lsp.analysis import Analysis
from lablang.source import Source, Span
from lablang.syntax.recover import declaration_chunks

__all__ = ["ChunkCache", "chunks", "quick_diagnostics"]

# the pieces top-level declarations parse in (the syntax stage cuts the same way)
chunks = declaration_chunks


class ChunkCache:
    """Syntax diagnostics per chunk text (offsets relative to the chunk), an LRU bounded
    by the characters it keeps (the texts are untrusted)."""

    def __init__(self, characters: int = 8_000_000) -> None:
        self.characters = characters
        self.kept = 0
        self.entries: OrderedDict[str, tuple[Diagnostic, ...]] = OrderedDict()
        self.lock = threading.Lock()
        self._parser: object | None = None

    def warm(self) -> None:
        """Build the parser now (a fifth of a second), not on the first keystroke."""
        self.syntax("segment warm_up = umi(8)\n", "<warm-up>")

    def syntax(self, chunk: str, name: str) -> tuple[Diagnostic, ...]:
        with self.lock:
            if chunk in self.entries:
                self.entries.move_to_end(chunk)
                return self.entries[chunk]
        found = tuple(self._parse(chunk, name))
        with self.lock:
            if chunk not in self.entries:
                self.entries[chunk] = found
                self.kept += len(chunk)
            while self.kept > self.characters and self.entries:
                evicted, _ = self.entries.popitem(last=False)
                self.kept -= len(evicted)
        return found

    def _parse(self, chunk: str, name: str) -> list[Diagnostic]:
        # A parser of its own: the full check may be parsing on another thread.
        from lablang.limits import DEFAULT_LIMITS
        from lablang.syntax.parser import Parser

        if self._parser is None:
            self._parser = Parser()
        report = Report()
        self._parser.parse(Source(chunk, name), report, DEFAULT_LIMITS)  # type: ignore[attr-defined]
        return list(report)


def _shift(diagnostic: Diagnostic, delta: int, source: Source) -> Diagnostic:
    def move(span: Span) -> Span:
        return Span(span.start + delta, span.end + delta)

    fix = diagnostic.fix
    if fix is not None:
        fix = Fix(fix.description, tuple(Edit(move(e.span), e.replacement) for e in fix.edits))
    return evolve(
        diagnostic,
        source=source,
        span=move(diagnostic.span),
        labels=tuple(Label(move(label.span), label.message) for label in diagnostic.labels),
        fix=fix,
    )


def quick_diagnostics(
    text: str, name: str, previous: Analysis | None, cache: ChunkCache
) -> list[Diagnostic]:
    """Diagnostics for `text` from changed chunks' syntax and unchanged chunks' old results."""
    from lablang.limits import DEFAULT_LIMITS

    if len(text.encode("utf-8", "surrogatepass")) > DEFAULT_LIMITS.max_file_bytes:
        return []  # too large to check: the full check says so
    source = Source(text, name)
    old: dict[str, list[int]] = {}
    if previous is not None:
        for start, chunk in chunks(previous.source.text):
            old.setdefault(chunk, []).append(start)
    old_diagnostics = previous.diagnostics if previous is not None else []
    old_length = len(previous.source.text) if previous is not None else 0
    found: list[Diagnostic] = []
    for start, chunk in chunks(text):
        starts = old.get(chunk)
        if starts:
            old_start = starts.pop(0)
            end = old_start + len(chunk)
            for diagnostic in old_diagnostics:
                at = diagnostic.span.start
                if old_start <= at < end or at == end == old_length:
                    found.append(_shift(diagnostic, start - old_start, source))
            continue
        found.extend(_shift(d, start, source) for d in cache.syntax(chunk, name))
    return sorted(found, key=lambda d: (d.span.start, d.code))
