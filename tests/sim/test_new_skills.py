"""The skills added for the five families, each on a hand-placed scene, with a failing
precondition for each."""

from __future__ import annotations

import pytest

from lablang.sim.skills import (
    SKILLS,
    run_skill,
    skill_attach_tip,
    skill_dispense_powder,
    skill_eject_tip,
    skill_mix_by_pipetting,
    skill_pick,
    skill_place,
    skill_read_scale,
    skill_set_temperature,
    skill_stir,
    skill_swirl,
    skill_transfer,
    skill_weigh,
)
from lablang.sim.state import SlotTarget, cap_turns

TIPS = """
scene s {
  box: tip_box(slots: 6) on table at (0.15 m, -0.15 m)
  stand: pipette_stand(slots: 1) on table at (0.30 m, 0.10 m)
  p: pipette(volume: 200 uL, tip: 0) in stand.slot[0]
  src: beaker(capacity: 50 mL, contents: 20 mL of buffer) on table at (0.45 m, -0.10 m)
  cup: beaker(capacity: 10 mL, contents: 5 mL of water) on table at (0.45 m, 0.12 m)
  bin: waste_bin() on table at (0.15 m, 0.15 m)
}
task t in s { step a { do { pick(p) } success: grasped(p) } }
"""

BENCH = """
scene s {
  plate: stirrer() on table at (0.40 m, -0.10 m)
  flask: flask(capacity: 100 mL, contents: 40 mL of medium) on table at (0.20 m, 0.10 m)
  jar: beaker(capacity: 50 mL, contents: 5 g of salt) on table at (0.15 m, -0.15 m)
  scale: scale() on table at (0.45 m, 0.15 m)
  cup: beaker(capacity: 50 mL) on scale
  w20: weight(mass: 20 g) on table at (0.25 m, -0.05 m)
}
task t in s { step a { do { pick(flask) } success: grasped(flask) } }
"""


def _run(rt, controller, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    return run_skill(rt, controller, timeout)


def test_the_library_has_at_least_thirty_skills_across_the_five_families() -> None:
    """The skill table and the catalog agree, and every family has skills."""
    from lablang.sim.catalog import SKILL_SIGNATURES

    assert set(SKILLS) == set(SKILL_SIGNATURES) and len(SKILLS) >= 30
    families = {family for _, family in SKILL_SIGNATURES.values()}
    assert len(families) == 5


def test_tip_cycle_attach_transfer_mix_and_eject(make_runtime) -> None:
    """A bare pipette seats a boxed tip (the box position empties), transfers and mixes with
    it, and ejects it into the bin together with nothing left in it."""
    rt = make_runtime(TIPS)
    assert rt.tips["p"] is False
    assert _run(rt, skill_pick(rt, "p")).ok
    result = _run(rt, skill_attach_tip(rt, "p", SlotTarget("box", 2)))
    assert result.ok, result.reason
    assert rt.tips["p"] and rt.boxed_tips["box"] == [True, True, False, True, True, True]
    assert _run(rt, skill_transfer(rt, "p", "src", "cup", 100e-9)).ok
    assert rt.ledger.amounts["cup"]["buffer"] == pytest.approx(100e-9)
    mixed = _run(rt, skill_mix_by_pipetting(rt, "p", "cup", 2))
    assert mixed.ok and "cup" in rt.ledger.mixed
    assert _run(rt, skill_eject_tip(rt, "p", "bin")).ok
    assert rt.tips["p"] is False and rt.ledger.total("p") == 0.0


def test_tip_preconditions_fail_with_reasons(make_runtime) -> None:
    """Without a tip liquid handling fails; a taken position, a second tip and ejecting a
    missing tip each fail with their reason."""
    rt = make_runtime(TIPS)
    assert _run(rt, skill_pick(rt, "p")).ok
    bare = _run(rt, skill_transfer(rt, "p", "src", "cup", 100e-9))
    assert bare.status == "failed" and "has no tip" in bare.reason
    assert "no tip to eject" in _run(rt, skill_eject_tip(rt, "p", "bin")).reason
    mix = _run(rt, skill_mix_by_pipetting(rt, "p", "cup", 2))
    assert "has no tip" in mix.reason
    rt.boxed_tips["box"][0] = False
    assert "holds no tip" in _run(rt, skill_attach_tip(rt, "p", SlotTarget("box", 0))).reason
    rt.tips["p"] = True
    assert "already carries" in _run(rt, skill_attach_tip(rt, "p", SlotTarget("box", 1))).reason


def test_swirl_mixes_a_held_flask_and_refuses_one_not_held(make_runtime) -> None:
    """Swirling a held flask mixes it (measured acceleration); an unheld flask is refused."""
    rt = make_runtime(BENCH)
    refused = _run(rt, skill_swirl(rt, "flask", 2.0))
    assert refused.status == "failed" and "not holding" in refused.reason
    assert _run(rt, skill_pick(rt, "flask")).ok
    result = _run(rt, skill_swirl(rt, "flask", 2.0))
    assert result.ok and dict(result.detail)["rms_acceleration"] >= 2.0
    assert "flask" in rt.ledger.mixed


def test_stirrer_mixes_only_after_five_seconds_and_needs_a_load(make_runtime) -> None:
    """Stirring with nothing on the plate fails; 3 s of stirring is too short to mix; 6 s
    mixes the flask resting on the plate, and the stirrer is off afterwards."""
    rt = make_runtime(BENCH)
    assert "no container" in _run(rt, skill_stir(rt, "plate", 6.0)).reason
    assert _run(rt, skill_pick(rt, "flask")).ok
    assert _run(rt, skill_place(rt, "flask", "plate")).ok
    short = _run(rt, skill_stir(rt, "plate", 3.0))
    assert short.status == "failed" and "mixing takes 5 s" in short.reason
    assert _run(rt, skill_stir(rt, "plate", 3.0)).ok  # 3 s more: 6 s in all, unchanged contents
    assert "flask" in rt.ledger.mixed and "plate" not in rt.running


def test_hot_plate_heats_what_rests_on_it(make_runtime) -> None:
    """A flask on the stirrer's hot plate approaches the plate's setpoint; one off it does not."""
    rt = make_runtime(BENCH)
    assert _run(rt, skill_pick(rt, "flask")).ok
    assert _run(rt, skill_place(rt, "flask", "plate")).ok
    assert _run(rt, skill_set_temperature(rt, "plate", 60.0)).ok
    for _ in range(round(20 / rt.dt)):
        rt.tick()
    assert rt.temperature["plate"] > 50.0 and rt.temperature["flask"] > 35.0
    assert rt.temperature["jar"] < 23.0


def test_dispense_powder_moves_mass_and_refuses_a_liquid_source(make_runtime) -> None:
    """1 g of salt lands in the weighing cup (and changes its mass); tipping a jar that
    also holds liquid is refused."""
    rt = make_runtime(BENCH)
    assert _run(rt, skill_pick(rt, "jar")).ok
    cup_before = rt.object_mass("cup")
    result = _run(rt, skill_dispense_powder(rt, "jar", "cup", 0.001))
    assert result.ok, result.reason
    assert rt.ledger.amounts["cup"]["salt"] == pytest.approx(0.001, abs=1e-9)
    assert rt.object_mass("cup") == pytest.approx(cup_before + 0.001)
    rt.ledger.kinds["water"] = "liquid"
    rt.add_contents("jar", "water", 1e-6)
    wet = _run(rt, skill_dispense_powder(rt, "jar", "cup", 0.001))
    assert wet.status == "failed" and "not only powder" in wet.reason


def test_weigh_reads_a_known_weight_and_read_scale_refuses_a_non_scale(make_runtime) -> None:
    """Weighing the 20 g weight (on top of the cup) reads the cup's mass plus 20.0 g; reading
    something that is not a scale fails."""
    rt = make_runtime(BENCH)
    assert "not a scale" in _run(rt, skill_read_scale(rt, "plate")).reason
    empty = _run(rt, skill_read_scale(rt, "scale"))
    assert empty.ok
    assert _run(rt, skill_pick(rt, "w20")).ok
    result = _run(rt, skill_weigh(rt, "w20", "scale"))
    assert result.ok, result.reason
    reading = dict(result.detail)["reading_g"]
    assert reading == pytest.approx(dict(empty.detail)["reading_g"] + 20.0, abs=0.05)


BOTTLE = """
scene s {
  b: bottle(contents: 80 mL of ethanol) on table at (0.3 m, 0 m)
  w: weight(mass: 20 g) on table at (0.15 m, -0.15 m)
}
task t in s { instruction: "Open the bottle b." step a { do { twist_cap(b, 2) } success: open(b) } }
"""


def test_twist_cap_unscrews_by_friction_without_turning_the_bottle(make_runtime) -> None:
    """Quarter-turn strokes on the cap open it (1.5 turns) while the bottle stays put."""
    from lablang.sim.skills import skill_twist_cap

    rt = make_runtime(BOTTLE)
    before = rt.data.xquat[rt.body_ids["b"]].copy()
    result = _run(rt, skill_twist_cap(rt, "b", 2))
    assert result.ok, result.reason
    assert cap_turns(rt, "b") >= 1.5
    assert abs(float(before @ rt.data.xquat[rt.body_ids["b"]])) > 0.999  # < 5 deg of turn


def test_twist_cap_refuses_with_a_held_object_or_a_capless_target(make_runtime) -> None:
    """Twisting needs empty fingers and a bottle with a screw cap."""
    from lablang.sim.skills import skill_twist_cap

    rt = make_runtime(BOTTLE)
    assert "no screw cap" in _run(rt, skill_twist_cap(rt, "w", 1)).reason
    assert _run(rt, skill_pick(rt, "w")).ok
    assert "empty fingers" in _run(rt, skill_twist_cap(rt, "b", 1)).reason
