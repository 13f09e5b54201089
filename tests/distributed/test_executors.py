"""Executors run units anywhere and return the same results in unit order, retrying dead workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lablang.executors import Executor, ExecutorError, Unit, UnitFailure, run_units
from tests.distributed import units as u

EXECUTORS = [Executor("local", 1), Executor("local", 2), Executor("ray", 2)]


def _ids(executor: Executor) -> str:
    return f"{executor.kind}-{executor.jobs}"


@pytest.mark.parametrize("executor", EXECUTORS, ids=_ids)
def test_results_come_back_in_unit_order_on_every_executor(
    executor: Executor, request: pytest.FixtureRequest
) -> None:
    """Twelve units give the same ordered results in-process, on two processes and on Ray."""
    if executor.kind == "ray":
        request.getfixturevalue("ray_cluster")
    work = [Unit(f"u{i}", i, i) for i in range(12)]
    assert run_units(u.square, work, executor) == [i * i for i in range(12)]


@pytest.mark.parametrize("executor", EXECUTORS[1:], ids=_ids)
def test_a_unit_whose_worker_dies_is_retried_and_the_result_is_complete(
    executor: Executor, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A worker killed mid-run (os._exit) loses nothing: its unit is rerun and every result is there."""
    if executor.kind == "ray":
        request.getfixturevalue("ray_cluster")
    marker = tmp_path / "killed"
    payloads = [{"value": i, "victim": 3, "marker": str(marker)} for i in range(6)]
    results = run_units(u.die_once, [Unit(f"u{i}", i, p) for i, p in enumerate(payloads)], executor)
    assert marker.exists()  # the worker really died once
    assert results == [i * 10 for i in range(6)]


@pytest.mark.parametrize("executor", EXECUTORS[1:], ids=_ids)
def test_a_unit_that_keeps_killing_its_worker_is_reported_with_its_seed(
    executor: Executor, request: pytest.FixtureRequest
) -> None:
    """After its retries, a unit whose worker always dies is a UnitFailure naming its seed, not dropped."""
    if executor.kind == "ray":
        request.getfixturevalue("ray_cluster")
    executor = Executor(executor.kind, executor.jobs, retries=1)
    (result,) = run_units(u.always_die, [Unit("doomed", 1234, 0)], executor)
    assert isinstance(result, UnitFailure)
    assert (result.key, result.seed, result.attempts) == ("doomed", 1234, 2)


@pytest.mark.parametrize("executor", EXECUTORS, ids=_ids)
def test_an_error_in_the_unit_code_is_reported_not_retried(
    executor: Executor, request: pytest.FixtureRequest
) -> None:
    """A unit raising an exception comes back as a failure with the error; the other units succeed."""
    if executor.kind == "ray":
        request.getfixturevalue("ray_cluster")
    results = run_units(u.raise_for, [Unit(f"u{i}", 100 + i, i) for i in range(4)], executor)
    assert [r for i, r in enumerate(results) if i != 2] == [0, 1, 3]
    failure = results[2]
    assert isinstance(failure, UnitFailure) and failure.seed == 102 and failure.attempts == 1
    assert "no result for 2" in failure.error


def test_an_address_without_the_ray_executor_is_refused() -> None:
    """`--address` names a Ray cluster, so it only goes with the ray executor."""
    with pytest.raises(ExecutorError, match="--executor ray"):
        Executor("local", 1, "auto")


def test_the_core_never_imports_ray() -> None:
    """Checking a file and certifying locally leave Ray unimported (it is an optional extra)."""
    code = (
        "import sys; from lablang.driver import check_file; "
        "from lablang.executors import run_units, Unit; "
        "check_file('examples/tenx_3p_v3.lab'); run_units(abs, [Unit('a', 0, -1)]); "
        "print('ray' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert out.stdout.strip() == "False", out.stderr
