"""Suites certify every task they find, byte-identically on every executor, even when a worker dies."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lablang.cli.sim import certify_command
from lablang.executors import Executor, UnitFailure
from lablang.sim.certify import certificate_of, instance_seeds
from lablang.sim.suite import certify_suite, task_refs, write_suite

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "examples" / "tasks"
SUITE = [TASKS / "move_tube.lab", TASKS / "tip_handling.lab", TASKS / "open_bottle.lab"]


def _certify(executor: Executor, out: Path, mutants: str = "all") -> dict[str, bytes]:
    certificates, summary = certify_suite(task_refs(SUITE), 3, 7, executor, mutants=mutants)
    write_suite(out, certificates, summary)
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_a_suite_is_byte_identical_on_one_process_two_processes_and_ray(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """Certificates, suite.json and suite.html do not depend on the executor or the worker
    count, their mutants' sensitivity sections included (each step's mutants are a unit)."""
    one = _certify(Executor("local", 1), tmp_path / "one")
    for name in ("move_tube.move_tube.cert.json", "tip_handling.tips.cert.json"):
        section = json.loads(one[name])["sensitivity"]
        assert section["run"] > 0 and section["killed"] == section["run"], name
    assert one == _certify(Executor("local", 2), tmp_path / "two")
    assert one == _certify(Executor("ray", 2), tmp_path / "ray")
    assert sorted(one) == [
        "move_tube.move_tube.cert.json",
        "open_bottle.open_it.cert.json",
        "suite.html",
        "suite.json",
        "tip_handling.tips.cert.json",
    ]


def test_a_suite_certificate_equals_certifying_the_task_alone(tmp_path: Path) -> None:
    """Regrouping the suite's flat unit list gives each task the certificate it gets on its own."""
    runner = CliRunner()
    alone = runner.invoke(certify_command, [str(SUITE[0]), "--instances", "3", "--seed", "7"])
    certificates, _ = certify_suite(task_refs(SUITE), 3, 7, Executor("local", 1))
    assert json.loads(alone.output) == certificates["move_tube.move_tube"]


def _kill_a_worker(stop: threading.Event, killed: list[int]) -> None:
    """Kill -9 the first Ray worker seen running a unit."""
    while not stop.is_set() and not killed:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                title = (entry / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if title.startswith(b"ray::call_unit"):
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
                return
        time.sleep(0.01)


def test_killing_a_ray_worker_mid_run_leaves_the_certificates_complete_and_identical(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """A worker killed with SIGKILL while it runs an instance: its unit is retried, nothing
    differs (without mutants: their units go through the same retries, and the test above
    shows them byte-identical on Ray)."""
    undisturbed = _certify(Executor("local", 1), tmp_path / "local", "none")
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_worker, args=(stop, killed))
    killer.start()
    try:
        disturbed = _certify(Executor("ray", 2), tmp_path / "ray", "none")
    finally:
        stop.set()
        killer.join()
    assert killed, "no Ray worker was seen running a unit"
    assert disturbed == undisturbed


def test_a_lost_unit_is_listed_with_its_seed_and_the_task_is_not_certified() -> None:
    """A unit that produced no outcome is in `unit_failures` (seed, attempts, why) and blocks certification."""
    (task, _ref), *_ = task_refs(SUITE[:1])
    seeds = instance_seeds(0, 2)
    from lablang.sim.certify import run_instance

    outcomes: list[Any] = [
        run_instance(task, seeds[0]),
        UnitFailure("move_tube/x", seeds[1], 3, "its worker died on every attempt"),
    ]
    certificate = certificate_of(task, 0, seeds, outcomes)
    assert certificate["unit_failures"] == [
        {"unit": "move_tube/x", "seed": seeds[1], "attempts": 3,
         "error": "its worker died on every attempt"}
    ]  # fmt: skip
    assert not certificate["certified"]


def test_the_cli_certifies_a_folder_into_a_suite_folder(tmp_path: Path) -> None:
    """`lablang certify DIR --out OUT` writes one certificate per task, suite.json and suite.html."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    for file in SUITE[:2]:
        (folder / file.name).write_text(file.read_text())
    result = CliRunner().invoke(
        certify_command, [str(folder), "--instances", "1", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert "2 of 2 tasks certified" in result.output
    summary = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert [row["task"] for row in summary["tasks"]] == ["move_tube", "tips"]
    assert all(r["mutants"] > 0 and r["mutants_killed"] == r["mutants"] for r in summary["tasks"])
    assert "2 of 2 tasks certified" in (tmp_path / "out" / "suite.html").read_text()


def test_a_suite_without_an_output_folder_is_a_usage_error(tmp_path: Path) -> None:
    """A suite writes several files, so --out DIR is required (exit 2 with the reason)."""
    result = CliRunner().invoke(certify_command, [str(TASKS), "--instances", "1"])
    assert result.exit_code == 2
    assert "--out DIR" in result.output


@pytest.mark.parametrize("name", ["missing.lab"])
def test_a_missing_file_is_a_usage_error(name: str, tmp_path: Path) -> None:
    """A path that does not exist is refused before anything runs."""
    result = CliRunner().invoke(certify_command, [str(tmp_path / name)])
    assert result.exit_code == 2


def test_a_lost_mutant_unit_counts_as_a_surviving_mutant_and_blocks_certification() -> None:
    """A step's mutants whose unit died on every attempt are listed as lost, not killed: the
    sensitivity section counts them as surviving and the task does not certify."""
    from lablang.sim import load_tasks
    from lablang.sim.mutants import derive_mutants, sensitivity_of

    tasks, _ = load_tasks(SUITE[0])
    task = tasks["move_tube"]
    mutants = derive_mutants(task)
    lost = UnitFailure("move_tube/mutants:move", 1, 3, "its worker died on every attempt")
    section = sensitivity_of(task, mutants, [lost] * len(mutants), 1)
    assert (section["run"], section["killed"], section["surviving"]) == (2, 0, 2)
    assert section["messages"] == [
        "mutant `removed:move` was lost",
        "mutant `destination:move` was lost",
    ]
    from lablang.sim.certify import run_instance

    seeds = instance_seeds(0, 1)
    outcomes = [run_instance(task, seeds[0])]
    assert certificate_of(task, 0, seeds, outcomes)["certified"] is True  # mutants not run
    assert certificate_of(task, 0, seeds, outcomes, sensitivity=section)["certified"] is False


def test_a_sample_of_examples_suite_is_byte_identical_on_one_and_two_jobs_and_ray(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """Two bindings of examples/suite (a coordination task's held-out 2 mL tube and a
    pipetting family's training tube), one instance each without mutants: certificates,
    suite.json and suite.html are the same bytes on one process, two and Ray."""
    suite = ROOT / "examples" / "suite"
    picked = {"load_after_colleague-wide", "dose_tube-first"}
    refs = task_refs([suite / "colleague_spin.lab", suite / "pipette_into_tube.lab"])
    entries = [(t, r) for t, r in refs if t.name in picked]
    assert {t.name for t, _r in entries} == picked

    def run(executor: Executor, out: Path) -> dict[str, bytes]:
        certificates, summary = certify_suite(entries, 1, 0, executor, mutants="none")
        write_suite(out, certificates, summary)
        return {p.name: p.read_bytes() for p in sorted(out.iterdir())}

    one = run(Executor("local", 1), tmp_path / "one")
    rows = json.loads(one["suite.json"])["tasks"]
    assert all(r["certified"] for r in rows)
    assert {(r["task"], r["heldout"], r["coordination"]) for r in rows} == {
        ("load_after_colleague-wide", True, True),
        ("dose_tube-first", False, False),
    }
    assert one == run(Executor("local", 2), tmp_path / "two")
    assert one == run(Executor("ray", 2), tmp_path / "ray")
