"""`lablang lsp`: the language server over stdio (see `lablang.lsp`)."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable), as for `lablang check`.",
)
@click.option(
    "--stdio", is_flag=True, help="Speak LSP on stdin/stdout (the default and only transport)."
)
def lsp_command(roots: tuple[str, ...], stdio: bool) -> None:
    """Run the language server over stdio, for editors (VS Code: editors/vscode).

    Example: `lablang lsp --path lib` (an editor starts it; it reads JSON-RPC on stdin).
    """
    del stdio  # accepted because clients such as vscode-languageclient may pass it
    from lablang.lsp.server import serve

    serve(roots)
