"""The scale readout: force sensor -> 0.25 s filter -> 0.1 g display -> 3 s stable window."""

from __future__ import annotations

import math

import pytest

from lablang.sim.model import Call, Num, Ref
from lablang.sim.predicates import Evaluator
from lablang.sim.runtime import SCALE_STABLE_WINDOW, SCALE_TAU, display_tenths

SCENE = """
scene s {
  scale: scale() on table at (0.4 m, 0.05 m)
  w: weight(mass: MASS) on table at (0.2 m, 0 m)
}
task t in s { step a { do { pick(w) } success: grasped(w) } }
"""


def _drop_on_pan(rt, name: str = "w") -> float:
    """Teleport the weight to rest 0.5 mm above the pan's centre; return the time."""
    import mujoco

    top = rt.data.site("scale_top").xpos
    adr = rt.model.joint(f"{name}_free").qposadr[0]
    rt.data.qpos[adr : adr + 3] = [top[0], top[1], top[2] + rt.infos[name].half_height + 0.0005]
    rt.data.qvel[rt.model.joint(f"{name}_free").dofadr[0] :][:6] = 0
    mujoco.mj_forward(rt.model, rt.data)
    return rt.time


@pytest.mark.parametrize(("mass", "tenths"), [("20 g", 200), ("7.3 g", 73), ("50 g", 500)])
def test_known_mass_reads_exactly_once_settled(make_runtime, mass: str, tenths: int) -> None:
    """A standard weight on the pan displays its nominal mass to the 0.1 g digit."""
    rt = make_runtime(SCENE.replace("MASS", mass))
    assert rt.scales["scale"].display == 0
    _drop_on_pan(rt)
    for _ in range(round(5.0 / rt.dt)):
        rt.tick()
    assert rt.scales["scale"].display == tenths
    assert rt.scale_stable("scale")
    grams = tenths / 10
    spec = Call("reading", (Ref("scale"), Num(grams / 1000, "mass")))
    assert Evaluator(rt).holds(spec)
    assert not Evaluator(rt).holds(
        Call("reading", (Ref("scale"), Num(grams / 1000 + 1e-4, "mass")))
    )


def test_filter_follows_a_first_order_step_response_with_tau_0_25_s(make_runtime) -> None:
    """After the weight lands, the filtered value tracks 20 g * (1 - exp(-t/0.25 s))."""
    rt = make_runtime(SCENE.replace("MASS", "20 g"))
    start = _drop_on_pan(rt)
    samples = []
    for _ in range(round(1.5 / rt.dt)):
        rt.tick()
        samples.append((rt.time - start, rt.scales["scale"].filtered))
    for t, value in samples[2:]:  # the first ticks include the 0.5 mm drop and the impact
        expected = 20.0 * (1 - math.exp(-t / SCALE_TAU))
        assert value == pytest.approx(expected, abs=0.6), t
    at_tau = min(samples, key=lambda s: abs(s[0] - SCALE_TAU))[1]
    assert at_tau == pytest.approx(20 * (1 - math.exp(-1)), abs=0.5)


def test_reading_counts_only_after_three_seconds_of_constant_display(make_runtime) -> None:
    """`reading(scale)` is none until the display has not changed for 3 s of simulated time."""
    rt = make_runtime(SCENE.replace("MASS", "20 g"))
    _drop_on_pan(rt)
    evaluator = Evaluator(rt)
    last_change, first_stable = None, None
    previous = rt.scales["scale"].display
    for _ in range(round(6.0 / rt.dt)):
        rt.tick()
        state = rt.scales["scale"]
        if state.display != previous:
            last_change, previous = rt.time, state.display
        value = evaluator.value(Call("reading", (Ref("scale"),)))
        if value is None:
            assert first_stable is None
        elif first_stable is None:
            first_stable = rt.time
            assert value == pytest.approx(0.020)
    assert last_change is not None and first_stable is not None
    assert first_stable - last_change == pytest.approx(SCALE_STABLE_WINDOW, abs=1e-9)


def test_display_quantum_rounds_halves_up() -> None:
    """The 0.1 g display rounds half up (not to even): 0.05 g shows 0.1 g, 0.15 g shows 0.2 g."""
    assert [display_tenths(g) for g in (0.05, 0.15, 0.25, 0.0499, -0.04)] == [1, 2, 3, 0, 0]


def test_tare_button_zeroes_the_display_with_a_load_on_the_pan(make_runtime) -> None:
    """Pressing the tare button with 20 g on the pan makes the display read 0.0 g again."""
    from lablang.sim.skills import run_skill, skill_tare

    rt = make_runtime(SCENE.replace("MASS", "20 g"))
    _drop_on_pan(rt)
    for _ in range(round(2.0 / rt.dt)):
        rt.tick()
    assert rt.scales["scale"].display == 200
    assert run_skill(rt, skill_tare(rt, "scale"), 8).ok
    for _ in range(round(1.0 / rt.dt)):
        rt.tick()
    assert rt.scales["scale"].display == 0
    assert [e[1] for e in rt.events] == ["scale.tare"]
