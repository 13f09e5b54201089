"""The scene and task model the simulator runs: frozen records, no MuJoCo.

The front end (`lablang.sim.front`) turns `scene` and `task` declarations into
these classes; tests and Python users can also build them directly. Quantities are
SI floats (metres, kilograms, seconds, radians, cubic metres).
"""

from __future__ import annotations

import re
from typing import TypeAlias, assert_never

from attrs import evolve, field, frozen

from lablang.sim.binding import ContractBinding
from lablang.source import Span

# ---------------------------------------------------------------- expressions
# One small expression language serves both skill programs (calls) and success
# specs (predicates combined with and/or/not and comparisons).


@frozen
class Ref:
    """A named entity, optionally a part of it: `rack.slot[2]` is Ref("rack", ("slot", 2))."""

    name: str
    path: tuple[str | int, ...] = ()
    span: Span | None = field(default=None, eq=False)

    def text(self) -> str:
        out = self.name
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else f".{part}"
        return out


@frozen
class Num:
    """A number with a dimension ("length", "mass", "volume", "time", "angle", "" for none)."""

    value: float
    dimension: str = ""
    span: Span | None = field(default=None, eq=False)


@frozen
class Bool:
    """`true` or `false` (a step whose success is `true` passes once its program has run)."""

    value: bool
    span: Span | None = field(default=None, eq=False)


@frozen
class Text:
    value: str
    span: Span | None = field(default=None, eq=False)


@frozen
class Call:
    func: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()
    span: Span | None = field(default=None, eq=False)

    def kwarg(self, name: str) -> Expr | None:
        for key, value in self.kwargs:
            if key == name:
                return value
        return None


@frozen
class Logic:
    op: str  # "and" | "or"
    parts: tuple[Expr, ...]
    span: Span | None = field(default=None, eq=False)


@frozen
class Not:
    operand: Expr
    span: Span | None = field(default=None, eq=False)


@frozen
class Compare:
    op: str  # == != < <= > >=
    left: Expr
    right: Expr
    span: Span | None = field(default=None, eq=False)


Expr: TypeAlias = Ref | Num | Bool | Text | Call | Logic | Not | Compare


# ---------------------------------------------------------------- scenes


@frozen
class OnSurface:
    """Resting on a surface entity (or the table) at a position in its frame."""

    surface: str
    x: float
    y: float
    yaw: float = 0.0


@frozen
class InSlot:
    container: str
    slot: int


Placement: TypeAlias = OnSurface | InSlot


@frozen
class Content:
    """An amount of a substance carried by a container: liquids in m^3, powders in kg."""

    substance: str
    amount: float
    kind: str = "liquid"  # "liquid" | "powder"


@frozen
class Entity:
    name: str
    asset: str
    params: tuple[tuple[str, float | int | str], ...] = ()
    placement: Placement | None = None
    contents: tuple[Content, ...] = ()
    span: Span | None = field(default=None, eq=False)

    def param(self, key: str, default: float | int | str) -> float | int | str:
        for name, value in self.params:
            if name == key:
                return value
        return default


@frozen
class PoseRandomization:
    """Uniform offsets of an entity's placement: x, y in metres, yaw in radians (half-widths)."""

    entity: str
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    span: Span | None = field(default=None, eq=False)


@frozen
class SlotPermutation:
    """The listed entities take a random distinct choice among `slots` of `container`."""

    entities: tuple[str, ...]
    container: str
    slots: tuple[int, ...]
    span: Span | None = field(default=None, eq=False)


@frozen
class RoleBinding:
    """`randomize role from [a, b, c]`: each instance binds `role` to one of the candidates.

    Task steps refer to the role; the episode rewrites the role to the bound entity."""

    role: str
    candidates: tuple[str, ...]
    span: Span | None = field(default=None, eq=False)


@frozen
class SurfaceChoice:
    """`randomize w5 within [table, scale]`: each instance starts the object on one of the
    surfaces (at its declared place on the first, at the centre of another), so evidence
    such as a stray weight on the pan varies between instances."""

    entity: str
    surfaces: tuple[str, ...]
    span: Span | None = field(default=None, eq=False)


@frozen
class LabelChoice:
    """`randomize tube_A.label within ["A", "B"]`: each instance draws the tube's label
    from the list, so label evidence varies between instances (the tube declares a
    `label:` of its own, which the list need not hold)."""

    entity: str
    labels: tuple[str, ...]
    span: Span | None = field(default=None, eq=False)


@frozen
class OffsetChoice:
    """`randomize scale.offset within [0 g, 5 g]`: each instance draws a scale's reading
    offset from the list (kilograms; its zero drifted by that much: `tare` clears it)."""

    entity: str
    offsets: tuple[float, ...]
    span: Span | None = field(default=None, eq=False)


Randomization: TypeAlias = (
    PoseRandomization | SlotPermutation | RoleBinding | SurfaceChoice | LabelChoice | OffsetChoice
)


# what a scripted colleague can do in an event (`event NAME at T { ACTION(...) }`)
ACTION_KINDS = (
    "move",  # slide (and turn) a fixture, carrying its load
    "turn",  # turn a fixture about its vertical axis
    "remove_lid",  # take a centrifuge's lid off (it is gone from then on)
    "open_lid",  # swing a lid open and let go
    "close_lid",  # swing a lid shut and let go
    "hand_over",  # put an object, absent until then, at its declared placement
    "take_away",  # take an object off the bench
    "press",  # press an entity's button
)


@frozen
class Action:
    """One thing a scripted colleague does during an event."""

    kind: str  # one of ACTION_KINDS
    entity: str
    dx: float = 0.0  # move: metres, world frame
    dy: float = 0.0
    turn: float = 0.0  # move / turn: radians about the fixture's vertical axis
    part: str = ""  # press: the button


@frozen
class Intervention:
    """A scripted external event (SciVLABench coordination tasks): at a random time in
    [start_low, start_high] a colleague performs `actions` over `duration` seconds.

    Robot contact with a `guards` entity (or what it holds) before the event starts is a
    premature interaction, whoever's program made it."""

    name: str
    start_low: float
    start_high: float
    actions: tuple[Action, ...]
    duration: float = 1.0
    guards: tuple[str, ...] = ()
    span: Span | None = field(default=None, eq=False)

    @property
    def entities(self) -> tuple[str, ...]:
        """The entities the event acts on, in order, each once."""
        return tuple(dict.fromkeys(a.entity for a in self.actions))


@frozen
class Scene:
    name: str
    entities: tuple[Entity, ...]
    randomizations: tuple[Randomization, ...] = ()
    interventions: tuple[Intervention, ...] = ()
    robot: str = "gantry"  # `robot: panda` in the scene (or a task option) selects the arm

    def roles(self) -> dict[str, tuple[str, ...]]:
        """The roles bound per instance (`randomize role from [...]`) and their candidates."""
        return {r.role: r.candidates for r in self.randomizations if isinstance(r, RoleBinding)}

    def entity(self, name: str) -> Entity | None:
        for entity in self.entities:
            if entity.name == name:
                return entity
        return None


# ---------------------------------------------------------------- tasks


@frozen
class Step:
    name: str
    program: tuple[Call, ...]
    success: Expr | None
    # simulated seconds allowed for the success spec to hold once the program ends
    check_window: float = 6.0
    span: Span | None = field(default=None, eq=False)
    # `step NAME on EVENT`: the step waits for a scripted event; touching the event's
    # fixture (or its load) while waiting is a premature interaction
    trigger: str | None = None
    # `may_move: [w5]`: objects the step may disturb without it counting as a side effect
    may_move: tuple[str, ...] = ()
    # `unchecked: "reason"`: why the step needs no check of its outcome (no mutants run)
    unchecked: str = ""
    # `may_already_hold: true`: the spec may hold before the step starts (not luck)
    may_already_hold: bool = False
    # guarded programs, `do { ... } requires COND` (the last may have no guard: otherwise):
    # the first whose guard holds when the step starts runs; `program` is the first's
    alternatives: tuple[tuple[Expr | None, tuple[Call, ...]], ...] = ()
    # `step NAME realizes [a, b]`: the protocol steps it carries out (`TaskTrace`)
    realizes: tuple[Named, ...] = ()

    @property
    def all_calls(self) -> tuple[Call, ...]:
        """Every call the step may run, whichever alternative it takes."""
        if not self.alternatives:
            return self.program
        return tuple(call for _guard, calls in self.alternatives for call in calls)


@frozen
class FamilyBinding:
    """One binding of a task family (`bindings: { training: {...} heldout: {...} }`): the
    entity each of the family's roles names in it, and whether it is held out."""

    family: str  # the task written over the roles
    name: str
    heldout: bool
    roles: tuple[tuple[str, str], ...]  # role -> entity
    span: Span | None = field(default=None, eq=False)

    @property
    def task_name(self) -> str:
        """The bound task's name, also its Gymnasium id's: `<task>-<binding>`."""
        return f"{self.family}-{self.name}"

    def to_json(self) -> dict[str, object]:
        return {
            "family": self.family,
            "binding": self.name,
            "heldout": self.heldout,
            "roles": dict(self.roles),
        }


@frozen
class Named:
    """A name as the task wrote it, with where (for diagnostics at both places)."""

    name: str
    span: Span | None = field(default=None, eq=False)


@frozen
class TaskTrace:
    """`task T in S realizes PROTOCOL { bind: {...}  defer: {...}  tolerance: ... }`: the
    protocol the task carries out, read without the protocol (the trace check resolves it)."""

    protocol: Named  # the protocol's name, dotted when imported by module
    # protocol container or material -> scene entity (a Ref) or substance (a Text)
    bind: tuple[tuple[Named, Ref | Text], ...] = ()
    defer: tuple[tuple[Named, str], ...] = ()  # protocol step -> why no robot does it
    tolerances: tuple[Num, ...] = ()  # one per dimension; quantities agree within it


@frozen
class Task:
    name: str
    scene: Scene
    steps: tuple[Step, ...]
    instruction: str = ""
    source_text: str = ""  # the task's text, hashed into certificates
    # `follows: CONTRACT(params)` and `operations: { skill call as operation }`
    contract: ContractBinding | None = None
    # a task family (`roles:` and `bindings:`): the family's bindings, each one task
    bindings: tuple[FamilyBinding, ...] = ()
    # a task of a family: the binding it was made from (its steps name the entities)
    binding: FamilyBinding | None = None
    trace: TaskTrace | None = None
    family: str = ""  # one of `catalog.TASK_FAMILIES`


def spoken(text: str) -> str:
    """Text as the words an instruction check compares: lower case, `_` a space.

    >>> spoken("Put tube_A on the Scale.")
    'put tube a on the scale'
    """
    return " ".join(re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")))


def reads(task: Task, name: str) -> bool:
    """Whether the task's instruction tells the agent to read an entity's display or label
    (issue 27: evidence is what the instruction says the agent reads): it names the
    entity, or a role that may be bound to it (the family's binding, or a scene role of
    which it is a candidate: each candidate is then read, so the keys are the same in
    every instance)."""
    said = f" {spoken(task.instruction)} "
    roles = [r for r, e in task.binding.roles if e == name] if task.binding else []
    roles += [r for r, candidates in task.scene.roles().items() if name in candidates]
    return any(f" {spoken(word)} " in said for word in (name, *roles))


def bind_expr(expr: Expr, bindings: dict[str, str]) -> Expr:
    """`expr` with every reference to a bound role replaced by its entity."""
    match expr:
        case Ref():
            bound = bindings.get(expr.name)
            return expr if bound is None else evolve(expr, name=bound)
        case Num() | Bool() | Text():
            return expr
        case Call():
            return evolve(
                expr,
                args=tuple(bind_expr(a, bindings) for a in expr.args),
                kwargs=tuple((k, bind_expr(v, bindings)) for k, v in expr.kwargs),
            )
        case Logic():
            return evolve(expr, parts=tuple(bind_expr(p, bindings) for p in expr.parts))
        case Not():
            return evolve(expr, operand=bind_expr(expr.operand, bindings))
        case Compare():
            return evolve(
                expr, left=bind_expr(expr.left, bindings), right=bind_expr(expr.right, bindings)
            )
        case _:
            assert_never(expr)


def _bind_call(call: Call, bindings: dict[str, str]) -> Call:
    bound = bind_expr(call, bindings)
    assert isinstance(bound, Call)
    return bound


def bind_task(task: Task, bindings: dict[str, str]) -> Task:
    """The task with its steps' roles bound to entities (one instance's binding).

    >>> scene = Scene("s", (Entity("a", "tube_1_5ml"), Entity("b", "tube_1_5ml")),
    ...               (RoleBinding("t", ("a", "b")),))
    >>> task = Task("k", scene, (Step("s1", (Call("pick", (Ref("t"),)),), None),))
    >>> bind_task(task, {"t": "b"}).steps[0].program[0].args[0].name
    'b'
    """
    if not bindings:
        return task
    steps = []
    for step in task.steps:
        program = tuple(_bind_call(c, bindings) for c in step.program)
        success = None if step.success is None else bind_expr(step.success, bindings)
        alternatives = tuple(
            (
                None if guard is None else bind_expr(guard, bindings),
                tuple(_bind_call(c, bindings) for c in calls),
            )
            for guard, calls in step.alternatives
        )
        steps.append(evolve(step, program=program, success=success, alternatives=alternatives))
    trace = task.trace
    if trace is not None:  # `bind: {tube1: role}`: the protocol's container is the entity
        bound = tuple(
            (named, evolve(t, name=bindings.get(t.name, t.name)) if isinstance(t, Ref) else t)
            for named, t in trace.bind
        )
        trace = evolve(trace, bind=bound)
    return evolve(task, steps=tuple(steps), trace=trace)


def family_tasks(task: Task) -> tuple[Task, ...]:
    """A task family as one task per binding (`<task>-<binding>`, roles replaced by the
    binding's entities); any other task as itself.

    >>> scene = Scene("s", (Entity("a", "weight"), Entity("b", "weight")))
    >>> step = Step("s1", (Call("pick", (Ref("w"),)),), None)
    >>> family = Task("k", scene, (step,), bindings=(
    ...     FamilyBinding("k", "one", False, (("w", "a"),)),
    ...     FamilyBinding("k", "two", True, (("w", "b"),))))
    >>> [(t.name, t.steps[0].program[0].args[0].name) for t in family_tasks(family)]
    [('k-one', 'a'), ('k-two', 'b')]
    """
    if not task.bindings:
        return (task,)
    out = []
    for b in task.bindings:
        roles = dict(b.roles)
        bound = evolve(bind_task(task, roles), name=b.task_name, bindings=(), binding=b)
        if task.contract is not None:  # `operations:` name the roles' entities too
            operations = tuple(
                evolve(
                    o, object=roles.get(o.object, o.object), target=roles.get(o.target, o.target)
                )
                for o in task.contract.operations
            )
            bound = evolve(bound, contract=evolve(task.contract, operations=operations))
        out.append(bound)
    return tuple(out)
