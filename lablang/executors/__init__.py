"""Executors: run independent units of work in order-free parallel, results in unit order.

Long work (certifying instances, evaluating episodes, scoring pairs, bootstrap
resamples) is split into *units*: one function applied to one JSON-ready payload whose
seed was fixed before dispatch. `run_units` runs them in this process, in local worker
processes or on a Ray cluster and returns their results in the order of the units, so
the output is byte-identical whatever the executor, the number of workers or the order
in which they finish.

Workers receive the function's import path and the payload (for tasks: the `.lab`
source text and the seeds), never pickled simulator state. A unit whose worker dies is
retried (`retries` times); a unit that still fails comes back as a `UnitFailure` with
its key and seed, which the caller reports; it is never dropped. An exception raised by
the unit's own code is not a worker failure and is not retried (deterministic code
would fail again): it comes back as a `UnitFailure` too.

Ray is optional (`pip install 'lablang[ray]'`); nothing here imports it unless the
`ray` executor is chosen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from lablang.executors.units import (
    EXECUTORS,
    Executor,
    ExecutorError,
    Unit,
    UnitFailure,
    call_unit,
    function_path,
    resolve,
)

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorError",
    "Unit",
    "UnitFailure",
    "call_unit",
    "function_path",
    "resolve",
    "run_units",
]

_LOCAL = Executor()  # one process, this one: the default of `run_units`


def run_units(
    function: Callable[[Any], Any],
    units: Sequence[Unit],
    executor: Executor = _LOCAL,
    progress: str | None = None,
) -> list[Any]:
    """`function(unit.payload)` for every unit, results (or `UnitFailure`s) in unit order.

    `progress` is the label of a progress bar drawn on a terminal as units finish (and
    not at all when standard error is not a terminal).

    >>> run_units(abs, [Unit("a", 0, -2), Unit("b", 1, 3)])
    [2, 3]
    """
    path = function_path(function)
    bar = _progress(progress, len(units))
    try:
        if executor.kind == "ray":
            from lablang.executors.ray_executor import run_on_ray

            return run_on_ray(path, units, executor, bar.update)
        from lablang.executors.local import run_locally

        return run_locally(path, units, executor, bar.update)
    finally:
        bar.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(label: str | None, total: int) -> Any:
    if label is None or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="unit", file=sys.stderr)
