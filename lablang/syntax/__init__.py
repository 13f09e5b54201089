"""The syntax stage: `.lab` text to an AST, with located syntax diagnostics.

>>> from lablang.diagnostics import Report
>>> from lablang.source import Source
>>> module = parse(Source('oligo TSO { seq: 5\\'-AAGC rGrGrG-3\\' }'), Report())
>>> module.decls[0].kind, module.decls[0].name
('oligo', 'TSO')
"""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.source import Source, Span

__all__ = ["parse", "reserved_words"]

_PARSER = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        from lablang.syntax.parser import Parser

        _PARSER = Parser()
    return _PARSER


def parse(source: Source, report: Report, limits: Limits = DEFAULT_LIMITS) -> ast.Module:
    """Parse one source. On a syntax error the report says why and an empty module is returned."""
    empty = ast.Module(name=None, title=None, uses=(), decls=(), comments=(), span=Span(0, 0))
    size = len(source.text.encode("utf-8", "surrogatepass"))
    if size > limits.max_file_bytes:
        report.add(
            "E0001",
            f"file is {size} bytes, more than the {limits.max_file_bytes} allowed",
            source,
            Span(0, 0),
            help="split it into modules joined with `use`",
        )
        return empty
    if "\x00" in source.text:
        at = source.text.index("\x00")
        report.add(
            "E0100",
            "unexpected character `\\x00`",
            source,
            Span(at, at + 1),
            label="a NUL byte: this is not a text file",
            help="a `.lab` file is UTF-8 text",
        )
        return empty
    module = _parser().parse(source, report, limits)
    return module if module is not None else empty


_RESERVED: frozenset[str] | None = None


def reserved_words() -> frozenset[str]:
    """The words the grammar reserves (keywords), read from the grammar itself.

    >>> {"step", "in", "forall"} <= reserved_words()
    True
    """
    global _RESERVED
    if _RESERVED is None:
        import re

        from lablang.syntax.grammar import grammar_text

        _RESERVED = frozenset(re.findall(r'"([A-Za-z_]+)"', grammar_text()))
    return _RESERVED
