"""The front end of tasks: a `task` declaration -> the model's `Task` (its steps, their
skill calls checked against the skills' signatures, success specs and windows)."""

from __future__ import annotations

import math

from lablang import ast
from lablang.check.names import reserved_name
from lablang.resolve import Program
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_checks import check_container_use, check_skill_needs
from lablang.sim.front_exprs import Front
from lablang.sim.front_instruction import check_instruction, predicate_calls
from lablang.sim.front_scene import SceneFront
from lablang.sim.front_values import lookup, si_number, suggest
from lablang.source import Span


class TaskFront(Front):
    """Reads one `task` declaration, in a scene already read."""

    instruction_span: Span | None = None  # where `instruction: "..."` stands, once read

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
                scenes[scene_name] = SceneFront(symbol.module.source, self.report).scene(
                    symbol.decl
                )
        if scene_name not in scenes:
            self.error(
                "E0707",
                f"task `{decl.name}` runs in `{scene_name}`, which is not a scene "
                "declared in this module or imported",
                decl.name_span,
                help=suggest(scene_name, scenes),
            )
            return None
        scene = scenes[scene_name]
        if scene is None:
            return None  # its errors are already reported
        instruction = ""
        steps: list[sm.Step] = []
        members = decl.body.members if decl.body else ()
        skip = 0
        for index, member in enumerate(members):
            if index < skip:
                continue
            match member:
                case ast.Field(key="instruction", value=ast.String(value=text)):
                    instruction = text
                    self.instruction_span = member.value.span
                case ast.Entry(keyword="step") if reserved := reserved_name(
                    members, index, self.source.text
                ):
                    word, named, skip = reserved
                    self.reserved_name("a step", word, named.span)
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
        check_instruction(decl, task, self.report, self.source, self.instruction_span)
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
                            seconds = si_number(clause.value, "time")
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
        for atom in predicate_calls(success):
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
                    self.error(
                        "E0704",
                        f"the scene has no event `{clause.value.id}`",
                        clause.value.span,
                        help=suggest(
                            clause.value.id,
                            events,
                            "declare it in the scene: `event NAME at 5 s .. 8 s { move(...) }`",
                        ),
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
            self.error(
                "E0702",
                f"unknown skill `{name}`",
                call.func.span,
                label="not a skill of the simulator",
                help=suggest(name, catalog.SKILL_SIGNATURES, "see `docs/sim.md` for the skills"),
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
        check_skill_needs(converted, scene, self.error)
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
        entity = lookup(scene, arg.name)
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
