"""Parsing a document again after an edit, re-parsing only the declarations that changed.

The language server checks the whole document after every edit, and parsing is most of
that check. Top-level declarations (and `use` lines, and the `module` header) are
independent in the grammar (`start: module_header? (use | decl)*`, nothing between
items), so a file is cut before each line that opens one in column 0
(`declaration_chunks`) and each piece is parsed alone, at offset 0, once per distinct
text. The module is the pieces' trees moved to where the pieces now are.

The result is the tree and the diagnostics a cold `parse` gives. While one piece is
broken (the usual state of a declaration being typed), its syntax error is found by
parsing it behind a blank copy of the text before it (`_dropped`), as the cold parse's
recovery would report it, and the other pieces' trees are kept. In every other case
that the pieces cannot answer for (a piece reporting anything else, a spelled-out unit
or a bound; two broken pieces; a bracket left open into the next piece; a `module`
header after other items; a file bound), the text is parsed whole by
`lablang.syntax.parse`. A test compares both on random edit sequences.

`ParseCache.partial` is for the editor only: the tree of what parses in a broken text,
inside broken declarations too (`_repaired`).

>>> from lablang.diagnostics import Report
>>> cache = ParseCache()
>>> text = "segment A = umi(8)\\noligo B { seq: 5'-ACGT-3' }\\n"
>>> module = cache.parse(Source(text, "x.lab"), Report())
>>> cache.parse(Source(text.replace("umi(8)", "umi(12)"), "x.lab"), Report()).decls[1].span
Span(start=20, end=47)
>>> cache.parsed_pieces  # the oligo was parsed once: only the segment again
3
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from attrs import define, evolve, fields, has

from lablang import ast
from lablang.diagnostics import Diagnostic, Report
from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.source import Source, Span
from lablang.syntax import parse, refused
from lablang.syntax.recover import declaration_chunks

__all__ = ["ParseCache"]


@define(eq=False)
class _Piece:
    """One piece's tree, as it stands at `offset` (parsed at 0, moved since)."""

    offset: int
    header: tuple[str | None, str | None] | None
    uses: tuple[ast.Use, ...]
    decls: tuple[ast.Decl, ...]
    comments: tuple[ast.Comment, ...]


class ParseCache:
    """`parse` with the trees of unchanged pieces kept between calls: an LRU bounded by
    the characters of the texts it keeps (the texts are untrusted). A tree takes about
    46 bytes per character of its text (measured on the benchmark's file), so the default
    keeps ~46 MB: fifteen 2,000-line documents."""

    def __init__(self, characters: int = 1_000_000) -> None:
        self.characters = characters
        self.kept = 0
        self.pieces: OrderedDict[str, _Piece | None] = OrderedDict()  # None: not clean
        self.limits: Limits | None = None
        self.parsed_pieces = 0  # how many pieces were parsed (not reused), for tests
        self.repaired: dict[str, _Piece | None] = {}  # broken piece text -> what parses
        self.lock = threading.Lock()

    def parse(self, source: Source, report: Report, limits: Limits = DEFAULT_LIMITS) -> ast.Module:
        """What `lablang.syntax.parse(source, report, limits)` returns and reports."""
        with self.lock:
            broken: list[tuple[Diagnostic, set[str]]] = []
            module = self._assemble(source, limits, repair=False, broken=broken)
        if module is None:
            return parse(source, report, limits)
        for diagnostic, dropped in broken:
            report.diagnostics.append(diagnostic)
            report.dropped.update(dropped)
        return module

    def partial(self, source: Source, limits: Limits = DEFAULT_LIMITS) -> ast.Module:
        """The tree of what parses in a text that does not: each piece that parses alone,
        and of each piece that does not, the fields and members that parse (`_repaired`).
        For the editor's hover, outline and completion; the diagnostics of such a text
        are the cold parse's, never these."""
        with self.lock:
            module = self._assemble(source, limits, repair=True)
            if len(self.repaired) > 64:  # only the latest broken pieces matter (each
                self.repaired.clear()  # is at most MAX_REPAIRED_PIECE characters)
        empty = ast.Module(name=None, title=None, uses=(), decls=(), comments=(), span=Span(0, 0))
        return module if module is not None else empty

    def _assemble(
        self,
        source: Source,
        limits: Limits,
        repair: bool,
        broken: list[tuple[Diagnostic, set[str]]] | None = None,
    ) -> ast.Module | None:
        """The module from the pieces' trees; None where only a cold parse can answer (a
        file bound; without `repair`, a late header or a broken piece `_dropped` cannot
        answer for). Without `repair`, each broken piece's syntax error and dropped names
        are added to `broken`, as the cold parse reports them."""
        if self.limits != limits:
            self.pieces.clear()
            self.repaired.clear()
            self.kept, self.limits = 0, limits
        if refused(source, Report(), limits):
            return None
        uses: list[ast.Use] = []
        decls: list[ast.Decl] = []
        comments: list[ast.Comment] = []
        name = title = None
        header_allowed = True  # the grammar takes a header before any other item
        repairs = 0
        pieces = declaration_chunks(source.text)
        for index, (start, text) in enumerate(pieces):
            piece = self._piece(text, source.name, limits)
            if piece is None and repair:
                if text not in self.repaired:
                    if len(text) > MAX_REPAIRED_PIECE or repairs >= MAX_REPAIRS_PER_CALL:
                        continue  # left out of this partial tree (bounded work per edit)
                    repairs += 1
                    self.repaired[text] = _repaired(text, source.name, limits)
                piece = self.repaired[text]
            elif piece is None and broken is not None:
                # one broken piece only: the cold parse labels a later error with the
                # blocks an earlier broken piece left open (it scans the original text)
                if broken or not _recoverable(source, 1):
                    return None
                if not header_allowed and text.startswith("module"):
                    # a late `module` line: alone, behind blanks, it would be a header
                    return None
                dropped = _dropped(source, start, text, limits, index == len(pieces) - 1)
                if dropped is None:
                    return None
                broken.append(dropped)
                continue
            late_header = piece is not None and piece.header is not None and not header_allowed
            if piece is None or late_header:
                if not repair:
                    return None
                if piece is None:
                    continue
            if piece.offset != start:
                _move(piece, start)
            if piece.header is not None and header_allowed:
                name, title = piece.header
            header_allowed = header_allowed and not (piece.header or piece.uses or piece.decls)
            uses += piece.uses
            decls += piece.decls
            comments += piece.comments
        return ast.Module(
            name=name,
            title=title,
            uses=tuple(uses),
            decls=tuple(decls),
            comments=tuple(comments),
            span=Span(0, len(source.text)),
        )

    def _piece(self, text: str, name: str, limits: Limits) -> _Piece | None:
        if text in self.pieces:
            self.pieces.move_to_end(text)
            return self.pieces[text]
        self.parsed_pieces += 1
        scratch = Report()
        module = parse(Source(text, name), scratch, limits)
        piece = None
        if not scratch.diagnostics and not scratch.dropped:
            header = (module.name, module.title) if module.name is not None else None
            piece = _Piece(0, header, module.uses, module.decls, module.comments)
        self.pieces[text] = piece
        self.kept += len(text)
        while self.kept > self.characters and len(self.pieces) > 1:
            evicted, _ = self.pieces.popitem(last=False)
            self.kept -= len(evicted)
        return piece


_NOT_NEWLINE = re.compile(r"[^\n]")


def _dropped(
    source: Source, start: int, text: str, limits: Limits, last: bool
) -> tuple[Diagnostic, set[str]] | None:
    """The syntax error a cold parse of `source` reports for the broken piece `text` at
    `start`, when every other piece parses alone, with the names it drops; None when
    that cannot be known from the piece.

    The piece is parsed behind a blank copy of the text before it (newlines kept), so
    offsets, lines and columns are the whole text's; the LALR states inside a top-level
    item do not depend on the items before it. An error at the end of a piece that is
    not the last one (a bracket left open) is found by the cold parse in a later piece,
    and a piece that reports anything else (a spelled-out unit, a bound: it empties the
    cold parse's module, span included) is left to it.
    """
    padded = _NOT_NEWLINE.sub(" ", source.text[:start]) + text
    scratch = Report()
    module = parse(Source(padded, source.name), scratch, limits)
    found = scratch.diagnostics
    if len(found) != 1 or module.decls or module.uses or module.name is not None:
        return None
    if module.span != Span(0, len(padded)):
        # nothing parsed: a bound (`1e999`, nesting, a list's length) stops the cold parse
        # with the empty module, whatever the other pieces hold; so does a recovery that
        # gives up. Only a syntax error the recovery drops leaves the other pieces' trees
        return None
    (diagnostic,) = found
    if diagnostic.span.start < start or (diagnostic.span.start >= len(padded) and not last):
        return None
    return evolve(diagnostic, source=source), set(scratch.dropped)


def _recoverable(source: Source, errors: int) -> bool:
    """Whether the cold parse's recovery reaches a clean parse after `errors` syntax
    errors (its bounds: attempts, characters re-parsed, text length)."""
    from lablang.syntax import recover

    length = len(source.text)
    return (
        errors < recover.MAX_SYNTAX_ERRORS
        and errors * length <= recover.RECOVERY_BUDGET_CHARS
        and length <= recover.MAX_RECOVERY_CHARS
    )


def _move(piece: _Piece, offset: int) -> None:
    delta = offset - piece.offset

    def shift(span: Span) -> Span:
        return Span(span.start + delta, span.end + delta)

    piece.uses = _moved(piece.uses, shift)
    piece.decls = _moved(piece.decls, shift)
    piece.comments = _moved(piece.comments, shift)
    piece.offset = offset


# the fields of each node class, in order; False for a class that holds no span
_FIELDS: dict[type, tuple[str, ...] | bool] = {}
_LEAVES = frozenset({str, int, float, bool, type(None)})


def _moved(node: Any, move: Callable[[Span], Span]) -> Any:
    """`node` with every span in it replaced by `move(span)`.

    Nodes are rebuilt field by field with `object.__setattr__` rather than through
    `evolve`, which took twice as long; AST classes have no validators or
    converters that a rebuild could skip (the differential test would show a difference).
    """
    kind = type(node)
    if kind is Span:
        return move(node)
    if kind is tuple:
        return tuple([_moved(item, move) for item in node])
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind)) if has(kind) else False
    if names is False:
        return node
    moved = object.__new__(kind)
    for field in names:  # type: ignore[union-attr]
        value = getattr(node, field)
        if type(value) not in _LEAVES:
            value = _moved(value, move)
        object.__setattr__(moved, field, value)
    return moved


# how many repairs one broken piece gets, the longest piece repaired, and how many new
# broken pieces one partial tree repairs (each repair parses the piece again, with the
# parser's insertion trials): the work per edit stays bounded whatever the file
MAX_PIECE_REPAIRS = 6
MAX_REPAIRED_PIECE = 5_000
MAX_REPAIRS_PER_CALL = 4


def _repaired(text: str, name: str, limits: Limits) -> _Piece | None:
    """The tree of a piece that does not parse, from what does: the member holding each
    syntax error blanked out (offsets kept), or a missing closing bracket inserted
    (spans mapped back onto `text`), until it parses; None if it never does."""
    current = text
    insertions: list[tuple[int, int]] = []  # (offset in the repaired text, length)
    for _ in range(MAX_PIECE_REPAIRS):
        scratch = Report()
        module = parse(Source(current, name), scratch, limits)
        if not scratch.dropped and (module.decls or module.uses or module.name is not None):
            header = (module.name, module.title) if module.name is not None else None
            piece = _Piece(0, header, module.uses, module.decls, module.comments)
            if insertions:
                _map_back(piece, insertions)
            return piece
        stop = next(iter(scratch.errors), None)
        if stop is None:
            return None
        fix = stop.fix
        edit = fix.edits[0] if fix is not None and len(fix.edits) == 1 else None
        if (
            edit is not None
            and not edit.span.end - edit.span.start
            and _CLOSERS.match(edit.replacement)
        ):
            at = edit.span.start
            current = current[:at] + edit.replacement + current[at:]
            insertions.append((at, len(edit.replacement)))
            continue
        begin, end = _member_at(current, stop.span.start)
        current = current[:begin] + " " * (end - begin) + current[end:]
    return None


_CLOSERS = re.compile(r"\s*[}\])]+\s*$")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*:(?![:'])")


def _member_at(text: str, error: int) -> tuple[int, int]:
    """The part of the member holding a syntax error at `error` to blank out: from its
    field key (`role:`) to the error when the error is a closing bracket (the member is
    unfinished), else to the member's end (`;`, `}` or the line's end); the whole line
    when no member is found. Never empty unless the line is."""
    closing = error < len(text) and text[error] in "})]"
    before = len(text[:error].rstrip()) if closing else error
    line = (
        text.rfind("\n", 0, max(before - 1, 0)) + 1 if closing else text.rfind("\n", 0, error) + 1
    )
    opened = max(text.rfind("{", line, before), text.rfind(";", line, before))
    keys = [m.start() for m in _KEY.finditer(text, max(line, opened + 1), before)]
    begin = keys[-1] if keys else max(line, opened + 1)
    if closing:
        end = error
    else:
        ends = [at for at in (text.find(c, error + 1) for c in ";}\n") if at >= 0]
        end = min(ends, default=len(text))
    if not text[begin:end].strip():
        begin = text.rfind("\n", 0, error) + 1
        end = text.find("\n", error)
        end = len(text) if end < 0 else end
    return begin, end


def _map_back(piece: _Piece, insertions: list[tuple[int, int]]) -> None:
    """Spans of the repaired text, moved onto the text before the insertions (a position
    inside an inserted token goes to where it was inserted)."""

    def back(offset: int) -> int:
        for at, length in reversed(insertions):
            if offset >= at + length:
                offset -= length
            elif offset > at:
                offset = at
        return offset

    def move(span: Span) -> Span:
        return Span(back(span.start), back(span.end))

    piece.uses = _moved(piece.uses, move)
    piece.decls = _moved(piece.decls, move)
    piece.comments = _moved(piece.comments, move)
