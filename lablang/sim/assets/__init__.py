"""Procedural lab assets built with MuJoCo's MjSpec from primitives (no downloads).

Each builder adds one entity to a spec and returns an `AssetInfo` that records the
geometry the predicates and skills need (slot bores, grasp heights, openings), so
that tolerances come from the asset's geometry rather than from constants.

Dimensions are metres, masses kilograms. The table top is the plane z = 0.

The builders live by kind: `fixtures`, `apparatus` (fixtures with moving parts), `objects` (tubes, weights, glassware), `pipettes`,
and `gripper` (the gantry); they share `info` (`AssetInfo`) and `parts` (primitives),
and never import this package, which gathers them into `BUILDERS`.
"""

from __future__ import annotations

from lablang.sim.assets.apparatus import (
    build_drawer,
    build_incubator,
    build_timer,
    build_vortex_mixer,
)
from lablang.sim.assets.fixtures import (
    build_centrifuge,
    build_scale,
    build_stirrer,
    build_table,
    build_thermal_block,
    build_tube_rack,
    build_waste_bin,
    build_well_plate,
)
from lablang.sim.assets.gripper import FINGER_MAX, GANTRY_YAW, GANTRY_Z, TCP_DROP, build_gripper
from lablang.sim.assets.info import AssetInfo, Builder, SlotInfo
from lablang.sim.assets.objects import (
    CAP_OPEN_TURNS,
    build_beaker,
    build_bottle,
    build_flask,
    build_scoop,
    build_tube,
    build_vial,
    build_weight,
)
from lablang.sim.assets.pipettes import (
    PIPETTE_BODY,
    build_pipette,
    build_pipette_stand,
    build_tip_box,
)

__all__ = [
    "BUILDERS",
    "CAP_OPEN_TURNS",
    "FINGER_MAX",
    "GANTRY_YAW",
    "GANTRY_Z",
    "PIPETTE_BODY",
    "TCP_DROP",
    "AssetInfo",
    "Builder",
    "SlotInfo",
    "build_gripper",
    "build_table",
]

# asset kind -> builder; the kinds and their parameters are in `catalog.ASSET_KINDS`
BUILDERS: dict[str, Builder] = {
    "table": build_table,
    "tube_rack": build_tube_rack,
    "centrifuge": build_centrifuge,
    "scale": build_scale,
    "thermal_block": build_thermal_block,
    "tube_1_5ml": build_tube,
    "tube_2ml": build_tube,
    "weight": build_weight,
    "beaker": build_beaker,
    "pipette": build_pipette,
    "well_plate": build_well_plate,
    "waste_bin": build_waste_bin,
    "vial": build_vial,
    "pipette_stand": build_pipette_stand,
    "tip_box": build_tip_box,
    "stirrer": build_stirrer,
    "flask": build_flask,
    "bottle": build_bottle,
    "vortex_mixer": build_vortex_mixer,
    "drawer": build_drawer,
    "incubator": build_incubator,
    "timer": build_timer,
    "scoop": build_scoop,
}
