"""Each execution obligation is completed only by its own attempt's events (Labference)."""

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


def _execution(step: str, attempt: str, op: str, obj: str, ok: bool) -> Event:
    return Event("execution", 1.0, step, attempt, op, obj, confirmed=ok, status="succeeded")


def test_a_grasp_in_an_earlier_step_does_not_complete_a_later_steps_grasp() -> None:
    """Two picks of one tube in two steps are two obligations; only the first confirmed."""
    events = [
        _execution("lift", "lift.0", "pick(tube_a)", "tube_a", True),
        _execution("again", "again.0", "pick(tube_a)", "tube_a", False),
    ]
    result = score(["lift", "again"], events)["execution"]
    assert (result["obligations"], result["executed"]) == (2, 1)
    assert result["unexecuted"] == ["again:pick:tube_a"]


def test_an_attempt_counts_once_however_many_execution_records_it_has() -> None:
    """A second execution record of one attempt neither confirms it nor counts twice."""
    events = [
        _execution("lift", "lift.0", "pick(tube_a)", "tube_a", False),
        _execution("lift", "lift.0", "pick(tube_a)", "tube_a", True),
    ]
    result = score(["lift"], events)["execution"]
    assert (result["obligations"], result["executed"]) == (1, 0)


def test_a_retrieval_redirected_to_the_neighbouring_tube_is_not_executed(task_from) -> None:
    """The retrieval's grasp slips to tube_b (a target-pose intervention): the earlier grasp
    of tube_a no longer hides it, so 2 of 3 obligations are executed, not 3 of 3."""
    task = task_from(RETRIEVE)
    clean = run_episode(task, 0)
    assert clean.succeeded and clean.score()["execution"]["executed"] == 3
    slipped = run_episode(task, 0, interventions=(TargetPose("again", 0, 0, Ref("tube_b")),))
    execution = slipped.score()["execution"]
    assert (execution["obligations"], execution["executed"]) == (3, 2)
    assert execution["unexecuted"] == ["again:pick:tube_a"]
    assert slipped.score()["choice"]["incorrect_attempts"] == []  # the choice was right


def test_the_score_line_tells_a_wrong_choice_from_a_failed_execution(task_from) -> None:
    """`simulate`'s score line (and the certificate's totals) keep choice and execution
    apart: a decision for the wrong slot is an incorrect choice, executed; a slip to the
    neighbouring tube is a correct choice, not executed (before, only `lablang branch`
    showed the difference)."""
    from lablang.cli.sim import score_line
    from lablang.sim import certify_task
    from lablang.sim.interventions import Decision

    task = task_from(RETRIEVE)
    wrong_choice = run_episode(
        task, 0, interventions=(Decision("back", 0, 1, Ref("rack", ("slot", 3))),)
    )
    line = score_line(wrong_choice.score())
    assert line.startswith("choice 1/2 correct (incorrect: back.0), execution 2/2 executed")
    slipped = run_episode(task, 0, interventions=(TargetPose("again", 0, 0, Ref("tube_b")),))
    line = score_line(slipped.score())
    assert line.startswith("choice 3/3 correct, execution 2/3 executed (not: again:pick:tube_a)")
    totals = certify_task(task, instances=1, seed=0)["labference"]
    assert totals == {"choices": 3, "correct": 3, "obligations": 3, "executed": 3}
