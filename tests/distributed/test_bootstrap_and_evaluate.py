"""Bootstrap intervals, rubric grades and policy evaluations do not depend on the executor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from click.testing import CliRunner

from lablang.cli.protocols import grade_command
from lablang.cli.sim import evaluate_command
from lablang.executors import Executor
from lablang.executors.bootstrap import CELLS, bootstrap_means, chunk_sizes

ROOT = Path(__file__).resolve().parents[2]


def test_bootstrap_means_are_the_same_bytes_on_every_executor(ray_cluster: Any) -> None:
    """Chunk seeds are fixed before dispatch: one process, two processes and Ray agree bit for bit."""
    table = np.random.default_rng(4).random((37, 3))
    one = bootstrap_means(table, seed=9, resamples=2_500)
    assert one.shape == (2_500, 3)
    for executor in (Executor("local", 2), Executor("ray", 2)):
        assert (
            bootstrap_means(table, seed=9, resamples=2_500, executor=executor).tobytes()
            == one.tobytes()
        )


def test_a_chunk_never_holds_more_counts_than_the_bound() -> None:
    """However many protocols, a chunk's resamples x protocols stays within CELLS (streamed memory)."""
    for protocols in (1, 10, 40_000, 3_000_000):
        sizes = chunk_sizes(10_000, protocols)
        assert sum(sizes) == 10_000
        assert max(sizes) * protocols <= max(CELLS, protocols)


def test_grade_prints_the_same_report_on_local_and_ray(ray_cluster: Any) -> None:
    """`lablang grade` with --executor ray gives the local report, intervals included."""
    args = [
        str(ROOT / "examples/protocols/gc_rich_rubric.lab"),
        "--judgments", str(ROOT / "examples/protocols/judgments.jsonl"),
        "--answers", str(ROOT / "examples/protocols/answers"),
        "--json", "--resamples", "3000",
    ]  # fmt: skip
    local = CliRunner().invoke(grade_command, args)
    assert local.exit_code == 0, local.output
    remote = CliRunner().invoke(grade_command, [*args, "--executor", "ray", "--jobs", "2"])
    assert remote.output == local.output
    low, high = json.loads(local.output)["ci"]["mean"]
    assert 0.0 <= low <= high <= 1.0


def test_evaluating_a_suite_on_ray_equals_evaluating_it_locally(ray_cluster: Any) -> None:
    """Each episode is a unit: the suite's evaluation JSON is identical on one process and on Ray."""
    args = [
        str(ROOT / "examples/tasks/move_tube.lab"), str(ROOT / "examples/tasks/tip_handling.lab"),
        "--policy", "lablang.sim.policies:hold", "--episodes", "3", "--max-seconds", "1",
    ]  # fmt: skip
    local = CliRunner().invoke(evaluate_command, args)
    assert local.exit_code == 0, local.output
    remote = CliRunner().invoke(evaluate_command, [*args, "--executor", "ray", "--jobs", "2"])
    assert remote.output == local.output
    printed = json.loads(local.output)
    assert set(printed) == {"move_tube.move_tube", "tip_handling.tips", "metrics"}
    assert {"family", "protocol"} <= set(printed["metrics"])  # the suite's step-wise metrics
