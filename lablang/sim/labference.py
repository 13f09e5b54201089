"""Labference's three measures, as the paper defines them, for the expert and policies alike.

One observer (`TransferWatch`, a runtime watcher) reads what the gripper does in every
episode, whoever drives it: the expert's skills (`EpisodeRunner`) or a policy's actions
(`TaskEnv`). One scorer (`labference_score`) turns what it recorded into choice,
execution and completion; `evaluate`, `simulate`, `certify`, `branch`, `replay` and
`monitor` all read that one score.

* A **choice** is the operation and object the policy commits to: the object it grasped
  and the target it carries it to and releases it over. The target is the nearest one
  whose footprint contains the point the hand is carried to (the commanded hand position
  at the release; for the expert, the target its call names), most specific first: a
  slot, a scale's pan, another surface, then the table.
* The choice is **correct** when it is a legal next operation in the actual state: one of
  the task's outstanding transfers (for each object the first one not yet achieved, whose
  target resolves in the state at the release, so `opposite(rotor, slot_of(tube_A))` is
  the slot opposite where tube A really is) or, for a task bound to a contract, the
  contract's legal set (`lablang.sim.binding`).
* **Decision opportunities**: the first opens at the start; each later one opens when the
  previous frozen choice's outcome reaches the policy (its placement confirmed or refuted,
  `CONFIRM_AFTER` after the release). The first choice after an opening is frozen and
  scored; choices before the next opening are revisions, recorded apart. There is one
  opportunity per required transfer of the task, so the denominators are fixed whatever the
  policy does (a missed opportunity scores neither choice nor execution).
* **Execution**: whether the frozen choice's own operation was physically achieved (the
  object rests in or on the chosen target when its outcome is read). A correct target
  followed by a drop is a correct choice and an execution failure.
* **Completion**: the task's success under its conditions, where a step counts only once
  the policy acted on its required operations (carried each of its objects, pressed each
  of its buttons; whether to the right place the step's spec says): objects placed at
  initialization and a scale that already reads 0 g earn nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from attrs import define, evolve, field, frozen

from lablang.sim.binding import HANDLING, LIDS, PRESSES, TRANSFERS, pick
from lablang.sim.events import Event
from lablang.sim.model import Call, Expr, Num, Ref, Task
from lablang.sim.motion_choices import MotionState, MotionWatch
from lablang.sim.observations import Observations

if TYPE_CHECKING:
    from lablang.sim.runtime import Runtime

CONFIRM_AFTER = 0.5  # s after a release at which its outcome reaches the policy
PUSHED = 0.001  # m a button is pushed in when the policy has committed to pressing it
# the events that are choices, and those that are their outcomes
CHOICES = ("transfer", "push", "lid", "handle")
OUTCOMES = ("placed", "outcome")
# obligation kind -> the event kind of its choice
CHOSEN = {"transfer": "transfer", "press": "push", "lid": "lid"} | {
    kind: "handle" for kind in ("mix", "pour", "aspirate", "dispense", "scoop")
}


@frozen
class Obligation:
    """One required operation of a task: a transfer of an object, a button press, a lid
    move, or a mixing, pouring, pipetting or scooping operation."""

    step: str
    kind: str  # "transfer" | "press" | "lid" | "mix" | "pour" | "aspirate" | "dispense"
    # | "scoop"; the object carried, mixed or poured from, the pipette or scoop, the
    # button pressed (`scale.tare`), the lid's move (`rotor.open`)
    subject: str
    target: Expr | None = field(default=None, eq=False)  # a transfer's, pour's, pipetting's
    nth: int = 0  # a repeat of the same operation in one call (`mix_by_pipetting`'s cycles)

    @property
    def key(self) -> str:
        return f"{self.step}:{self.kind}:{self.subject}" + (f"#{self.nth}" if self.nth else "")


def obligations(
    task: Task, chosen: Mapping[str, tuple[Call, ...]] | None = None
) -> tuple[Obligation, ...]:
    """The task's required operations, in program order: a fixed population per task and
    evidence (a step that chooses from the evidence requires what its `chosen` program
    does; by default its first)."""
    out = []
    for step in task.steps:
        for call in (chosen or {}).get(step.name, step.program):
            first = call.args[0] if call.args else None
            if not isinstance(first, Ref):
                continue
            if call.func in TRANSFERS and not first.path:
                target = call.args[1] if len(call.args) > 1 else None
                out.append(Obligation(step.name, "transfer", first.name, target))
            elif call.func in PRESSES and not first.path:
                out.append(Obligation(step.name, "press", f"{first.name}.{PRESSES[call.func]}"))
            elif call.func in LIDS and not first.path:
                out.append(Obligation(step.name, "lid", f"{first.name}.{LIDS[call.func]}"))
            elif call.func == "press_button" and first.path:
                out.append(Obligation(step.name, "press", first.text()))
            elif call.func in HANDLING and not first.path:
                for o in _handling(step.name, call, first.name):
                    # a repeat in one step (two dispenses from one pipette) is its own
                    same = sum(p.step == o.step and p.kind == o.kind and p.subject == o.subject
                               for p in out)  # fmt: skip
                    out.append(evolve(o, nth=same + 1) if same else o)
    return tuple(out)


def _handling(step: str, call: Call, subject: str) -> list[Obligation]:
    """A mixing, pouring, pipetting or scooping call's obligations (`mix_by_pipetting(p, x, 3)`: three
    draws from `x` and three expulsions into it)."""
    repeat = 1
    if call.func == "mix_by_pipetting":
        count = call.args[2] if len(call.args) > 2 else None
        repeat = int(count.value) if isinstance(count, Num) and count.value >= 1 else 1
    out = []
    for _ in range(repeat):
        for kind, where in HANDLING[call.func]:
            target = call.args[where] if where is not None and len(call.args) > where else None
            out.append(Obligation(step, kind, subject, target))
    return out


def transfer_text(obj: str, target: str | None) -> str:
    return f"transfer({obj}, {target})"


def operation_text(kind: str, subject: str, target: str | None = None) -> str:
    """A press, lid move, mixing, pouring or pipetting as a choice's operation:
    `press(scale.tare)`, `close(rotor)`, `mix(tube)`, `pour(stock, dest)`, `aspirate(p, x)`."""
    if kind == "lid":
        name, _, move = subject.rpartition(".")
        return f"{move}({name})"
    if kind == "press":
        return f"press({subject})"
    return f"{kind}({subject})" if target is None else f"{kind}({subject}, {target})"


@frozen
class WatchState:
    """What a `TransferWatch` knows, as saved in a checkpoint."""

    held: str | None
    pending: tuple[tuple[float, Event], ...]
    done: frozenset[str]
    attempts: int
    presses_seen: int
    moved: tuple[tuple[str, int], ...]
    chosen: tuple[tuple[str, tuple[Call, ...]], ...] = ()
    pushing: tuple[tuple[str, Event], ...] = ()
    lid: tuple[str, Event] | None = None
    motion: MotionState = field(factory=MotionState)
    settled: tuple[tuple[str, float], ...] = ()


@define
class TransferWatch:
    """Reads grasps, releases and presses from the runtime after every tick.

    `step_index()` is the index of the step running now; `emit` receives the events;
    `intent`, set by the expert's runner before a transfer call, is the object and target
    its call names (a policy has none: its target is read from the hand's command).
    """

    rt: Runtime
    task: Task
    step_index: Callable[[], int]
    emit: Callable[[Event], None]
    required: tuple[Obligation, ...] = ()
    intent: tuple[str, Any] | None = None
    held: str | None = None
    pending: list[tuple[float, Event]] = field(factory=list)
    done: set[str] = field(factory=set)
    attempts: int = 0
    presses_seen: int = 0
    moved: dict[str, int] = field(factory=dict)  # transfers (releases) per object
    chosen: dict[str, tuple[Call, ...]] = field(factory=dict)  # steps' alternatives taken
    pushing: dict[str, Event] = field(factory=dict)  # buttons pushed in, by their choice
    lid: tuple[str, Event] | None = None  # the lid held, and the choice its grasp made
    motions: MotionWatch = field(init=False)  # mixing, pouring, pipetting
    cups: frozenset[str] = field(init=False)  # vortex mixers: a tube runs a cup, not a press
    seen: Observations = field(init=False)  # contract operations applied from observation

    def __attrs_post_init__(self) -> None:
        self.required = obligations(self.task)
        self.cups = frozenset(n for n, i in self.rt.infos.items() if i.asset == "vortex_mixer")
        self.seen = Observations(self.rt, self.task, self.emit)
        self.motions = MotionWatch(
            self.rt, self._choice, lambda when, e: self.pending.append((when, e)), CONFIRM_AFTER
        )
        self.held = self.rt.held
        self.presses_seen = len(self.rt.events)
        for event in initial_context(self.rt, self.task):
            self.emit(event)

    def __call__(self) -> None:
        rt = self.rt
        if rt.held != self.held:
            if self.held is not None:
                self._released(self.held)
            if rt.held is not None:
                self._grasped(rt.held)
            self.held = rt.held
        if rt.lid_held != (self.lid[0] if self.lid else None):
            if self.lid is not None:
                self.pending.append((rt.time + CONFIRM_AFTER, self.lid[1]))
                self.lid = None
            if rt.lid_held is not None:
                self._lid_grasped(rt.lid_held)
        self.motions()
        self.seen(self._step())
        qpos = rt.data.qpos
        for (entity, button), (adr, _down) in rt.buttons.items():
            key = f"{entity}.{button}"
            if key not in self.pushing and qpos[adr] < -PUSHED and entity not in self.cups:
                self._pushed(key)
        if len(rt.events) > self.presses_seen:
            for time, what, kind in rt.events[self.presses_seen :]:
                if kind == "pressed":
                    self._pressed(time, what)
            self.presses_seen = len(rt.events)
        for (entity, button), (adr, _down) in rt.buttons.items():
            key = f"{entity}.{button}"
            if key in self.pushing and qpos[adr] >= -PUSHED:
                self._let_go(key)
        if self.pending and self.pending[0][0] <= rt.time + 1e-9:
            self.resolve(rt.time)

    def state(self) -> WatchState:
        return WatchState(
            self.held,
            tuple(self.pending),
            frozenset(self.done),
            self.attempts,
            self.presses_seen,
            tuple(self.moved.items()),
            tuple(self.chosen.items()),
            tuple(self.pushing.items()),
            self.lid,
            self.motions.state(),
            tuple(self.seen.settled.items()),
        )

    def restore(self, state: WatchState) -> None:
        self.held, self.pending = state.held, list(state.pending)
        self.done, self.attempts = set(state.done), state.attempts
        self.presses_seen, self.moved = state.presses_seen, dict(state.moved)
        self.chosen = dict(state.chosen)
        self.pushing, self.lid = dict(state.pushing), state.lid
        self.motions.restore(state.motion)
        self.seen.settled = dict(state.settled)
        self.required = obligations(self.task, self.chosen)
        self.intent = None

    def choose(self, step: str, calls: tuple[Call, ...]) -> None:
        """A step that chooses from the evidence took `calls`: its obligations are theirs."""
        self.chosen[step] = calls
        self.required = obligations(self.task, self.chosen)

    def step_done(self, step: str) -> bool:
        """Has the policy acted on every required operation of `step`: carried its objects
        (the step's spec says whether to where it needed) and pressed its buttons?"""
        return all(
            self.moved.get(o.subject, 0) >= ordinal(o, self.required)
            if o.kind == "transfer"
            else o.key in self.done
            for o in self.required
            if o.step == step
        )

    def resolve(self, until: float) -> None:
        """Read the outcome of every release due by `until` (all of them at an episode's end)."""
        if until == float("inf"):
            self.motions.flush()
        due = sorted((p for p in self.pending if p[0] <= until + 1e-9), key=lambda p: p[0])
        self.pending = [p for p in self.pending if p[0] > until + 1e-9]
        for _, choice in due:
            if choice.kind == "lid":
                self._lid_outcome(choice)
            elif choice.kind == "handle":
                assert choice.object is not None
                kind = choice.operation.split("(", 1)[0]
                done = self.motions.outcome(choice)
                self._settled(choice, done, self._complete(kind, choice.object, choice.target) if done else "")  # fmt: skip
            else:
                self._outcome(choice)

    # ------------------------------------------------------------ internals

    def _step(self) -> str:
        steps = self.task.steps
        return steps[min(self.step_index(), len(steps) - 1)].name

    def _grasped(self, name: str) -> None:
        self.emit(Event("grasp", self.rt.time, self._step(), object=name))

    def _released(self, name: str) -> None:
        rt = self.rt
        if self.intent is not None and self.intent[0] == name:
            from lablang.sim.skills import target_name

            target: str | None = target_name(self.intent[1])
        else:
            target = carried_target(rt, name)
        self.attempts += 1
        self.moved[name] = self.moved.get(name, 0) + 1
        event = Event(
            "transfer",
            rt.time,
            self._step(),
            attempt=f"t{self.attempts}",
            operation=transfer_text(name, target),
            object=name,
            target=target,
            legal=self._legal(),
            contract_op=self.task.contract.operation_of(name, target) if self.task.contract else "",
        )
        self.emit(event)
        self.pending.append((rt.time + CONFIRM_AFTER, event))

    def _outstanding(self) -> list[Obligation]:
        """For each object, its first required transfer not yet achieved."""
        seen: set[str] = set()
        out = []
        for o in self.required:
            if o.kind == "transfer" and o.key not in self.done and o.subject not in seen:
                seen.add(o.subject)
                out.append(o)
        return out

    def _resolved(self, o: Obligation) -> str | None:
        from lablang.sim.predicates import Evaluator, SpecError
        from lablang.sim.skills import target_name

        if o.target is None:
            return None
        try:
            value = Evaluator(self.rt).value(o.target)
        except SpecError:
            return None
        return None if value is None else target_name(value)

    def _legal(self) -> tuple[str, ...]:
        """The legal next operations: each object's first transfer not yet achieved (in any
        order), and the presses and lid moves not yet achieved of the steps up to the one
        the task is at (a button or a lid when the task calls for it, not before)."""
        out = []
        for o in self._outstanding():
            target = self._resolved(o)
            if target is not None:
                out.append(transfer_text(o.subject, target))
        reached = {s.name for s in self.task.steps[: self.step_index() + 1]}
        for o in self.required:
            if o.step in reached and o.kind != "transfer" and o.key not in self.done:
                target = self._resolved(o) if o.target is not None else None
                if o.target is None or target is not None:
                    out.append(operation_text(o.kind, o.subject, target))
        return tuple(dict.fromkeys(out))

    def _choice(self, kind: str, subject: str, target: str | None = None) -> Event:
        self.attempts += 1
        operation = operation_text(kind, subject, target)
        contract = self.task.contract
        event = Event(
            CHOSEN[kind],
            self.rt.time,
            self._step(),
            attempt=f"t{self.attempts}",
            operation=operation,
            object=subject,
            target=subject if target is None else target,
            legal=self._legal(),
            contract_op=contract.operation_of(subject, None) if contract and not target else "",
        )
        self.emit(event)
        return event

    def _pushed(self, button: str) -> None:
        """A button pushed in past `PUSHED`: the policy chose to press it."""
        self.pushing[button] = self._choice("press", button)

    def _let_go(self, button: str) -> None:
        """A button let up again: if it never registered, the press was not executed."""
        choice = self.pushing.pop(button)
        if choice.attempt:
            self._settled(choice, False, "")

    def _lid_grasped(self, name: str) -> None:
        """The policy took a lid's (or a drawer's) handle: it chose to open a closed one, to
        close an open one."""
        from lablang.sim.state import closure_open

        move = "close" if closure_open(self.rt, name) else "open"
        self.lid = (name, self._choice("lid", f"{name}.{move}"))

    def _lid_outcome(self, choice: Event) -> None:
        from lablang.sim.state import closure_closed, closure_open

        assert choice.object is not None
        name, _, move = choice.object.rpartition(".")
        opened, closed = closure_open(self.rt, name), closure_closed(self.rt, name)
        confirmed = opened if move == "open" else closed
        self._settled(choice, confirmed, self._complete("lid", choice.object) if confirmed else "")

    def _complete(self, kind: str, subject: str, target: str | None = None) -> str:
        """Mark the first outstanding obligation of this kind and subject (and, for one with
        a target, whose target resolves to `target`) done; its key."""
        for o in self.required:
            if o.kind != kind or o.subject != subject or o.key in self.done:
                continue
            if o.target is None or self._resolved(o) == target:
                self.done.add(o.key)
                return o.key
        return ""

    def _settled(self, choice: Event, confirmed: bool, completes: str) -> None:
        self.emit(
            Event("outcome", self.rt.time, choice.step, attempt=choice.attempt,
                  operation=choice.operation, object=choice.object, target=choice.target,
                  confirmed=confirmed, status="succeeded" if confirmed else "failed",
                  detail=completes, contract_op=choice.contract_op if confirmed else "")
        )  # fmt: skip

    def _outcome(self, choice: Event) -> None:
        rt = self.rt
        name, target = choice.object, choice.target
        assert name is not None
        confirmed = rests_at(rt, name, target)
        completes = ""
        if confirmed:
            for o in self._outstanding():
                if o.subject == name and self._resolved(o) == target:
                    self.done.add(o.key)
                    completes = o.key
                    break
        rests = resting_place(rt, name)
        contract = self.task.contract
        # its contract operation is the one where it really rests (a slip: `place_a(k + 1)`)
        self.emit(
            Event("placed", rt.time, choice.step, attempt=choice.attempt,
                  operation=choice.operation, object=name, target=rests, confirmed=confirmed,
                  status="succeeded" if confirmed else "failed", detail=completes,
                  contract_op=contract.operation_of(name, rests) if contract else "")
        )  # fmt: skip

    def _pressed(self, time: float, button: str) -> None:
        completes = self._complete("press", button)
        self.emit(Event("press", time, self._step(), object=button, detail=completes))
        choice = self.pushing.get(button)
        if choice is not None and choice.attempt:
            self._settled(choice, True, completes)
            self.pushing[button] = Event("push", time, "")  # registered: no outcome due


def initial_context(rt: Runtime, task: Task) -> list[Event]:
    """Objects that this instance's randomization starts on another surface than declared
    (`randomize w5 within [table, scale]`): context the policy finds, not a choice it
    made. Each is a `context` event with the contract operation its placement is, so a
    bound contract's state starts from it (a stray 5 g on the pan is `add(5)` done)."""
    from lablang.sim.model import OnSurface

    out = []
    for entity in task.scene.entities:
        placed = rt.built.placements.get(entity.name)
        if not isinstance(placed, OnSurface) or not isinstance(entity.placement, OnSurface):
            continue
        if placed.surface == entity.placement.surface:
            continue
        operation = task.contract.operation_of(entity.name, placed.surface) if task.contract else ""
        out.append(
            Event("context", rt.time, task.steps[0].name if task.steps else "", object=entity.name,
                  target=placed.surface, confirmed=True, contract_op=operation,
                  detail=f"evidence: `{entity.name}` starts on `{placed.surface}`")
        )  # fmt: skip
    return out


def carried_target(rt: Runtime, name: str) -> str:
    """The target a held object is carried to: the most specific footprint that contains
    the commanded hand position (a slot, a scale's pan, another surface, the table)."""
    point = rt.cmd_tcp()[:2]
    return footprint_at(rt, point, exclude=name)


def footprint_at(rt: Runtime, point: np.ndarray, exclude: str = "") -> str:
    """The nearest target whose footprint contains `point` (x, y), most specific first."""
    d = rt.data
    best: tuple[float, str] | None = None
    for target, site in zip(rt.slot_list, rt.slot_site_ids.tolist(), strict=True):
        slot = rt.infos[target.container].slots[target.index]
        gap = float(np.hypot(*(d.site_xpos[site][:2] - point)))
        if gap <= slot.bore and (best is None or gap < best[0]):
            best = (gap, f"{target.container}.slot[{target.index}]")
    if best is not None:
        return best[1]
    for pans in (True, False):  # a scale's pan, then any other surface
        for other, info in rt.infos.items():
            if other == exclude or not info.top_site or (info.asset == "scale") != pans:
                continue
            top = d.site_xpos[rt.site_ids[info.top_site]]
            gap = float(np.hypot(*(top[:2] - point)))
            if gap <= info.radius and (best is None or gap < best[0]):
                best = (gap, other)
        if best is not None:
            return best[1]
    return "table"


def rests_at(rt: Runtime, name: str, target: str | None) -> bool:
    """Is the object physically at the target: in the slot, or resting on the surface?"""
    from lablang.sim.state import in_slot, on

    if target is None:
        return False
    slots = {f"{t.container}.slot[{t.index}]": t for t in rt.slot_list}
    if target in slots:
        return in_slot(rt, name, slots[target])
    if target in rt.infos:
        return on(rt, name, target)
    return False


def resting_place(rt: Runtime, name: str) -> str | None:
    """Where an object is: its slot, the surface it rests on, or None (still moving, held)."""
    from lablang.sim.state import on, slot_of

    where = slot_of(rt, name)
    if where is not None:
        return f"{where.container}.slot[{where.index}]"
    for other, info in rt.infos.items():
        if other != name and info.top_site and on(rt, name, other):
            return other
    if "table" in rt.infos and on(rt, name, "table"):
        return "table"
    return None


# ---------------------------------------------------------------- the scorer


def labference_score(
    steps: Sequence[str],
    required: Sequence[str],
    events: Iterable[Event],
    judge: Callable[[Sequence[Event]], dict[str, tuple[str, ...]]] | None = None,
) -> dict[str, Any]:
    """Choice, execution and completion from the events alone.

    `required` are the task's obligation keys (`Obligation.key`: `step:kind:subject`).
    Without a `judge`, a choice is correct when it is in the legal set recorded with it;
    with one (a bound contract, `lablang.bound.ContractJudge`), when the contract
    operation it is lies in the legal set `judge(events)` gives for its attempt.

    >>> e = [Event("transfer", 1.0, "a", attempt="t1", operation="transfer(x, s)",
    ...            object="x", target="s", legal=("transfer(x, s)",)),
    ...      Event("placed", 1.5, "a", attempt="t1", object="x", target="s",
    ...            confirmed=True, detail="a:transfer:x"),
    ...      Event("completion", 2.0, "a", confirmed=True)]
    >>> s = labference_score(["a"], ["a:transfer:x"], e)
    >>> s["choice"]["correct"], s["execution"]["executed"], s["completion"]["status"]
    (1, 1, 'clean')
    """
    events = sorted(events, key=lambda e: e.time)
    transfers = [e for e in events if e.kind == "transfer"]
    choices = [e for e in events if e.kind in CHOICES]
    outcomes: dict[str, Event] = {}
    for e in events:
        if e.kind in OUTCOMES and e.attempt not in outcomes:
            outcomes[e.attempt] = e
    opportunities = sum(_kind(k) in CHOSEN for k in required)
    verdicts = judge(events) if judge is not None else None
    frozen_choices: list[dict[str, Any]] = []
    revisions: list[str] = []
    open_at: float | None = 0.0  # when the next opportunity opens (None: not yet known)
    for e in choices:
        if len(frozen_choices) < opportunities and open_at is not None and e.time >= open_at:
            if verdicts is None or not e.contract_op:
                # unbound, or a press or lid move the contract does not name: the task's own
                legal_set, correct = e.legal, e.operation in e.legal
            else:
                legal_set = verdicts.get(e.attempt, ())
                operation = pick(e.contract_op, legal_set)
                correct = bool(operation) and operation in legal_set
            outcome = outcomes.get(e.attempt)
            frozen_choices.append(
                {
                    "opportunity": len(frozen_choices) + 1,
                    "attempt": e.attempt,
                    "time": round(e.time, 6),
                    "step": e.step,
                    "operation": e.operation,
                    "contract_operation": (
                        pick(e.contract_op, legal_set) if verdicts is not None else e.contract_op
                    )
                    or None,
                    "legal": list(legal_set),
                    "correct": correct,
                    "executed": bool(outcome is not None and outcome.confirmed),
                    "outcome": None if outcome is None else outcome.target,
                }
            )
            open_at = outcome.time if outcome is not None else None
        else:
            revisions.append(e.attempt)
    # presses, lid moves, mixing, pouring and pipetting, by the obligation achieved: when
    # the press registered or the lid settled, when the motion that achieved it began
    handled = {e.attempt: e.time for e in choices if e.kind == "handle"}
    pressed_at: dict[str, float] = {}
    for e in events:
        if e.kind in ("press", "outcome") and e.detail and e.detail not in pressed_at:
            pressed_at[e.detail] = handled.get(e.attempt, e.time)
    passed: dict[str, float] = {}
    for e in events:
        if e.kind == "completion" and e.confirmed and e.step not in passed:
            passed[e.step] = e.time
    credit_steps = 0
    undone: list[str] = []
    for name in steps:
        if name not in passed:
            break
        missing = [
            key
            for n, key in enumerate(required)
            if key.split(":", 1)[0] == name
            and not _acted_by(key, list(required)[: n + 1], transfers, pressed_at, passed[name])
        ]
        if missing:
            undone += missing
            break
        credit_steps += 1
    lost = sorted(e.step for e in events if e.kind == "persistence" and not e.confirmed)
    faults = [e.detail for e in events if e.kind == "fault"]
    side_effects = [e.detail for e in events if e.kind == "side_effect"]
    complete = credit_steps == len(steps) and not lost and not faults and not side_effects
    flawless = all(c["correct"] and c["executed"] for c in frozen_choices) and not revisions
    status = "incomplete" if not complete else "clean" if flawless else "recovered"
    presses = [k for k in required if _kind(k) == "press"]
    return {
        "choice": {
            "opportunities": opportunities,
            "reached": len(frozen_choices),
            "correct": sum(c["correct"] for c in frozen_choices),
            "incorrect": [c["attempt"] for c in frozen_choices if not c["correct"]],
            "revisions": revisions,
            "frozen": frozen_choices,
        },
        "execution": {
            "opportunities": opportunities,
            "executed": sum(c["executed"] for c in frozen_choices),
            "unexecuted": [c["attempt"] for c in frozen_choices if not c["executed"]],
            "presses": len(presses),
            "pressed": sum(k in pressed_at for k in presses),
        },
        "completion": {
            "status": status,
            "credit": round(credit_steps / len(steps), 6) if steps else 1.0,
            "steps_passed": credit_steps,
            "not_done_by_policy": undone,
            "not_persisted": lost,
            "fault": faults[0] if faults else None,
            "side_effects": side_effects,
        },
    }


def _kind(key: str) -> str:
    return key.split(":", 2)[1]


def ordinal(o: Obligation, required: Sequence[Obligation]) -> int:
    """Which transfer of its object an obligation is (1 for the first)."""
    count = 0
    for other in required:
        if other.kind == "transfer" and other.subject == o.subject:
            count += 1
        if other is o:
            break
    return count


def _acted_by(
    key: str,
    upto: Sequence[str],
    transfers: Sequence[Event],
    pressed_at: dict[str, float],
    time: float,
) -> bool:
    """Had the policy acted on obligation `key` by `time`: carried its object as often as
    the obligations up to this one ask (`upto` ends with `key`), or pressed its button?"""
    _step, kind, subject = key.split(":", 2)
    if kind != "transfer":
        return pressed_at.get(key, float("inf")) <= time + 1e-9
    needed = sum(_kind(k) == "transfer" and k.split(":", 2)[2] == subject for k in upto)
    done = sum(e.object == subject and e.time <= time + 1e-9 for e in transfers)
    return done >= needed


def evaluate_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of `lablang evaluate`'s output; `$defs/score` is the one
    Labference score every verb prints."""
    import json
    from importlib.resources import files

    text = files("lablang.sim").joinpath("schemas/evaluate.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
