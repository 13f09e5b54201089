"""Labference's choice, execution and completion, scored from scripted weighing policies.

Each scripted policy logs every decision it makes (the weight it grasps, whether the task
requires it, whether it drops it on the way); the expected scores are computed from those
logs, and the issue's figures (10 episodes of the 30 g task) are pinned as well.
"""

from __future__ import annotations

import numpy as np
import pytest

from lablang.sim import load_tasks
from lablang.sim.certify import instance_seeds
from lablang.sim.env import evaluate_policy, make_env
from lablang.sim.labference import labference_score, obligations
from lablang.sim.policies import hold
from lablang.sim.records import Event
from tests.sim.labference_policies import ScriptedWeigher, evaluate_hold

EPISODES = 10
REQUIRED = ("w20", "w10")


@pytest.fixture(scope="module")
def weigh_30g():  # type: ignore[no-untyped-def]
    tasks, report = load_tasks("examples/tasks/feedback_weighing.lab")
    assert not report.has_errors
    return tasks["weigh_30g"]


def _run(task, make_policy):  # type: ignore[no-untyped-def]
    """Run one scripted policy per seeded episode: the scores and the decision logs."""
    scores, logs = [], []
    rng = np.random.default_rng(27)
    for seed in instance_seeds(0, EPISODES):
        policy = make_policy(int(rng.integers(len(REQUIRED))))
        scores.append(policy.run(make_env(task, max_seconds=35.0), seed))
        logs.append(policy.log)
    return scores, logs


def _totals(scores):  # type: ignore[no-untyped-def]
    return (
        sum(s["choice"]["correct"] for s in scores),
        sum(s["choice"]["opportunities"] for s in scores),
        sum(s["execution"]["executed"] for s in scores),
        sum(s["execution"]["opportunities"] for s in scores),
        sum(s["completion"]["status"] != "incomplete" for s in scores),
    )


def test_the_task_has_one_obligation_per_required_operation(weigh_30g) -> None:
    """The 30 g task requires the tare press and the two transfers, in program order."""
    assert [o.key for o in obligations(weigh_30g)] == [
        "zero:press:scale.tare",
        "add_20:transfer:w20",
        "add_10:transfer:w10",
    ]


def test_right_weights_placed_well_score_every_choice_execution_and_completion(
    weigh_30g,
) -> None:
    """Policy (a): the tare pressed, each required weight grasped, carried over the pan and
    released 2 cm above it scores 30/30 choices (10 presses and 20 transfers), 30/30
    executions and 10/10 clean completions."""
    scores, logs = _run(weigh_30g, lambda _k: ScriptedWeigher(REQUIRED))
    assert all(d.required and not d.dropped for log in logs for d in log)
    assert _totals(scores) == (30, 30, 30, 30, 10)
    assert all(s["choice"]["frozen"][0]["operation"] == "press(scale.tare)" for s in scores)
    assert all(s["completion"]["status"] == "clean" for s in scores)
    assert all(not s["choice"]["revisions"] for s in scores)


def test_a_wrong_weight_on_the_pan_is_a_wrong_choice_well_executed(weigh_30g) -> None:
    """Policy (b): at a seeded half of the decisions a weight the task does not require is
    put on the pan: that choice is incorrect but executed, and no episode completes."""
    scores, logs = _run(weigh_30g, lambda k: ScriptedWeigher(REQUIRED, wrong=frozenset({k})))
    expected_correct = sum(d.required for log in logs for d in log)
    assert expected_correct == 10  # the seeded half
    assert _totals(scores) == (EPISODES + expected_correct, 30, 30, 30, 0)  # + the tares
    for score, log in zip(scores, logs, strict=True):
        verdicts = [c["correct"] for c in score["choice"]["frozen"]]
        assert verdicts == [True] + [d.required for d in log]


def test_a_dropped_weight_is_a_right_choice_badly_executed(weigh_30g) -> None:
    """Policy (c): at a seeded half of the transfers the gripper opens 10 cm before the pan
    and the weight falls to the table: the choice is correct, its execution failed."""
    scores, logs = _run(weigh_30g, lambda k: ScriptedWeigher(REQUIRED, drop=frozenset({k})))
    expected_executed = sum(not d.dropped for log in logs for d in log)
    assert expected_executed == 10
    assert _totals(scores) == (30, 30, EPISODES + expected_executed, 30, 0)  # + the tares
    for score, log in zip(scores, logs, strict=True):
        frozen = score["choice"]["frozen"][1:]  # after the tare
        assert [c["executed"] for c in frozen] == [not d.dropped for d in log]
        assert [c["outcome"] for c in frozen] == ["table" if d.dropped else "scale" for d in log]


def test_doing_nothing_scores_zero_and_the_tare_step_does_not_pass(weigh_30g) -> None:
    """The do-nothing baseline gets no choice, no execution and no credit: the scale reads
    0 g from the start, but the tare step passes only once the policy pressed tare."""
    result = evaluate_policy(weigh_30g, hold, episodes=2, max_seconds=8.0)
    assert result["mean_credit"] == 0.0 and result["step_pass_rates"]["zero"] == 0.0
    for outcome in result["outcomes"]:
        score = outcome["score"]
        assert outcome["passed"] == []
        assert (score["choice"]["correct"], score["choice"]["opportunities"]) == (0, 3)
        assert (score["execution"]["executed"], score["execution"]["pressed"]) == (0, 0)
        assert score["completion"]["credit"] == 0.0


def _one_episode(task, policy: ScriptedWeigher) -> dict:  # type: ignore[no-untyped-def, type-arg]
    score: dict = policy.run(make_env(task, max_seconds=24.0), instance_seeds(0, 1)[0])  # type: ignore[type-arg]
    return score


def test_a_tare_pressed_again_on_a_loaded_pan_is_a_wrong_choice_well_executed(
    weigh_30g,
) -> None:
    """A policy that tares, puts w20 on and then presses tare again: the press is a choice
    of its own (the third opportunity), incorrect (the tare was done: it is not in the
    legal set) though executed, w10's transfer after it is a revision past the last of
    the three opportunities, and the task does not complete (the pan reads 10 g)."""
    score = _one_episode(weigh_30g, ScriptedWeigher(REQUIRED, retare=True))
    frozen = score["choice"]["frozen"]
    assert [(c["operation"], c["correct"], c["executed"]) for c in frozen] == [
        ("press(scale.tare)", True, True),
        ("transfer(w20, scale)", True, True),
        ("press(scale.tare)", False, True),
    ]
    assert "press(scale.tare)" not in frozen[2]["legal"]
    assert score["choice"]["opportunities"] == 3 and len(score["choice"]["revisions"]) == 1
    assert score["completion"]["status"] == "incomplete"


def test_a_press_that_never_registers_is_a_right_choice_badly_executed(weigh_30g) -> None:
    """A tare press that stops 2.5 mm short (the button pushed in, never registered) is
    the correct choice, not executed; the tare step never passes, so the credit is 0."""
    score = _one_episode(weigh_30g, ScriptedWeigher(REQUIRED, shallow=True))
    first = score["choice"]["frozen"][0]
    assert (first["operation"], first["correct"], first["executed"]) == (
        "press(scale.tare)",
        True,
        False,
    )
    assert score["execution"]["pressed"] == 0 and score["completion"]["credit"] == 0.0
    assert score["choice"]["opportunities"] == score["execution"]["opportunities"] == 3


def _transfer(t: float, attempt: str, target: str, legal: tuple[str, ...]) -> Event:
    return Event(
        "transfer",
        t,
        "s",
        attempt=attempt,
        operation=f"transfer(x, {target})",
        object="x",
        target=target,
        legal=legal,
    )


def test_a_choice_before_the_previous_outcome_is_a_revision_not_a_new_opportunity() -> None:
    """Only the first choice after an opportunity opens is scored; a second release before
    the first one's outcome reached the policy is recorded apart as a revision."""
    legal = ("transfer(x, a)",)
    events = [
        _transfer(1.0, "t1", "b", legal),
        _transfer(1.2, "t2", "a", legal),  # revised before t1's outcome (1.5 s)
        Event("placed", 1.5, "s", attempt="t1", object="x", target="b", confirmed=True),
        Event("placed", 1.7, "s", attempt="t2", object="x", target="a", confirmed=True),
    ]
    score = labference_score(["s"], ["s:transfer:x", "s:transfer:y"], events)
    assert score["choice"]["correct"] == 0 and score["choice"]["revisions"] == ["t2"]
    assert score["choice"]["opportunities"] == 2 and score["choice"]["reached"] == 1


def test_denominators_do_not_move_with_the_number_of_attempts() -> None:
    """However many transfers a policy makes, there is one opportunity per required
    operation (a transfer and a press here); extra ones after the last are revisions."""
    legal = ("transfer(x, a)",)
    events = []
    for k in range(6):
        events.append(_transfer(2.0 * k, f"t{k}", "a", legal))
        events.append(
            Event(
                "placed",
                2.0 * k + 0.5,
                "s",
                attempt=f"t{k}",
                object="x",
                target="a",
                confirmed=False,
            )
        )
    score = labference_score(["s"], ["s:transfer:x", "s:press:b.go"], events)
    assert score["choice"]["opportunities"] == score["execution"]["opportunities"] == 2
    assert score["execution"]["executed"] == 0 and len(score["choice"]["revisions"]) == 4


def _score_schema() -> dict:
    from lablang.sim.labference import evaluate_schema

    schema = evaluate_schema()
    return {"$ref": "#/$defs/score", "$defs": schema["$defs"]}


def test_evaluate_simulate_and_branch_print_one_score_valid_under_the_schema() -> None:
    """`evaluate`'s JSON validates under evaluate.schema.json, and the score `simulate
    --json` and `branch --json` print per episode or branch is its `$defs/score`."""
    import json

    import jsonschema
    from click.testing import CliRunner

    from lablang.cli import main
    from lablang.sim.labference import evaluate_schema

    runner = CliRunner()
    file = "examples/tasks/move_tube.lab"
    printed = evaluate_hold(file, 2)
    jsonschema.validate(printed, evaluate_schema())
    assert printed["labference"] == {
        "opportunities": 2, "reached": 0, "correct": 0, "executed": 0,
        "episodes": 2, "completed": 0, "clean": 0,
    }  # fmt: skip
    out = runner.invoke(main, ["simulate", file, "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    jsonschema.validate(json.loads(out.output)["score"], _score_schema())
    out = runner.invoke(
        main,
        ["branch", file, "--seed", "1", "--at", "move", "--intervention", "decision",
         "--call", "1", "--argument", "1", "--value", "rack2.slot[5]", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    for branch in ("base", "supported"):
        jsonschema.validate(json.loads(out.output)[branch], _score_schema())
