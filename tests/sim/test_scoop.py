"""The powder scoop: its asset, `scoop` and `empty_scoop` on hand-placed scenes."""

from __future__ import annotations

import pytest

from lablang.sim.model import Call, Num, Ref
from lablang.sim.predicates import Evaluator
from lablang.sim.skills import run_skill, skill_pick, skill_read_scale, skill_tare
from lablang.sim.skills.scooping import skill_empty_scoop, skill_scoop

BENCH = """
scene s {
  jar: beaker(capacity: 50 mL, contents: 20 g of salt) on table at (0.15 m, -0.15 m)
  spoon: scoop(capacity: 2 mL) on table at (0.15 m, 0.05 m)
  scale: scale() on table at (0.45 m, 0.15 m)
  cup: beaker(capacity: 25 mL) on scale
  vial: tube_1_5ml(capped: 0, hollow: 1) on table at (0.30 m, -0.15 m)
  water: beaker(capacity: 50 mL, contents: 20 mL of water) on table at (0.30 m, 0.05 m)
}
task t in s { step a { do { pick(spoon) } success: grasped(spoon) } }
"""


def _run(rt, controller, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    return run_skill(rt, controller, timeout)


# the success spec's atoms: 1 g of salt in the cup (within 0.05 g), nothing spilled
GRAM_IN_CUP = Call(
    "contains", (Ref("cup"), Ref("salt"), Num(0.001, "mass")), (("within", Num(5e-5, "mass")),)
)
NOT_SPILLED = Call("not_spilled")


def test_the_scoop_compiles_and_stands_upright_on_its_bowl(make_runtime) -> None:
    """A scoop on the table settles upright and at rest, weighing its 20 g."""
    rt = make_runtime(BENCH)
    for _ in range(round(1.0 / rt.dt)):
        rt.tick()
    assert rt.infos["spoon"].asset == "scoop"
    assert rt.object_mass("spoon") == pytest.approx(0.02)
    assert float(rt.data.xmat[rt.body_ids["spoon"]][8]) > 0.999  # its axis vertical


def test_a_dose_scooped_into_the_cup_on_the_scale_raises_the_reading_by_it(make_runtime) -> None:
    """Before: the tared cup holds no salt; after `scoop` and `empty_scoop` it holds 1 g,
    the jar 1 g less, and the scale reads 1.0 g more."""
    rt = make_runtime(BENCH)
    assert _run(rt, skill_tare(rt, "scale")).ok
    assert not Evaluator(rt).holds(GRAM_IN_CUP)
    assert _run(rt, skill_pick(rt, "spoon")).ok
    taken = _run(rt, skill_scoop(rt, "spoon", "jar", 0.001))
    assert taken.ok, taken.reason
    assert rt.ledger.amounts["spoon"]["salt"] == pytest.approx(0.001)
    emptied = _run(rt, skill_empty_scoop(rt, "spoon", "cup"))
    assert emptied.ok, emptied.reason
    assert rt.ledger.amounts["cup"]["salt"] == pytest.approx(0.001)
    assert rt.ledger.amounts["jar"]["salt"] == pytest.approx(0.019)
    assert "spoon" not in rt.ledger.amounts or not rt.ledger.amounts["spoon"]
    assert Evaluator(rt).holds(GRAM_IN_CUP) and Evaluator(rt).holds(NOT_SPILLED)
    reading = _run(rt, skill_read_scale(rt, "scale"))
    assert dict(reading.detail)["reading_g"] == pytest.approx(1.0, abs=0.05)


def test_a_dose_tipped_over_a_narrow_mouth_is_spilled_not_counted(make_runtime) -> None:
    """Emptying the 17 mm bowl over a 4.5 mm tube mouth spills the whole gram: the tube
    holds no salt, the spill is recorded and `empty_scoop` fails saying so."""
    rt = make_runtime(BENCH)
    assert _run(rt, skill_pick(rt, "spoon")).ok
    assert _run(rt, skill_scoop(rt, "spoon", "jar", 0.001)).ok
    result = _run(rt, skill_empty_scoop(rt, "spoon", "vial"))
    assert result.status == "failed" and "spilled 1.00 g outside `vial`" in result.reason
    assert not rt.ledger.amounts.get("vial")
    assert sum(rt.ledger.spilled.values()) == pytest.approx(0.001)
    assert not Evaluator(rt).holds(NOT_SPILLED)


def test_scoop_refuses_a_liquid_a_narrow_mouth_a_full_bowl_and_an_empty_hand(make_runtime) -> None:
    """`scoop` fails before it moves for a source of liquid, a mouth the bowl does not fit,
    a dose larger than the bowl holds (2 mL: 1.2 g), and a scoop the gripper does not hold."""
    rt = make_runtime(BENCH)
    assert "not holding the scoop" in _run(rt, skill_scoop(rt, "spoon", "jar", 0.001)).reason
    assert _run(rt, skill_pick(rt, "spoon")).ok
    assert "no powder" in _run(rt, skill_scoop(rt, "spoon", "water", 0.001)).reason
    assert "holds at most 1.20 g" in _run(rt, skill_scoop(rt, "spoon", "jar", 0.002)).reason
    rt.ledger.kinds["salt"] = "powder"
    rt.add_contents("vial", "salt", 0.001)
    assert "does not fit the mouth" in _run(rt, skill_scoop(rt, "spoon", "vial", 0.0005)).reason
    assert "holds nothing" in _run(rt, skill_empty_scoop(rt, "spoon", "cup")).reason
