"""The click group behind `lablang`: verbs are loaded lazily from `lablang.cli.verbs.VERBS`."""

from __future__ import annotations

import importlib
import sys
from typing import NoReturn

import click

from lablang.cli.terminal import color_option
from lablang.cli.verbs import VERBS


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        from lablang.output import OutputError, forget_inputs

        forget_inputs()
        try:
            return super().invoke(ctx)
        except OutputError as error:
            _output_refused(error)

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


def _output_refused(error: Exception) -> NoReturn:
    """An output that must not or cannot be written is E0023; nothing was written."""
    from lablang.diagnostics import Report
    from lablang.diagnostics.render import render_texts

    report = Report()
    report.add("E0023", str(error), None, help="choose another output path")
    click.echo(render_texts(report.sorted()), err=True)
    sys.exit(1)


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
