"""Syntax errors as diagnostics: what was expected, and which block is still open."""

from __future__ import annotations

import re

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.source import Source, Span
from lablang.syntax.lalr import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

# Terminal names Lark gives for punctuation, and how a reader writes them.
_PUNCTUATION = {
    "LBRACE": "{",
    "RBRACE": "}",
    "LPAR": "(",
    "RPAR": ")",
    "LSQB": "[",
    "RSQB": "]",
    "COLON": ":",
    "SEMICOLON": ";",
    "COMMA": ",",
    "DOT": ".",
    "EQUAL": "=",
    "QMARK": "?",
    "PLUS": "+",
    "MINUS": "-",
    "STAR": "*",
    "SLASH": "/",
    "PERCENT": "%",
    "MORETHAN": ">",
    "LESSTHAN": "<",
    "TILDE": "~",
}
_KINDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "QUANTITY": "a quantity",
    "SEQUENCE": "a sequence `5'-...-3'`",
    "END": "a strand end `5'`/`3'`",
    "$END": "end of file",
}


_PATTERNS: dict[str, str] = {}
_DECLARATION_KINDS = {*ast.DECL_KINDS, "use", "module"}


def remember_terminals(patterns: dict[str, str]) -> None:
    """Record the grammar's anonymous terminals (`__ANON_3` -> `|>`) for messages."""
    _PATTERNS.update(patterns)


def punctuation_text(terminal: str) -> str | None:
    """How a punctuation or operator terminal is written (`RBRACE` -> `}`), if known."""
    if terminal in _PUNCTUATION:
        return _PUNCTUATION[terminal]
    return _PATTERNS.get(terminal)


def _describe(terminal: str) -> str:
    if terminal.startswith("__ANON") and terminal in _PATTERNS:
        return f"`{_PATTERNS[terminal]}`"
    if terminal in _PUNCTUATION:
        return f"`{_PUNCTUATION[terminal]}`"
    if terminal in _KINDS:
        return _KINDS[terminal]
    if terminal.startswith("__ANON") or not terminal.isupper():
        return f"`{terminal}`"
    return f"`{terminal.lower()}`"


_VALUE_STARTS = {
    "NAME",
    "NUMBER",
    "QUANTITY",
    "STRING",
    "SEQUENCE",
    "END",
    "LPAR",
    "LSQB",
    "LBRACE",
    "MINUS",
    "PLUS",
    "NOT",
    "TRUE",
    "FALSE",
    "NONE",
    "IN",
    "FORALL",
    "EXISTS",
}


def _expected(terminals: set[str]) -> str:
    prefix: list[str] = []
    if {"NAME", "NUMBER", "STRING"} <= terminals:
        prefix = ["a value"]
        terminals = {
            t for t in terminals if t not in _VALUE_STARTS and _PATTERNS.get(t) not in ("±", "+/-")
        }
    names = prefix + sorted({_describe(t) for t in terminals})
    if len(names) > 8:
        names = [*names[:8], "..."]
    return ", ".join(names)


def _open_block(text: str, offset: int) -> tuple[int, str] | None:
    """The innermost `{` still open at `offset`, and the header that opened it."""
    stack: list[int] = []
    i = 0
    in_string = False
    while i < min(offset, len(text)):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            stack.pop()
        i += 1
    if not stack:
        return None
    brace = stack[-1]
    line_start = text.rfind("\n", 0, brace) + 1
    header = text[line_start:brace].strip()
    header = re.sub(r"\s+", " ", header)[:60]
    return brace, header


def report_syntax_error(
    error: UnexpectedInput,
    source: Source,
    report: Report,
    insertion: tuple[int, str] | None = None,
) -> None:
    """One syntax error as a diagnostic; `insertion` (offset, text) is a one-token repair
    that lets the parser go on, given as the fix."""
    from lablang.units.table import closest_units

    text = source.text
    position = getattr(error, "pos_in_stream", None)
    if position is None:
        position = len(text)
    opened = _open_block(text, position)
    labels = []
    notes: list[str] = []
    if opened is not None:
        brace, header = opened
        from lablang.diagnostics import Label

        labels.append(
            Label(
                Span(brace, brace + 1),
                f"block of `{header}` opened here" if header else "block opened here",
            )
        )

    if isinstance(error, UnexpectedToken) and error.token.type == "$END":
        span = Span(len(text), len(text))
        expected = _expected(set(getattr(error, "expected", ()) or ()))
        help_text: str | None = "close the open block with `}`" if opened else f"add {expected}"
        fix = Fix("close the block", (Edit(span, "\n}\n"),)) if opened else None
        report.add(
            "E0102",
            "unexpected end of file",
            source,
            span,
            label="the file ends inside a block" if opened else f"expected {expected}",
            labels=labels,
            help=help_text,
            fix=fix,
        )
        return

    if isinstance(error, UnexpectedCharacters):
        char = text[position] if position < len(text) else ""
        span = Span(position, position + 1)
        if char == '"':
            report.add(
                "E0103",
                "unterminated string",
                source,
                span,
                label="this string is not closed on its line",
                labels=labels,
                help='close the string with `"` on the same line (write `\\n` for a line break)',
            )
            return
        if text.startswith("3'-", position):
            report.add(
                "E0105",
                "sequence literals are written 5' to 3'",
                source,
                Span(position, position + 3),
                label="a 3'-to-5' literal",
                labels=labels,
                help="write the reverse complement as `5'-...-3'`, or refer to a named "
                "sequence's reverse complement with `{name'}`",
            )
            return
        if text.startswith("5'-", position):
            report.add(
                "E0105",
                "sequence literal is not closed",
                source,
                Span(position, position + 3),
                label="no matching `-3'` (or a `'`, `\"` or `#` inside)",
                labels=labels,
                help="end the sequence with `-3'`; inside, use IUPAC bases, `[ROLE:LEN]`, "
                "`(T)30`, `{name}`, `/mod/`, `rG`, `+G`, `*`",
            )
            return
        report.add(
            "E0100",
            f"unexpected character `{char}`",
            source,
            span,
            label="no token of the language starts with this character",
            labels=labels,
            help="remove it, or quote free text as a string",
        )
        return

    assert isinstance(error, UnexpectedToken)
    token = error.token
    start = token.start_pos if token.start_pos is not None else position
    span = Span(start, token.end_pos if token.end_pos is not None else start + 1)
    expected_terms = set(error.expected or ())
    previous = getattr(error, "token_history", None) or []
    last = previous[-1] if previous else None
    # a number followed by a name that is not a unit: an unknown unit
    if token.type == "NAME" and last is not None and last.type == "NUMBER":
        guesses = closest_units(str(token))
        guess = guesses[0] if guesses else None
        report.add(
            "E0104",
            f"unknown unit `{token}`",
            source,
            span,
            label="not a unit lablang knows",
            labels=labels,
            help=f"did you mean `{guess}`?" if guess else "see `lablang spec` for the units",
            fix=Fix(f"use `{guess}`", (Edit(span, guess),)) if guess else None,
        )
        return
    keyword = str(token)
    # "unexpected string", "unexpected name `x`": the kind without its article
    what = _KINDS.get(token.type, f"`{keyword}`").removeprefix("a ").removeprefix("an ")
    if token.type == "NAME":
        what = f"name `{keyword}`"
    help_text = None
    fix = None
    if expected_terms == {"RBRACE"} or ("RBRACE" in expected_terms and len(expected_terms) <= 3):
        help_text = "close the block with `}` before this"
    elif "COLON" in expected_terms and token.type in {"NAME", "NUMBER", "QUANTITY", "SEQUENCE"}:
        help_text = "a field is written `key: value`"
    elif opened is not None and keyword in _DECLARATION_KINDS:
        line = source.position(opened[0])[0]
        help_text = f"close the block opened on line {line} with `}}` before this declaration"
    elif keyword == "module" and source.position(start)[1] == 1:
        # the grammar takes one `module` line, before every declaration
        help_text = "a file has at most one `module` line, before its declarations: remove this one, or move it to the top"
        line_end = text.find("\n", start)
        removed = Span(start, len(text) if line_end < 0 else line_end + 1)
        fix = Fix("remove this `module` line", (Edit(removed, ""),))
    elif token.type.isupper() and token.type not in _KINDS and keyword.isidentifier():
        help_text = f"`{keyword}` is a reserved word; use another name, e.g. `{keyword}_`"
    elif keyword in ("=", ":") and (prev := _reserved_before(text, start)) is not None:
        # `read = read + 1`: the reserved word began a member, and `=` cannot follow it
        what = f"`{keyword}`: `{prev}` is a reserved word and cannot be a name"
        help_text = f"use another name, e.g. `{prev}_`"
    if insertion is not None:
        at, text_in = insertion
        fix = Fix(f"insert `{text_in.strip()}`", (Edit(Span(at, at), text_in),))
        if help_text is None or not help_text.startswith("close the block"):
            if token.type != "$END" and not text[at:start].strip():
                where = f" before `{keyword}`"
            else:
                line, column = source.position(at)
                where = f" at {line}:{column}"
            help_text = f"insert `{text_in.strip()}`{where}"
    report.add(
        "E0101",
        f"unexpected {what}",
        source,
        span,
        label=f"expected {_expected(expected_terms)}",
        labels=labels,
        notes=tuple(notes),
        help=help_text,
        fix=fix,
    )


def _reserved_before(text: str, start: int) -> str | None:
    """The reserved word just before `start` (only blanks between), if there is one."""
    from lablang.syntax.grammar import grammar_text

    found = re.search(r"([A-Za-z_]\w*)[ \t]*$", text[:start])
    # the grammar's quoted words are its keywords (as `lablang.syntax.reserved_words`)
    if found is None or f'"{found.group(1)}"' not in grammar_text():
        return None
    return found.group(1)
