"""The syntax stage: `.lab` text to an AST, with located syntax diagnostics.

>>> from lablang.diagnostics import Report
>>> from lablang.source import Source
>>> module = parse(Source('oligo TSO { seq: 5\\'-AAGC rGrGrG-3\\' }'), Report())
>>> module.decls[0].kind, module.decls[0].name
('oligo', 'TSO')
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.source import Source, Span

__all__ = ["parse", "refused", "reserved_words", "token_limit_offset"]

_PARSER = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        from lablang.syntax.parser import Parser

        _PARSER = Parser()
    return _PARSER


# What the lexer counts as one token, closely enough to bound its work: a string, comment
# or sequence literal is one, a name or number is one, any other visible character is one.
# Every alternative stops at a character that ends it, so counting is linear in the text
# (a sequence scans as the grammar's own SEQUENCE does, up to the next quote, but a
# bracket looks at most 200 characters ahead for its partner).
_TOKENISH = re.compile(
    r"""\"(?:[^"\\\n]|\\.)*"|#[^\n]*|[35]'-(?:[^'{}\[\]#"\n]|\{[^}\n]{0,200}\}|\[[^\]\n]{0,200}\])*?-[35]'|[\w.]+|\S"""
)


def token_limit_offset(text: str, limits: Limits = DEFAULT_LIMITS) -> int | None:
    """The offset of the first token past `limits.max_tokens`, or None (counted in C, fast).

    >>> token_limit_offset("a ; b ; c", Limits(max_tokens=3))
    6
    """
    if len(text) <= limits.max_tokens:
        return None
    past = next(itertools.islice(_TOKENISH.finditer(text), limits.max_tokens, None), None)
    return None if past is None else past.start()


def parse(source: Source, report: Report, limits: Limits = DEFAULT_LIMITS) -> ast.Module:
    """Parse one source. On a syntax error the report says why and an empty module is returned."""
    empty = ast.Module(name=None, title=None, uses=(), decls=(), comments=(), span=Span(0, 0))
    if refused(source, report, limits):
        return empty
    module = _parser().parse(source, report, limits)
    return module if module is not None else empty


def refused(source: Source, report: Report, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the text is refused before parsing (too large, too many tokens, a lone
    surrogate, a NUL),
    reported in `report`."""
    try:
        size = len(source.text.encode("utf-8"))
        surrogate = None
    except UnicodeEncodeError as error:  # text from JSON (`serve`, the LSP) may hold one
        size = len(source.text.encode("utf-8", "surrogatepass"))
        surrogate = error.start
    if size > limits.max_file_bytes:
        report.add(
            "E0001",
            f"file is {size} bytes, more than the {limits.max_file_bytes} allowed",
            source,
            Span(0, 0),
            help="split it into modules joined with `use`",
        )
        return True
    past = token_limit_offset(source.text, limits)
    if past is not None:
        report.add(
            "E0021",
            f"file has more than {limits.max_tokens} tokens",
            source,
            Span(past, past + 1),
            label=f"token {limits.max_tokens + 1} is here",
            help="split it into modules joined with `use` (the limit is `max_tokens`)",
        )
        return True
    nul = source.text.find("\x00")
    if surrogate is None and nul < 0:
        return False
    if surrogate is not None:
        at, code = surrogate, "E0005"
        message = f"text is not valid UTF-8: a lone surrogate `\\u{ord(source.text[at]):x}`"
        label = "half of a UTF-16 pair, not a character"
        fix = "send the text as UTF-8 (or JSON with both halves of the pair)"
    else:
        at, code, message = nul, "E0100", "unexpected character `\\x00`"
        label, fix = "a NUL byte: this is not a text file", "a `.lab` file is UTF-8 text"
    report.add(code, message, source, Span(at, at + 1), label=label, help=fix)
    return True


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
