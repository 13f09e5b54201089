"""The front end: `scene` and `task` declarations -> the simulator's model.

It imports no MuJoCo, so `lablang check` can run it on every file that declares
scenes or tasks. Every problem is a diagnostic (E07xx/W07xx), never an exception.

>>> from lablang.driver import check_text
>>> result = check_text('''
... scene s { tube: tube_1_5ml() on table at (0.2 m, 0.1 m) }
... task t in s { step lift { do { pick(tube) } success: grasped(tube) } }''')
>>> task = tasks_of(result.program, result.report)["t"]
>>> [c.func for c in task.steps[0].program], task.scene.entities[0].placement
(['pick'], OnSurface(surface='table', x=0.2, y=0.1, yaw=0.0))
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import assert_never

from lablang import ast
from lablang.check.names import did_you_mean
from lablang.diagnostics import Report
from lablang.resolve import Program
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_checks import check_capacities, check_container_use, check_overlaps
from lablang.sim.front_events import check_events, parse_event
from lablang.source import Source, Span
from lablang.units import UNITS

# unit-table base units -> SI
# (temperatures stay in degrees Celsius)
_SI = {
    "length": 1.0,
    "mass": 1e-3,
    "volume": 1e-3,
    "time": 1.0,
    "angle": math.pi / 180,
    "temperature": 1.0,
}
_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


def check_program(program: Program, report: Report) -> None:
    """Backend check for `lablang check`: scenes and tasks turn into a runnable model."""
    tasks_of(program, report)


def tasks_of(program: Program, report: Report) -> dict[str, sm.Task]:
    """Every task of the root module, as simulator tasks (those with errors are left out)."""
    source = program.root.source
    scenes: dict[str, sm.Scene | None] = {}
    for decl in program.decls("scene"):
        scenes[decl.name] = _Front(source, report).scene(decl)
    tasks: dict[str, sm.Task] = {}
    for decl in program.decls("task"):
        task = _Front(source, report).task(decl, program, scenes)
        if task is not None:
            tasks[decl.name] = task
    return tasks


class _Front:
    def __init__(self, source: Source, report: Report) -> None:
        self.source = source
        self.report = report
        self.failed = False
        self.instruction_span: Span | None = None

    def error(self, code: str, message: str, span: Span, **kw: object) -> None:
        self.failed = True
        self.report.add(code, message, self.source, span, **kw)  # type: ignore[arg-type]

    # ------------------------------------------------------------ scenes

    def scene(self, decl: ast.Decl) -> sm.Scene | None:
        entities: list[sm.Entity] = []
        randomizations: list[sm.Randomization] = []
        interventions: list[sm.Intervention] = []
        members = decl.body.members if decl.body else ()
        for member in members:
            match member:
                case ast.Field():
                    entity = self.entity(member)
                    if entity is not None:
                        entities.append(entity)
                case ast.ExprEntry(keyword="randomize"):
                    rand = self.randomize(member)
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
        scene = sm.Scene(decl.name, tuple(entities), tuple(randomizations), tuple(interventions))
        self.check_placements(scene)
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
                case _:
                    assert_never(rand)
            for name in names:
                if scene.entity(name) is None:
                    self.unknown_entity(name, rand.span or decl.name_span, scene)
            if isinstance(rand, sm.RoleBinding):
                self.check_role(rand, scene, decl.name_span)
        return None if self.failed else scene

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
            guess = did_you_mean(kind_name, catalog.ASSET_KINDS)
            self.error(
                "E0701",
                f"unknown asset `{kind_name}`",
                value.func.span,
                label="not an asset the simulator can build",
                help=f"did you mean `{guess}`?"
                if guess
                else "known assets: " + ", ".join(f"`{k}`" for k in catalog.ASSET_KINDS),
            )
            return None
        params: list[tuple[str, float | int | str]] = []
        contents: list[sm.Content] = []
        for arg in value.args:
            if arg.name == "contents":
                contents.extend(self.contents(arg.value))
            elif arg.name is None or arg.name not in kind.params:
                guess = did_you_mean(arg.name or "", [*kind.params, "contents"])
                self.error(
                    "E0705",
                    f"`{kind_name}` has no parameter `{arg.name or '?'}`",
                    arg.span,
                    help=f"did you mean `{guess}`?"
                    if guess
                    else "parameters: " + ", ".join(f"`{p}`" for p in [*kind.params, "contents"]),
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
        placement = self.slot_placement(slot) if slot is not None else self.surface_placement(field)
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
    ) -> float | int | None:
        value = self.number(expr, spec.dimension)
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

    def number(self, expr: ast.Expr, dimension: str) -> float | None:
        """The SI value of a number (no dimension) or a quantity of the given dimension."""
        sign = 1.0
        while isinstance(expr, ast.Unary) and expr.op in ("-", "+", "±"):
            sign *= -1.0 if expr.op == "-" else 1.0
            expr = expr.operand
        match expr:
            case ast.Number(text=text) if dimension == "":
                return sign * float(Fraction(text))
            case ast.Quantity(number=number, unit=unit) if unit in UNITS:
                u = UNITS[unit]
                if u.dimension != dimension or dimension not in _SI:
                    return None
                base = Fraction(number) * u.factor + u.offset
                return sign * float(base) * _SI[dimension]
            case _:
                return None

    def contents(self, expr: ast.Expr) -> Iterator[sm.Content]:
        items = expr.items if isinstance(expr, ast.ListExpr) else (expr,)
        for item in items:
            if (
                isinstance(item, ast.Binary)
                and item.op == "of"
                and isinstance(item.right, ast.Name)
            ):
                volume = self.number(item.left, "volume")
                mass = self.number(item.left, "mass")
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

    def slot_placement(self, expr: ast.Expr) -> sm.InSlot | None:
        ref = self.slot_ref(expr)
        if ref is None:
            self.error("E0706", "a slot is written `container.slot[k]`", expr.span)
            return None
        return ref

    def slot_ref(self, expr: ast.Expr) -> sm.InSlot | None:
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

    def surface_placement(self, field: ast.Field) -> sm.OnSurface | None:
        surface, at = None, None
        for clause in field.clauses:
            if clause.keyword == "on" and isinstance(clause.value, ast.Name):
                surface = clause.value.id
            elif clause.keyword == "at" and not isinstance(clause.value, ast.Assignment):
                at = clause.value
            else:
                self.error(
                    "E0706",
                    f"`{clause.keyword}` is not a placement here",
                    clause.span,
                    help="write `on table at (x m, y m)` or `on scale`",
                )
        if surface is None:
            if at is not None:
                self.error("E0706", "`at` needs a surface: `on table at (x m, y m)`", field.span)
            return None
        x = y = yaw = 0.0
        if at is not None:
            items = at.items if isinstance(at, ast.TupleExpr) else ()
            values = [self.number(i, "length") for i in items[:2]]
            if len(items) not in (2, 3) or None in values:
                self.error("E0706", "a position is `(x m, y m)` or `(x m, y m, yaw deg)`", at.span)
                return None
            x, y = float(values[0] or 0.0), float(values[1] or 0.0)
            if len(items) == 3:
                angle = self.number(items[2], "angle")
                if angle is None:
                    self.error(
                        "E0706",
                        "the third item of a position is an angle such as `30 deg`",
                        items[2].span,
                    )
                    return None
                yaw = angle
        return sm.OnSurface(surface, x, y, yaw)

    def check_role(self, rand: sm.RoleBinding, scene: sm.Scene, fallback: Span) -> None:
        span = rand.span or fallback
        if scene.entity(rand.role) is not None or rand.role == "table":
            self.error("E0708", f"the role `{rand.role}` is already an entity's name", span)
        if len(set(rand.candidates)) != len(rand.candidates):
            self.error("E0708", f"the candidates for `{rand.role}` repeat an entity", span)
        assets = {e.asset for n in rand.candidates if (e := scene.entity(n)) is not None}
        if len(assets) > 1:
            self.error(
                "E0708",
                f"the candidates for `{rand.role}` are of one asset, not "
                + ", ".join(f"`{a}`" for a in sorted(assets)),
                span,
            )

    def randomize(self, entry: ast.ExprEntry) -> sm.Randomization | None:
        within = next((c.value for c in entry.clauses if c.keyword == "within"), None)
        source = next((c.value for c in entry.clauses if c.keyword == "from"), None)
        target = entry.value
        if source is not None:
            if within is not None or not isinstance(target, ast.Name):
                self.error(
                    "E0708",
                    "write `randomize role from [tube_A, tube_B]` (one role, no `within`)",
                    entry.span,
                )
                return None
            items = source.items if isinstance(source, ast.ListExpr) else ()
            if not items or not all(isinstance(i, ast.Name) for i in items):
                self.error(
                    "E0708",
                    "`from` takes a list of entities such as `[tube_A, tube_B]`",
                    entry.span,
                )
                return None
            if len(items) > catalog.MAX_ENTITIES:
                self.error(
                    "E0708",
                    f"a role binds one of at most {catalog.MAX_ENTITIES} entities",
                    entry.span,
                )
                return None
            candidates = tuple(i.id for i in items if isinstance(i, ast.Name))
            return sm.RoleBinding(target.id, candidates, span=entry.span)
        names: list[str] = []
        for item in target.items if isinstance(target, ast.ListExpr) else (target,):
            if isinstance(item, ast.Attribute) and item.name == "pose":
                item = item.value
            if isinstance(item, ast.Name):
                names.append(item.id)
            else:
                self.error("E0708", "`randomize` takes an entity or a list of entities", item.span)
                return None
        if isinstance(within, ast.Block) and len(names) == 1:
            bounds = {"x": 0.0, "y": 0.0, "yaw": 0.0}
            for member in within.members:
                if isinstance(member, ast.Field) and member.key in bounds:
                    value = self.number(member.value, "angle" if member.key == "yaw" else "length")
                    if value is not None:
                        bounds[member.key] = abs(value)
                        continue
                self.error(
                    "E0708", "pose bounds are `{x: ±2 cm, y: ±2 cm, yaw: ±10 deg}`", member.span
                )
                return None
            if bounds["x"] > 0.3 or bounds["y"] > 0.3:
                self.error("E0708", "pose randomization is limited to ±30 cm", within.span)
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
                self.error(
                    "E0708", f"{len(names)} entities need at least as many slots", within.span
                )
                return None
            return sm.SlotPermutation(tuple(names), within.value.value.id, slots, span=entry.span)
        self.error(
            "E0708",
            "write `randomize rack within {x: ±2 cm, y: ±2 cm, yaw: ±10 deg}` or "
            "`randomize [tube_A, tube_B] within rack.slot[0..5]` or "
            "`randomize role from [tube_A, tube_B]`",
            entry.span,
        )
        return None

    def event(self, entry: ast.Entry) -> sm.Intervention | None:
        """`event NAME at 9 s .. 12 s { move(rack, by: (8 cm, 0 cm)) }` (`front_events`)."""
        return parse_event(entry, self.error, self.number)

    def check_placements(self, scene: sm.Scene) -> None:
        taken: dict[tuple[str, int], str] = {}
        for entity in scene.entities:
            kind = catalog.ASSET_KINDS[entity.asset]
            span = entity.span or Span(0, 0)
            match entity.placement:
                case sm.InSlot(container=container, slot=slot):
                    host = scene.entity(container)
                    if host is None:
                        self.unknown_entity(container, span, scene)
                        continue
                    if not catalog.ASSET_KINDS[host.asset].slots:
                        self.error("E0706", f"`{container}` has no slots", span)
                        continue
                    count = int(
                        host.param("slots", catalog.ASSET_KINDS[host.asset].params["slots"].default)
                    )
                    if not 0 <= slot < count:
                        self.error(
                            "E0706", f"`{container}` has slots 0 to {count - 1}, not {slot}", span
                        )
                    if kind.role != "object":
                        self.error(
                            "E0706", f"`{entity.name}` ({entity.asset}) cannot go in a slot", span
                        )
                    if (container, slot) in taken:
                        self.error(
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
                            self.unknown_entity(surface, span, scene)
                        elif not catalog.ASSET_KINDS[host.asset].surface:
                            self.error(
                                "E0706", f"nothing can be put on `{surface}` ({host.asset})", span
                            )
                        elif kind.role == "fixture":
                            self.error("E0706", "fixtures stand on the table", span)
        check_capacities(scene, self.error)
        check_overlaps(scene, self.error)

    def unknown_entity(self, name: str, span: Span, scene: sm.Scene) -> None:
        names = [e.name for e in scene.entities] + ["table", *scene.roles()]
        guess = did_you_mean(name, names)
        self.error(
            "E0704",
            f"scene `{scene.name}` has no entity `{name}`",
            span,
            help=f"did you mean `{guess}`?" if guess else None,
        )

    # ------------------------------------------------------------ tasks

    def task(
        self, decl: ast.Decl, program: Program, scenes: dict[str, sm.Scene | None]
    ) -> sm.Task | None:
        if not decl.scope:
            self.error(
                "E0707",
                f"task `{decl.name}` names no scene",
                decl.name_span,
                help=f"write `task {decl.name} in SCENE {{ ... }}`",
            )
            return None
        scene_name = ".".join(decl.scope)
        if scene_name not in scenes:
            symbol = program.root.lookup(decl.scope)
            if symbol is not None and symbol.decl.kind == "scene":
                # a scene imported with `use` (e.g. from the standard library's sim.benches);
                # its own diagnostics are located in its own file
                scenes[scene_name] = _Front(symbol.module.source, self.report).scene(symbol.decl)
        if scene_name not in scenes:
            guess = did_you_mean(scene_name, scenes)
            self.error(
                "E0707",
                f"task `{decl.name}` runs in `{scene_name}`, which is not a scene "
                "declared in this module or imported",
                decl.name_span,
                help=f"did you mean `{guess}`?" if guess else None,
            )
            return None
        scene = scenes[scene_name]
        if scene is None:
            return None  # its errors are already reported
        instruction = ""
        steps: list[sm.Step] = []
        for member in decl.body.members if decl.body else ():
            match member:
                case ast.Field(key="instruction", value=ast.String(value=text)):
                    instruction = text
                    self.instruction_span = member.value.span
                case ast.Entry(keyword="step"):
                    step = self.step(member, scene)
                    if step is not None:
                        steps.append(step)
                case _:
                    self.error(
                        "E0708",
                        'a task holds `instruction: "..."` and `step name { do { ... } '
                        "success: ... }` entries",
                        member.span,
                    )
        if len(steps) > catalog.MAX_STEPS:
            self.error(
                "E0708", f"a task may have at most {catalog.MAX_STEPS} steps", decl.name_span
            )
        if not steps and not self.failed:
            self.error("E0708", f"task `{decl.name}` has no steps", decl.name_span)
        if self.failed:
            return None
        task = sm.Task(
            decl.name,
            scene,
            tuple(steps),
            instruction,
            source_text=self.source.text[decl.span.start : decl.span.end],
        )
        self.check_instruction(decl, task)
        return task

    def step(self, entry: ast.Entry, scene: sm.Scene) -> sm.Step | None:
        program: list[sm.Call] = []
        success: sm.Expr | None = None
        window = 6.0
        may_move: list[str] = []
        name = entry.name or "?"
        for member in entry.body.members if entry.body else ():
            match member:
                case ast.Entry(keyword="do", body=ast.Block(members=calls)):
                    for stmt in calls:
                        call = self.skill_call(stmt, scene)
                        if call is not None:
                            program.append(call)
                case ast.Field(key="do", value=value):
                    stmt = ast.ExprStmt(value=value, clauses=(), span=value.span)
                    call = self.skill_call(stmt, scene)
                    if call is not None:
                        program.append(call)
                case ast.Field(key="may_move", value=value):
                    items = value.items if isinstance(value, ast.ListExpr) else (value,)
                    for item in items:
                        if not isinstance(item, ast.Name):
                            self.error("E0708", "write `may_move: [w5, w10]`", item.span)
                        elif scene.entity(item.id) is None:
                            self.unknown_entity(item.id, item.span, scene)
                        else:
                            may_move.append(item.id)
                case ast.Field(key="success", value=value, clauses=clauses):
                    success = self.expr(value, scene, condition=True)
                    for clause in clauses:
                        seconds = None
                        if clause.keyword == "within" and not isinstance(
                            clause.value, ast.Assignment
                        ):
                            seconds = self.number(clause.value, "time")
                        if seconds is None or not 0 < seconds <= catalog.MAX_CHECK_WINDOW:
                            self.error(
                                "E0708",
                                "a success spec may end with `within T`, the time it "
                                f"may take to hold, up to {catalog.MAX_CHECK_WINDOW:g} s",
                                clause.span,
                            )
                        else:
                            window = seconds
                case _:
                    self.error(
                        "E0708",
                        "a step holds `do { skill calls }`, `success: condition` (optionally "
                        "followed by `within 10 s`) and `may_move: [objects]`",
                        member.span,
                    )
        for atom in _calls(success):
            length = atom.args[1] if atom.func == "throughout" and len(atom.args) == 2 else None
            if isinstance(length, sm.Num) and length.value > window + 1e-9:
                self.error(
                    "E0708",
                    f"`throughout(..., {length.value:g} s)` cannot hold within the {window:g} s "
                    "the step allows after its program",
                    atom.span or entry.span,
                    help=f"end the spec with `within {math.ceil(length.value) + 2} s`, or use "
                    "`during(...)` for the time the program runs",
                )
        if len(program) > catalog.MAX_CALLS_PER_STEP:
            self.error(
                "E0708", f"a step may call at most {catalog.MAX_CALLS_PER_STEP} skills", entry.span
            )
        trigger: str | None = None
        events = [e.name for e in scene.interventions]
        for clause in entry.clauses:
            if clause.keyword == "on" and isinstance(clause.value, ast.Name):
                if clause.value.id in events:
                    trigger = clause.value.id
                else:
                    guess = did_you_mean(clause.value.id, events)
                    self.error(
                        "E0704",
                        f"the scene has no event `{clause.value.id}`",
                        clause.value.span,
                        help=f"did you mean `{guess}`?"
                        if guess
                        else "declare it in the scene: `event NAME at 5 s .. 8 s { move(...) }`",
                    )
            else:
                self.error(
                    "E0708",
                    "a step may wait for a scene event with `on EVENT` (no other clauses)",
                    clause.span,
                )
        return sm.Step(
            name,
            tuple(program),
            success,
            window,
            span=entry.span,
            trigger=trigger,
            may_move=tuple(may_move),
        )

    def skill_call(self, stmt: ast.Member, scene: sm.Scene) -> sm.Call | None:
        if isinstance(stmt, ast.ExprEntry) and stmt.keyword == "wait" and stmt.body is None:
            # `wait` is also a keyword of the language: `wait(2 s)` and `wait 2 s` both arrive here
            func = ast.Name(id="wait", span=Span(stmt.span.start, stmt.span.start + 4))
            arg = ast.Arg(name=None, value=stmt.value, span=stmt.value.span)
            stmt = ast.ExprStmt(
                value=ast.Call(func=func, args=(arg,), span=stmt.span), clauses=(), span=stmt.span
            )
        if not (
            isinstance(stmt, ast.ExprStmt)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
        ):
            self.error("E0708", "a `do` block holds skill calls such as `pick(tube_A)`", stmt.span)
            return None
        call = stmt.value
        name = call.func.id  # type: ignore[union-attr]
        signature = catalog.SKILL_SIGNATURES.get(name)
        if signature is None:
            guess = did_you_mean(name, catalog.SKILL_SIGNATURES)
            self.error(
                "E0702",
                f"unknown skill `{name}`",
                call.func.span,
                label="not a skill of the simulator",
                help=f"did you mean `{guess}`?" if guess else "see `docs/sim.md` for the skills",
            )
            return None
        kinds, _family = signature
        converted = self.call(call, scene, condition=False)
        if not isinstance(converted, sm.Call):
            return None
        required = [k for k in kinds if not k.startswith("?")]
        if not len(required) <= len(converted.args) <= len(kinds):
            self.error(
                "E0709",
                f"`{name}` takes {len(required)}"
                + (f" to {len(kinds)}" if len(kinds) != len(required) else "")
                + f" arguments ({', '.join(k.lstrip('?') for k in kinds) or 'none'}), "
                f"got {len(converted.args)}",
                call.span,
            )
            return None
        for kind, converted_arg in zip(kinds, converted.args, strict=False):
            self.check_argument(name, kind.lstrip("?"), converted_arg, scene)
        check_container_use(converted, scene, self.error)
        if name == "wait" and converted.args:
            first = converted.args[0]
            if isinstance(first, sm.Num) and not 0 <= first.value <= catalog.MAX_WAIT:
                self.error("E0709", f"`wait` is limited to {catalog.MAX_WAIT:g} s", call.span)
        return converted

    def check_argument(self, skill: str, kind: str, arg: sm.Expr, scene: sm.Scene) -> None:
        span = arg.span or Span(0, 0)
        if kind in ("duration", "volume", "temperature", "mass"):
            want = {"duration": "time"}.get(kind, kind)
            if not (
                isinstance(arg, sm.Num)
                and arg.dimension == want
                and (arg.value >= 0 or want == "temperature")
            ):
                self.error("E0709", f"`{skill}` needs a {want} here", span)
            return
        if kind == "count":
            if not (
                isinstance(arg, sm.Num)
                and arg.dimension == ""
                and arg.value == int(arg.value)
                and arg.value >= 1
            ):
                self.error("E0709", f"`{skill}` needs a whole number here", span)
            return
        if isinstance(arg, sm.Call):
            return  # computed at run time (e.g. `opposite(rotor, slot_of(tube_A))`)
        if not isinstance(arg, sm.Ref):
            self.error("E0709", f"`{skill}` needs an entity here", span)
            return
        entity = _lookup(scene, arg.name)
        if entity is None:
            return  # reported by `expr`
        role = catalog.ASSET_KINDS[entity.asset]
        if kind == "container" and not (
            (not arg.path and role.open_container) or (arg.path[:1] == ("well",) and role.wells)
        ):
            self.error(
                "E0709",
                f"`{skill}` needs a container (a beaker, an open tube, a well "
                f"such as `plate.well[0]`); `{arg.text()}` is not one",
                span,
            )
        elif kind == "object" and (arg.path or role.role != "object"):
            self.error(
                "E0709",
                f"`{skill}` needs an object that can be picked up; `{arg.text()}` "
                f"is a {entity.asset}",
                span,
            )
        elif kind == "button" and len(arg.path) != 1:
            self.error(
                "E0709",
                f"`{skill}` needs a button such as `{arg.name}.{(role.parts or ('start',))[0]}`",
                span,
            )

    def check_instruction(self, decl: ast.Decl, task: sm.Task) -> None:
        """W0701: the instruction should name every object the success specs require."""
        if not task.instruction:
            return
        text = " ".join(re.findall(r"[a-z0-9]+", task.instruction.lower().replace("_", " ")))
        missing: list[str] = []
        for step in task.steps:
            for ref in _refs(step.success):
                if task.scene.entity(ref) is None or ref in missing:
                    continue
                spoken = " ".join(re.findall(r"[a-z0-9]+", ref.lower().replace("_", " ")))
                if f" {spoken} " not in f" {text} ":
                    missing.append(ref)
        words = set(text.split())
        # numbers standing on their own ("20 g", "37 C"), not inside names such as `w20`
        numbers = {
            float(n) for n in re.findall(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?", task.instruction)
        }
        conditions: list[str] = []
        for step in task.steps:
            for call in _calls(step.success):
                stated = _condition_stated(call, words, numbers)
                if stated is not None and not stated and _text_of(call) not in conditions:
                    conditions.append(_text_of(call))
        for condition in conditions:
            self.report.add(
                "W0702",
                f"the instruction does not state the condition `{condition}`, which the "
                "success spec requires",
                self.source,
                self.instruction_span or decl.name_span,
                label="not stated here",
                help="say it in `instruction` (the words or the number it checks), so an agent "
                "reading only the instruction knows when the step is done",
            )
        for ref in missing:
            self.report.add(
                "W0701",
                f"the instruction does not mention `{ref}`, which the success spec requires",
                self.source,
                self.instruction_span or decl.name_span,
                label=f"`{ref}` is not mentioned here",
                help=f"name `{ref}` in `instruction`, so an agent reading only the "
                "instruction can do the task",
            )

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, scene: sm.Scene, condition: bool) -> sm.Expr | None:
        match node:
            case ast.Binary(op="and" | "or", left=left, right=right):
                parts = [self.expr(left, scene, condition), self.expr(right, scene, condition)]
                if None in parts:
                    return None
                flat: list[sm.Expr] = []
                for part in parts:
                    if isinstance(part, sm.Logic) and part.op == node.op:
                        flat.extend(part.parts)
                    elif part is not None:
                        flat.append(part)
                return sm.Logic(node.op, tuple(flat), span=node.span)
            case ast.Binary(op="in", left=left, right=right):
                a, b = self.expr(left, scene, False), self.expr(right, scene, False)
                if a is None or b is None:
                    return None
                return sm.Call("in", (a, b), span=node.span)
            case ast.Binary(op=op, left=left, right=right) if op in _COMPARE_OPS:
                a, b = self.expr(left, scene, False), self.expr(right, scene, False)
                if a is None or b is None:
                    return None
                return sm.Compare(op, a, b, span=node.span)
            case ast.Unary(op="not", operand=operand):
                inner = self.expr(operand, scene, condition)
                return None if inner is None else sm.Not(inner, span=node.span)
            case ast.Call():
                return self.call(node, scene, condition)
            case ast.Name() | ast.Attribute() | ast.Index():
                return self.ref(node, scene)
            case ast.Quantity(unit=unit) if unit in UNITS and UNITS[unit].dimension in _SI:
                dimension = UNITS[unit].dimension
                value = self.number(node, dimension)
                return sm.Num(value or 0.0, dimension, span=node.span)
            case ast.Number(text=text):
                return sm.Num(float(Fraction(text)), "", span=node.span)
            case ast.Unary(op="-" | "+"):
                for dimension in ("", *_SI):
                    value = self.number(node, dimension)
                    if value is not None:
                        return sm.Num(value, dimension, span=node.span)
            case ast.String(value=value):
                return sm.Text(value, span=node.span)
            case ast.Bool(value=value):
                return sm.Bool(value, span=node.span)
            case _:
                pass
        self.error(
            "E0708",
            "this expression is not supported in a task (partial: predicates, "
            "`and`/`or`/`not`, `true`/`false`, comparisons, entities, slots and quantities of length, mass, "
            "volume, time and angle are)",
            node.span,
        )
        return None

    def call(self, node: ast.Call, scene: sm.Scene, condition: bool) -> sm.Expr | None:
        if not isinstance(node.func, ast.Name):
            self.error("E0708", "only named predicates and skills can be called", node.func.span)
            return None
        name = node.func.id
        known = (*catalog.PREDICATE_NAMES, *catalog.FUNCTION_NAMES, *catalog.SKILL_SIGNATURES)
        if name not in known:
            pool = catalog.PREDICATE_NAMES + catalog.FUNCTION_NAMES
            guess = did_you_mean(name, pool)
            self.error(
                "E0703",
                f"unknown predicate `{name}`",
                node.func.span,
                help=f"did you mean `{guess}`?"
                if guess
                else "predicates: " + ", ".join(f"`{p}`" for p in catalog.PREDICATE_NAMES),
            )
            return None
        args: list[sm.Expr] = []
        kwargs: list[tuple[str, sm.Expr]] = []
        ok = True
        for index, arg in enumerate(node.args):
            if (
                name == "contains"
                and index == 1
                and isinstance(arg.value, ast.Name)
                and scene.entity(arg.value.id) is None
            ):  # a substance, not an entity
                args.append(sm.Ref(arg.value.id, span=arg.value.span))
                continue
            value = self.expr(arg.value, scene, False)
            if value is None:
                ok = False
            elif arg.name is None:
                args.append(value)
            else:
                kwargs.append((arg.name, value))
        if not ok:
            return None
        return sm.Call(name, tuple(args), tuple(kwargs), span=node.span)

    def ref(self, node: ast.Expr, scene: sm.Scene) -> sm.Ref | None:
        path: list[str | int] = []
        walk = node
        while True:
            match walk:
                case ast.Attribute(value=inner, name=name):
                    path.insert(0, name)
                    walk = inner
                case ast.Index(value=inner, index=ast.Number(text=text)) if text.isdigit():
                    path.insert(0, int(text))
                    walk = inner
                case ast.Name(id=name):
                    break
                case _:
                    self.error(
                        "E0708", "write a part as `rotor.slot[3]` or `scale.tare`", node.span
                    )
                    return None
        name = walk.id
        entity = _lookup(scene, name)
        if entity is None:
            if name == "table" and not path:
                return sm.Ref(name, span=node.span)
            self.unknown_entity(name, walk.span, scene)
            return None
        kind = catalog.ASSET_KINDS[entity.asset]
        match tuple(path):
            case () | ("pose",):
                pass
            case ("well", int(k)) if kind.wells:
                count = int(entity.param("wells", kind.params["wells"].default))
                if not 0 <= k < count:
                    self.error("E0706", f"`{name}` has wells 0 to {count - 1}, not {k}", node.span)
                    return None
            case ("slot", int(k)) if kind.slots:
                count = int(entity.param("slots", kind.params["slots"].default))
                if not 0 <= k < count:
                    self.error("E0706", f"`{name}` has slots 0 to {count - 1}, not {k}", node.span)
                    return None
            case (str(part),) if part in kind.parts:
                pass
            case _:
                parts = [
                    *kind.parts,
                    *(["slot[k]"] if kind.slots else []),
                    *(["well[k]"] if kind.wells else []),
                ]
                self.error(
                    "E0704",
                    f"`{name}` ({entity.asset}) has no part `{'.'.join(map(str, path))}`",
                    node.span,
                    help=("its parts: " + ", ".join(f"`{p}`" for p in parts)) if parts else None,
                )
                return None
        return sm.Ref(name, tuple(p for p in path if p != "pose"), span=node.span)


def value_expr(text: str, scene: sm.Scene, report: Report) -> sm.Expr | None:
    """An expression of the task model read from `text` (an entity, a part, a call such as
    `opposite(rotor, rotor.slot[0])`, a quantity), checked against `scene`; None with a
    diagnostic in `report` when it is not one.

    >>> from lablang.sim import load_tasks
    >>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
    >>> value_expr("rack2.slot[4]", tasks["move_tube"].scene, Report()).text()
    'rack2.slot[4]'
    """
    from lablang.syntax import parse

    source = Source(f"material value = {text}\n", "<value>")
    module = parse(source, report)
    if report.has_errors:
        return None
    if len(module.decls) != 1 or module.decls[0].value is None:
        report.add("E0708", "write one expression such as `rack.slot[2]`", source, Span(0, 0))
        return None
    front = _Front(source, report)
    value = front.expr(module.decls[0].value, scene, False)
    return None if front.failed else value


def _lookup(scene: sm.Scene, name: str) -> sm.Entity | None:
    """The entity `name` names; a role stands for its candidates (all of one asset)."""
    entity = scene.entity(name)
    if entity is None and (candidates := scene.roles().get(name)):
        entity = scene.entity(candidates[0])
    return entity


def _refs(expr: sm.Expr | None) -> Iterator[str]:
    match expr:
        case None | sm.Num() | sm.Bool() | sm.Text():
            return
        case sm.Ref(name=name):
            yield name
        case sm.Call(args=args, kwargs=kwargs):
            for a in args:
                yield from _refs(a)
            for _, v in kwargs:
                yield from _refs(v)
        case sm.Logic(parts=parts):
            for p in parts:
                yield from _refs(p)
        case sm.Not(operand=operand):
            yield from _refs(operand)
        case sm.Compare(left=left, right=right):
            yield from _refs(left)
            yield from _refs(right)


# Conditions an instruction should state: predicate -> words that state it (any one).
_CONDITION_WORDS: dict[str, tuple[str, ...]] = {
    "balanced": ("balance", "balanced", "opposite"),
    "open": ("open", "opened"),
    "closed": ("close", "closed", "shut"),
    "mixed": (
        "mix",
        "mixed",
        "invert",
        "inverting",
        "shake",
        "shaking",
        "vortex",
        "swirl",
        "stir",
    ),
    "started": ("start", "spin", "run"),
    "not_spilled": ("spill", "spilling", "spilled"),
}
# Predicates whose amount (argument index) the instruction should state as a number.
_CONDITION_AMOUNTS: dict[str, int] = {"reading": 1, "temperature": 1, "contains": 2}
_DISPLAY = {
    "mass": (1e3,),
    "volume": (1e6, 1e9),
    "temperature": (1.0,),
    "length": (1e2, 1e3, 1.0),
    "time": (1.0,),
}


def _calls(expr: sm.Expr | None) -> Iterator[sm.Call]:
    match expr:
        case sm.Call(func="during" | "throughout", args=args):
            yield expr
            if args:  # the condition inside an interval predicate
                yield from _calls(args[0])
        case sm.Call():
            yield expr
        case sm.Logic(parts=parts):
            for part in parts:
                yield from _calls(part)
        case sm.Not(operand=operand):
            yield from _calls(operand)
        case _:
            return


def _condition_stated(call: sm.Call, words: set[str], numbers: set[float]) -> bool | None:
    """Whether the instruction states the condition a predicate checks (None: nothing to
    state, e.g. `in` or `stable`, whose objects W0701 covers)."""
    if call.func in _CONDITION_WORDS:
        return bool(words & set(_CONDITION_WORDS[call.func]))
    index = _CONDITION_AMOUNTS.get(call.func)
    if index is None or len(call.args) <= index:
        return None
    amount = call.args[index]
    if not isinstance(amount, sm.Num):
        return None
    scales = _DISPLAY.get(amount.dimension, (1.0,))
    return any(abs(amount.value * k - n) < 1e-6 * max(1.0, n) for k in scales for n in numbers)


def _text_of(call: sm.Call) -> str:
    inner = []
    for arg in call.args:
        match arg:
            case sm.Ref():
                inner.append(arg.text())
            case sm.Num(value=value, dimension=dim):
                scale, unit = {
                    "mass": (1e3, " g"),
                    "volume": (1e6, " mL"),
                    "temperature": (1.0, " C"),
                    "time": (1.0, " s"),
                }.get(dim, (1.0, ""))
                inner.append(f"{value * scale:g}{unit}")
            case _:
                inner.append("...")
    return f"{call.func}({', '.join(inner)})"
