"""What every verb prints for people: diagnostics on stderr, coloured only on a terminal.

`--color auto|always|never` (on `lablang` or on a verb) and `NO_COLOR` decide the colour;
`auto` colours when stderr is a terminal and `NO_COLOR` is unset or empty (no-color.org).
Progress bars follow the same rule: only on a terminal.

Text for people that carries data (names, paths, record fields, diagnostics quoting a
file's lines) is printed through `echo`, which escapes with `terminal_text` first: a
control character (an ESC starting an OSC sequence that retitles the terminal or writes
its clipboard, a CR that overwrites the line, C1 controls), a format character (the
bidirectional overrides) or a line separator is shown as `\\x1b` or `\\u202e`, and a lone
surrogate (from a file name that is not UTF-8) as `\\udcff` instead of an encoding error.
Newlines and tabs are kept. What a verb writes as data (`export`, `fmt`, `--json`) is
written as it is.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from lablang.diagnostics import Diagnostic

if TYPE_CHECKING:
    import click

__all__ = [
    "auto_color",
    "color_option",
    "diagnostics_text",
    "echo",
    "echo_diagnostics",
    "on_terminal",
    "terminal_text",
    "use_color",
]

COLORS = ("auto", "always", "never")
_KEY = "lablang.color"
F = TypeVar("F", bound=Callable[..., Any])
# what may need escaping: C0 but tab and newline, DEL, and anything past ASCII, written
# as the complement of what never does (the class spelled as ranges up to U+10FFFF takes
# `re` ~5 ms to compile, at every start of every verb; the complement, 0.1 ms)
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")
_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char <= "\x9f":  # C0, DEL and C1
        return f"\\x{ord(char):02x}"
    import unicodedata

    if unicodedata.category(char) in _UNSAFE:
        return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
    return char


def terminal_text(text: str) -> str:
    """`text` with every character that could steer a terminal shown as an escape.

    >>> terminal_text("ok\\x1b]0;owned\\x07 \\u202eevil\\tcol\\n")
    'ok\\\\x1b]0;owned\\\\x07 \\\\u202eevil\\tcol\\n'
    """
    return _CANDIDATE.sub(_escaped, text)


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` of text for people, escaped by `terminal_text`."""
    import click

    click.echo(terminal_text(message), err=err, nl=nl)


def _remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.meta[_KEY] = value  # meta is shared by the group's and the verb's contexts


def color_option(function: F) -> F:
    """`--color auto|always|never`, kept in the context for `use_color`."""
    import click

    option = click.option(
        "--color",
        type=click.Choice(COLORS),
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_remember,
        help="Colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never.",
    )
    return option(function)


def on_terminal(stream: Any = None) -> bool:
    """Whether `stream` (stderr by default) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def auto_color() -> bool:
    """`--color auto`: colour when stderr is a terminal and NO_COLOR is unset or empty."""
    return not os.environ.get("NO_COLOR") and on_terminal()


def use_color() -> bool:
    """Whether diagnostics on stderr are coloured (see the module docstring)."""
    import click

    context = click.get_current_context(silent=True)
    choice = context.meta.get(_KEY, "auto") if context is not None else "auto"
    if choice != "auto":
        return choice == "always"
    return auto_color()


def diagnostics_text(diagnostics: Iterable[Diagnostic], color: bool) -> str:
    """Diagnostics rendered as `lablang check` prints them, with ANSI colour if asked."""
    from lablang.diagnostics.render import render_texts

    text = terminal_text(render_texts(diagnostics))  # escaped before colour is added
    if color and text:
        from lablang.diagnostics.color import colorize

        text = colorize(text)
    return text


def echo_diagnostics(diagnostics: Iterable[Diagnostic], blank_line: bool = False) -> None:
    """Rendered diagnostics on stderr (every verb uses this stream), then a blank line if asked."""
    import click

    color = use_color()
    text = diagnostics_text(diagnostics, color)
    if text:
        click.echo(text + ("\n" if blank_line else ""), err=True, color=color)
