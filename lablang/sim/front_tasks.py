"""The front end of tasks: a `task` declaration -> the model's `Task` (its steps, their
skill calls checked against the skills' signatures, success specs and windows)."""

from __future__ import annotations

import math

from attrs import evolve

from lablang import ast
from lablang.check.names import reserved_name
from lablang.resolve import Program
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.binding import (
    LIDS,
    OBSERVED,
    PRESSES,
    TRANSFERS,
    ContractBinding,
    OperationMap,
)
from lablang.sim.front_checks import check_slot_fit
from lablang.sim.front_exprs import Front
from lablang.sim.front_family import check_family, read_family, reading_scene
from lablang.sim.front_instruction import check_instruction, predicate_calls
from lablang.sim.front_luck import check_luck
from lablang.sim.front_scene import SceneFront
from lablang.sim.front_skills import skill_call
from lablang.sim.front_trace import TRACE_KEYS, realized_names, task_trace
from lablang.sim.front_values import si_number, suggest
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
        contract: ast.Field | None = None
        operations: ast.Field | None = None
        traced: dict[str, ast.Field] = {}
        members = decl.body.members if decl.body else ()
        # a task family (`roles:` and `bindings:`): the steps read the roles as entities
        family = read_family(self, members, scene)
        reading = scene if family is None else reading_scene(scene, family)
        skip = 0
        for index, member in enumerate(members):
            if index < skip:
                continue
            match member:
                case ast.Field(key="instruction", value=ast.String(value=text)):
                    instruction = text
                    self.instruction_span = member.value.span
                case ast.Field(key="follows"):
                    contract = member
                case ast.Field(key="operations"):
                    operations = member
                case ast.Field(key="roles" | "bindings"):
                    pass  # read by `read_family`
                case ast.Field(key=key) if key in TRACE_KEYS:
                    traced[key] = member
                case ast.Entry(keyword="step") if reserved := reserved_name(
                    members, index, self.source.text
                ):
                    word, named, skip = reserved
                    self.reserved_name("a step", word, named.span)
                case ast.Entry(keyword="step"):
                    step = self.step(member, reading)
                    if step is not None:
                        steps.append(step)
                case _:
                    self.error(
                        "E0708",
                        'a task holds `instruction: "..."`, `step name { do { ... } '
                        "success: ... }` entries, and optionally `follows: CONTRACT(params)` "
                        "with `operations: { skill call as operation }`, `roles: [...]` "
                        "with `bindings: { training: {...} heldout: {...} }`, and its trace "
                        "to a protocol (`bind:`, `defer:`, `tolerance:`, `family:`)",
                        member.span,
                    )
        if len(steps) > catalog.MAX_STEPS:
            self.error(
                "E0708", f"a task may have at most {catalog.MAX_STEPS} steps", decl.name_span
            )
        if not steps and not self.failed:
            self.error("E0708", f"task `{decl.name}` has no steps", decl.name_span)
        binding = None
        if contract is not None:
            binding = bind_contract(self, contract, operations, program, reading)
        elif operations is not None:
            self.error(
                "E0708",
                "`operations:` maps skill calls to the operations of a contract: name it "
                "with `follows: CONTRACT(params)`",
                operations.span,
            )
        bindings: tuple[sm.FamilyBinding, ...] = ()
        if family is not None and not self.failed:
            bindings = check_family(
                self, family, members, scene, decl.name, lambda r: TaskFront(self.source, r)
            )
        trace, operation_family = task_trace(self, decl, traced, reading)
        if self.failed:
            return None
        task = sm.Task(
            decl.name,
            scene,
            tuple(steps),
            instruction,
            source_text=self.source.text[decl.span.start : decl.span.end],
            contract=binding,
            bindings=bindings,
            trace=trace,
            family=operation_family,
        )
        check_instruction(decl, task, self.report, self.source, self.instruction_span)
        for one in sm.family_tasks(task):  # each binding of a family, with its entities
            check_luck(one, self.report, self.source)
        return task

    def step(self, entry: ast.Entry, scene: sm.Scene) -> sm.Step | None:
        program: list[sm.Call] = []
        success: sm.Expr | None = None
        window = 6.0
        may_move: list[str] = []
        unchecked = ""
        may_already_hold = False
        name = entry.name or "?"
        alternatives: list[tuple[sm.Expr | None, tuple[sm.Call, ...]]] = []
        for member in entry.body.members if entry.body else ():
            match member:
                case ast.Entry(keyword="do", body=ast.Block(members=calls), clauses=clauses):
                    block = [c for c in (skill_call(self, stmt, scene) for stmt in calls) if c]
                    program += block
                    guard = self.guard(clauses, scene)
                    alternatives.append((guard, tuple(block)))
                case ast.Field(key="do", value=value):
                    stmt = ast.ExprStmt(value=value, clauses=(), span=value.span)
                    call = skill_call(self, stmt, scene)
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
                case ast.Field(key="unchecked", value=ast.String(value=text)) if text.strip():
                    unchecked = text.strip()
                case ast.Field(key="may_already_hold", value=ast.Bool(value=flag)):
                    may_already_hold = flag
                case ast.Field(key="unchecked" | "may_already_hold" as key):
                    self.error(
                        "E0708",
                        f"write `{key}: "
                        + ('"why the step needs no check"`' if key == "unchecked" else "true`"),
                        member.span,
                        help=catalog.TASK_STEP_FIELDS[key],
                    )
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
                        "a step holds "
                        + ", ".join(f"`{key}:`" for key in catalog.TASK_STEP_FIELDS)
                        + " (`do { skill calls }`, `success: condition within 10 s`)",
                        member.span,
                    )
        for atom in predicate_calls(success):
            check_slot_fit(atom, scene, self.error)
            least = atom.kwarg("min") if atom.func == "during" else None
            if least is not None and not (
                isinstance(least, sm.Num) and least.dimension == "time" and least.value >= 0
            ):
                self.error(
                    "E0708",
                    "`during(..., min: T)` needs a time such as `15 s`",
                    atom.span or entry.span,
                )
            length = atom.args[1] if atom.func == "throughout" and len(atom.args) == 2 else None
            # the program's time counts for a hold, so only a step without one is bounded
            # by its window alone
            if not program and isinstance(length, sm.Num) and length.value > window + 1e-9:
                self.error(
                    "E0708",
                    f"`throughout(..., {length.value:g} s)` cannot hold within the {window:g} s "
                    "the step allows after its program",
                    atom.span or entry.span,
                    help=f"end the spec with `within {math.ceil(length.value) + 2} s`, or use "
                    "`during(...)` for the time the program runs",
                )
        if any(guard is not None for guard, _calls in alternatives):
            unguarded = [k for k, (guard, _c) in enumerate(alternatives) if guard is None]
            if unguarded and unguarded != [len(alternatives) - 1]:
                self.error(
                    "E0708",
                    "only the last `do` of a step may have no `requires` (it runs when no "
                    "other's condition holds)",
                    entry.span,
                )
            program = list(alternatives[0][1])
        else:
            alternatives = []
        if len(program) > catalog.MAX_CALLS_PER_STEP:
            self.error(
                "E0708", f"a step may call at most {catalog.MAX_CALLS_PER_STEP} skills", entry.span
            )
        trigger: str | None = None
        realizes: tuple[sm.Named, ...] = ()
        events = [e.name for e in scene.interventions]
        for clause in entry.clauses:
            if clause.keyword == "realizes" and not isinstance(clause.value, ast.Assignment):
                realizes = realized_names(self, clause)
            elif clause.keyword == "on" and isinstance(clause.value, ast.Name):
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
                    "a step may wait for a scene event with `on EVENT` and name the protocol "
                    "steps it carries out with `realizes STEP` (no other clauses)",
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
            unchecked=unchecked,
            may_already_hold=may_already_hold,
            alternatives=tuple(alternatives),
            realizes=realizes,
        )

    def guard(self, clauses: tuple[ast.Clause, ...], scene: sm.Scene) -> sm.Expr | None:
        """`do { ... } requires COND`: the condition on the state (a reading, a placement)
        under which this program is the one that runs."""
        guard = None
        for clause in clauses:
            if clause.keyword == "requires" and not isinstance(clause.value, ast.Assignment):
                guard = self.expr(clause.value, scene, condition=True)
            else:
                self.error(
                    "E0708",
                    "a `do` block may end with `requires CONDITION` (choose it from the "
                    "evidence), no other clause",
                    clause.span,
                )
        return guard


def bind_contract(
    front: TaskFront,
    contract: ast.Field,
    operations: ast.Field | None,
    program: Program,
    scene: sm.Scene,
) -> ContractBinding | None:
    """`follows: CONTRACT(p: 1)` and `operations: { put_on_scale(w20, scale) as add(20) }`."""
    value = contract.value
    head = value.func if isinstance(value, ast.Call) else value
    if not isinstance(head, ast.Name):
        front.error("E0708", "write `follows: CONTRACT(param: value)`", value.span)
        return None
    symbol = program.root.lookup((head.id,))
    if symbol is None or symbol.decl.kind != "contract":
        front.error(
            "E0704",
            f"`{head.id}` is not a contract declared in this module or imported",
            head.span,
            help="import it, e.g. `use contracts.feedback_weighing.{feedback_weighing}`",
        )
        return None
    params: list[tuple[str, int]] = []
    for arg in value.args if isinstance(value, ast.Call) else ():
        number = arg.value
        if arg.name is None or not (isinstance(number, ast.Number) and number.text.isdigit()):
            front.error("E0708", "a contract's parameters are `name: integer`", arg.span)
            return None
        params.append((arg.name, int(number.text)))
    maps: list[OperationMap] = []
    items = (
        operations.value.members if operations and isinstance(operations.value, ast.Block) else ()
    )
    if operations is not None and not isinstance(operations.value, ast.Block):
        front.error("E0708", "write `operations: { skill call as operation ... }`", operations.span)
    for stmt in items:
        clause = stmt.clauses[0] if isinstance(stmt, ast.ExprStmt) and stmt.clauses else None
        if (
            not isinstance(stmt, ast.ExprStmt)
            or clause is None
            or clause.keyword != "as"
            or not isinstance(clause.value, ast.Call | ast.Name)
        ):
            front.error(
                "E0708",
                "each operation is `skill call as operation`, e.g. "
                "`put_on_scale(w20, scale) as add(20)`",
                stmt.span,
            )
            continue
        seen = _observed(stmt.value)
        if seen:  # `stable(scale) as wait_stable`: an operation applied from what is observed
            operation = _operation_text(clause.value)
            if operation is not None:
                skill = front.source.text[stmt.value.span.start : stmt.value.span.end]
                maps.append(OperationMap(skill, seen, "", operation))
                continue
        written, slot = _slot_pattern(stmt.value)
        call = skill_call(front, ast.ExprStmt(value=written, clauses=(), span=stmt.span), scene)
        if call is None:
            continue
        subject = _press_or_lid(call)
        if subject:  # a press or a lid move: `close_lid(rotor) as close_lid`
            operation = _operation_text(clause.value)
            if operation is not None:
                skill = front.source.text[stmt.value.span.start : stmt.value.span.end]
                maps.append(OperationMap(skill, subject, "", operation))
                continue
        if not (
            call.func in TRANSFERS
            and len(call.args) > 1
            and isinstance(call.args[0], sm.Ref)
            and isinstance(call.args[1], sm.Ref)
        ):
            front.error(
                "E0708",
                "only a transfer of an object to a target (`place`, `put_on_scale`, "
                "`insert_into_slot`, `incubate`, `discard`), a press, a lid move or an "
                "observation (`stable(scale)`, `reading(scale)`) maps to a contract operation; "
                "a slot computed at run time is written as a pattern, "
                "`insert_into_slot(tube_B, rotor.slot[k]) as place_b(k)`",
                stmt.span,
            )
            continue
        operation = _operation_text(clause.value)
        if operation is None:
            front.error(
                "E0708", "a contract operation's arguments are numbers or names", clause.span
            )
            continue
        skill = front.source.text[stmt.value.span.start : stmt.value.span.end]
        target = call.args[1].name if slot else call.args[1].text()
        maps.append(OperationMap(skill, call.args[0].name, target, operation, slot))
    return ContractBinding(
        head.id,
        symbol.module.source.name,
        tuple(params),
        tuple(maps),
    )


def _observed(value: ast.Expr) -> str:
    """The subject of an observation a contract operation is applied from (`scale.stable`:
    the display stable for its window; `scale.reading`: a step whose spec reads the scale
    passed), "" for anything else."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return ""
    args = value.args
    if value.func.id not in OBSERVED or len(args) != 1 or not isinstance(args[0].value, ast.Name):
        return ""
    return f"{args[0].value.id}.{value.func.id}"


def _press_or_lid(call: sm.Call) -> str:
    """The subject a press or lid move's choice is recorded with (`rotor.close`,
    `scale.tare`), "" for any other call."""
    first = call.args[0] if call.args else None
    if not isinstance(first, sm.Ref):
        return ""
    if call.func in PRESSES and not first.path:
        return f"{first.name}.{PRESSES[call.func]}"
    if call.func in LIDS and not first.path:
        return f"{first.name}.{LIDS[call.func]}"
    if call.func == "press_button" and first.path:
        return first.text()
    return ""


def _slot_pattern(value: ast.Expr) -> tuple[ast.Expr, str]:
    """A call whose target is `CONTAINER.slot[NAME]` (a slot pattern), checked as the call
    to slot 0, and the index name; any other call as it is, and ""."""
    if not isinstance(value, ast.Call) or len(value.args) < 2:
        return value, ""
    target = value.args[1].value
    if not (isinstance(target, ast.Index) and isinstance(target.index, ast.Name)):
        return value, ""
    zero = ast.Number(text="0", span=target.index.span)
    args = list(value.args)
    args[1] = evolve(args[1], value=evolve(target, index=zero))
    return evolve(value, args=tuple(args)), target.index.id


def _operation_text(call: ast.Call | ast.Name) -> str | None:
    if isinstance(call, ast.Name):
        return call.id
    if not isinstance(call.func, ast.Name):
        return None
    args = []
    for arg in call.args:
        match arg.value:
            case ast.Number(text=number):
                args.append(number)
            case ast.Name(id=name):
                args.append(name)
            case _:
                return None
    return f"{call.func.id}({', '.join(args)})" if args else call.func.id
