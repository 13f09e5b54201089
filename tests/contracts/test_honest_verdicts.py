"""Verdicts the depth leaves open are `bounded` (`open`), never `violated`, and say so;
their hints name what is wrong: the depth or a requirement (issue 33, item 5)."""

from __future__ import annotations

import json

from lablang.contracts.checks import verify
from lablang.contracts.results import BOUNDED, HOLDS, PROVED, VIOLATED, exit_status
from tests.contracts.loading import DATA, compile_text, load
from tests.contracts.test_cli import run

SHORT = DATA / "short_depth.lab"


def _one(text: str):  # type: ignore[no-untyped-def]
    (contract,), report = compile_text(text)
    assert not report.has_errors, [d.message for d in report]
    return contract


def _by(results, check: str, item: str = ""):  # type: ignore[no-untyped-def]
    return next(r for r in results if r.check == check and item in r.item)


def test_an_operation_first_enabled_beyond_the_depth_is_open_not_failed() -> None:
    """`finish` (first legal after 3 steps) is `bounded` at depth 2 and `holds` at 4."""
    shallow = _by(verify(load(SHORT), 2), "vacuity", "finish")
    assert shallow.status == BOUNDED and shallow.bounded_by == 2
    assert shallow.message.startswith("not enabled within depth 2; unknown beyond it")
    assert _by(verify(load(SHORT), 4), "vacuity", "finish").status == HOLDS


def test_a_goal_lost_only_within_the_depth_is_open_not_failed() -> None:
    """After `drop` the goal needs 3 steps: at depth 2 liveness is `bounded`, at 4 it holds."""
    live = _by(verify(load(SHORT), 2), "liveness")
    assert live.status == BOUNDED and live.depth == 1, live
    assert "not reached within 2 steps; unknown beyond" in live.message
    assert "`drop` (step 1) led there" in live.details[0]
    assert _by(verify(load(SHORT), 4), "liveness").status == HOLDS


def test_a_goal_lost_for_good_is_violated_even_with_operations_left() -> None:
    """A state whose reachable states are all within the depth and none meets the goal is a
    dead end proved for every depth (`violated`), though `wipe` stays legal there."""
    c = _one(
        "contract c {\n  var x: int[0..3]\n  var broken: bool\n"
        "  op up requires x < 3 and not broken effect x = x + 1\n"
        "  op spill requires not broken effect broken = true\n"
        "  op wipe requires broken effect x = 0\n  goal x == 3\n}\n"
    )
    live = _by(verify(c, 5), "liveness")
    assert live.status == VIOLATED and live.depth == 1
    assert "can no longer be reached" in live.message


def test_an_operation_no_proved_invariant_allows_is_violated() -> None:
    """`jump` needs x > 5, which the proved invariant x <= 5 excludes: `violated` (for every
    depth), while one merely not seen within the depth would be `bounded`."""
    c = _one(
        "contract c {\n  var x: int[0..9]\n"
        "  op inc requires x < 5 effect x = x + 1\n"
        "  op jump requires x > 5 effect x = 0\n  invariant x <= 5\n}\n"
    )
    jump = _by(verify(c, 3), "vacuity", "jump")
    assert jump.status == VIOLATED
    assert "no state allowed by the proved invariants" in jump.message


def test_a_goal_beyond_the_depth_names_the_depth_not_operations() -> None:
    """A goal 6 steps away is open at depth 4 with the hint to run at depth 6, and no
    operation is blamed for it."""
    c = _one(
        "contract c {\n  var x: int[0..9]\n  var sealed: bool\n"
        "  op pipette requires x < 9 effect x = x + 1\n"
        "  op seal requires x >= 2 effect sealed = true\n"
        "  op run requires sealed and x < 9 effect x = x + 1\n  goal x == 6 and sealed\n}\n"
    )
    goal = _by(verify(c, 4), "goal")
    assert goal.status == BOUNDED
    assert goal.details == ("reached in 7 steps: run with --depth 7",)


def test_a_goal_blocked_by_a_requirement_names_that_operation() -> None:
    """A goal only `open`'s requirement blocks is hinted by that operation alone."""
    c = _one(
        "contract c {\n  var key: bool\n  var done: bool\n  var tidy: bool\n"
        "  op tidy_up effect tidy = true\n"
        "  op open requires key effect done = true\n  goal done\n}\n"
    )
    goal = _by(verify(c, 3), "goal")
    assert goal.status == BOUNDED
    assert "dropping the requirements of `open` makes the goal reachable" in goal.details[0]
    assert "not reached within 6 steps either" in goal.details[0]


def test_a_false_invariant_beyond_the_depth_is_shown_not_blamed_on_induction() -> None:
    """`n < 3` holds to depth 2 and is not inductive; the deeper search the failed
    induction runs finds its violation after 3 steps, with the trace."""
    c = _one(
        "contract c {\n  var n: int[0..5]\n  op inc requires n < 5 effect n = n + 1\n"
        "  invariant n < 3\n}\n"
    )
    inv = _by(verify(c, 2), "invariant")
    assert inv.status == VIOLATED and inv.depth == 3 and inv.traces
    assert "beyond --depth 2" in inv.message


def test_a_true_invariant_that_is_not_inductive_suggests_a_supporting_invariant() -> None:
    """`x != 8` is true (x stays below 6) but an unreachable run 6, 7, 8 breaks every
    k-induction: the note says the breaking run starts outside the states reached."""
    c = _one(
        "contract c {\n  var x: int[0..9]\n"
        "  op inc requires x < 5 effect x = x + 1\n"
        "  op spin requires x == 6 effect x = 6\n"
        "  op a requires x == 6 effect x = 7\n"
        "  op b requires x == 7 effect x = 8\n  invariant x != 8\n}\n"
    )
    inv = _by(verify(c, 2), "invariant")
    assert inv.status == HOLDS and inv.bounded_by == 5, inv
    assert "starts from a state not reached within 2 steps" in inv.message
    assert "supporting invariant" in inv.message


def test_a_plan_through_a_state_that_breaks_an_invariant_says_so() -> None:
    """The shortest plan to x == 2 passes x == 1, which `x != 1` forbids: a remark."""
    c = _one(
        "contract c {\n  var x: int[0..3]\n  op inc requires x < 3 effect x = x + 1\n"
        "  goal x == 2\n  invariant x != 1\n}\n"
    )
    goal = _by(verify(c, 3), "goal")
    assert goal.status == HOLDS
    assert goal.details == (
        "remark: the plan passes through a state that violates the invariant `x != 1` "
        "(after step 1)",
    )


def test_exit_status_separates_failed_open_and_passed() -> None:
    """`exit_status` is 1 with a violation, 3 with only open verdicts, 0 otherwise."""
    shallow, deep = verify(load(SHORT), 2), verify(load(SHORT), 4)
    assert exit_status(shallow) == 3 and exit_status(deep) == 0
    assert all(r.status in (HOLDS, PROVED) for r in deep)
    assert (
        exit_status([*deep, _by(verify(load(DATA / "centrifuge_no_remove.lab"), 4), "deadlock")])
        == 1
    )


def test_verify_prints_open_results_without_fail_and_exits_three() -> None:
    """`lablang verify --depth 2` marks the bounded results `open`, counts them apart
    from failures, exits 3; `--json` says `bounded_by` per result and `exit`."""
    text = run("verify", str(SHORT), "--depth", "2")
    assert text.exit_code == 3, text.output
    assert "FAIL" not in text.output
    assert "  open vacuity: operation `finish`: bounded: not enabled within depth 2" in text.output
    assert "; 2 open (not decided within depth 2)" in text.output
    data = json.loads(run("verify", str(SHORT), "--depth", "2", "--json").output)
    assert data["exit"] == 3 and data["passed"] is False
    finish = next(r for r in data["contracts"][0]["results"] if "finish" in r["item"])
    assert (finish["status"], finish["bounded_by"]) == ("bounded", 2)
    assert run("verify", str(SHORT), "--depth", "4").exit_code == 0
