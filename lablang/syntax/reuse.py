"""Parsing a document again after an edit, re-parsing only the declarations that changed.

The language server checks the whole document after every edit, and parsing is most of
that check. Top-level declarations (and `use` lines, and the `module` header) are
independent in the grammar (`start: module_header? (use | decl)*`, nothing between
items), so a file is cut before each line that opens one in column 0
(`declaration_chunks`) and each piece is parsed alone, at offset 0, once per distinct
text. The module is the pieces' trees moved to where the pieces now are.

The result is the tree a cold `parse` gives, with the same (empty) diagnostics, or it is
that cold parse: whenever a piece has any diagnostic (a syntax error, a spelled-out
unit, a bound), a later piece holds a `module` header, or the whole text hits a file
bound, the text is parsed whole by `lablang.syntax.parse` (whose recovery works across
pieces). A test compares both on random edit sequences.

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

import threading
from collections import OrderedDict
from typing import Any

import attrs

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.source import Source, Span
from lablang.syntax import parse, refused
from lablang.syntax.recover import declaration_chunks

__all__ = ["ParseCache"]


@attrs.define(eq=False)
class _Piece:
    """One piece's tree, as it stands at `offset` (parsed at 0, moved since)."""

    offset: int
    header: tuple[str | None, str | None] | None
    uses: tuple[ast.Use, ...]
    decls: tuple[ast.Decl, ...]
    comments: tuple[ast.Comment, ...]


class ParseCache:
    """`parse` with the trees of unchanged pieces kept between calls: an LRU bounded by
    the characters of the texts it keeps (the texts are untrusted)."""

    def __init__(self, characters: int = 8_000_000) -> None:
        self.characters = characters
        self.kept = 0
        self.pieces: OrderedDict[str, _Piece | None] = OrderedDict()  # None: not clean
        self.limits: Limits | None = None
        self.parsed_pieces = 0  # how many pieces were parsed (not reused), for tests
        self.lock = threading.Lock()

    def parse(self, source: Source, report: Report, limits: Limits = DEFAULT_LIMITS) -> ast.Module:
        """What `lablang.syntax.parse(source, report, limits)` returns and reports."""
        with self.lock:
            if self.limits != limits:
                self.pieces.clear()
                self.kept, self.limits = 0, limits
            if refused(source, Report(), limits):
                return parse(source, report, limits)
            uses: list[ast.Use] = []
            decls: list[ast.Decl] = []
            comments: list[ast.Comment] = []
            name = title = None
            for index, (start, text) in enumerate(declaration_chunks(source.text)):
                piece = self._piece(text, source.name, limits)
                if piece is None or (piece.header is not None and index > 0):
                    return parse(source, report, limits)
                if piece.offset != start:
                    _move(piece, start)
                if piece.header is not None:
                    name, title = piece.header
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


def _move(piece: _Piece, offset: int) -> None:
    delta = offset - piece.offset
    piece.uses = _shifted(piece.uses, delta)
    piece.decls = _shifted(piece.decls, delta)
    piece.comments = _shifted(piece.comments, delta)
    piece.offset = offset


# the fields of each node class, in order; False for a class that holds no span
_FIELDS: dict[type, tuple[str, ...] | bool] = {}
_LEAVES = frozenset({str, int, float, bool, type(None)})


def _shifted(node: Any, delta: int) -> Any:
    """`node` with every span in it moved by `delta`.

    Nodes are rebuilt field by field with `object.__setattr__` rather than through
    `attrs.evolve`, which took twice as long; AST classes have no validators or
    converters that a rebuild could skip (the round-trip test would show a difference).
    """
    kind = type(node)
    if kind is Span:
        return Span(node.start + delta, node.end + delta)
    if kind is tuple:
        return tuple([_shifted(item, delta) for item in node])
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = (
            tuple(f.name for f in attrs.fields(kind)) if attrs.has(kind) else False
        )
    if fields is False:
        return node
    moved = object.__new__(kind)
    for field in fields:  # type: ignore[union-attr]
        value = getattr(node, field)
        if type(value) not in _LEAVES:
            value = _shifted(value, delta)
        object.__setattr__(moved, field, value)
    return moved
