"""The `--executor`, `--address` and `--jobs` options shared by the verbs that run units."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from lablang.cli.terminal import echo

EXECUTOR_HELP = (
    "Where the units run: `local` (this machine, --jobs processes) or `ray` (a Ray "
    "cluster: pip install 'lablang[ray]'). The output is identical either way."
)


def executor_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--executor`, `--address` and `--jobs` to a command."""
    function = click.option(
        "--address",
        default=None,
        help="An existing Ray cluster (`auto`, or `ray://host:port`); without it a local "
        "Ray instance with --jobs CPUs is started for the run.",
    )(function)
    function = click.option(
        "--executor",
        "executor_kind",
        type=click.Choice(["local", "ray"]),
        default="local",
        show_default=True,
        help=EXECUTOR_HELP,
    )(function)
    return click.option(
        "--jobs",
        default=1,
        show_default=True,
        type=click.IntRange(1, 256),
        help="Worker processes (local) or CPUs of a started Ray instance.",
    )(function)


def executor_from(kind: str, jobs: int, address: str | None) -> Any:
    """The `Executor` the options describe, or exit 2 with the reason."""
    from lablang.executors import Executor, ExecutorError

    try:
        return Executor(kind, jobs, address)
    except ExecutorError as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
