"""SciVLABench's step-wise metrics (`lablang.sim.stepwise`): task success, step-wise
progress, premature interactions and the post-trigger response, per task and per
operation family and evaluation protocol with bootstrap intervals over scenarios."""

from __future__ import annotations

from lablang.sim import load_tasks
from lablang.sim.model import Call, Ref, Scene, Step, Task
from lablang.sim.records import Event
from lablang.sim.stepwise import episode_metrics, suite_metrics, task_metrics

THREE = Task(
    "t",
    Scene("s", ()),
    (
        Step("a", (Call("pick", (Ref("x"),)),), None),
        Step("b", (Call("pour", (Ref("x"), Ref("y"))),), None, trigger="lid_off"),
        Step("c", (Call("place", (Ref("x"), Ref("table"))),), None),
    ),
)


def _score(passed: int, premature: int = 0) -> dict:
    return {"completion": {"steps_passed": passed}, "coordination": {"premature": premature}}


def _events(*completed: tuple[str, float], trigger: float | None = 2.0) -> list[Event]:
    out = [Event("completion", t, s, confirmed=True) for s, t in completed]
    if trigger is not None:
        out.append(Event("trigger", trigger, "b", detail="lid_off"))
    return out


def test_each_episode_metric_moves_with_what_the_scripted_episode_did() -> None:
    """All steps: success and progress 1; two of three: progress 2/3, no success; the
    waiting step done 3.5 s after its event: a response of 3.5 s; a touch before the
    event counts as premature; a step never done after its event is no response."""
    full = episode_metrics(THREE, _events(("a", 1.0), ("b", 5.5), ("c", 8.0)), _score(3))
    assert full["success"] and full["progress"] == 1.0
    assert full["responses"] == [
        {"event": "lid_off", "step": "b", "completed": True, "seconds": 3.5}
    ]
    part = episode_metrics(THREE, _events(("a", 1.0), ("b", 5.5)), _score(2, premature=1))
    assert not part["success"] and part["progress"] == round(2 / 3, 6)
    assert part["premature"] == 1
    stuck = episode_metrics(THREE, _events(("a", 1.0)), _score(1))
    assert stuck["responses"][0]["completed"] is False and stuck["responses"][0]["seconds"] is None
    # no trigger yet: nothing to respond to
    assert episode_metrics(THREE, _events(("a", 1.0), trigger=None), _score(1))["responses"] == []


def test_task_metrics_average_over_episodes_and_lost_episodes_count_as_failures() -> None:
    """Over a full and a partial episode plus one lost (3 episodes): success 1/3, progress
    (1 + 2/3)/3, premature rate 1/3, response rate 2/2 at a mean of 3.5 s; the family is
    the non-apparatus skill's (`pour`: liquid handling), the protocol `coordination` only
    when the scene has an event."""
    full = episode_metrics(THREE, _events(("a", 1.0), ("b", 5.5), ("c", 8.0)), _score(3))
    part = episode_metrics(THREE, _events(("a", 1.0), ("b", 5.5)), _score(2, premature=1))
    metrics = task_metrics(THREE, 3, [full, part])
    assert metrics["success_rate"] == round(1 / 3, 6)
    assert metrics["progress"] == round((1 + 2 / 3) / 3, 6)
    assert metrics["premature_rate"] == round(1 / 3, 6)
    assert metrics["post_trigger"] == {
        "triggered": 2, "completed": 2, "response_rate": 1.0, "mean_seconds": 3.5
    }  # fmt: skip
    assert metrics["family"] == "liquid handling" and metrics["protocols"] == ["randomized"]


def test_suite_metrics_group_by_family_and_protocol_with_seeded_scenario_intervals() -> None:
    """Two scenarios, one all success and one all failure: the mean is 0.5, the interval
    spans both, the same seed gives the same bytes; held-out bindings form their own
    protocol group."""
    tasks, _ = load_tasks("examples/families/weigh_family.lab")
    good = episode_metrics(tasks["weigh_one-heavy"], [], _score(1))
    bad = episode_metrics(THREE, [], _score(0))
    evaluations = {
        "f.weigh_one-heavy": {"stepwise": task_metrics(tasks["weigh_one-heavy"], 1, [good], "f")},
        "g.t": {"stepwise": task_metrics(THREE, 1, [bad], "g")},
    }
    one = suite_metrics(evaluations, seed=3, resamples=200)
    assert one == suite_metrics(evaluations, seed=3, resamples=200)
    assert set(one["protocol"]) == {"heldout", "randomized"}
    assert one["protocol"]["heldout"]["success"]["mean"] == 1.0
    assert set(one["family"]) == {"solid handling", "liquid handling"}
    both = suite_metrics(
        {k: {"stepwise": {**v["stepwise"], "family": "mixing"}} for k, v in evaluations.items()},
        seed=3,
        resamples=200,
    )["family"]["mixing"]
    assert both["scenarios"] == 2 and both["success"]["mean"] == 0.5
    low, high = both["success"]["ci"]
    assert low == 0.0 and high == 1.0


def test_a_real_episode_records_the_trigger_and_no_response_when_the_policy_waits() -> None:
    """The do-nothing policy on `colleague_lid` for 7 s: the colleague's event fires
    (2-6 s), the step that waits on it is never completed: one trigger, no response."""
    from lablang.sim.env import evaluate_episode
    from lablang.sim.policies import hold

    tasks, _ = load_tasks("examples/tasks/colleague_lid.lab")
    task = tasks["load_after_colleague"]
    outcome, _lines = evaluate_episode(task, hold, seed=1, max_seconds=7.0)
    assert outcome["stepwise"]["responses"] == [
        {"event": "lid_off", "step": "load", "completed": False, "seconds": None}
    ]
    assert not outcome["stepwise"]["success"] and outcome["stepwise"]["progress"] == 0.0
    metrics = task_metrics(task, 1, [outcome["stepwise"]])
    assert metrics["protocols"] == ["coordination"]
    assert metrics["post_trigger"]["response_rate"] == 0.0


def test_the_expert_program_responds_to_the_colleagues_event_within_the_episode() -> None:
    """The expert program on `colleague_lid` (seed 1) loads the tube after the lid comes
    off: success, progress 1, no premature touch, and a response a few seconds after the
    event (7.46 s: the wait, the pick and the insertion)."""
    from lablang.sim import simulate_task

    tasks, _ = load_tasks("examples/tasks/colleague_lid.lab")
    task = tasks["load_after_colleague"]
    result = simulate_task(task, seed=1)
    metrics = episode_metrics(task, result.events, result.score())
    assert metrics["success"] and metrics["progress"] == 1.0 and metrics["premature"] == 0
    (response,) = metrics["responses"]
    assert response["completed"] and 0.0 < response["seconds"] < 15.0
