"""Go to definition and the document outline.

>>> from lablang.lsp.analysis import analyze
>>> a = analyze("segment CB = umi(8)\\noligo X { seq: 5'-{CB} ACGT-3' }", "x.lab")
>>> definition(a, a.source.text.rindex("CB")).span
Span(start=8, end=10)
>>> [(item.name, item.kind) for item in outline(a.module)]
[('CB', 'segment'), ('X', 'oligo')]
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from lablang import ast
from lablang.lsp.analysis import Analysis, LineIndex, lookup, module_of_use, target_at
from lablang.resolve import ModuleInfo
from lablang.source import Span

__all__ = ["Location", "OutlineItem", "definition", "local_definition", "outline"]


@frozen
class Location:
    """A span in a file (its text is kept to turn offsets into positions)."""

    path: str
    span: Span
    text: str = field(repr=False)

    def range(self) -> tuple[tuple[int, int], tuple[int, int]]:
        lines = LineIndex(self.text)
        return lines.position(self.span.start), lines.position(self.span.end)


def definition(analysis: Analysis, offset: int) -> Location | None:
    """Where the name under `offset` is declared, in this file, an import or the stdlib."""
    target = target_at(analysis, offset)
    if target is None or not target.path:
        return None
    node = target.node
    if isinstance(node, ast.Decl | ast.Entry | ast.Binding | ast.Field):
        return None
    if isinstance(node, ast.Use):
        module = module_of_use(analysis.info, target.path)
        if module is not None:
            return Location(_file_of(module), Span(0, 0), module.source.text)
    symbol, _ = lookup(analysis.info, target.path)
    if symbol is None:
        return local_definition(analysis, target)
    return Location(_file_of(symbol.module), symbol.decl.name_span, symbol.module.source.text)


def _file_of(module: ModuleInfo) -> str:
    """The module's file as an absolute path (diagnostics show it relative to the cwd)."""
    return str(module.file.resolve()) if module.file is not None else module.source.name


def local_definition(analysis: Analysis, target: Any) -> Location | None:
    """A name bound inside the enclosing declaration (`rt = ...`, `var a`, `input x`)."""
    decl = next((n for n in target.chain if isinstance(n, ast.Decl)), None)
    if decl is None or decl.body is None:
        return None
    name = target.path[0]
    from lablang.check.walk import walk

    for node in walk(decl.body):
        if isinstance(node, ast.Binding | ast.Entry) and node.name == name:
            assert node.name_span is not None
            return Location(analysis.source.name, node.name_span, analysis.source.text)
    return None


@frozen
class OutlineItem:
    name: str
    detail: str
    kind: str  # a declaration kind, an entry keyword, "field" or "binding"
    span: Span
    selection: Span
    children: tuple[OutlineItem, ...] = ()


def outline(module: ast.Module) -> list[OutlineItem]:
    """Declarations with their named entries, bindings and fields, for the outline view."""
    return [
        OutlineItem(
            name=decl.name,
            detail=decl.kind + (f" — {decl.title}" if decl.title else ""),
            kind=decl.kind,
            span=decl.span,
            selection=decl.name_span,
            children=_members(decl.body, depth=0),
        )
        for decl in module.decls
    ]


def _members(block: ast.Block | None, depth: int) -> tuple[OutlineItem, ...]:
    if block is None or depth > 6:
        return ()
    items: list[OutlineItem] = []
    for member in block.members:
        match member:
            case ast.Entry(name=str(name), name_span=Span() as selection):
                detail = member.keyword + (f" — {member.title}" if member.title else "")
                children = _members(member.body, depth + 1)
                items.append(
                    OutlineItem(name, detail, member.keyword, member.span, selection, children)
                )
            case ast.Binding(name=name, name_span=selection):
                items.append(OutlineItem(name, "=", "binding", member.span, selection))
            case ast.Field(key=key, key_span=selection):
                items.append(OutlineItem(key, "field", "field", member.span, selection))
    return tuple(items)
