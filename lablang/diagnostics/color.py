"""Colour for rendered diagnostics: ANSI styles laid over the plain text `render_text` makes.

Kept apart from the renderer, so the plain text (what tests, goldens and pipes see) has one
author; this module only recognises its lines: the `error[E0203]:` head, the `-->` and `|`
gutter, the caret and dash marks under a span, and the `= help:` / `= note:` lines.

>>> print(colorize("error[E0203]: x").encode())
b'\\x1b[1;31merror[E0203]\\x1b[0m\\x1b[1m: x\\x1b[0m'
"""

from __future__ import annotations

import re

__all__ = ["colorize"]

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
SEVERITY = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
GUTTER = "\x1b[1;34m"

_HEAD = re.compile(r"^(error|warning|note)(\[[A-Z]\d{4}\])?(:.*)$")
_LOCATION = re.compile(r"^(\s*)(-->)(.*)$")
_SNIPPET = re.compile(r"^(\s*\d*\s*)(\|)(.*)$")
_MARKS = re.compile(r"^( *)(\^+|-+)(.*)$")
_FOOTER = re.compile(r"^(\s*)(= (?:help|note):)(.*)$")


def colorize(text: str) -> str:
    """`text` from `render_texts` with ANSI colour: severity and code, gutter, carets, help."""
    lines = []
    severity = "error"
    for line in text.split("\n"):
        if match := _HEAD.match(line):
            severity = match.group(1)
            code = match.group(2) or ""
            line = f"{SEVERITY[severity]}{severity}{code}{RESET}{BOLD}{match.group(3)}{RESET}"
        elif match := _LOCATION.match(line):
            line = f"{match.group(1)}{GUTTER}{match.group(2)}{RESET}{match.group(3)}"
        elif match := _FOOTER.match(line):
            line = f"{match.group(1)}{BOLD}{match.group(2)}{RESET}{match.group(3)}"
        elif match := _SNIPPET.match(line):
            number, rest = match.group(1), match.group(3)
            marks = _MARKS.match(rest) if not number.strip() else None
            if marks is not None:
                style = SEVERITY[severity] if marks.group(2)[0] == "^" else GUTTER
                rest = f"{marks.group(1)}{style}{marks.group(2)}{marks.group(3)}{RESET}"
            line = f"{GUTTER}{number}|{RESET}{rest}"
        lines.append(line)
    return "\n".join(lines)
