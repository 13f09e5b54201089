"""Reporting every independent syntax problem of a file in one run, each with its fix.

Three repairs, all computed on the text (offsets never move, so every diagnostic keeps
its place in the original source):

- a unit spelled out (`20 sec`, `5 mins`, `10 ul`) is reported with its symbol as the
  fix and read as that quantity (`spell_units`), so nothing downstream trips over it;
- after a syntax error the top-level declaration that holds it is blanked out and the
  rest of the file is parsed again (`declaration_starts`, `blank`), so the next
  declaration's problems are reported too; names declared by a dropped declaration are
  remembered, so uses of them elsewhere are not reported as undeclared;
- where inserting one token makes the parser go on past the error, that insertion is
  the error's fix (`insertion_candidates`).
"""

from __future__ import annotations

import re

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.source import Source, Span
from lablang.units.table import UNIT_SPELLINGS

__all__ = [
    "blank",
    "declaration_chunks",
    "declaration_starts",
    "dropped_name",
    "insertion_candidates",
    "spell_units",
]

_KIND_WORDS = "|".join((*ast.DECL_KINDS, "use", "module"))
_START = re.compile(rf"^(?:{_KIND_WORDS})\b", re.M)
_HEADER = re.compile(rf"(?:{'|'.join(ast.DECL_KINDS)})[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_WORDS = "|".join(sorted(map(re.escape, UNIT_SPELLINGS), key=len, reverse=True))
# strings, comments and sequence literals are skipped; a number, blanks, a spelled unit
_SPELLED = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|5\'-.*?-3\''
    rf"|(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[ \t]*({_WORDS})(?![\w(':])",
    re.S,
)
# how many syntax errors one run reports before it stops looking
MAX_SYNTAX_ERRORS = 20
# texts longer than this get one syntax error (each recovery parses the file again)
MAX_RECOVERY_CHARS = 400_000
# recovery stops once the attempts together have parsed this many characters
RECOVERY_BUDGET_CHARS = 2_000_000
# a one-token insertion is tried only in a declaration up to this long
MAX_INSERTION_REGION = 20_000


def spell_units(source: Source, report: Report) -> str:
    """The text to parse, with each spelled-out unit replaced by its symbol (E0104).

    >>> from lablang.diagnostics import Report
    >>> report = Report()
    >>> spell_units(Source("incubate: 37 C for 20 sec"), report)
    'incubate: 37 C for 20 s  '
    >>> [(d.code, d.fix.edits[0].replacement) for d in report]
    [('E0104', 's')]
    """
    text = source.text
    if not any(word in text for word in UNIT_SPELLINGS):
        return text
    pieces: list[str] = []
    last = 0
    for match in _SPELLED.finditer(text):
        word = match.group(1)
        if word is None:
            continue
        unit = UNIT_SPELLINGS[word]
        span = Span(match.start(1), match.end(1))
        report.add(
            "E0104",
            f"unknown unit `{word}`",
            source,
            span,
            label=f"a unit is written as its symbol, `{unit}`",
            help=f"write `{unit}`",
            fix=Fix(f"use `{unit}`", (Edit(span, unit),)),
        )
        pieces.append(text[last : span.start])
        pieces.append(unit.ljust(len(word)))
        last = span.end
    pieces.append(text[last:])
    return "".join(pieces)


def declaration_starts(text: str) -> list[int]:
    """Offsets of the lines that open a top-level declaration (a kind word at column 0)."""
    return [m.start() for m in _START.finditer(text)]


def declaration_chunks(text: str) -> list[tuple[int, str]]:
    r"""The text cut before each top-level `module`, `use` or declaration: (start, text).

    >>> declaration_chunks("# a\nuse x.y\nsegment A = umi(8)\n")
    [(0, '# a\n'), (4, 'use x.y\n'), (12, 'segment A = umi(8)\n')]
    """
    starts = declaration_starts(text)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    ends = [*starts[1:], len(text)]
    return [(start, text[start:end]) for start, end in zip(starts, ends, strict=True)]


def bad_region(text: str, starts: list[int], error_at: int) -> tuple[int, int]:
    r"""The top-level declaration a syntax error at `error_at` belongs to.

    An error found while a bracket opened in an earlier declaration is still open (a
    `(` or `{` never closed, so the next declaration's words were read inside it)
    belongs to the declaration that opened it; so does an error right at a declaration's
    first word (`oligo` where a `}` was due).

    >>> text = "segment U = umi(\noligo T { seq: 5'-ACGT-3' }\n"
    >>> bad_region(text, declaration_starts(text), text.index("T {"))
    (0, 17)
    """
    opened = _first_open_bracket(text, error_at)
    before = [s for s in starts if s < error_at or (s == error_at and s == starts[0])]
    begin = before[-1] if before else 0
    if opened is not None and opened < begin:
        holders = [s for s in starts if s <= opened]
        begin = holders[-1] if holders else 0
    after = [s for s in starts if s > begin]
    end = after[0] if after else len(text)
    return begin, end


_SKIP = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|5\'-.*?-3\'|[\[\](){}]', re.S)


def _first_open_bracket(text: str, offset: int) -> int | None:
    """Where the outermost bracket still open at `offset` was opened (strings, comments
    and sequence literals skipped), or None."""
    stack: list[int] = []
    for match in _SKIP.finditer(text, 0, offset):
        char = match.group(0)
        if char in "([{":
            stack.append(match.start())
        elif char in ")]}" and stack:
            stack.pop()
    return stack[0] if stack else None


def blank(text: str, begin: int, end: int) -> str:
    """`text` with `[begin, end)` turned into blanks (newlines kept, offsets unchanged)."""
    return text[:begin] + re.sub(r"[^\n]", " ", text[begin:end]) + text[end:]


def dropped_name(text: str, begin: int) -> str | None:
    """The name a dropped top-level declaration declared, if its header says."""
    match = _HEADER.match(text, begin)
    return match.group(1) if match else None


# Literal tokens worth trying as a one-token insertion, in order of preference.
_INSERTABLE = ("}", ")", "]", ":", ",", "=", "{", "(", "[", ";")


def insertion_candidates(expected: set[str], patterns: dict[str, str]) -> list[str]:
    """The texts of the expected terminals a single insertion could supply."""
    from lablang.syntax.errors import punctuation_text

    texts = []
    for terminal in expected:
        literal = punctuation_text(terminal) or patterns.get(terminal)
        if literal is None and terminal.isupper() and terminal.isalpha():
            literal = terminal.lower() if terminal not in _NON_LITERALS else None
        if literal and re.fullmatch(r"[^\sA-Za-z0-9_\"']+|[a-z]+", literal):
            texts.append(literal)
    order = {t: i for i, t in enumerate(_INSERTABLE)}
    return sorted(set(texts), key=lambda t: (order.get(t, len(order)), t))


_NON_LITERALS = {"NAME", "NUMBER", "STRING", "QUANTITY", "SEQUENCE", "END", "COMMENT"}
