"""What every verb prints for people: diagnostics on stderr, coloured only on a terminal.

`--color auto|always|never` (on `lablang` or on a verb) and `NO_COLOR` decide the colour;
`auto` colours when stderr is a terminal and `NO_COLOR` is unset or empty (no-color.org).
Progress bars follow the same rule: only on a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from lablang.diagnostics import Diagnostic

__all__ = ["color_option", "echo_diagnostics", "on_terminal", "use_color"]

COLORS = ("auto", "always", "never")
_KEY = "lablang.color"
F = TypeVar("F", bound=Callable[..., Any])


def _remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.meta[_KEY] = value  # meta is shared by the group's and the verb's contexts


def color_option(function: F) -> F:
    """`--color auto|always|never`, kept in the context for `use_color`."""
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


def use_color() -> bool:
    """Whether diagnostics on stderr are coloured (see the module docstring)."""
    context = click.get_current_context(silent=True)
    choice = context.meta.get(_KEY, "auto") if context is not None else "auto"
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and on_terminal()


def echo_diagnostics(diagnostics: Iterable[Diagnostic], blank_line: bool = False) -> None:
    """Rendered diagnostics on stderr (every verb uses this stream), then a blank line if asked."""
    from lablang.diagnostics.render import render_texts

    text = render_texts(diagnostics)
    if not text:
        return
    color = use_color()
    if color:
        from lablang.diagnostics.color import colorize

        text = colorize(text)
    click.echo(text + ("\n" if blank_line else ""), err=True, color=color)
