"""The thermal model the runtime advances every few ticks: heaters approach their
setpoints, objects the temperature of what holds them, and a running stirrer mixes what
stands on it (simple documented models, not calibrated physics)."""

from __future__ import annotations

import math
from typing import Any

from lablang.sim.state import on, slot_of

AMBIENT = 22.0  # deg C
BLOCK_TAU = 8.0  # s: a thermal block's approach to its setpoint (a fast, documented model)
WELL_TAU = 4.0  # s: a tube's approach to the temperature of the well it sits in
AIR_TAU = 120.0  # s: an object's approach to ambient in air
PLATE_TAU = 10.0  # s: a container's approach to the temperature of the hot plate it rests on
STIR_MIX_TIME = 5.0  # s of stirring on a running stirrer that mixes a container's contents


def update_thermal(rt: Any, dt: float) -> None:
    """Advance a runtime's temperatures (and stirring) by `dt` seconds."""
    for block in rt.heaters:
        rt.temperature[block] += (1 - math.exp(-dt / BLOCK_TAU)) * (
            rt.setpoint[block] - rt.temperature[block]
        )
    plates = [b for b in rt.heaters if rt.infos[b].top_site]
    for name, info in rt.infos.items():
        if not info.free:
            continue
        where = slot_of(rt, name)
        plate = next((b for b in plates if on(rt, name, b)), None)
        if where is not None and where.container in rt.setpoint:
            goal, tau = rt.temperature[where.container], WELL_TAU
        elif plate is not None:
            goal, tau = rt.temperature[plate], PLATE_TAU
            if plate in rt.running and rt.ledger.total(name) > 0:
                rt.stirred[name] = rt.stirred.get(name, 0.0) + dt
                if rt.stirred[name] >= STIR_MIX_TIME - 1e-9:
                    rt.ledger.mixed.add(name)
        else:
            goal, tau = AMBIENT, AIR_TAU
        rt.temperature[name] += (1 - math.exp(-dt / tau)) * (goal - rt.temperature[name])
