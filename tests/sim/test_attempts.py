"""Each opportunity is scored once, from its own attempt's events (Labference)."""

from __future__ import annotations

from lablang.sim.episode import run_episode
from lablang.sim.interventions import TargetPose
from lablang.sim.model import Ref
from lablang.sim.records import Event, score

RETRIEVE = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube_a: tube_1_5ml() in rack.slot[1]
  tube_b: tube_1_5ml() in rack.slot[2]
}
task retrieve in s {
  instruction: "Lift tube_a, put it back in slot 1 of the rack, then take tube_a out again."
  step lift { do { pick(tube_a) } success: grasped(tube_a) }
  step back {
    do { insert_into_slot(tube_a, rack.slot[1]) }
    success: in(tube_a, rack.slot[1]) and stable(tube_a, 0.5 s)
  }
  step again { do { pick(tube_a) } success: grasped(tube_a) }
}
"""


def _transfer(step: str, attempt: str, target: str, t: float) -> Event:
    return Event(
        "transfer",
        t,
        step,
        attempt,
        f"transfer(tube_a, {target})",
        "tube_a",
        target,
        legal=("transfer(tube_a, rack.slot[1])",),
    )


def _placed(step: str, attempt: str, ok: bool, t: float) -> Event:
    return Event("placed", t, step, attempt, "", "tube_a", confirmed=ok, status="succeeded")


def test_an_outcome_counts_once_however_many_records_the_attempt_has() -> None:
    """A second outcome record of one attempt neither confirms it nor counts twice."""
    events = [
        _transfer("back", "t1", "rack.slot[1]", 1.0),
        _placed("back", "t1", False, 1.5),
        _placed("back", "t1", True, 1.6),
    ]
    result = score(["lift", "back", "again"], events, ["back:transfer:tube_a"])["execution"]
    assert (result["opportunities"], result["executed"]) == (1, 0)


def test_a_step_does_not_count_before_its_own_obligation_is_done() -> None:
    """A step whose spec held before its transfer was achieved by the policy earns no
    credit: objects placed at initialization set the context, they are not progress."""
    events = [
        Event("completion", 1.0, "lift", confirmed=True),
        Event("completion", 2.0, "back", confirmed=True),
        _transfer("back", "t1", "rack.slot[1]", 3.0),
        _placed("back", "t1", True, 3.5),
    ]
    completion = score(["lift", "back"], events, ["back:transfer:tube_a"])["completion"]
    assert completion["steps_passed"] == 1
    assert completion["not_done_by_policy"] == ["back:transfer:tube_a"]


def test_a_transfer_redirected_to_the_neighbouring_slot_is_a_right_choice_not_executed(
    task_from,
) -> None:
    """The tube is released over the neighbouring slot (a target-pose intervention): the
    choice (the slot the call names) is right, its execution failed."""
    task = task_from(RETRIEVE)
    clean = run_episode(task, 0)
    assert clean.succeeded and clean.score()["execution"]["executed"] == 1
    slipped = run_episode(
        task, 0, interventions=(TargetPose("back", 0, 1, Ref("rack", ("slot", 0))),)
    )
    score_ = slipped.score()
    assert (score_["execution"]["opportunities"], score_["execution"]["executed"]) == (1, 0)
    assert score_["execution"]["unexecuted"] == ["t1"]
    assert score_["choice"]["incorrect"] == []  # the choice was right
    assert score_["choice"]["frozen"][0]["outcome"] == "rack.slot[0]"


def test_the_score_line_tells_a_wrong_choice_from_a_failed_execution(task_from) -> None:
    """`simulate`'s score line (and the certificate's totals) keep choice and execution
    apart: a decision for the wrong slot is an incorrect choice, executed; a release over
    the neighbouring slot is a correct choice, not executed."""
    from lablang.cli.sim import score_line
    from lablang.sim import certify_task
    from lablang.sim.interventions import Decision

    task = task_from(RETRIEVE)
    wrong_choice = run_episode(
        task, 0, interventions=(Decision("back", 0, 1, Ref("rack", ("slot", 3))),)
    )
    line = score_line(wrong_choice.score())
    assert line.startswith("choice 0/1 correct (incorrect: t1), execution 1/1 executed")
    slipped = run_episode(
        task, 0, interventions=(TargetPose("back", 0, 1, Ref("rack", ("slot", 0))),)
    )
    line = score_line(slipped.score())
    assert line.startswith("choice 1/1 correct, execution 0/1 executed (not: t1)")
    totals = certify_task(task, instances=1, seed=0)["labference"]
    assert totals == {"opportunities": 1, "reached": 1, "correct": 1, "executed": 1}
