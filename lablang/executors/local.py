"""The local executor: in this process (jobs 1) or in a pool of worker processes.

A worker process that dies (killed, out of memory, a crash in native code) breaks the
pool; the units that had not finished are then rerun one at a time, each in a fresh
single-worker pool, so the unit that kills its worker is found and retried on its own
and the others are not charged for it.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from lablang.executors.units import Executor, Unit, UnitFailure, call_unit

_PENDING = object()


def run_locally(
    path: str, units: Sequence[Unit], executor: Executor, advance: Callable[[int], None]
) -> list[Any]:
    results: list[Any] = [_PENDING] * len(units)
    if executor.jobs <= 1:
        for index, unit in enumerate(units):
            results[index] = _in_process(path, unit)
            advance(1)
        return results
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    try:
        with ProcessPoolExecutor(executor.jobs, mp_context=context) as pool:
            futures: list[Future[Any]] = [
                pool.submit(call_unit, path, unit.payload) for unit in units
            ]
            for index, future in enumerate(futures):
                results[index] = _outcome(future, units[index], 1)
                advance(1)
    except BrokenProcessPool:
        pass
    for index, unit in enumerate(units):
        if results[index] is _PENDING:
            results[index] = _isolated(path, unit, executor.retries, context)
            advance(1)
    return results


def _in_process(path: str, unit: Unit) -> Any:
    try:
        return call_unit(path, unit.payload)
    except Exception as error:  # the unit's own code failed: reported with its seed
        return UnitFailure(unit.key, unit.seed, 1, f"{error.__class__.__name__}: {error}")


def _outcome(future: Future[Any], unit: Unit, attempts: int) -> Any:
    """The unit's result, or its failure; a broken pool propagates (the unit is rerun)."""
    try:
        return future.result()
    except BrokenProcessPool:
        raise
    except Exception as error:
        return UnitFailure(unit.key, unit.seed, attempts, f"{error.__class__.__name__}: {error}")


def _isolated(path: str, unit: Unit, retries: int, context: Any) -> Any:
    attempts = 0
    while True:
        attempts += 1
        try:
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                return _outcome(pool.submit(call_unit, path, unit.payload), unit, attempts)
        except BrokenProcessPool:
            if attempts > retries:
                return UnitFailure(
                    unit.key, unit.seed, attempts, "its worker process died on every attempt"
                )
