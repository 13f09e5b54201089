"""How a command that reads a data file reports a refused one (E0022), then stops."""

from __future__ import annotations

import sys
from typing import NoReturn

from lablang.cli.terminal import echo
from lablang.datafile import DataFileError


def data_file_refused(error: DataFileError, name: str) -> NoReturn:
    """Print `error[E0022]` for a data file the guarded loader refused, and exit 1."""
    from lablang.diagnostics import Report
    from lablang.diagnostics.render import render_texts
    from lablang.source import Source

    report = Report()
    report.add(
        "E0022",
        str(error),
        Source("", name),
        help="fix the file, or raise the named limit (docs/limits.md)",
    )
    echo(render_texts(report.sorted()), err=True)
    sys.exit(1)
