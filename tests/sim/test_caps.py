"""Screw caps that come off: `twist_cap` past the thread removes the cap, and an opened
bottle can be poured from."""

from __future__ import annotations

from pathlib import Path

from lablang.sim import simulate_task

EXAMPLE = Path("examples/tasks/pour_from_bottle.lab")


def _detail(step, k: int) -> dict:  # type: ignore[no-untyped-def]
    return dict(step.skills[k].detail)


def test_the_cap_comes_off_after_enough_turns_and_the_bottle_pours(task_from) -> None:
    """One turn leaves the cap on; the second takes it past 1.5 turns and off; 20 mL then
    pours into the beaker and nothing is spilled."""
    task = task_from(EXAMPLE.read_text())
    result = simulate_task(task, seed=2)
    assert result.succeeded, result.steps
    unscrew, pour = result.steps
    assert _detail(unscrew, 0)["cap"] == "on"
    assert _detail(unscrew, 1)["cap"] == "removed"
    assert pour.skills[1].status == "succeeded"


def test_pouring_from_a_bottle_whose_cap_is_still_on_fails(task_from) -> None:
    """With only one turn the cap stays on, so `pour` refuses: the bottle is capped."""
    text = (
        EXAMPLE.read_text()
        .replace(
            "do { twist_cap(ethanol, 1); twist_cap(ethanol, 1) }", "do { twist_cap(ethanol, 1) }"
        )
        .replace("success: open(ethanol) and upright(ethanol)", "success: upright(ethanol)")
    )
    result = simulate_task(task_from(text), seed=2)
    pour = result.steps[1]
    assert pour.status == "failed"
    assert pour.skills[1].status == "failed" and "capped" in pour.skills[1].reason


def test_a_removed_cap_cannot_be_twisted_again(task_from) -> None:
    """`twist_cap` on a bottle whose cap is off fails and says so."""
    text = EXAMPLE.read_text().replace(
        "do { twist_cap(ethanol, 1); twist_cap(ethanol, 1) }",
        "do { twist_cap(ethanol, 2); twist_cap(ethanol, 1) }",
    )
    result = simulate_task(task_from(text), seed=1)
    unscrew = result.steps[0]
    assert _detail(unscrew, 0)["cap"] == "removed"
    assert unscrew.skills[1].status == "failed"
    assert "already off" in unscrew.skills[1].reason


def test_removing_a_cap_hides_it_and_a_checkpoint_restores_it(make_runtime) -> None:
    """`remove_cap` hides the cap's geoms and opens the bottle; restoring an earlier checkpoint
    puts the cap back (collidable, capped, `closed`)."""
    from lablang.sim.model import Call, Ref
    from lablang.sim.predicates import Evaluator

    rt = make_runtime(EXAMPLE.read_text(), seed=0)
    cap = rt.model.body("ethanol_cap").id
    geom = rt.model.body_geomadr[cap]
    closed = Call("closed", (Ref("ethanol"),))
    before = rt.checkpoint()
    assert rt.capped("ethanol") and Evaluator(rt).holds(closed)
    rt.remove_cap("ethanol")
    assert not rt.capped("ethanol") and rt.model.geom_contype[geom] == 0
    assert Evaluator(rt).holds(Call("open", (Ref("ethanol"),)))
    assert not Evaluator(rt).holds(closed)
    rt.restore(before)
    assert rt.capped("ethanol") and rt.model.geom_contype[geom] == 1
    assert Evaluator(rt).holds(closed)


CLOSE = Path("examples/tasks/open_pour_close.lab")


def test_open_pour_close_screws_the_cap_back_on_and_closed_holds_again(task_from) -> None:
    """The bottle is opened (cap off), poured from, and closed: `close_cap` puts the cap
    back and turns it home by friction, so `closed(stock)` holds at the end (before, the
    task stopped at "the cap of `bottle` is already off")."""
    from lablang.sim import certify_task

    task = task_from(CLOSE.read_text())
    result = simulate_task(task, seed=1)
    assert result.succeeded, result.steps
    closing = dict(result.steps[2].skills[0].detail)
    assert closing["turns"] >= 1.45  # screwed home from 1.5 turns out
    certificate = certify_task(task, instances=2, seed=0, mutants="none")  # see test_sensitivity
    assert certificate["certified"], certificate["failures"]


def test_close_cap_turns_a_loose_cap_home_and_refuses_a_capless_object(make_runtime) -> None:
    """After one unscrewing turn (cap still on), `close_cap` turns it back to closed;
    `close_cap` of a weight fails: it has no screw cap."""
    from lablang.sim.skills import run_skill, skill_close_cap, skill_twist_cap
    from lablang.sim.state import CAP_CLOSED_TURNS, cap_turns

    rt = make_runtime(
        """
scene s {
  b: bottle(capacity: 100 mL, contents: 50 mL of water) on table at (0.30 m, 0.00 m)
  w: weight(mass: 20 g) on table at (0.15 m, 0.15 m)
}
task t in s { step a { do { twist_cap(b, 1) } success: true } }
"""
    )
    assert run_skill(rt, skill_twist_cap(rt, "b", 1), 40).ok
    assert 0.9 < cap_turns(rt, "b") < 1.5 and "b" not in rt.uncapped
    result = run_skill(rt, skill_close_cap(rt, "b"), 40)
    assert result.ok, result.reason
    assert cap_turns(rt, "b") <= CAP_CLOSED_TURNS
    assert "no screw cap" in run_skill(rt, skill_close_cap(rt, "w"), 5).reason
