"""Pouring into a standing container leaves it standing, and a named object that tips over
fails its step (issue 26, item 4: pouring from one bottle into another knocked the
receiving bottle over, and on one seed the pour passed with it on its side). That
`examples/tasks/pour_bottle_to_bottle.lab` certifies is tested with every example
(`test_episodes.py` on the gantry, `test_panda.py` on the Panda)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.sim import catalog

DATA = Path(__file__).parent / "data"

# every container of the catalog that a pour can fill, as it stands on the bench
RECEIVERS = {
    "beaker": "dest: beaker(capacity: 100 mL) on table at (0.30 m, 0.18 m)",
    "bottle": "dest: bottle(capacity: 200 mL) on table at (0.30 m, 0.18 m)",
    "flask": "dest: flask(capacity: 100 mL) on table at (0.30 m, 0.18 m)",
    "tube_1_5ml": "rack: tube_rack(slots: 6) on table at (0.30 m, 0.20 m)\n"
    "  dest: tube_1_5ml(capped: 0) in rack.slot[2]",
    "tube_2ml": "rack: tube_rack(slots: 6) on table at (0.30 m, 0.20 m)\n"
    "  dest: tube_2ml(capped: 0) in rack.slot[2]",
}
# open containers that cannot receive a pour: a vial is capped by build (E0712) and a
# pipette takes liquid only by `aspirate`
NOT_RECEIVERS = {"vial", "pipette"}
AMOUNT = {
    "beaker": "20 mL", "bottle": "20 mL", "flask": "20 mL", "tube_1_5ml": "0.5 mL",
    "tube_2ml": "0.5 mL",
}  # fmt: skip
SOURCES = {
    # the tall source: carried, it hangs 9 cm below the gripper
    "bottle": "src: bottle(capacity: 200 mL, contents: 100 mL of buffer) on table at "
    "(0.30 m, -0.08 m)",
    "beaker": "src: beaker(capacity: 50 mL, contents: 30 mL of buffer) on table at "
    "(0.30 m, -0.08 m)",
}


def _pour_task(source: str, receiver: str):  # type: ignore[no-untyped-def]
    from lablang.sim.front import tasks_of

    opens = "".join(
        f"  step open_{name} {{ do {{ twist_cap({name}, 2) }} success: open({name}) }}\n"
        for name, kind in (("src", source), ("dest", receiver))
        if kind == "bottle"
    )
    amount = AMOUNT[receiver]
    text = f"""
scene s {{
  {SOURCES[source]}
  {RECEIVERS[receiver]}
  randomize src within {{x: ±2 cm, y: ±2 cm}}
}}
task t in s {{
  instruction: "Pour {amount} of buffer from src into dest without spilling, keeping dest upright (open any bottle first)."
{opens}  step pour {{
    do {{ pick(src); pour(src, dest, {amount}); place(src, table) }}
    success: contains(dest, buffer, {amount}, within: 1 mL) and not_spilled() and upright(dest)
  }}
}}
"""
    result = check_text(text)
    assert not result.report.has_errors, [d.message for d in result.report.errors]
    return tasks_of(result.program, result.report)["t"]


def test_the_receivers_cover_the_catalogs_open_containers() -> None:
    """Every open container of the catalog is tested as a receiver or excluded with a
    reason, so an added container is tested here."""
    open_kinds = {a for a, kind in catalog.ASSET_KINDS.items() if kind.open_container}
    assert open_kinds == set(RECEIVERS) | NOT_RECEIVERS


@pytest.mark.parametrize("robot", ["gantry", "panda"])
@pytest.mark.parametrize("receiver", sorted(RECEIVERS))
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_pouring_into_a_standing_container_leaves_it_standing(
    source: str, receiver: str, robot: str
) -> None:
    """On both robots, pouring from a bottle or a beaker into each receiving container of
    the catalog moves the liquid without spilling, keeps the receiver upright and disturbs
    nothing (the carried source crosses the bench above the tallest object standing on it,
    not at a fixed height that a 12.5 cm bottle hanging from the gripper cleared by 1 mm)."""
    from lablang.sim import simulate_task
    from lablang.sim.robots import with_robot

    result = simulate_task(with_robot(_pour_task(source, receiver), robot), seed=3)
    assert result.succeeded, [(s.name, s.reason, s.failing) for s in result.steps]


def test_a_named_object_that_tips_over_fails_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the old fixed transit height (which knocked the receiver over on seed 2), the
    pour whose spec does not check `dest` fails with "`dest` tipped over during `pour`"
    (it passed: the side-effect check skipped objects the step names)."""
    from lablang.sim import load_tasks, simulate_task
    from lablang.sim.skills import base

    monkeypatch.setattr(base, "safe_height", lambda rt: base.SAFE_Z)
    tasks, _ = load_tasks(DATA / "pour_unchecked.lab")
    result = simulate_task(tasks["pour_between"], seed=2)
    pour = result.steps[2]
    assert pour.status == "failed"
    assert pour.reason == "`dest` tipped over during `pour`"
    assert not result.succeeded


def test_a_named_object_the_step_may_move_may_tip() -> None:
    """`may_move: [dest]` allows the named receiver to fall: it is no longer watched for
    tipping over, while the source still is."""
    import numpy as np
    from attrs import evolve

    from lablang.sim import effects, load_tasks
    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime

    tasks, _ = load_tasks(DATA / "pour_unchecked.lab")
    task = tasks["pour_between"]
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(0)))
    pour = task.steps[2]
    assert effects.named(rt, pour) == ["stock", "dest"]
    assert effects.named(rt, evolve(pour, may_move=("dest",))) == ["stock"]
