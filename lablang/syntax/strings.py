"""How a string is written in `.lab` and read back: the one quoting function for generators.

Every generator that writes text from data into `.lab` (the formatter, `lablang import`
of LibStructBench JSON and seqspec YAML, `diff --task`) quotes it with `quote`, or, in a
comment, writes it with `escape`; the parser reads a literal back with `unquote`. What
`escape` leaves raw is printable text only: a backslash and a double quote are escaped,
a newline and a tab are `\\n` and `\\t`, and every other control, format or line-break
character (Unicode categories Cc, Cf, Cs, Zl, Zp: NUL, CR, U+0085, U+2028/U+2029, the
bidirectional overrides, a lone surrogate) is `\\u{HEX}`. So a value can end neither its
string nor its comment line, cannot start a declaration, and reads back equal.

>>> quote('doi "10.1/x"\\nuse illumina.{P5}')
'"doi \\\\"10.1/x\\\\"\\\\nuse illumina.{P5}"'
>>> unquote(quote("a\\u2028b\\x00"))
'a\\u2028b\\x00'
"""

from __future__ import annotations

import re

__all__ = ["escape", "quote", "unquote"]

_SHORT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}
_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
# what may need escaping: anything but printable ASCII other than `\` and `"`
_CANDIDATE = re.compile(r"[^ !#-\[\]-~]")
# `\u{HEX}` (1 to 6 hex digits, at most U+10FFFF), else a backslash and the next character
_ESCAPE = re.compile(r"\\(?:u\{([0-9A-Fa-f]{1,6})\}|(.))", re.S)
_READ = {"n": "\n", "t": "\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    import unicodedata  # here: the parser imports this module, and reads no categories

    if unicodedata.category(char) in _UNSAFE:
        return f"\\u{{{ord(char):X}}}"
    return char


def escape(text: str) -> str:
    """`text` as the inside of a `.lab` string literal: one line of printable characters."""
    return _CANDIDATE.sub(_escaped, text)


def quote(text: str) -> str:
    """`text` as a `.lab` string literal that reads back (`unquote`) as `text`."""
    return f'"{escape(text)}"'


def _unescaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if code is not None:
        value = int(code, 16)
        if value <= 0x10FFFF:
            return chr(value)
        return "u{" + code + "}"  # out of range: read as before `\u{...}` existed
    char = match.group(2)
    return _READ.get(char, char)


def unquote(token: str) -> str:
    """The value of a string literal token (with its quotes)."""
    return _ESCAPE.sub(_unescaped, token[1:-1])
