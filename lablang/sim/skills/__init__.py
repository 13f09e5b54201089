"""Skills: tick-driven controllers with structured results.

A skill is a generator: it writes the gripper's servo targets on the runtime,
then `yield`s to let one control tick of physics run, and finally returns a
`SkillResult`. The runtime's driver (`run_skill`) counts ticks and turns an
overlong skill into a timeout. Skills read simulator state ("privileged
perception") and re-read their targets before the final approach, because
containers such as rotors can move.

The skills live in families (`handling`, `instruments`, `closures`, `pouring`, `mixing`,
`pipetting`, `apparatus`), each importing only `base` and the families below it; this package gathers
them into `SKILLS`, the table the episode runner dispatches on.
"""

from __future__ import annotations

from collections.abc import Callable

from lablang.sim.skills.apparatus import skill_close_drawer, skill_open_drawer, skill_vortex
from lablang.sim.skills.base import (
    SAFE_Z,
    SLOW,
    SPEED,
    Controller,
    Motion,
    SkillResult,
    fail,
    move_tcp,
    ok,
    run_skill,
    target_name,
    transit,
    wait_ticks,
)
from lablang.sim.skills.closures import (
    STROKE_ROOM,
    skill_close_cap,
    skill_close_lid,
    skill_open_lid,
    skill_twist_cap,
)
from lablang.sim.skills.handling import (
    skill_discard,
    skill_home,
    skill_insert_into_slot,
    skill_move_to,
    skill_pick,
    skill_place,
    skill_put_on_scale,
    skill_release,
    skill_remove_from_slot,
    skill_wait,
)
from lablang.sim.skills.instruments import (
    skill_incubate,
    skill_press_button,
    skill_read_scale,
    skill_set_temperature,
    skill_start_centrifuge,
    skill_tare,
    skill_weigh,
)
from lablang.sim.skills.mixing import skill_invert, skill_shake, skill_stir, skill_swirl
from lablang.sim.skills.pipetting import (
    skill_aspirate,
    skill_attach_tip,
    skill_dispense,
    skill_eject_tip,
    skill_mix_by_pipetting,
    skill_transfer,
)
from lablang.sim.skills.pouring import skill_dispense_powder, skill_pour
from lablang.sim.skills.scooping import skill_empty_scoop, skill_scoop

__all__ = [
    "SAFE_Z",
    "SKILLS",
    "SLOW",
    "SPEED",
    "STROKE_ROOM",
    "Controller",
    "Motion",
    "SkillFn",
    "SkillResult",
    "fail",
    "move_tcp",
    "ok",
    "run_skill",
    "skill_aspirate",
    "skill_attach_tip",
    "skill_close_cap",
    "skill_close_drawer",
    "skill_close_lid",
    "skill_discard",
    "skill_dispense",
    "skill_dispense_powder",
    "skill_eject_tip",
    "skill_empty_scoop",
    "skill_home",
    "skill_incubate",
    "skill_insert_into_slot",
    "skill_invert",
    "skill_mix_by_pipetting",
    "skill_move_to",
    "skill_open_drawer",
    "skill_open_lid",
    "skill_pick",
    "skill_place",
    "skill_pour",
    "skill_press_button",
    "skill_put_on_scale",
    "skill_read_scale",
    "skill_release",
    "skill_remove_from_slot",
    "skill_scoop",
    "skill_set_temperature",
    "skill_shake",
    "skill_start_centrifuge",
    "skill_stir",
    "skill_swirl",
    "skill_tare",
    "skill_transfer",
    "skill_twist_cap",
    "skill_vortex",
    "skill_wait",
    "skill_weigh",
    "target_name",
    "transit",
    "wait_ticks",
]

# name -> (controller, timeout in simulated seconds); signatures are in `catalog`
SkillFn = Callable[..., Controller]


SKILLS: dict[str, tuple[SkillFn, float]] = {
    "move_to": (skill_move_to, 8.0),
    "home": (skill_home, 8.0),
    "pick": (skill_pick, 10.0),
    "place": (skill_place, 12.0),
    "release": (skill_release, 4.0),
    "insert_into_slot": (skill_insert_into_slot, 12.0),
    "remove_from_slot": (skill_remove_from_slot, 10.0),
    "open_lid": (skill_open_lid, 15.0),
    "close_lid": (skill_close_lid, 15.0),
    "press_button": (skill_press_button, 8.0),
    "start_centrifuge": (skill_start_centrifuge, 8.0),
    "put_on_scale": (skill_put_on_scale, 12.0),
    "discard": (skill_discard, 10.0),
    "tare": (skill_tare, 8.0),
    "pour": (skill_pour, 20.0),
    "wait": (skill_wait, 600.0),
    "aspirate": (skill_aspirate, 15.0),
    "dispense": (skill_dispense, 15.0),
    "set_temperature": (skill_set_temperature, 8.0),
    "incubate": (skill_incubate, 612.0),
    "shake": (skill_shake, 62.0),
    "invert": (skill_invert, 120.0),
    "swirl": (skill_swirl, 62.0),
    "stir": (skill_stir, 630.0),
    "mix_by_pipetting": (skill_mix_by_pipetting, 400.0),
    "attach_tip": (skill_attach_tip, 12.0),
    "eject_tip": (skill_eject_tip, 10.0),
    "transfer": (skill_transfer, 30.0),
    "dispense_powder": (skill_dispense_powder, 30.0),
    "scoop": (skill_scoop, 20.0),
    "empty_scoop": (skill_empty_scoop, 20.0),
    "read_scale": (skill_read_scale, 15.0),
    "weigh": (skill_weigh, 25.0),
    "twist_cap": (skill_twist_cap, 40.0),
    "close_cap": (skill_close_cap, 40.0),
    "vortex": (skill_vortex, 75.0),
    "open_drawer": (skill_open_drawer, 15.0),
    "close_drawer": (skill_close_drawer, 15.0),
}
