"""Renderers: pure functions from diagnostics to text (rustc-like), JSON and LSP shapes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lablang.diagnostics import Diagnostic, Severity


def render_text(diagnostic: Diagnostic) -> str:
    """A diagnostic as text with a caret snippet under its span.

    >>> from lablang.diagnostics import Report
    >>> from lablang.source import Source, Span
    >>> report = Report()
    >>> source = Source("oligo X { seq: TS0 }", "a.lab")
    >>> d = report.add("E0203", "oligo `TS0` is not declared", source, Span(15, 18),
    ...                label="not declared in this module", help="did you mean `TSO`?")
    >>> print(render_text(d))
    error[E0203]: oligo `TS0` is not declared
     --> a.lab:1:16
      |
    1 | oligo X { seq: TS0 }
      |                ^^^ not declared in this module
      |
      = help: did you mean `TSO`?
    """
    head = f"{diagnostic.severity.value}[{diagnostic.code}]: {_clipped(diagnostic.message)}"
    source = diagnostic.source
    if source is None:
        lines = [head]
        lines += [f"  = note: {note}" for note in diagnostic.notes]
        if diagnostic.help:
            lines.append(f"  = help: {diagnostic.help}")
        return "\n".join(lines)
    line, column = diagnostic.start
    spans = [(diagnostic.span, diagnostic.label, "^")]
    spans += [(label.span, label.message, "-") for label in diagnostic.labels]
    numbers = sorted({source.position(span.start)[0] for span, _, _ in spans})
    width = len(str(max(numbers)))
    pad = " " * width
    out = [head, f"{pad}--> {source.name}:{line}:{column}", f"{pad} |"]
    previous = None
    for number in numbers:
        if previous is not None and number > previous + 1:
            out.append(f"{pad} ...")
        full = source.line_text(number).expandtabs(1)
        marked = [source.position(span.start)[1] for span, _, _ in spans
                  if source.position(span.start)[0] == number]  # fmt: skip
        text, shift = _snippet(full, marked)
        out.append(f"{number:>{width}} | {text}")
        for span, message, mark in spans:
            start_line, start_col = source.position(span.start)
            if start_line != number:
                continue
            end_line, end_col = source.position(span.end)
            start_col -= shift
            end_col = end_col - shift if end_line == start_line else len(text) + 1
            under = text[start_col - 1 : end_col - 1]
            marks = mark * max(1, display_width(under))
            caret_line = f"{pad} | {' ' * display_width(text[: start_col - 1])}{marks}"
            out.append(f"{caret_line} {message}".rstrip())
        previous = number
    out.append(f"{pad} |")
    out += [f"{pad} = note: {note}" for note in diagnostic.notes]
    if diagnostic.help:
        out.append(f"{pad} = help: {diagnostic.help}")
    if out[-1] == f"{pad} |":
        out.pop()
    return "\n".join(out)


def display_width(text: str) -> int:
    """Terminal columns of `text`: wide characters (CJK, most emoji) take two, combining
    marks and zero-width characters none, so a caret lands under what it marks.

    >>> display_width("a🧪b"), display_width("e\u0301"), display_width("漢字")
    (4, 1, 4)
    """
    if text.isascii():  # one column a character, and no need of the Unicode tables
        return len(text)
    import unicodedata

    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _clipped(message: str) -> str:
    # a message quoting a 100 KB name is cut: each printed diagnostic stays small
    width = 8 * _snippet_width()
    return message if len(message) <= width else message[: width - 1] + "…"


def _snippet_width() -> int:
    from lablang.limits import DEFAULT_LIMITS

    return DEFAULT_LIMITS.max_snippet_width


def _snippet(text: str, columns: list[int]) -> tuple[str, int]:
    """A source line cut to `max_snippet_width` around the marked columns, and how many
    columns the cut moved them left (a 1 MB one-line file prints a window, not the line).

    >>> _snippet("x" * 500 + "HERE" + "y" * 500, [501])[0][51:61]
    'xxxHEREyyy'
    """
    width = _snippet_width()
    if len(text) <= width:
        return text, 0
    first = min(columns, default=1) - 1
    start = max(0, min(first - width // 3, len(text) - width))
    shown = text[start : start + width]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(text) else ""
    return prefix + shown + suffix, start - len(prefix)


def render_texts(diagnostics: Iterable[Diagnostic], limit: int | None = None) -> str:
    """Diagnostics as text, at most `limit` of them (`max_printed_diagnostics` by default);
    the rest are counted in a last line, as compilers do."""
    from lablang.limits import DEFAULT_LIMITS

    cap = DEFAULT_LIMITS.max_printed_diagnostics if limit is None else limit
    parts: list[str] = []
    hidden = 0
    for diagnostic in diagnostics:
        if len(parts) < cap:
            parts.append(render_text(diagnostic))
        else:
            hidden += 1
    if hidden:
        parts.append(
            f"... and {hidden} more diagnostic{'s' if hidden != 1 else ''} not shown "
            "(`--json` lists every one; the limit is `max_printed_diagnostics`)"
        )
    return "\n\n".join(parts)


def to_json(diagnostic: Diagnostic) -> dict[str, Any]:
    r"""A diagnostic as plain JSON data (1-based lines and columns in code points, end
    exclusive; offsets both in code points and in UTF-16 units, as JavaScript counts).

    >>> from lablang.diagnostics import Report
    >>> from lablang.source import Source, Span
    >>> d = Report().add("E0203", "m", Source("# \U0001d11e TS0", "a.lab"), Span(4, 7))
    >>> data = to_json(d)
    >>> data["offset"], data["offset_utf16"], data["column"], data["column_utf16"]
    (4, 5, 5, 6)
    """
    data: dict[str, Any] = {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "file": diagnostic.file,
        **_location(diagnostic, diagnostic.span),
        "label": diagnostic.label,
        "help": diagnostic.help,
        "notes": list(diagnostic.notes),
        "related": [
            _location(diagnostic, label.span) | {"message": label.message}
            for label in diagnostic.labels
        ],
        "fix": None,
    }
    if diagnostic.fix is not None:
        data["fix"] = {
            "description": diagnostic.fix.description,
            "edits": [
                _location(diagnostic, edit.span) | {"replacement": edit.replacement}
                for edit in diagnostic.fix.edits
            ],
        }
    return data


def _location(diagnostic: Diagnostic, span: Any) -> dict[str, Any]:
    if diagnostic.source is None:
        return (
            dict.fromkeys(("line", "column", "end_line", "end_column"), 1)
            | dict.fromkeys(
                (
                    "column_utf16",
                    "end_column_utf16",
                    "offset",
                    "end_offset",
                    "offset_utf16",
                    "end_offset_utf16",
                ),
                0,
            )
            | {"column_utf16": 1, "end_column_utf16": 1}
        )
    source = diagnostic.source
    line, column = source.position(span.start)
    end_line, end_column = source.position(span.end)
    return {
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "column_utf16": _utf16_column(diagnostic, line, column) + 1,
        "end_column_utf16": _utf16_column(diagnostic, end_line, end_column) + 1,
        "offset": span.start,
        "end_offset": span.end,
        "offset_utf16": _utf16_length(source.text, span.start),
        "end_offset_utf16": _utf16_length(source.text, span.end),
    }


def _utf16_length(text: str, offset: int) -> int:
    """UTF-16 code units before a code-point offset (characters past U+FFFF count two)."""
    prefix = text[:offset]
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def _utf16_column(diagnostic: Diagnostic, line: int, column: int) -> int:
    """LSP counts columns in UTF-16 code units, lablang in code points."""
    if diagnostic.source is None:
        return column - 1
    prefix = diagnostic.source.line_text(line)[: column - 1]
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2  # a lone surrogate is one unit


def to_lsp(diagnostic: Diagnostic) -> dict[str, Any]:
    """A diagnostic in the Language Server Protocol's shape (0-based, UTF-16 columns)."""
    line, column = diagnostic.start
    end_line, end_column = diagnostic.end
    column = _utf16_column(diagnostic, line, column) + 1
    end_column = _utf16_column(diagnostic, end_line, end_column) + 1
    severity = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.NOTE: 3}[diagnostic.severity]
    message = diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else "")
    return {
        "range": {
            "start": {"line": line - 1, "character": column - 1},
            "end": {"line": end_line - 1, "character": end_column - 1},
        },
        "severity": severity,
        "code": diagnostic.code,
        "source": "lablang",
        "message": message,
    }
