"""The front end of scenes: a `scene` declaration -> the model's `Scene` (its robot,
entities with their parameters, contents and placements, randomizations and events)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from lablang import ast
from lablang.check.names import reserved_name
from lablang.diagnostics import Edit, Fix
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_events import check_events, parse_event
from lablang.sim.front_exprs import Front
from lablang.sim.front_placement import (
    check_label_choice,
    check_offset_choice,
    check_placements,
    check_role,
    check_surface_choice,
    randomization,
    slot_placement,
    surface_placement,
)
from lablang.sim.front_values import si_number, suggest
from lablang.sim.robots import DEFAULT_ROBOT, ROBOTS


class SceneFront(Front):
    """Reads one `scene` declaration."""

    def scene(self, decl: ast.Decl) -> sm.Scene | None:
        entities: list[sm.Entity] = []
        randomizations: list[sm.Randomization] = []
        interventions: list[sm.Intervention] = []
        robot = DEFAULT_ROBOT
        members = decl.body.members if decl.body else ()
        skip = 0
        for index, member in enumerate(members):
            if index < skip:
                continue
            match member:
                case ast.Entry(keyword="event") if reserved := reserved_name(
                    members, index, self.source.text
                ):
                    word, named, skip = reserved
                    self.reserved_name("an event", word, named.span)
                case ast.Field(key="robot"):
                    robot = self.robot(member) or robot
                case ast.Field():
                    entity = self.entity(member)
                    if entity is not None:
                        entities.append(entity)
                case ast.ExprEntry(keyword="randomize"):
                    rand = randomization(member, self.error)
                    if rand is not None:
                        randomizations.append(rand)
                case ast.Entry(keyword="event"):
                    event = self.event(member)
                    if event is not None:
                        interventions.append(event)
                case _:
                    self.error(
                        "E0708",
                        "a scene holds entities (`name: asset(...) on/in ...`) and "
                        "`randomize` entries only",
                        member.span,
                    )
        if len(entities) > catalog.MAX_ENTITIES:
            self.error(
                "E0708", f"a scene may hold at most {catalog.MAX_ENTITIES} entities", decl.name_span
            )
        scene = sm.Scene(
            decl.name, tuple(entities), tuple(randomizations), tuple(interventions), robot
        )
        check_placements(scene, self.error, self.unknown_entity)
        if len(interventions) > catalog.MAX_EVENTS:
            self.error(
                "E0708", f"a scene may hold at most {catalog.MAX_EVENTS} events", decl.name_span
            )
        check_events(scene, self.error, lambda name, span: self.unknown_entity(name, span, scene))
        for rand in randomizations:
            match rand:
                case sm.SlotPermutation():
                    names = rand.entities
                case sm.PoseRandomization():
                    names = (rand.entity,)
                case sm.RoleBinding():
                    names = rand.candidates
                case sm.SurfaceChoice():
                    names = (rand.entity, *(n for n in rand.surfaces if n != "table"))
                case sm.LabelChoice() | sm.OffsetChoice():
                    names = (rand.entity,)
                case _:
                    assert_never(rand)
            for name in names:
                if scene.entity(name) is None:
                    self.unknown_entity(name, rand.span or decl.name_span, scene)
            if isinstance(rand, sm.RoleBinding):
                check_role(rand, scene, decl.name_span, self.error)
            if isinstance(rand, sm.SurfaceChoice):
                check_surface_choice(rand, scene, decl.name_span, self.error)
            if isinstance(rand, sm.LabelChoice):
                check_label_choice(rand, scene, decl.name_span, self.error)
            if isinstance(rand, sm.OffsetChoice):
                check_offset_choice(rand, scene, decl.name_span, self.error)
        return None if self.failed else scene

    def robot(self, field: ast.Field) -> str | None:
        """`robot: panda` (or `gantry`, the default): which robot the scene's tasks run on."""
        name = field.value.id if isinstance(field.value, ast.Name) else ""
        if name in ROBOTS:
            return name
        self.error(
            "E0730",
            f"unknown robot `{name or '?'}`",
            field.value.span,
            label="not a robot the simulator can build",
            help=suggest(
                name, ROBOTS if name else (), "known robots: " + ", ".join(f"`{r}`" for r in ROBOTS)
            ),
        )
        return None

    def entity(self, field: ast.Field) -> sm.Entity | None:
        value: ast.Expr = field.value
        slot: ast.Expr | None = None
        if isinstance(field.value, ast.Binary) and field.value.op == "in":
            value, slot = field.value.left, field.value.right
        if isinstance(value, ast.Name):
            value = ast.Call(func=value, args=(), span=value.span)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            self.error(
                "E0708",
                f"entity `{field.key}` must be an asset such as `tube_1_5ml()`",
                field.value.span,
            )
            return None
        kind_name = value.func.id
        kind = catalog.ASSET_KINDS.get(kind_name)
        if kind is None:
            self.error(
                "E0701",
                f"unknown asset `{kind_name}`",
                value.func.span,
                label="not an asset the simulator can build",
                help=suggest(
                    kind_name,
                    catalog.ASSET_KINDS,
                    "known assets: " + ", ".join(f"`{k}`" for k in catalog.ASSET_KINDS),
                ),
            )
            return None
        params: list[tuple[str, float | int | str]] = []
        contents: list[sm.Content] = []
        for arg in value.args:
            if arg.name == "contents":
                contents.extend(self.contents(arg.value))
            elif arg.name is None or arg.name not in kind.params:
                self.error(
                    "E0705",
                    f"`{kind_name}` has no parameter `{arg.name or '?'}`",
                    arg.span,
                    help=suggest(
                        arg.name or "",
                        [*kind.params, "contents"],
                        "parameters: " + ", ".join(f"`{p}`" for p in [*kind.params, "contents"]),
                    ),
                )
            else:
                number = self.param(kind_name, arg.name, kind.params[arg.name], arg.value)
                if number is not None:
                    params.append((arg.name, number))
        if kind_name == "well_plate" and dict(params).get("wells", 96) not in (24, 96):
            self.error("E0705", "a `well_plate` has 24 or 96 wells", value.span)
        if contents and not kind.open_container:
            self.error("E0705", f"`{kind_name}` cannot hold contents", value.span)
        placement: sm.Placement | None = None
        placement = (
            slot_placement(slot, self.error)
            if slot is not None
            else surface_placement(field, self.error)
        )
        if placement is None and not self.failed and kind_name != "table":
            self.error(
                "E0706",
                f"entity `{field.key}` has no placement",
                field.key_span,
                help="add `on table at (x m, y m)` or `in rack.slot[0]`",
            )
        return sm.Entity(
            field.key, kind_name, tuple(params), placement, tuple(contents), span=field.span
        )

    def param(
        self, asset: str, name: str, spec: catalog.ParamSpec, expr: ast.Expr
    ) -> float | int | str | None:
        if spec.dimension == "label":
            return self.label(expr)
        value = si_number(expr, spec.dimension)
        if value is None:
            unit = {"mass": "g", "volume": "mL"}.get(spec.dimension, "")
            self.error(
                "E0705",
                f"`{asset}({name}: ...)` needs a "
                + (f"{spec.dimension} such as `20 {unit}`" if spec.dimension else "number"),
                expr.span,
            )
            return None
        if spec.integer and value != int(value):
            self.error("E0705", f"`{name}` of `{asset}` must be a whole number", expr.span)
            return None
        if not spec.low - 1e-12 <= value <= spec.high + 1e-12:
            self.error(
                "E0705",
                f"`{name}` of `{asset}` must lie between {spec.low:g} and {spec.high:g} (SI units)",
                expr.span,
            )
            return None
        return int(value) if spec.integer else value

    def label(self, expr: ast.Expr) -> str | None:
        """E0746 unless a tube's `label:` is a string a label's flag can show."""
        text = expr.value if isinstance(expr, ast.String) else None
        problem = (
            catalog.label_problem(text) if text is not None else 'a label is a string such as `"B"`'
        )
        if problem is None:
            return text
        shown = "".join(c for c in (text or "").upper() if c in catalog.LABEL_GLYPHS)
        shown = shown[: catalog.LABEL_MAX]
        fix = Fix(f'write `"{shown}"`', (Edit(expr.span, f'"{shown}"'),)) if shown else None
        self.error(
            "E0746",
            problem,
            expr.span,
            label="not a label a tube's flag can show",
            help=f"a label has 1 to {catalog.LABEL_MAX} of "
            + "".join(catalog.LABEL_GLYPHS)
            + " (seven-segment glyphs)",
            fix=fix,
        )
        return None

    def contents(self, expr: ast.Expr) -> Iterator[sm.Content]:
        items = expr.items if isinstance(expr, ast.ListExpr) else (expr,)
        for item in items:
            if (
                isinstance(item, ast.Binary)
                and item.op == "of"
                and isinstance(item.right, ast.Name)
            ):
                volume = si_number(item.left, "volume")
                mass = si_number(item.left, "mass")
                if volume is not None and volume > 0:
                    yield sm.Content(item.right.id, volume, "liquid")
                    continue
                if mass is not None and mass > 0:
                    yield sm.Content(item.right.id, mass, "powder")
                    continue
            self.error(
                "E0705",
                "contents are written `200 uL of sample` (liquids) or "
                "`50 mg of salt` (powders), with a positive amount",
                item.span,
            )

    def event(self, entry: ast.Entry) -> sm.Intervention | None:
        """`event NAME at 9 s .. 12 s { move(rack, by: (8 cm, 0 cm)) }` (`front_events`)."""
        return parse_event(entry, self.error, si_number)
