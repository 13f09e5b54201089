"""What the language server knows about one document, with no LSP types in sight.

A document is checked with the same library call as `lablang check`
(`lablang.driver.check_source`); everything else here reads the resulting tree.
Positions follow the LSP convention (0-based lines, UTF-16 code units) so the
server only converts types.

>>> analysis = analyze("oligo TSO { seq: 5'-AAGC rGrGrG-3' }", "x.lab")
>>> analysis.lines.position(6), analysis.lines.offset(0, 6)
((0, 6), 6)
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import define, evolve, frozen

from lablang import ast
from lablang.check.walk import children
from lablang.diagnostics import Diagnostic, Report
from lablang.driver import CheckResult, check_source
from lablang.resolve import ModuleInfo, Program, Symbol
from lablang.source import Source, Span
from lablang.syntax.reuse import ParseCache

__all__ = ["Analysis", "LineIndex", "Target", "analyze", "nodes_at", "target_at"]


class LineIndex:
    """Character offsets <-> LSP positions (0-based line, UTF-16 column) for one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        prefix = self.text[self.starts[line] : offset]
        return line, _utf16_length(prefix)

    def offset(self, line: int, character: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(line, 0)]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        units = 0
        for index in range(start, end):
            if units >= character:
                return index
            units += 2 if ord(self.text[index]) > 0xFFFF else 1
        return end


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


@define(eq=False)
class Analysis:
    """One checked version of a document."""

    source: Source
    result: CheckResult
    lines: LineIndex
    partial: bool = False  # the tree holds only what parses (`lablang.syntax.reuse`)

    @property
    def module(self) -> ast.Module:
        return self.result.program.root.module

    @property
    def info(self) -> ModuleInfo:
        return self.result.program.root

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Diagnostics of this document; an imported module's are shown at its `use`."""
        found = []
        for d in self.result.report.sorted():
            if d.source is None or d.source.name == self.source.name:
                found.append(d)
            else:
                found.append(self._at_use(d))
        return found

    def _at_use(self, diagnostic: Diagnostic) -> Diagnostic:
        name = diagnostic.file
        modules = self.result.program.modules.values()
        module = next((m for m in modules if m.source.name == name), None)
        use = None
        if module is not None:
            use = next((u for u in self.module.uses if tuple(u.path) == module.path), None)
            use = use or next(
                (u for u in self.module.uses if tuple(u.path[: len(module.path)]) == module.path),
                None,
            )
        use = use or (self.module.uses[0] if self.module.uses else None)
        line, column = diagnostic.start
        where = f"{diagnostic.file}:{line}:{column}"
        return evolve(
            diagnostic,
            source=self.source,
            span=use.span if use is not None else Span(0, 0),
            message=f"in imported module ({where}): {diagnostic.message}",
            labels=(),
            fix=None,
        )

    @property
    def parsed(self) -> bool:
        """False when a syntax error left the tree empty (or only partial)."""
        if self.partial:
            return False
        syntax_error = any(d.code.startswith("E01") for d in self.result.report)
        return not syntax_error or bool(self.module.decls or self.module.uses)

    @property
    def usable(self) -> bool:
        """Whether there is a tree to answer from: parsed, or a partial tree of what
        parses."""
        return self.parsed or bool(self.module.decls)


def analyze(
    text: str, path: str, roots: Sequence[str | Path] = (), parses: ParseCache | None = None
) -> Analysis:
    """Check `text` as the file `path`; its directory and `roots` are module roots.

    With `parses` (kept per document between edits) only the declarations whose text
    changed are parsed again; the result is the same.

    When a syntax error leaves the tree empty, what parses still makes a partial tree
    (with the full check's diagnostics): the declarations that parse on their own, and
    inside a broken one the fields and members that parse, so hover, outline, completion
    and definition keep working in a file being edited.
    """
    source = Source(text, path)
    folder = Path(path).parent
    module_roots = [folder, *roots] if folder.is_dir() else list(roots)
    if parses is None:
        result = check_source(source, module_roots)
    else:
        result = check_source(source, module_roots, parser=parses.parse)
    analysis = Analysis(source=source, result=result, lines=LineIndex(text))
    if any(d.code.startswith("E01") and d.source is source for d in result.report):
        cold = analysis.module.decls
        program = _partial_program(source, module_roots, parses or ParseCache(), cold)
        if program is not None:
            partial = CheckResult(source=source, program=program, report=result.report)
            return Analysis(source=source, result=partial, lines=analysis.lines, partial=True)
    return analysis


def _partial_program(
    source: Source, roots: Sequence[str | Path], parses: ParseCache, cold: Sequence[ast.Decl]
) -> Program | None:
    """The program of what parses: the top-level declarations that parse alone, and the
    fields and members that parse inside those that do not (`ParseCache.partial`); None
    when that holds no declaration the cold parse (`cold`) lacks."""
    from lablang.resolve import Loader, resolve

    partial = parses.partial(source)
    if not partial.decls or [d.span for d in partial.decls] == [d.span for d in cold]:
        return None
    try:
        return resolve(partial, source, Loader.with_roots(roots), Report())
    except Exception:  # a partial tree is a convenience: without it, features answer nothing
        return None


def _span(node: Any) -> Span | None:
    span = getattr(node, "span", None)
    return span if isinstance(span, Span) else None


def nodes_at(module: ast.Module, offset: int) -> list[Any]:
    """The nodes whose span holds `offset`, outermost first (the module excluded)."""
    chain: list[Any] = []
    level: Iterator[Any] = iter((*module.uses, *module.decls))
    while True:
        for node in level:
            span = _span(node)
            if span is not None and span.start <= offset <= span.end:
                chain.append(node)
                level = children(node)
                break
        else:
            return chain


@frozen
class Target:
    """What the cursor is on: a name path to look up, or a node to describe."""

    path: tuple[str, ...]
    span: Span
    node: Any
    chain: tuple[Any, ...]


def target_at(analysis: Analysis, offset: int) -> Target | None:
    """The reference or declaration under `offset`, if any."""
    chain = nodes_at(analysis.module, offset)
    if not chain:
        return None
    for node in reversed(chain):
        if isinstance(node, ast.Decl | ast.Entry | ast.Binding | ast.Field):
            name_span = node.key_span if isinstance(node, ast.Field) else node.name_span
            if name_span is not None and name_span.start <= offset <= name_span.end:
                name = node.key if isinstance(node, ast.Field) else node.name
                return Target((name or "",), name_span, node, tuple(chain))
    inner = chain[-1]
    match inner:
        case ast.Name(id=name, span=span):
            path, span = _dotted(chain, (name,), span)
            return Target(path, span, inner, tuple(chain))
        case ast.Attribute():
            dotted = _attribute_path(inner)
            if dotted is not None:
                path, span = _dotted(chain, dotted, inner.span)
                return Target(path, span, inner, tuple(chain))
        case ast.SeqRef(path=path, span=span):
            return Target(path, span, inner, tuple(chain))
        case ast.Use():
            return _use_target(analysis.source.text, inner, offset, tuple(chain))
    return Target((), inner.span, inner, tuple(chain)) if _span(inner) else None


def _attribute_path(node: Any) -> tuple[str, ...] | None:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.name)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names.append(node.id)
    return tuple(reversed(names))


def _dotted(chain: list[Any], path: tuple[str, ...], span: Span) -> tuple[tuple[str, ...], Span]:
    """Extend a name to the attribute chain it heads (`tenx.TSO`), outermost last."""
    for node in reversed(chain[:-1]):
        if not isinstance(node, ast.Attribute):
            break
        longer = _attribute_path(node)
        if longer is None:
            break
        path, span = longer, node.span
    return path, span


def _use_target(text: str, use: ast.Use, offset: int, chain: tuple[Any, ...]) -> Target | None:
    """In `use a.b.{C, D} as e`, the module path or the imported name under the cursor."""
    import re

    body = text[use.span.start : use.span.end]
    words = [(m.group(), use.span.start + m.start()) for m in re.finditer(r"[A-Za-z_]\w*", body)]
    words = [(w, at) for w, at in words if w not in {"use", "as"}]
    module_words = len(use.path)
    for index, (word, at) in enumerate(words):
        if at <= offset <= at + len(word):
            span = Span(at, at + len(word))
            if index < module_words:
                return Target(use.path[: index + 1], span, use, chain)
            if word in use.names:
                return Target((word,), span, use, chain)  # the imported name, as bound here
            return Target(use.path, span, use, chain)
    return None


def lookup(info: ModuleInfo, path: Sequence[str]) -> tuple[Symbol | None, tuple[str, ...]]:
    """The longest prefix of `path` naming a declaration, and the members left after it."""
    for cut in range(len(path), 0, -1):
        symbol = info.lookup(list(path[:cut]))
        if symbol is not None:
            return symbol, tuple(path[cut:])
    return None, tuple(path)


def module_of_use(info: ModuleInfo, path: Sequence[str]) -> ModuleInfo | None:
    """The loaded module a `use` path names, found among the imports of `info`."""
    wanted = tuple(path)
    for module in info.modules.values():
        if module.path == wanted:
            return module
    for symbol in info.imported.values():
        if symbol.module.path == wanted:
            return symbol.module
    return None
