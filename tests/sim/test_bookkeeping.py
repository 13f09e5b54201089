"""The bookkeeping journal: what skills change between ticks, once each, and nothing else."""

from __future__ import annotations

SCENE = """
scene s {
  b: bottle(capacity: 100 mL, contents: 50 mL of water) on table at (0.30 m, 0.00 m)
  tube: tube_1_5ml() on table at (0.20 m, -0.10 m)
  event take at 6 s { take_away(tube) }
}
task t in s { step a { do { pick(tube) } success: true } }
"""


def test_an_operation_is_journaled_once_not_with_the_operations_it_makes(make_runtime) -> None:
    """Taking a cap off journals one `cap_off` (not the geoms it hides); setting it back one
    `cap_on` with its turns; without a journal nothing is recorded."""
    rt = make_runtime(SCENE)
    rt.remove_cap("b")
    assert rt.journal is None
    rt.journal = []
    rt.replace_cap("b", 1.5)
    rt.remove_cap("b")
    assert rt.journal == [("cap_on", ("b", 1.5)), ("cap_off", ("b",))]


def test_a_colleagues_changes_inside_a_tick_are_not_journaled(make_runtime) -> None:
    """A pick journals its weld and hold; the colleague who takes the held tube away
    releases the weld inside a tick, which a replay's own tick repeats: not journaled."""
    from lablang.sim.skills import run_skill, skill_pick

    rt = make_runtime(SCENE)
    rt.journal = []
    assert run_skill(rt, skill_pick(rt, "tube"), 10).ok
    assert [op for op, _ in rt.journal] == ["weld", "held"]
    rt.journal = []
    while rt.time < 6.5:
        rt.tick()
    assert rt.held is None and not rt.weld_active("tube")  # the colleague took it
    assert rt.journal == []
