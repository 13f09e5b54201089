"""Scene checks at `lablang check` time: impossible scenes are diagnosed before they run.

* E0710: a container's declared contents exceed its capacity (80 mL in a 50 mL beaker;
  powders count at their bulk density).
* E0711: two placements overlap (objects on one surface, objects and fixtures on the
  table, two fixtures), from the catalog's footprints at their nominal poses.
* E0712: a skill cannot act on that entity: every static precondition of a skill
  (`catalog.SKILL_NEEDS`: `twist_cap` needs a bottle, `tare` a scale, `invert` 1 to 50
  inversions, ...); a tip cannot enter a `tube_1_5ml` (its interior is not modelled), and a
  container capped by build (`tube_1_5ml(capped: 1)`, a vial) can neither give nor take
  liquid or powder, since no skill uncaps it.
* E0745: an object does not fit the slot it is put in (`catalog.slot_misfit`: a vial in a
  tube rack's slot): placed there, permuted among such slots, moved there by a skill, or
  asked to be there by a success spec.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lablang.diagnostics import Edit, Fix
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.binding import TRANSFERS
from lablang.source import Span

Error = Callable[..., None]

# skills and the positions of their arguments that give or take contents
_TIP_ENTERS = {"aspirate": (1,), "mix_by_pipetting": (1,), "transfer": (1,)}
_CONTENTS = {
    "aspirate": (1,),
    "dispense": (1,),
    "mix_by_pipetting": (1,),
    "transfer": (1, 2),
    "pour": (0, 1),
    "dispense_powder": (0, 1),
    "scoop": (1,),
    "empty_scoop": (1,),
}
_UNITS = {"liquid": (1e6, "mL"), "powder": (1e3, "g")}


def _params(entity: sm.Entity) -> dict[str, float | int | str]:
    return dict(entity.params)


def capped_by_build(entity: sm.Entity) -> bool:
    """A container that starts capped and that no skill can open (bottles can be)."""
    if entity.asset == "vial":
        return True
    return (
        entity.asset in catalog.TUBES
        and int(entity.param("capped", 1)) == 1
        and not int(entity.param("hollow", 0))
    )


def check_capacities(scene: sm.Scene, error: Error) -> None:
    for entity in scene.entities:
        if not entity.contents:
            continue
        volume = catalog.capacity(entity.asset, _params(entity))
        if volume is None:
            continue
        held = sum(
            c.amount if c.kind == "liquid" else c.amount / catalog.POWDER_DENSITY
            for c in entity.contents
        )
        if held > volume * (1 + 1e-9):
            error(
                "E0710",
                f"`{entity.name}` holds {held * 1e6:g} mL but its capacity is {volume * 1e6:g} mL",
                entity.span or Span(0, 0),
                help=f"put at most {volume * 1e6:g} mL in it, or take a larger container",
            )


def check_overlaps(scene: sm.Scene, error: Error) -> None:
    """Footprints at their nominal poses (randomization is not widened here)."""
    placed: list[tuple[sm.Entity, str, float, float, float]] = []  # surface, x, y, yaw
    for entity in scene.entities:
        kind = catalog.ASSET_KINDS[entity.asset]
        match entity.placement:
            case sm.OnSurface(surface=surface, x=x, y=y, yaw=yaw):
                placed.append((entity, surface, x, y, yaw))
            case None if kind.role == "fixture" and entity.asset != "table":
                placed.append((entity, "table", 0.3, 0.0, 0.0))
            case _:
                pass
    for i, (a, surface_a, xa, ya, yawa) in enumerate(placed):
        for b, surface_b, xb, yb, yawb in placed[i + 1 :]:
            if surface_a != surface_b:
                continue
            if _overlap((a, xa, ya, yawa), (b, xb, yb, yawb)):
                where = "the table" if surface_a == "table" else f"`{surface_a}`"
                error(
                    "E0711",
                    f"`{b.name}` and `{a.name}` overlap on {where}: they cannot both stand there",
                    b.span or Span(0, 0),
                    help=f"move `{b.name}` with `at (x m, y m)` so that the two do not touch",
                )


def _overlap(
    a: tuple[sm.Entity, float, float, float], b: tuple[sm.Entity, float, float, float]
) -> bool:
    (ea, xa, ya, yawa), (eb, xb, yb, yawb) = a, b
    ha = catalog.footprint(ea.asset, _params(ea))
    hb = catalog.footprint(eb.asset, _params(eb))
    if ha[2] and hb[2]:
        return math.hypot(xa - xb, ya - yb) < ha[0] + hb[0] - 1e-6
    if ha[2] or hb[2]:  # a circle against a box: the box's nearest point
        (circle, cx, cy, _), (box, bx, by, byaw) = (a, b) if ha[2] else (b, a)
        r = (ha if ha[2] else hb)[0]
        hx, hy, _ = hb if ha[2] else ha
        c, s = math.cos(byaw), math.sin(byaw)
        lx, ly = c * (cx - bx) + s * (cy - by), -s * (cx - bx) + c * (cy - by)
        nx, ny = max(-hx, min(hx, lx)), max(-hy, min(hy, ly))
        del circle, box
        return math.hypot(lx - nx, ly - ny) < r - 1e-6
    return _boxes_overlap((xa, ya, yawa, ha[0], ha[1]), (xb, yb, yawb, hb[0], hb[1]))


def _boxes_overlap(
    a: tuple[float, float, float, float, float], b: tuple[float, float, float, float, float]
) -> bool:
    """Separating-axis test of two rotated rectangles (centre, yaw, half extents)."""
    boxes = (a, b)
    axes = [(math.cos(t), math.sin(t)) for _, _, t, _, _ in boxes]
    axes += [(-s, c) for c, s in axes]
    dx, dy = b[0] - a[0], b[1] - a[1]
    for ux, uy in axes:
        reach = 0.0
        for _, _, t, hx, hy in boxes:
            c, s = math.cos(t), math.sin(t)
            reach += hx * abs(c * ux + s * uy) + hy * abs(-s * ux + c * uy)
        if abs(dx * ux + dy * uy) >= reach - 1e-6:
            return False
    return True


def check_container_use(call: sm.Call, scene: sm.Scene, error: Error) -> None:
    """E0712: the call gives or takes contents through a container that cannot allow it."""
    for index in _CONTENTS.get(call.func, ()):
        if index >= len(call.args):
            continue
        arg = call.args[index]
        if not isinstance(arg, sm.Ref) or arg.path:
            continue
        entity = scene.entity(arg.name)
        if entity is None:
            continue
        span = arg.span or call.span or Span(0, 0)
        if capped_by_build(entity):
            error(
                "E0712",
                f"`{call.func}` cannot reach the contents of `{entity.name}`: a {entity.asset} "
                "is capped and no skill uncaps it",
                span,
                help="declare it open (`tube_1_5ml(capped: 0)`) or use a beaker or a bottle",
            )
        elif (
            entity.asset in catalog.TUBES
            and not int(entity.param("hollow", 0))
            and index in _TIP_ENTERS.get(call.func, ())
        ):
            error(
                "E0712",
                f"`{call.func}` cannot draw from `{entity.name}`: a pipette tip cannot enter a "
                f"solid {entity.asset} (its interior is not modelled)",
                span,
                help=f"declare it `{entity.asset}(hollow: 1)` (an open tube whose bore a tip can "
                "enter), or draw from a beaker, a bottle, a flask or a plate well",
            )


def check_skill_needs(call: sm.Call, scene: sm.Scene, error: Error) -> None:
    """E0712: an argument breaks a static precondition of its skill (`SKILL_NEEDS`)."""
    for needs in catalog.SKILL_NEEDS.get(call.func, ()):
        if needs.index >= len(call.args):
            continue
        arg = call.args[needs.index]
        span = arg.span or call.span or Span(0, 0)
        if isinstance(arg, sm.Num):
            problem = needs.broken_by(call.func, None, None, arg.value)
            if problem:
                low, high = needs.low, needs.high
                error("E0712", problem, span, help=f"give {needs.what} from {low:g} to {high:g}")
            continue
        if not isinstance(arg, sm.Ref) or needs.slot != (bool(arg.path) and arg.path[0] == "slot"):
            continue
        entity = scene.entity(arg.name)
        if entity is None:
            continue
        problem = needs.broken_by(call.func, arg.name, entity.asset, None)
        if not problem:
            continue
        fits = [e.name for e in scene.entities if e.asset in needs.assets]
        if fits:
            help_text = f"name {needs.what}: {', '.join(f'`{n}`' for n in fits[:4])}"
        else:
            help_text = f"add {needs.what} to the scene, or use another skill"
        fix = None
        if len(fits) == 1 and arg.span is not None:
            name_span = Span(arg.span.start, arg.span.start + len(arg.name))
            fix = Fix(f"use `{fits[0]}`", (Edit(name_span, fits[0]),))
        error("E0712", problem, span, help=help_text, fix=fix)


# skills that put their first argument into the slot another argument names
# the skills that carry their object to the destination (`binding.TRANSFERS`, the one list,
# and `weigh`, which sets it on the scale), not those that move its contents there (`pour`,
# `dispense`, `empty_scoop`): only a carried object must fit the slot it goes to
_INTO_SLOT = {
    skill: index
    for skill, index in catalog.DESTINATION_ARGUMENT.items()
    if catalog.SKILL_SIGNATURES[skill][0][:1] == ("object",) and skill in (*TRANSFERS, "weigh")
}


def slot_host(arg: sm.Expr) -> str | None:
    """The entity whose slot `arg` names (`rack.slot[2]`, `opposite(rotor, ...)`; `rack`
    itself, any of its slots), or None."""
    if isinstance(arg, sm.Ref) and (not arg.path or arg.path[:1] == ("slot",)):
        return arg.name
    if isinstance(arg, sm.Call) and arg.func == "opposite" and arg.args:
        first = arg.args[0]
        return first.name if isinstance(first, sm.Ref) and not first.path else None
    return None


def check_slot_fit(call: sm.Call, scene: sm.Scene, error: Error) -> None:
    """E0745: a skill moving an object into a slot, or a spec's `in(object, host.slot[k])`,
    names an object that does not fit that slot (roles are checked per binding)."""
    if call.func == "in" and len(call.args) == 2:
        index = 1
    elif call.func in _INTO_SLOT:
        index = _INTO_SLOT[call.func]
    else:
        return
    if index >= len(call.args) or not isinstance(call.args[0], sm.Ref) or call.args[0].path:
        return
    host_name = slot_host(call.args[index])
    obj, host = scene.entity(call.args[0].name), scene.entity(host_name or "")
    if obj is None or host is None:
        return
    report_misfit(obj, host, call.args[0].span or call.span, scene, error)


def check_slot_fits(scene: sm.Scene, error: Error) -> None:
    """E0745 for the scene: an entity placed in a slot, or permuted among slots, it does
    not fit."""
    for entity in scene.entities:
        if isinstance(entity.placement, sm.InSlot):
            host = scene.entity(entity.placement.container)
            if host is not None:
                report_misfit(entity, host, entity.span, scene, error)
    for choice in scene.randomizations:
        if isinstance(choice, sm.SlotPermutation):
            host = scene.entity(choice.container)
            for name in choice.entities:
                member = scene.entity(name)
                placed = member.placement if member is not None else None
                if isinstance(placed, sm.InSlot) and placed.container == choice.container:
                    continue  # reported at its placement
                if host is not None and member is not None:
                    report_misfit(member, host, choice.span, scene, error)


def report_misfit(
    obj: sm.Entity, host: sm.Entity, span: Span | None, scene: sm.Scene, error: Error
) -> None:
    problem = catalog.slot_misfit(obj.asset, _params(obj), host.asset)
    if not problem:
        return
    fitting = sorted(
        {
            e.asset
            for e in scene.entities
            if catalog.ASSET_KINDS[e.asset].role == "object"
            and not catalog.slot_misfit(e.asset, _params(e), host.asset)
        }
    ) or [a for a in catalog.TUBES if not catalog.slot_misfit(a, {}, host.asset)]
    error(
        "E0745",
        f"`{obj.name}` does not fit a slot of `{host.name}`: {problem}",
        span or Span(0, 0),
        label="does not fit the slot",
        help=(
            f"use an object that fits it ({', '.join(f'a {a}' for a in fitting)})"
            if fitting
            else f"put `{obj.name}` on a surface instead"
        ),
    )
