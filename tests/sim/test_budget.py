"""Wall time is bounded deterministically: a physics work budget per episode and per
certification (counted work units, never a clock), and the result names the bound hit."""

from __future__ import annotations

import resource

from lablang.sim import certify_task
from lablang.sim.catalog import MAX_CERTIFY_WORK, MAX_EPISODE_TIME, MAX_EPISODE_WORK, WORK_BASE
from lablang.sim.episode import run_episode


def _bench(racks: int, tubes: int) -> str:
    lines = []
    for r in range(racks):
        x, y = -0.15 + 0.18 * (r % 4), -0.3 + 0.2 * (r // 4)
        lines.append(f"  r{r}: tube_rack(slots: 24) on table at ({x:.2f} m, {y:.2f} m)")
        lines += [f"  t{r}_{k}: tube_1_5ml() in r{r}.slot[{k}]" for k in range(tubes)]
    return "scene s {\n" + "\n".join(lines) + "\n}\n"


# 4 racks of 13 tubes: 56 entities, the size that ran past 5 minutes per episode
LONG = _bench(4, 13) + "task t in s { step a { do { wait(600 s); wait(600 s); wait(600 s) } } }"


def test_a_large_long_episode_stops_at_the_work_budget_and_names_it(task_from, monkeypatch) -> None:
    """A 56-entity bench waiting 1,800 s stops once its work budget is spent (a budget
    scaled down 200x here, so that the test runs in seconds), the step's reason and the
    episode's `limit` name E0713, and the work spent is just past the budget."""
    import lablang.sim.episode as episode

    budget = MAX_EPISODE_WORK // 200
    monkeypatch.setattr(episode, "MAX_EPISODE_WORK", budget)
    task = task_from(LONG)
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    result = run_episode(task, 0)
    used = resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu
    assert result.limit is not None and result.limit.startswith("E0713: the episode's physics")
    assert f"{budget:,} work units" in result.limit
    assert result.steps[0].status == "failed" and result.steps[0].reason == result.limit
    assert not result.succeeded and result.fault is None
    assert budget < result.work <= budget + 10 * (WORK_BASE + 400 + 200)  # one tick past it
    assert result.sim_time < MAX_EPISODE_TIME / 10
    assert used < 60  # CPU seconds of this process, not wall time: a bound, not a timing
    again = run_episode(task, 0)
    assert (again.trace_digest, again.work, again.limit) == (
        result.trace_digest,
        result.work,
        result.limit,
    )


def test_the_real_budget_bounds_the_1800_s_cap_for_a_56_entity_bench(task_from) -> None:
    """At the default budget the 56-entity bench could not reach the 1,800 s cap: its work
    per simulated second, measured over one simulated second, would exceed the budget
    well before (so the episode's wall time is bounded by the budget, not by the cap)."""
    import numpy as np

    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime

    task = task_from(LONG)
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    rt.reset({})
    start = rt.work
    while rt.time < 1.3:
        rt.tick()
    per_second = (rt.work - start) / 1.0
    assert per_second * MAX_EPISODE_TIME > 3 * MAX_EPISODE_WORK
    assert MAX_CERTIFY_WORK == 10 * MAX_EPISODE_WORK


SMALL = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[0]
}
task t in s { step a { do { wait(2 s) } success: true } }
"""


def test_certification_stops_at_its_budget_the_same_way_for_any_jobs(
    task_from, monkeypatch
) -> None:
    """With a certification budget that two instances exceed, certification stops after the
    second of five, is not certified, names E0713, and is identical with 1 and 2 jobs."""
    import lablang.sim.certify as certify

    task = task_from(SMALL)
    one = run_episode(task, 0).work
    monkeypatch.setattr(certify, "MAX_CERTIFY_WORK", int(1.5 * one))
    serial = certify_task(task, instances=5, seed=0)
    assert serial["certified"] is False
    assert serial["limit"].startswith("E0713: the certification's physics budget")
    assert "after 2 of 5 instances" in serial["limit"]
    assert len(serial["trace_digests"]) == 2 and serial["success_rate"] == 0.4
    parallel = certify_task(task, instances=5, seed=0, jobs=2)
    assert parallel == serial


def test_the_simulated_time_cap_is_named_when_it_is_the_bound_hit(task_from, monkeypatch) -> None:
    """When the 1,800 s cap (scaled down to 3 s here) ends an episode, its `limit` says so."""
    import lablang.sim.episode as episode

    monkeypatch.setattr(episode, "MAX_EPISODE_TIME", 3.0)
    result = run_episode(task_from(SMALL.replace("wait(2 s)", "wait(5 s)")), 0)
    assert result.limit == "the episode's budget of 3 s of simulated time is spent"
    assert not result.succeeded
