"""The front end of where things stand: placements (`on table at (x, y)`, `in rack.slot[k]`),
their checks against the scene, and `randomize` entries (poses, slot permutations, roles,
surfaces, labels and reading offsets)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from lablang import ast
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_checks import check_capacities, check_overlaps, check_slot_fits
from lablang.sim.front_events import Error
from lablang.sim.front_values import si_number
from lablang.source import Span

# reports a name the scene does not have: (name, span, scene)
Unknown = Callable[[str, Span, sm.Scene], None]


def slot_ref(expr: ast.Expr) -> sm.InSlot | None:
    if (
        isinstance(expr, ast.Index)
        and isinstance(expr.value, ast.Attribute)
        and expr.value.name == "slot"
        and isinstance(expr.value.value, ast.Name)
        and isinstance(expr.index, ast.Number)
        and expr.index.text.isdigit()
    ):
        return sm.InSlot(expr.value.value.id, int(expr.index.text))
    return None


def slot_placement(expr: ast.Expr, error: Error) -> sm.InSlot | None:
    ref = slot_ref(expr)
    if ref is None:
        error("E0706", "a slot is written `container.slot[k]`", expr.span)
        return None
    return ref


def surface_placement(field: ast.Field, error: Error) -> sm.OnSurface | None:
    surface, at = None, None
    for clause in field.clauses:
        if clause.keyword == "on" and isinstance(clause.value, ast.Name):
            surface = clause.value.id
        elif clause.keyword == "at" and not isinstance(clause.value, ast.Assignment):
            at = clause.value
        else:
            error(
                "E0706",
                f"`{clause.keyword}` is not a placement here",
                clause.span,
                help="write `on table at (x m, y m)` or `on scale`",
            )
    if surface is None:
        if at is not None:
            error("E0706", "`at` needs a surface: `on table at (x m, y m)`", field.span)
        return None
    x = y = yaw = 0.0
    if at is not None:
        items = at.items if isinstance(at, ast.TupleExpr) else ()
        values = [si_number(i, "length") for i in items[:2]]
        if len(items) not in (2, 3) or None in values:
            error("E0706", "a position is `(x m, y m)` or `(x m, y m, yaw deg)`", at.span)
            return None
        x, y = float(values[0] or 0.0), float(values[1] or 0.0)
        if len(items) == 3:
            angle = si_number(items[2], "angle")
            if angle is None:
                error(
                    "E0706",
                    "the third item of a position is an angle such as `30 deg`",
                    items[2].span,
                )
                return None
            yaw = angle
    return sm.OnSurface(surface, x, y, yaw)


def check_placements(scene: sm.Scene, error: Error, unknown: Unknown) -> None:
    taken: dict[tuple[str, int], str] = {}
    for entity in scene.entities:
        kind = catalog.ASSET_KINDS[entity.asset]
        span = entity.span or Span(0, 0)
        match entity.placement:
            case sm.InSlot(container=container, slot=slot):
                host = scene.entity(container)
                if host is None:
                    unknown(container, span, scene)
                    continue
                if not catalog.ASSET_KINDS[host.asset].slots:
                    error("E0706", f"`{container}` has no slots", span)
                    continue
                count = int(
                    host.param("slots", catalog.ASSET_KINDS[host.asset].params["slots"].default)
                )
                if not 0 <= slot < count:
                    error("E0706", f"`{container}` has slots 0 to {count - 1}, not {slot}", span)
                if kind.role != "object":
                    error("E0706", f"`{entity.name}` ({entity.asset}) cannot go in a slot", span)
                if (container, slot) in taken:
                    error(
                        "E0706",
                        f"`{entity.name}` and `{taken[container, slot]}` are both in "
                        f"`{container}.slot[{slot}]`",
                        span,
                    )
                taken[container, slot] = entity.name
            case sm.OnSurface(surface=surface):
                if surface != "table":
                    host = scene.entity(surface)
                    if host is None:
                        unknown(surface, span, scene)
                    elif not catalog.ASSET_KINDS[host.asset].surface:
                        error("E0706", f"nothing can be put on `{surface}` ({host.asset})", span)
                    elif kind.role == "fixture":
                        error("E0706", "fixtures stand on the table", span)
    check_capacities(scene, error)
    check_overlaps(scene, error)
    check_slot_fits(scene, error)


def randomization(entry: ast.ExprEntry, error: Error) -> sm.Randomization | None:
    within = next((c.value for c in entry.clauses if c.keyword == "within"), None)
    source = next((c.value for c in entry.clauses if c.keyword == "from"), None)
    target = entry.value
    if source is not None:
        if within is not None or not isinstance(target, ast.Name):
            error(
                "E0708",
                "write `randomize role from [tube_A, tube_B]` (one role, no `within`)",
                entry.span,
            )
            return None
        items = source.items if isinstance(source, ast.ListExpr) else ()
        if not items or not all(isinstance(i, ast.Name) for i in items):
            error(
                "E0708",
                "`from` takes a list of entities such as `[tube_A, tube_B]`",
                entry.span,
            )
            return None
        if len(items) > catalog.MAX_ENTITIES:
            error(
                "E0708",
                f"a role binds one of at most {catalog.MAX_ENTITIES} entities",
                entry.span,
            )
            return None
        candidates = tuple(i.id for i in items if isinstance(i, ast.Name))
        return sm.RoleBinding(target.id, candidates, span=entry.span)
    if isinstance(target, ast.Attribute) and target.name == "label":
        return label_choice(entry, target, within, error)
    if isinstance(target, ast.Attribute) and target.name == "offset":
        return offset_choice(entry, target, within, error)
    names: list[str] = []
    for item in target.items if isinstance(target, ast.ListExpr) else (target,):
        if isinstance(item, ast.Attribute) and item.name == "pose":
            item = item.value
        if isinstance(item, ast.Name):
            names.append(item.id)
        else:
            error("E0708", "`randomize` takes an entity or a list of entities", item.span)
            return None
    if isinstance(within, ast.ListExpr) and len(names) == 1:
        surfaces = [i.id for i in within.items if isinstance(i, ast.Name)]
        if len(surfaces) < 2 or len(surfaces) != len(within.items):
            error("E0708", "name two or more surfaces, as in `within [table, scale]`", within.span)
            return None
        return sm.SurfaceChoice(names[0], tuple(surfaces), span=entry.span)
    if isinstance(within, ast.Block) and len(names) == 1:
        bounds = {"x": 0.0, "y": 0.0, "yaw": 0.0}
        for member in within.members:
            if isinstance(member, ast.Field) and member.key in bounds:
                value = si_number(member.value, "angle" if member.key == "yaw" else "length")
                if value is not None:
                    bounds[member.key] = abs(value)
                    continue
            error("E0708", "pose bounds are `{x: ±2 cm, y: ±2 cm, yaw: ±10 deg}`", member.span)
            return None
        if bounds["x"] > 0.3 or bounds["y"] > 0.3:
            error("E0708", "pose randomization is limited to ±30 cm", within.span)
            return None
        return sm.PoseRandomization(
            names[0], bounds["x"], bounds["y"], bounds["yaw"], span=entry.span
        )
    if (
        isinstance(within, ast.Index)
        and isinstance(within.value, ast.Attribute)
        and within.value.name == "slot"
        and isinstance(within.value.value, ast.Name)
        and isinstance(within.index, ast.Binary)
        and within.index.op == ".."
        and isinstance(within.index.left, ast.Number)
        and isinstance(within.index.right, ast.Number)
    ):
        low, high = (
            int(Fraction(within.index.left.text)),
            int(Fraction(within.index.right.text)),
        )
        slots = tuple(range(low, high + 1))
        if len(slots) < len(names):
            error("E0708", f"{len(names)} entities need at least as many slots", within.span)
            return None
        return sm.SlotPermutation(tuple(names), within.value.value.id, slots, span=entry.span)
    error(
        "E0708",
        "write `randomize rack within {x: ±2 cm, y: ±2 cm, yaw: ±10 deg}` or "
        "`randomize [tube_A, tube_B] within rack.slot[0..5]` or "
        "`randomize w5 within [table, scale]` or `randomize role from [tube_A, tube_B]`",
        entry.span,
    )
    return None


def _listed(
    entry: ast.ExprEntry,
    target: ast.Attribute,
    within: object,
    value_of: Callable[[ast.Expr], Any],
    what: str,
    error: Error,
) -> tuple[str, list[ast.Expr], list[Any]] | None:
    """The entity and the two or more values of `randomize ENTITY.PROPERTY within [...]`
    (E0708 naming `what`, such as `masses, as in ...`, unless every item is a value)."""
    items = list(within.items) if isinstance(within, ast.ListExpr) else []
    values = [value_of(i) for i in items]
    if not isinstance(target.value, ast.Name) or len(values) < 2 or None in values:
        error("E0708", f"name two or more {what}", entry.span)
        return None
    return target.value.id, items, values


def label_choice(
    entry: ast.ExprEntry, target: ast.Attribute, within: object, error: Error
) -> sm.LabelChoice | None:
    """`randomize tube_A.label within ["A", "B"]`: two or more labels, each drawable."""
    what = 'labels, as in `randomize tube_A.label within ["A", "B"]`'
    listed = _listed(
        entry, target, within, lambda i: i.value if isinstance(i, ast.String) else None,
        what, error,
    )  # fmt: skip
    if listed is None:
        return None
    name, items, labels = listed
    ok = True
    for item, text in zip(items, labels, strict=True):
        problem = catalog.label_problem(text)
        if problem is not None:
            help = f"a label has 1 to {catalog.LABEL_MAX} of " + "".join(catalog.LABEL_GLYPHS)
            error("E0746", problem, item.span, help=help)
            ok = False
    return sm.LabelChoice(name, tuple(labels), span=entry.span) if ok else None


def offset_choice(
    entry: ast.ExprEntry, target: ast.Attribute, within: object, error: Error
) -> sm.OffsetChoice | None:
    """`randomize scale.offset within [0 g, 5 g]`: two or more masses of at most 100 g."""
    what = "masses, as in `randomize scale.offset within [0 g, 5 g]`"
    listed = _listed(entry, target, within, lambda i: si_number(i, "mass"), what, error)
    if listed is None:
        return None
    name, _, offsets = listed
    if max(abs(m) for m in offsets) > catalog.MAX_READING_OFFSET + 1e-12:
        error("E0708", "a scale's reading offset is at most 100 g either way", entry.span)
        return None
    return sm.OffsetChoice(name, tuple(offsets), span=entry.span)


def check_label_choice(rand: sm.LabelChoice, scene: sm.Scene, fallback: Span, error: Error) -> None:
    """The varied tube declares a label (its flag is built for it)."""
    entity = scene.entity(rand.entity)
    if entity is not None and not entity.param("label", ""):
        error(
            "E0746",
            f"`{rand.entity}` has no `label:` to vary",
            rand.span or fallback,
            help=f'declare one on the tube, such as `{entity.asset}(label: "{rand.labels[0]}")`',
        )


def check_offset_choice(
    rand: sm.OffsetChoice, scene: sm.Scene, fallback: Span, error: Error
) -> None:
    """A reading offset belongs to a scale."""
    entity = scene.entity(rand.entity)
    if entity is not None and entity.asset != "scale":
        error(
            "E0708",
            f"`{rand.entity}` ({entity.asset}) is not a scale: only a scale's reading has an offset",
            rand.span or fallback,
        )


def check_role(rand: sm.RoleBinding, scene: sm.Scene, fallback: Span, error: Error) -> None:
    span = rand.span or fallback
    if scene.entity(rand.role) is not None or rand.role == "table":
        error("E0708", f"the role `{rand.role}` is already an entity's name", span)
    if len(set(rand.candidates)) != len(rand.candidates):
        error("E0708", f"the candidates for `{rand.role}` repeat an entity", span)
    assets = {e.asset for n in rand.candidates if (e := scene.entity(n)) is not None}
    if len(assets) > 1:
        error(
            "E0708",
            f"the candidates for `{rand.role}` are of one asset, not "
            + ", ".join(f"`{a}`" for a in sorted(assets)),
            span,
        )


def check_surface_choice(
    rand: sm.SurfaceChoice, scene: sm.Scene, fallback: Span, error: Error
) -> None:
    """The object is declared on the first of the surfaces; the others can carry it."""
    span = rand.span or fallback
    entity = scene.entity(rand.entity)
    if entity is None:
        return  # reported as an unknown entity
    if catalog.ASSET_KINDS[entity.asset].role != "object":
        error("E0708", f"`{rand.entity}` ({entity.asset}) is not an object that can be moved", span)
        return
    placement = entity.placement
    if not isinstance(placement, sm.OnSurface) or placement.surface != rand.surfaces[0]:
        error(
            "E0708",
            f"`{rand.entity}` is declared on `{rand.surfaces[0]}` first: its place there is "
            "where the instances that draw that surface start it",
            span,
        )
    if len(set(rand.surfaces)) != len(rand.surfaces):
        error("E0708", f"the surfaces for `{rand.entity}` repeat one", span)
    for name in rand.surfaces[1:]:
        host = scene.entity(name)
        if name == "table":
            error("E0708", "the table can only be the first surface (the declared place)", span)
        elif host is not None and not catalog.ASSET_KINDS[host.asset].surface:
            error("E0706", f"nothing can be put on `{name}` ({host.asset})", span)
        elif others := [
            e.name
            for e in scene.entities
            if isinstance(e.placement, sm.OnSurface) and e.placement.surface == name
        ]:
            # the object would start at the surface's centre, where another may stand
            error(
                "E0708",
                f"`{name}` already carries `{others[0]}`: `{rand.entity}` would start at its "
                "centre beside it; choose a surface that carries nothing",
                span,
            )
