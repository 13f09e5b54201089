"""The Ray executor: one Ray task per unit, collected in unit order.

Each unit is a Ray task of `call_unit(function path, payload)`; Ray reruns a task
whose worker died (`max_retries`), and an exception raised by the unit's own code is
returned as a failure, not retried. Results are placed by unit index as they finish
(`ray.wait`), so the progress bar moves in completion order while the output keeps unit
order. When no cluster is running, a local Ray instance with `jobs` CPUs is started on the
first run and stopped when the process exits (one command may run several batches of
units); an existing one (`ray.init` done by the caller) is used as it is.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Sequence
from typing import Any

from lablang.executors.units import Executor, ExecutorError, Unit, UnitFailure, call_unit


def _ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise ExecutorError("the ray executor needs Ray: pip install 'lablang[ray]'") from error
    return ray


def run_on_ray(
    path: str, units: Sequence[Unit], executor: Executor, advance: Callable[[int], None]
) -> list[Any]:
    ray = _ray()
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": "ERROR",
        }
        if executor.address is None:
            options["num_cpus"] = executor.jobs
        try:
            ray.init(address=executor.address, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise ExecutorError(
                f"cannot reach the Ray cluster at `{executor.address}`: {error}"
            ) from error
        atexit.register(ray.shutdown)
    remote = ray.remote(max_retries=executor.retries, retry_exceptions=False)(call_unit)
    pending = {remote.remote(path, unit.payload): index for index, unit in enumerate(units)}
    results: list[Any] = [None] * len(units)
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            index = pending.pop(ref)
            results[index] = _result(ray, ref, units[index], executor.retries)
            advance(1)
    return results


def _result(ray: Any, ref: Any, unit: Unit, retries: int) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:  # the unit's own code raised
        cause = error.cause if error.cause is not None else error
        return UnitFailure(unit.key, unit.seed, 1, f"{cause.__class__.__name__}: {cause}")
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.RayError) as error:
        return UnitFailure(
            unit.key,
            unit.seed,
            retries + 1,
            f"its worker died on every attempt ({error.__class__.__name__})",
        )
