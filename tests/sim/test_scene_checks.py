"""`lablang check` rejects impossible scenes: over capacity (E0710), overlapping placements
(E0711), a skill that cannot act on that container (E0712); the catalog's sizes agree with
the built assets."""

from __future__ import annotations

import numpy as np
import pytest

from lablang.driver import check_text
from lablang.sim import catalog
from lablang.sim.model import Entity


def _codes(text: str) -> list[str]:
    return [d.code for d in check_text(text).report]


@pytest.mark.parametrize(
    "entity",
    [
        "b: beaker(capacity: 50 mL, contents: 80 mL of water) on table at (0.3 m, 0 m)",
        "t: tube_1_5ml(contents: 5 mL of water) on table at (0.3 m, 0 m)",
        "b: beaker(capacity: 10 mL, contents: 8 g of salt) on table at (0.3 m, 0 m)",
        "f: flask(capacity: 50 mL, contents: 30 mL of water, contents: 30 mL of oil) "
        "on table at (0.3 m, 0 m)",
    ],
)
def test_overfilled_containers_are_rejected_by_check(entity: str) -> None:
    """80 mL in a 50 mL beaker, 5 mL in a tube, 8 g of powder (13 mL) in 10 mL, or two
    liquids adding up past the capacity: E0710 (80 mL in 50 mL passed silently before)."""
    codes = _codes(f"scene s {{\n  {entity}\n}}\n")
    assert "E0710" in codes, codes


def test_a_container_filled_to_its_capacity_passes() -> None:
    """Exactly 50 mL in a 50 mL beaker is no error."""
    text = (
        "scene s { b: beaker(capacity: 50 mL, contents: 50 mL of water) on table at (0.3 m, 0 m) }"
    )
    assert _codes(text) == []


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (  # two objects at the same spot
            [
                "w5: weight(mass: 5 g) on table at (0.2 m, 0.1 m)",
                "w2: weight(mass: 2 g) on table at (0.2 m, 0.1 m)",
            ],
            ["E0711"],
        ),
        (  # two objects on the scale, both at its centre
            [
                "scale: scale() on table at (0.4 m, 0.05 m)",
                "w5: weight(mass: 5 g) on scale",
                "w2: weight(mass: 2 g) on scale",
            ],
            ["E0711"],
        ),
        (  # a tube standing where a rack stands
            [
                "rack: tube_rack(slots: 6) on table at (0.2 m, 0.0 m)",
                "t: tube_1_5ml() on table at (0.25 m, 0.01 m)",
            ],
            ["E0711"],
        ),
        (  # two fixtures over one another, the second turned
            [
                "rack: tube_rack(slots: 6) on table at (0.2 m, 0.0 m)",
                "block: thermal_block(slots: 6) on table at (0.2 m, 0.05 m, 90 deg)",
            ],
            ["E0711"],
        ),
        (  # neighbours that do not touch
            [
                "rack: tube_rack(slots: 6) on table at (0.2 m, 0.0 m)",
                "t: tube_1_5ml() on table at (0.2 m, 0.05 m)",
                "w2: weight(mass: 2 g) on table at (0.3 m, 0.05 m)",
            ],
            [],
        ),
    ],
)
def test_overlapping_placements_are_rejected_and_neighbours_pass(lines, expected) -> None:
    """Footprints that overlap on one surface are E0711; entities side by side are not."""
    text = "scene s {\n" + "\n".join(f"  {line}" for line in lines) + "\n}\n"
    assert _codes(text) == expected


PIPETTING = """
scene s {{
  stand: pipette_stand(slots: 2) on table at (0.10 m, 0.15 m)
  p: pipette(volume: 200 uL) in stand.slot[0]
  rack: tube_rack(slots: 6) on table at (0.45 m, -0.10 m)
  t: tube_1_5ml({tube}contents: 500 uL of buffer) in rack.slot[1]
  v: vial() on table at (0.3 m, 0.2 m)
  stock: beaker(capacity: 50 mL, contents: 5 mL of buffer) on table at (0.25 m, -0.05 m)
}}
task k in s {{
  instruction: "Use p on the buffer."
  step a {{ do {{ pick(p); {call} }} success: true }}
}}
"""


@pytest.mark.parametrize(
    ("tube", "call", "expected"),
    [
        ("capped: 0, ", "aspirate(p, t, 10 uL)", ["E0712"]),  # a tip cannot enter a tube
        ("", "dispense(p, t)", ["E0712"]),  # capped by build
        ("", "aspirate(p, v, 10 uL)", ["E0712"]),  # a vial stays capped
        ("capped: 0, ", "transfer(p, stock, t, 10 uL)", []),  # into an open tube: fine
        ("capped: 0, ", "transfer(p, t, stock, 10 uL)", ["E0712"]),  # out of it: not
        ("", "aspirate(p, stock, 10 uL)", []),
        ("hollow: 1, ", "aspirate(p, t, 10 uL)", []),  # a tube whose bore is modelled
        ("hollow: 1, ", "mix_by_pipetting(p, t, 2)", []),
    ],
)
def test_skills_that_cannot_act_on_a_container_are_rejected(tube, call, expected) -> None:
    """Capped tubes and vials cannot give or take contents, and no tip enters a tube:
    E0712 at check time (aspirating from a tube used to be accepted and always faulted)."""
    assert _codes(PIPETTING.format(tube=tube, call=call)) == expected


OBJECTS = ["tube_1_5ml", "tube_2ml", "weight", "beaker", "bottle", "flask", "vial", "pipette"]
FIXTURES = [
    "tube_rack",
    "thermal_block",
    "tip_box",
    "pipette_stand",
    "centrifuge",
    "scale",
    "well_plate",
    "waste_bin",
    "stirrer",
    "vortex_mixer",
    "drawer",
    "incubator",
    "timer",
]


def _extent(asset: str, params: dict) -> tuple[float, float]:
    """Half extents in x and y of the built asset's colliding geoms (in its own frame, at
    yaw 0): a visual-only part (contype and conaffinity 0, such as a display panel drawn for
    the cameras) touches nothing, so it is not what `check`'s footprint keeps apart."""
    import mujoco

    from lablang.sim.assets import BUILDERS

    spec = mujoco.MjSpec()
    entity = Entity("e", asset, tuple(params.items()))
    BUILDERS[asset](spec, entity, [0.0, 0.0, 0.0], 0.0)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    hx = hy = 0.0
    for g in range(model.ngeom):
        if model.geom_rgba[g, 3] == 0:
            continue  # hidden (a pipette's spare tip)
        if model.geom_contype[g] == 0 and model.geom_conaffinity[g] == 0:
            continue  # visual only
        centre = data.geom_xpos[g]
        R = data.geom_xmat[g].reshape(3, 3)
        kind, size = model.geom_type[g], model.geom_size[g]
        if kind == mujoco.mjtGeom.mjGEOM_BOX:
            reach = np.abs(R) @ size
        else:  # cylinders and capsules stand upright
            reach = np.array([size[0], size[0], 0.0])
        hx, hy = max(hx, abs(centre[0]) + reach[0]), max(hy, abs(centre[1]) + reach[1])
    return hx, hy


@pytest.mark.parametrize("asset", OBJECTS + FIXTURES)
def test_the_catalog_footprints_match_the_built_assets(asset: str) -> None:
    """`catalog.footprint` (what `check` uses without MuJoCo) covers the built geometry:
    within 2 mm for objects, and the main body for fixtures (small parts such as a
    centrifuge's console or a scale's pan may stand a little beyond)."""
    for params in ({}, *_extremes(asset)):
        hx, hy, round_ = catalog.footprint(asset, params)
        bx, by = _extent(asset, params)
        if asset in OBJECTS:
            assert round_ and hx == pytest.approx(max(bx, by), abs=0.002), (params, hx, bx, by)
        else:
            assert hx == pytest.approx(bx, abs=0.03) and hy == pytest.approx(by, abs=0.03)


def _extremes(asset: str) -> list[dict]:
    kind = catalog.ASSET_KINDS[asset]
    out = []
    for key in ("capacity", "slots", "mass"):
        if key in kind.params:
            spec = kind.params[key]
            out += [{key: spec.low}, {key: spec.high}]
    return out


@pytest.mark.parametrize(
    "asset", ["tube_1_5ml", "tube_2ml", "beaker", "bottle", "flask", "vial", "pipette"]
)
def test_the_catalog_capacities_match_the_built_assets(asset: str) -> None:
    """`catalog.capacity` equals the capacity the builder records for the runtime."""
    import mujoco

    from lablang.sim.assets import BUILDERS

    info = BUILDERS[asset](mujoco.MjSpec(), Entity("e", asset), [0.0, 0.0, 0.0], 0.0)
    assert catalog.capacity(asset, {}) == pytest.approx(info.capacity)


def test_a_hollow_tube_is_drawn_from_and_moved_like_a_solid_one(task_from) -> None:
    """`tube_1_5ml(hollow: 1)`: the tip enters its bore (100 uL drawn and dispensed into
    another, `examples/tasks/pipette_from_tube.lab` certifies in the example tests), and it
    is picked and inserted into another rack's slot like a solid tube."""
    from lablang.sim import certify_task

    task = task_from(
        """
scene s {
  rack: tube_rack(slots: 6) on table at (0.40 m, -0.10 m)
  rack2: tube_rack(slots: 6) on table at (0.20 m, 0.10 m)
  t: tube_1_5ml(hollow: 1, contents: 1 mL of buffer) in rack.slot[1]
  randomize rack within {x: ±2 cm, y: ±2 cm, yaw: ±10 deg}
}
task k in s {
  instruction: "Move t to slot 3 of rack2."
  step m {
    do { pick(t); insert_into_slot(t, rack2.slot[3]) }
    success: in(t, rack2.slot[3]) and upright(t) and stable(t, 0.5 s)
  }
}
"""
    )
    certificate = certify_task(task, instances=2, seed=0)
    assert certificate["certified"], certificate["failures"]
