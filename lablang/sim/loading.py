"""Loading a file's tasks: check it as `lablang check` does, then read its tasks.

Its own module, above the front end: the driver dispatches `task` declarations to
`lablang.sim.front`, so loading (which calls the driver) cannot live there, and the
modules of this package import it from here rather than from the package, which imports
them back (`tests/sim/test_layers.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lablang.diagnostics import Report
from lablang.sim import model as sm

__all__ = ["load_tasks"]


def load_tasks(
    path: str | Path, roots: Sequence[str | Path] = ()
) -> tuple[dict[str, sm.Task], Report]:
    """Check a `.lab` file and return its tasks (empty if it has errors) and the report."""
    from lablang.driver import check_file
    from lablang.sim.front import tasks_of

    result = check_file(path, roots)
    if result.report.has_errors:
        return {}, result.report
    return tasks_of(result.program, Report()), result.report
