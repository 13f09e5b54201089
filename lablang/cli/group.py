"""The click group behind `lablang`: verbs are loaded lazily from `lablang.cli.VERBS`."""

from __future__ import annotations

import importlib
import sys

import click

from lablang.cli import VERBS
from lablang.cli.terminal import color_option


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in VERBS:
            return None
        module_name, attribute, help_text = VERBS[cmd_name]
        try:
            module = importlib.import_module(module_name)
            command = getattr(module, attribute)
        except (ImportError, AttributeError):
            return _unavailable(cmd_name, help_text)
        assert isinstance(command, click.Command)
        return command


def _unavailable(name: str, help_text: str) -> click.Command:
    @click.command(
        name=name,
        help=f"{help_text} (not available in this build)",
        context_settings={"ignore_unknown_options": True},
    )
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        click.echo(
            f"error: `lablang {name}` is not available in this build (partial: "
            "its backend has not landed yet)",
            err=True,
        )
        sys.exit(2)

    return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lablang")
@color_option
def main() -> None:
    """lablang: check, format, score, verify, simulate and grade `.lab` programs."""
