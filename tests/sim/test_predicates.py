"""Predicates on hand-placed scenes: tubes in, leaning in and lying across slots; balance; lids."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from lablang.sim.model import Call, Num, Ref
from lablang.sim.predicates import Evaluator
from lablang.sim.state import SlotTarget, balanced, in_slot, on, slot_of, tilt, upright

RACK = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[1]
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
"""


def _pose(rt, name: str, pos, axis_angle=(0.0, (1.0, 0.0, 0.0))) -> None:
    angle, axis = axis_angle
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, np.array(axis, dtype=float), angle)
    adr = rt.model.joint(f"{name}_free").qposadr[0]
    rt.data.qpos[adr : adr + 3] = pos
    rt.data.qpos[adr + 3 : adr + 7] = quat
    rt.data.qvel[rt.model.joint(f"{name}_free").dofadr[0] :][:6] = 0
    mujoco.mj_forward(rt.model, rt.data)


def _settle(rt, seconds: float = 1.0) -> None:
    for _ in range(round(seconds / rt.dt)):
        rt.tick()


def test_upright_tube_is_in_its_slot_and_no_other(make_runtime) -> None:
    """A tube placed in slot 1 is `in` slot 1, found by `slot_of`, and not in slot 0."""
    rt = make_runtime(RACK)
    assert in_slot(rt, "tube", SlotTarget("rack", 1))
    assert not in_slot(rt, "tube", SlotTarget("rack", 0))
    assert slot_of(rt, "tube") == SlotTarget("rack", 1)
    assert upright(rt, "tube")


def test_tube_leaning_against_the_bore_wall_still_counts_as_in_the_slot(make_runtime) -> None:
    """A tube released tilted comes to rest leaning in the bore; the geometric tolerance accepts it."""
    rt = make_runtime(RACK)
    site = rt.data.site("rack_s1")
    bore = rt.infos["rack"].slots[1].bore
    # bottom hemisphere against one wall, axis tilted toward the other
    bottom = site.xpos + np.array([bore - 0.0055, 0.0, 0.0055])
    angle = math.radians(6)
    half = rt.infos["tube"].half_height - rt.infos["tube"].radius
    centre = bottom + np.array([-math.sin(angle) * half, 0.0, math.cos(angle) * half])
    _pose(rt, "tube", centre, (angle, (0.0, -1.0, 0.0)))
    _settle(rt)
    lean = math.degrees(tilt(rt, "tube"))
    assert 2.0 < lean < 12.0, lean
    assert in_slot(rt, "tube", SlotTarget("rack", 1))
    assert slot_of(rt, "tube") == SlotTarget("rack", 1)


def test_tube_lying_across_the_walls_is_in_no_slot(make_runtime) -> None:
    """A tube released horizontally over two slots rests on the walls and is in neither."""
    rt = make_runtime(RACK)
    a, b = rt.data.site("rack_s0").xpos.copy(), rt.data.site("rack_s1").xpos.copy()
    middle = (a + b) / 2 + np.array([0.0, 0.0, 0.03])
    _pose(rt, "tube", middle, (math.pi / 2, (0.0, 1.0, 0.0)))
    _settle(rt)
    assert math.degrees(tilt(rt, "tube")) > 60
    assert slot_of(rt, "tube") is None
    # the nearest slot is close, which is why `slot_of` never means "nearest"
    bottom = rt.data.xpos[rt.body_ids["tube"]]
    assert min(np.linalg.norm((bottom - s)[:2]) for s in (a, b)) < 0.02
    assert not upright(rt, "tube")


CENTRIFUGE = """
scene s {
  rotor: centrifuge(slots: 8) on table at (0.45 m, 0.12 m)
  a: tube_1_5ml(contents: 200 uL of sample) on table at (0.2 m, -0.1 m)
  b: tube_1_5ml(contents: CONTENTS of sample) on table at (0.25 m, -0.1 m)
}
task t in s { step x { do { pick(a) } success: grasped(a) } }
"""


def _into_rotor(rt, name: str, slot: int) -> None:
    site = rt.data.site(f"rotor_s{slot}")
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, site.xmat)
    adr = rt.model.joint(f"{name}_free").qposadr[0]
    rt.data.qpos[adr : adr + 3] = site.xpos + site.xmat.reshape(3, 3)[:, 2] * (
        rt.infos[name].half_height + 0.0005
    )
    rt.data.qpos[adr + 3 : adr + 7] = quat
    mujoco.mj_forward(rt.model, rt.data)


@pytest.mark.parametrize(
    ("contents", "slots", "expected"),
    [
        ("200 uL", (0, 4), True),  # opposite, equal masses
        ("200 uL", (0, 3), False),  # not opposite
        ("20 uL", (0, 4), False),  # opposite, but 0.18 g lighter
    ],
)
def test_balanced_needs_opposite_slots_and_equal_masses(
    make_runtime, contents, slots, expected
) -> None:
    """`balanced` sums the tubes' mass moments (contents included) about the rotor axis."""
    rt = make_runtime(CENTRIFUGE.replace("CONTENTS", contents))
    rt.data.qpos[rt.model.joint("rotor_lid_hinge").qposadr[0]] = 1.7
    _into_rotor(rt, "a", slots[0])
    _into_rotor(rt, "b", slots[1])
    _settle(rt, 0.6)
    assert slot_of(rt, "a").index == slots[0] and slot_of(rt, "b").index == slots[1]
    assert balanced(rt, "rotor") is expected


def test_lid_open_and_closed_follow_the_hinge_angle(make_runtime) -> None:
    """`open` holds above 75 degrees of lid angle and `closed` below 3 degrees."""
    rt = make_runtime(CENTRIFUGE.replace("CONTENTS", "200 uL"))
    evaluator = Evaluator(rt)
    assert evaluator.holds(Call("closed", (Ref("rotor"),)))
    assert not evaluator.holds(Call("open", (Ref("rotor"),)))
    rt.data.qpos[rt.model.joint("rotor_lid_hinge").qposadr[0]] = 1.6
    mujoco.mj_forward(rt.model, rt.data)
    assert evaluator.holds(Call("open", (Ref("rotor"),)))
    assert not evaluator.holds(Call("closed", (Ref("rotor"),)))


def test_stable_holds_only_after_its_window_of_rest(make_runtime) -> None:
    """`stable(tube, 0.5 s)` becomes true exactly when the tube has rested for 0.5 s."""
    rt = make_runtime(RACK)
    spec = Call("stable", (Ref("tube"), Num(0.5, "time")))
    evaluator = Evaluator(rt)
    start = rt.time
    results = []
    for _ in range(40):
        results.append((round(rt.time - start, 6), evaluator.holds(spec)))
        rt.tick()
    first = next(t for t, ok in results if ok)
    assert first == pytest.approx(0.5)
    assert all(ok for t, ok in results if t >= first)


def test_on_requires_contact_and_footprint(make_runtime) -> None:
    """A weight on the pan is `on` the scale; one on the table is not."""
    rt = make_runtime("""
scene s {
  scale: scale() on table at (0.4 m, 0.05 m)
  w1: weight(mass: 10 g) on scale
  w2: weight(mass: 10 g) on table at (0.2 m, 0 m)
}
task t in s { step a { do { pick(w2) } success: grasped(w2) } }
""")
    _settle(rt, 0.3)
    assert on(rt, "w1", "scale") and not on(rt, "w2", "scale")
    assert on(rt, "w2", "table")
