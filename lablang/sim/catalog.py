"""What the simulator offers, without importing MuJoCo: assets, skills, predicates.

The front end checks `.lab` scenes and tasks against this catalog during
`lablang check`, which must not pay for importing mujoco. The builders, skills
and predicates that implement these names live in `assets`, `skills` and
`predicates`; a test keeps the two in step.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
from attrs import frozen


@frozen
class ParamSpec:
    """One asset parameter: its dimension ("" for a plain number), range and default (SI)."""

    dimension: str
    low: float
    high: float
    default: float
    integer: bool = False


@frozen
class AssetKind:
    role: str  # "fixture" (placed on the table, jointless base) | "object" (free body)
    params: dict[str, ParamSpec]
    parts: tuple[str, ...] = ()  # named parts reachable as `entity.part` (buttons)
    slots: bool = False
    lid: bool = False
    scale: bool = False
    open_container: bool = False  # can receive poured contents
    surface: bool = False  # objects can be put `on` it
    wells: bool = False  # `entity.well[k]` are containers (plates)


# A tube's label: the characters a seven-segment glyph shows unambiguously (segments a..g:
# a top, b upper right, c lower right, d bottom, e lower left, f upper left, g middle; `B`
# and `D` are drawn as the lower-case b and d), at most LABEL_MAX of them. The digits are
# the instruments' displays' digits too (`assets.display`).
LABEL_GLYPHS = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg",
    "5": "acdfg", "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg",
    "A": "abcefg", "B": "cdefg", "C": "adef", "D": "bcdeg", "E": "adefg", "F": "aefg",
    "H": "bcefg", "J": "bcde", "L": "def", "P": "abefg", "U": "bcdef", "-": "g",
}  # fmt: skip
LABEL_MAX = 3
# kg: the largest reading offset a scale is given (`randomize scale.offset`, `branch --vary`)
MAX_READING_OFFSET = 0.1


def label_problem(text: str) -> str | None:
    """Why a tube label cannot be drawn, or None if it can.

    >>> label_problem("B"), label_problem("b1")
    (None, 'the label `b1` has `b`, which a label cannot show')
    """
    shown = text if len(text) <= 12 else text[:12] + "..."  # a long one is not echoed whole
    if not 1 <= len(text) <= LABEL_MAX:
        return f"a label has 1 to {LABEL_MAX} characters, `{shown}` has {len(text)}"
    bad = next((c for c in text if c not in LABEL_GLYPHS), None)
    return None if bad is None else f"the label `{shown}` has `{bad}`, which a label cannot show"


def _tube(mass: float) -> AssetKind:
    """A microtube's parameters (its size is in `TUBES`)."""
    return AssetKind(
        "object",
        {
            "mass": ParamSpec("mass", 0.0005, 0.01, mass),
            "capped": ParamSpec("", 0, 1, 1, integer=True),
            # 1: the bore is modelled (walls and a floor), so a pipette tip can enter it
            "hollow": ParamSpec("", 0, 1, 0, integer=True),
            # a label drawn on a flag above the cap: 1 to LABEL_MAX of LABEL_GLYPHS
            "label": ParamSpec("label", 1, LABEL_MAX, 0),
        },
        open_container=True,
    )


ASSET_KINDS: dict[str, AssetKind] = {
    "well_plate": AssetKind(
        "fixture", {"wells": ParamSpec("", 24, 96, 96, integer=True)}, wells=True
    ),
    "waste_bin": AssetKind("fixture", {}, surface=True),
    "vial": AssetKind(
        "object", {"mass": ParamSpec("mass", 0.002, 0.05, 0.008)}, open_container=True
    ),
    "pipette": AssetKind(
        "object",
        {
            "volume": ParamSpec("volume", 10e-9, 1e-6, 200e-9),
            "tip": ParamSpec("", 0, 1, 1, integer=True),
        },
        open_container=True,
    ),
    "tip_box": AssetKind("fixture", {"slots": ParamSpec("", 1, 24, 12, integer=True)}, slots=True),
    "stirrer": AssetKind("fixture", {}, parts=("stir", "set"), surface=True),
    "bottle": AssetKind(
        "object",
        {
            "capacity": ParamSpec("volume", 50e-6, 500e-6, 100e-6),
            "mass": ParamSpec("mass", 0.05, 0.5, 0.12),
        },
        open_container=True,
        lid=True,
    ),
    "flask": AssetKind(
        "object",
        {
            "capacity": ParamSpec("volume", 25e-6, 250e-6, 100e-6),
            "mass": ParamSpec("mass", 0.02, 0.3, 0.06),
        },
        open_container=True,
    ),
    "pipette_stand": AssetKind(
        "fixture", {"slots": ParamSpec("", 1, 8, 2, integer=True)}, slots=True
    ),
    "table": AssetKind("fixture", {}, surface=True),
    "tube_rack": AssetKind("fixture", {"slots": ParamSpec("", 1, 24, 6, integer=True)}, slots=True),
    "centrifuge": AssetKind(
        "fixture",
        {"slots": ParamSpec("", 2, 24, 8, integer=True)},
        parts=("start",),
        slots=True,
        lid=True,
    ),
    "scale": AssetKind("fixture", {}, parts=("tare",), scale=True, surface=True),
    "thermal_block": AssetKind(
        "fixture", {"slots": ParamSpec("", 1, 24, 6, integer=True)}, parts=("set",), slots=True
    ),
    "tube_1_5ml": _tube(0.0015),
    # a 2 mL microtube: wider and taller than the 1.5 mL one, and still fits a tube slot
    "tube_2ml": _tube(0.0018),
    "weight": AssetKind("object", {"mass": ParamSpec("mass", 0.001, 0.2, 0.02)}),
    # a powder scoop: a handle the gripper holds and a bowl of `capacity` at its lower end
    # (`scoop` takes a dose into it, `empty_scoop` tips it out); not a pour target
    "scoop": AssetKind("object", {"capacity": ParamSpec("volume", 0.5e-6, 5e-6, 2e-6)}),
    "beaker": AssetKind(
        "object",
        {
            "capacity": ParamSpec("volume", 10e-6, 250e-6, 50e-6),
            "mass": ParamSpec("mass", 0.005, 0.2, 0.03),
        },
        open_container=True,
    ),
    "vortex_mixer": AssetKind("fixture", {}, parts=("cup",)),
    "drawer": AssetKind("fixture", {}, surface=True),
    "incubator": AssetKind("fixture", {}, parts=("set",), lid=True, surface=True),
    "timer": AssetKind("fixture", {}, parts=("start",)),
}

# What each parameter kind of a skill takes (`lablang spec`, `lablang explain SKILL`); a
# leading "?" in a signature marks an optional parameter.
SKILL_ARGUMENT_KINDS = {
    "object": "a free entity",
    "target": "a slot (`rack.slot[0]`) or a surface",
    "entity": "any entity",
    "button": "a part, `entity.part`",
    "container": "a container or a well (`plate.well[3]`)",
    "duration": "a time",
    "volume": "a volume",
    "mass": "a mass",
    "temperature": "a temperature",
    "count": "a number",
}
SKILL_SIGNATURES: dict[str, tuple[tuple[str, ...], str]] = {
    "move_to": (("target",), "apparatus and workspace"),
    "home": ((), "apparatus and workspace"),
    "pick": (("object",), "apparatus and workspace"),
    "place": (("object", "target"), "apparatus and workspace"),
    "release": (("?object",), "apparatus and workspace"),
    "insert_into_slot": (("object", "target"), "apparatus and workspace"),
    "remove_from_slot": (("object", "?target"), "apparatus and workspace"),
    "open_lid": (("entity",), "apparatus and workspace"),
    "close_lid": (("entity",), "apparatus and workspace"),
    "press_button": (("button",), "apparatus and workspace"),
    "start_centrifuge": (("entity",), "apparatus and workspace"),
    "put_on_scale": (("object", "entity"), "solid handling and weighing"),
    "discard": (("object", "entity"), "apparatus and workspace"),
    "tare": (("entity",), "solid handling and weighing"),
    "pour": (("object", "entity", "volume"), "liquid handling and transfer"),
    "aspirate": (("object", "container", "volume"), "liquid handling and transfer"),
    "dispense": (("object", "container", "?volume"), "liquid handling and transfer"),
    "wait": (("duration",), "thermal control and incubation"),
    "set_temperature": (("entity", "temperature"), "thermal control and incubation"),
    "incubate": (("object", "target", "duration"), "thermal control and incubation"),
    "shake": (("object", "duration"), "mixing and agitation"),
    "invert": (("object", "count"), "mixing and agitation"),
    "swirl": (("object", "duration"), "mixing and agitation"),
    "stir": (("entity", "duration"), "mixing and agitation"),
    "mix_by_pipetting": (("object", "container", "count"), "mixing and agitation"),
    "attach_tip": (("object", "target"), "liquid handling and transfer"),
    "eject_tip": (("object", "entity"), "liquid handling and transfer"),
    "transfer": (("object", "container", "container", "volume"), "liquid handling and transfer"),
    "dispense_powder": (("object", "entity", "mass"), "solid handling and weighing"),
    "scoop": (("object", "entity", "mass"), "solid handling and weighing"),
    "empty_scoop": (("object", "entity"), "solid handling and weighing"),
    "read_scale": (("entity",), "solid handling and weighing"),
    "weigh": (("object", "entity"), "solid handling and weighing"),
    "twist_cap": (("object", "count"), "apparatus and workspace"),
    "close_cap": (("object",), "apparatus and workspace"),
    "vortex": (("object", "entity", "duration"), "mixing and agitation"),
    "open_drawer": (("entity",), "apparatus and workspace"),
    "close_drawer": (("entity",), "apparatus and workspace"),
}


@attrs.frozen
class Needs:
    """What one argument of a skill must be, known before the skill runs: the assets it
    may name (of a slot's container when `slot`), or a whole number in `low..high`.
    `check` reports a call that breaks one as E0712; at run time the episode refuses it
    before the skill moves, with the same words (`broken_by`)."""

    index: int
    what: str  # "a bottle (the only container with a screw cap)"
    assets: frozenset[str] = frozenset()
    slot: bool = False  # the argument is `entity.slot[k]`, and `entity` must be one of them
    low: float | None = None
    high: float | None = None
    whole: bool = True  # the number must be a whole one

    def broken_by(self, skill: str, name: str | None, asset: str | None, number: Any) -> str:
        """Why an argument breaks this precondition, or "" if it does not: `name` and
        `asset` of the entity it names (a slot's container), or the `number` it is.
        `check` (E0712) and the skills at run time both word it so."""
        where = f"the {_ORDINALS[self.index]} argument of `{skill}`"
        if self.low is not None and self.high is not None:
            if not isinstance(number, int | float) or isinstance(number, bool):
                return ""
            if (not self.whole or float(number).is_integer()) and (self.low <= number <= self.high):
                return ""
            return f"{where} must be {self.what} from {self.low:g} to {self.high:g}, not {number:g}"
        if not self.assets or asset is None or asset in self.assets:
            return ""
        return f"{where} must be {self.what}; `{name}` is a {asset}"


_ORDINALS = ("first", "second", "third", "fourth")


_PIPETTE = Needs(0, "a pipette", frozenset({"pipette"}))
_SCOOP = Needs(0, "a scoop", frozenset({"scoop"}))
_BIN = frozenset({"waste_bin"})
_SCALE = frozenset(a for a, kind in ASSET_KINDS.items() if kind.scale)
_LID = Needs(0, "an apparatus with a hinged lid or door", frozenset({"centrifuge", "incubator"}))
_DRAWER = Needs(0, "a drawer", frozenset({"drawer"}))

# The static preconditions of skills, one entry per argument that has one (issue 26: a
# `twist_cap` on a tube passed `check` and failed at run time, "has no screw cap").
SKILL_NEEDS: dict[str, tuple[Needs, ...]] = {
    "twist_cap": (
        Needs(0, "a bottle (the only container with a screw cap)", frozenset({"bottle"})),
        Needs(1, "a whole number of turns", low=1, high=5),
    ),
    "close_cap": (
        Needs(0, "a bottle (the only container with a screw cap)", frozenset({"bottle"})),
    ),
    "open_lid": (_LID,),
    "close_lid": (_LID,),
    "start_centrifuge": (Needs(0, "a centrifuge", frozenset({"centrifuge"})),),
    "tare": (Needs(0, "a scale", _SCALE),),
    "read_scale": (Needs(0, "a scale", _SCALE),),
    "put_on_scale": (Needs(1, "a scale", _SCALE),),
    "weigh": (Needs(1, "a scale", _SCALE),),
    "set_temperature": (
        Needs(
            0,
            "a thermal block, a stirrer or an incubator",
            frozenset({"thermal_block", "stirrer", "incubator"}),
        ),
        Needs(1, "a setpoint in C", low=4, high=99, whole=False),
    ),
    "incubate": (Needs(1, "a well of a thermal block", frozenset({"thermal_block"}), slot=True),),
    "stir": (Needs(0, "a stirrer", frozenset({"stirrer"})),),
    "attach_tip": (
        _PIPETTE,
        Needs(1, "a position of a tip box", frozenset({"tip_box"}), slot=True),
    ),
    "eject_tip": (_PIPETTE, Needs(1, "a waste bin", _BIN)),
    "discard": (Needs(1, "a waste bin", _BIN),),
    "aspirate": (_PIPETTE,),
    "dispense": (_PIPETTE,),
    "transfer": (_PIPETTE,),
    "mix_by_pipetting": (_PIPETTE, Needs(2, "a whole number of cycles", low=1, high=20)),
    "invert": (Needs(1, "a whole number of inversions", low=1, high=50),),
    "vortex": (
        Needs(1, "a vortex mixer", frozenset({"vortex_mixer"})),
        Needs(2, "a time in s", low=1, high=60, whole=False),
    ),
    "open_drawer": (_DRAWER,),
    "close_drawer": (_DRAWER,),
    "scoop": (_SCOOP,),
    "empty_scoop": (_SCOOP,),
    "pour": (
        Needs(
            1, "an open container", frozenset(a for a, k in ASSET_KINDS.items() if k.open_container)
        ),
    ),
}

PREDICATE_NAMES = (
    "in",
    "on",
    "grasped",
    "upright",
    "stable",
    "open",
    "closed",
    "balanced",
    "not_spilled",
    "reading",
    "contains",
    "started",
    "mixed",
    "temperature",
    "has_tip",
    "throughout",
    "during",
)
FUNCTION_NAMES = ("slot_of", "opposite", "mass", "height", "label")

# Limits on what a `.lab` task may ask of the simulator (untrusted input).
MAX_ENTITIES = 64
MAX_STEPS = 64
MAX_CALLS_PER_STEP = 32
MAX_CHECK_WINDOW = 60.0  # s
MAX_WAIT = 600.0  # s
MAX_EVENTS = 16  # scripted events per scene
MAX_EVENT_ACTIONS = 8  # actions per event
MAX_EPISODE_TIME = 1800.0  # s of simulated time per episode (all steps, all windows)
# Physics work, the deterministic stand-in for wall time: each physics step costs
# WORK_BASE + the model's degrees of freedom + the contacts at the end of its tick
# (about 1.2 us per unit on the reference machine, so an episode's bound is ~75 s of wall
# time and a certification's ~12 min, whatever the load). Counted, never timed, so a
# result stays bit-identical.
WORK_BASE = 10
MAX_EPISODE_WORK = 60_000_000  # units per episode (E0713)
MAX_CERTIFY_WORK = 600_000_000  # units per certification, all instances together (E0713)
RERUN_TIMESTEP = 0.001  # s: the physics step of the one rerun of a faulted instance
# Mutants of the expert program (`lablang.sim.mutants`) have a budget of their own, so that
# testing the specs never eats the instances' budget (nor the other way round).
MAX_MUTANT_WORK = 600_000_000  # units for all the mutants of one certification
MUTANT_INSTANCES = 3  # a mutant runs on at most this many of the certification's instances

# The fields of a task's `step NAME { ... }`: one registry for the front end (which reads
# them and names them in its errors), `lablang spec`, and the LSP's hover and completion.
TASK_STEP_FIELDS: dict[str, str] = {
    "do": "the step's skill program, `do { pick(tube); place(tube, rack.slot[3]) }`",
    "success": "the condition the step must achieve, optionally `within T` (default 6 s)",
    "may_move": "objects the step may disturb without a side effect, `[w5, w10]`",
    "unchecked": "why the step needs no outcome check, a string (no mutants; shown in the "
    "certificate)",
    "may_already_hold": "`true`: the spec may hold before the step starts (else: success by luck)",
}

# The five operation families of SciVLABench's suite, as a task's `family:` names them.
TASK_FAMILIES = ("liquid handling", "mixing", "solid handling", "thermal", "apparatus")

# Which argument of a skill is where it puts or delivers something (its destination),
# for the mutants that change it; skills not listed have none (`attach_tip`'s slot is
# where the tip comes from: any tip will do).
DESTINATION_ARGUMENT: dict[str, int] = {
    "move_to": 0,
    "place": 1,
    "insert_into_slot": 1,
    "put_on_scale": 1,
    "discard": 1,
    "pour": 1,
    "dispense": 1,
    "incubate": 1,
    "transfer": 2,
    "dispense_powder": 1,
    "empty_scoop": 1,
    "weigh": 1,
}


def describe(name: str) -> str | None:
    """Documentation of a skill for editors (hover), or None if `name` is not a skill.

    >>> describe("place")
    '`place(object, target)` — skill (apparatus and workspace)'
    """
    if name not in SKILL_SIGNATURES:
        return None
    params, family = SKILL_SIGNATURES[name]
    shown = ", ".join(p.lstrip("?") + ("?" if p.startswith("?") else "") for p in params)
    return f"`{name}({shown})` — skill ({family})"


def explain_skill(name: str) -> str | None:
    """`lablang explain SKILL`: a skill's signature and family, what each argument takes,
    and the static preconditions it is refused for (by `check`, E0712, and at run time
    before it moves, in these words); None if `name` is not a skill."""
    if name not in SKILL_SIGNATURES:
        return None
    params, _family = SKILL_SIGNATURES[name]
    lines = [describe(name) or name, "", "Arguments:"]
    needs = {n.index: n for n in SKILL_NEEDS.get(name, ())}
    for k, param in enumerate(params):
        kind = param.lstrip("?")
        line = f"  {_ORDINALS[k]}, {kind}: {SKILL_ARGUMENT_KINDS.get(kind, kind)}"
        if param.startswith("?"):
            line += " (optional)"
        if k in needs:
            need = needs[k]
            span = f" from {need.low:g} to {need.high:g}" if need.low is not None else ""
            line += f"; must be {need.what}{span}"
        lines.append(line)
    if not params:
        lines.append("  none")
    return "\n".join(lines)


# Arguments and meaning of each predicate and function (for `check`'s reference and
# hover); "?" marks an optional argument. A test keeps the keys equal to the names above.
PREDICATE_SIGNATURES: dict[str, tuple[tuple[str, ...], str]] = {
    "in": (("object", "target"), "the object sits in the slot (or in any slot of the container); also `a in b`"),
    "on": (("object", "entity"), "the object rests on the surface"),
    "grasped": (("object",), "the gripper holds the object"),
    "upright": (("object",), "the object's axis is vertical"),
    "stable": (("object", "?duration"), "the object is at rest for the window (default 0.5 s)"),
    "open": (("entity",), "the lid (or cap) is open"),
    "closed": (("entity",), "the lid (or cap) is closed"),
    "balanced": (("entity",), "the centrifuge's load is balanced"),
    "not_spilled": (("?entity",), "no contents were spilled (by this object)"),
    "reading": (("entity", "?mass"), "the stable scale reading; with a mass, it reads that mass (`within:` default 0.1 g)"),
    "contains": (("container", "substance", "?amount"), "the container holds the substance (that amount, `within:` a tolerance)"),
    "started": (("entity",), "the centrifuge, stirrer or timer was started"),
    "mixed": (("object",), "the contents were mixed"),
    "temperature": (("entity", "?temperature"), "the temperature in C; with a value, within 0.5 C (`within:`)"),
    "has_tip": (("object",), "the pipette carries a tip"),
    "throughout": (("condition", "duration"), "the condition held at every tick of the last interval (the step's program counts)"),
    "during": (("condition", "?min"), "the condition held at every tick since the step's program started (for at least `min:`, a time)"),
    "slot_of": (("object",), "the slot the object sits in (or none)"),
    "opposite": (("entity", "slot"), "the slot opposite a slot of a rotor"),
    "mass": (("object",), "the object's mass"),
    "height": (("object",), "the height of the object's lowest point above the table, in m"),
    "label": (("object",), "the tube's label, a string (none without one)"),
}  # fmt: skip


# ---------------------------------------------------------------- geometry for `check`
# What `lablang check` needs to know of an asset's size without building it: its
# footprint on the table and the volume it holds. The builders in `assets` make the
# same shapes; `tests/sim/test_scene_checks.py` keeps the two in step.

STEEL_DENSITY = 7950.0  # kg/m^3 (weights)
POWDER_DENSITY = 600.0  # kg/m^3: bulk density of powders in a container
SCOOP_WALL = 0.001  # m: the wall and floor of a scoop's bowl


def scoop_bowl(capacity: float) -> tuple[float, float]:
    """A scoop's bowl as (inner radius, inner depth), m: a cylinder as deep as it is wide
    in radius, holding `capacity` (m^3).

    >>> [round(x * 1000, 2) for x in scoop_bowl(2e-6)]
    [8.6, 8.6]
    """
    r = (capacity / math.pi) ** (1 / 3)
    return r, r


@frozen
class TubeShape:
    """A microtube's body (a capsule: radius and half length of its straight part, m) and
    what it holds (m^3). `assets.objects.build_tube` builds it from this entry."""

    radius: float
    half: float
    capacity: float


TUBES: dict[str, TubeShape] = {
    "tube_1_5ml": TubeShape(0.0054, 0.0145, 1.5e-6),
    "tube_2ml": TubeShape(0.0056, 0.0165, 2.0e-6),
}

# Half-width of the square bore of each slot of an asset with slots (the builders in
# `assets` make them so); an object goes into a slot only if its footprint fits the bore.
# A tip box's holes hold its tips, too narrow for any entity.
SLOT_BORES: dict[str, float] = {
    "tube_rack": 0.0065,
    "centrifuge": 0.0065,
    "thermal_block": 0.0065,
    "pipette_stand": 0.0085,
    "tip_box": 0.0015,
}


def slot_misfit(asset: str, params: dict[str, float | int | str], host: str) -> str:
    """Why an object of `asset` cannot go into a slot of a `host`, or "" if it fits (its
    round footprint's radius within the slot's bore)."""
    bore = SLOT_BORES.get(host)
    if bore is None:
        return ""
    radius, _ry, round_ = footprint(asset, params)
    if round_ and radius <= bore:
        return ""
    return (
        f"a {asset} ({2 * radius * 1e3:.1f} mm across) does not fit a slot of a {host} "
        f"({2 * bore * 1e3:.1f} mm bore)"
    )


def _param(asset: str, params: dict[str, float | int | str], key: str) -> float:
    value = params.get(key, ASSET_KINDS[asset].params[key].default)
    return float(value)


def capacity(asset: str, params: dict[str, float | int | str]) -> float | None:
    """The volume (m^3) a container holds, or None for an asset that is not one."""
    if asset in ("beaker", "bottle", "flask"):
        return _param(asset, params, "capacity")
    if asset in ("pipette", "scoop"):
        return _param(asset, params, "volume" if asset == "pipette" else "capacity")
    if asset in TUBES:
        return TUBES[asset].capacity
    return {"vial": 4e-6}.get(asset)


def footprint(asset: str, params: dict[str, float | int | str]) -> tuple[float, float, bool]:
    """Half extents (x, y, in m, in the entity's frame) of what an asset covers on the
    table, and whether it is round (then both are its radius)."""
    match asset:
        case "tube_1_5ml" | "tube_2ml":
            r = TUBES[asset].radius
            return r, r, True
        case "weight":
            mass = _param(asset, params, "mass")
            r = max(0.005, (mass / (STEEL_DENSITY * math.pi * 6)) ** (1 / 3))
            return r, r, True
        case "beaker":
            r = 0.02 * (_param(asset, params, "capacity") / 50e-6) ** (1 / 3) + 0.0015
            return r, r, True
        case "bottle":
            r = 0.02 * (_param(asset, params, "capacity") / 100e-6) ** (1 / 3) + 0.002
            return r, r, True
        case "flask":
            r = 0.025 * (_param(asset, params, "capacity") / 100e-6) ** (1 / 3) + 0.0015
            return r, r, True
        case "vial":
            return 0.0074, 0.0074, True
        case "pipette":
            return 0.007, 0.007, True
        case "scoop":
            r = scoop_bowl(_param(asset, params, "capacity"))[0] + SCOOP_WALL
            return r, r, True
        case "tube_rack" | "thermal_block" | "tip_box":
            n = int(_param(asset, params, "slots"))
            cols, rows = min(n, 6), math.ceil(n / min(n, 6))
            pitch, margin, extra_y = {
                "tube_rack": (0.025, 0.004, 0.0),
                "thermal_block": (0.025, 0.006, 0.02),
                "tip_box": (0.009, 0.006, 0.0),
            }[asset]
            return cols * pitch / 2 + margin, rows * pitch / 2 + margin + extra_y, False
        case "pipette_stand":
            n = int(_param(asset, params, "slots"))
            return n * 0.03 / 2 + 0.004, 0.03 / 2 + 0.004, False
        case "centrifuge":
            n = int(_param(asset, params, "slots"))
            r = max(0.05, n * 0.024 / (2 * math.pi)) + 0.05
            return r, r + 0.04, False  # the start console stands in front of the housing
        case "scale":
            return 0.07, 0.085, False
        case "well_plate":
            return 0.0639, 0.0428, False
        case "waste_bin":
            return 0.06, 0.06, False
        case "stirrer":
            return 0.08, 0.1, False
        case "vortex_mixer":
            return 0.05, 0.06, False
        case "drawer":
            return 0.075, 0.075, False  # closed; the open tray reaches 13 cm further out (-y)
        case "incubator":
            return 0.08, 0.1, False  # the `set` console stands in front of the chamber
        case "timer":
            return 0.04, 0.03, False
        case _:
            return 0.0, 0.0, True
