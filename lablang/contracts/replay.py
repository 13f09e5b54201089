"""Replaying an episode's event log against a contract (Labference's three measures).

An event log is JSON lines. An evidence line delivers episode facts to the agent:

    {"time": 0.0, "evidence": {"slipped": true}}

An attempt line records an operation the agent chose and what the world did:

    {"time": 1.5, "attempt": "b1", "object": "tube_b", "operation": "place_b(7)",
     "target": 7, "confirmed": true, "outcomes": {"fail": false, "slip": false}}

`target` is the measured target (compared with the operation's first argument),
`confirmed` the physical confirmation, `outcomes` the environment outcomes that the
operation's effect reads (default: each outcome's default value). Several lines with
the same attempt id are one attempt (the choice, then its confirmation).

The report keeps three measures apart:

* **choice**: the first attempt at or after the (last) evidence delivery — legal or
  not in the state the log has reached;
* **execution**: per obligation (an object and an operation family, however many
  attempts or lines it takes until one is legal and executed; the next attempt of that
  family on that object is the next obligation, `tube:mix#2`): executed when some attempt
  was physically confirmed at its target;
* **completion**: `clean` (goal reached, every attempt legal and executed first
  time, every invariant held in every observed state), `recovered` (goal reached and
  every invariant holds at the end, after an illegal or failed attempt or an invariant
  broken on the way), `violated` (the final state breaks an invariant) or `incomplete`.

Every invariant is evaluated on every observed state (the initial one and the one
after each attempt); the first violation is reported with the event that led to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import frozen

from lablang.contracts.model import Contract, read_value, show_value
from lablang.contracts.semantics import (
    Evaluator,
    apply,
    default_evidence,
    find_ground,
    initial_state,
    legal_ground,
    state_env,
    with_args,
)


class MonitorError(Exception):
    """A log line that cannot be read against the contract (the message names the line)."""


@frozen(kw_only=True)
class Attempt:
    attempt: str
    line: int
    time: float
    object_id: str | None
    operation: str
    legal: bool
    legal_set: tuple[str, ...]
    confirmed: bool | None
    target: object
    executed: bool


@frozen(kw_only=True)
class Obligation:
    key: str
    attempts: int
    executed: bool


@frozen(kw_only=True)
class Violation:
    """The first observed state that breaks an invariant, and the event that led to it."""

    invariant: str
    line: int | None  # None: the initial state
    attempt: str | None
    operation: str | None
    state: dict[str, object]


@frozen(kw_only=True)
class MonitorReport:
    choice: Attempt | None
    attempts: tuple[Attempt, ...]
    obligations: tuple[Obligation, ...]
    completion: str  # clean | recovered | violated | incomplete
    final_state: dict[str, object]
    notes: tuple[str, ...]
    violation: Violation | None = None
    final_broken: tuple[str, ...] = ()  # invariants the final state breaks

    @property
    def exit_code(self) -> int:
        """0: fine; 2: the choice was incorrect; 3: an invariant was violated (1 is
        left for a contract or log that cannot be read)."""
        if self.violation is not None:
            return 3
        if self.choice is not None and not self.choice.legal:
            return 2
        return 0

    def to_json(self) -> dict[str, Any]:
        def attempt(a: Attempt) -> dict[str, Any]:
            return asdict(a)

        return {
            "choice": None
            if self.choice is None
            else {
                "attempt": self.choice.attempt,
                "operation": self.choice.operation,
                "time": self.choice.time,
                "correct": self.choice.legal,
                "legal": list(self.choice.legal_set),
            },
            "execution": {
                "obligations": len(self.obligations),
                "executed": sum(o.executed for o in self.obligations),
                "per_obligation": [asdict(o) for o in self.obligations],
            },
            "completion": self.completion,
            "invariants": {
                "first_violation": None if self.violation is None else asdict(self.violation),
                "broken_at_end": list(self.final_broken),
            },
            "attempts": [attempt(a) for a in self.attempts],
            "final_state": self.final_state,
            "notes": list(self.notes),
        }


def read_events(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Parse JSON lines (blank lines skipped); MonitorError names the bad line."""
    from lablang.datafile import DataFileError, load_json_lines

    events = []
    try:
        for number, data in load_json_lines(text, "events"):  # the guarded loader
            if not isinstance(data, dict):
                raise MonitorError(f"line {number}: an event is a JSON object")
            time = data.get("time")
            if isinstance(time, bool) or not isinstance(time, int | float):
                raise MonitorError(f"line {number}: `time` must be a number")
            events.append((number, data))
    except DataFileError as error:
        raise MonitorError(str(error)) from None
    return events


def monitor(contract: Contract, events: Iterable[tuple[int, Mapping[str, Any]]]) -> MonitorReport:
    """Replay an event log and score choice, execution and completion separately."""
    ordered = sorted(events, key=lambda e: (float(e[1]["time"]), e[0]))
    evidence = default_evidence(contract)
    delivered: float | None = None
    groups: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    order: list[str] = []
    for number, event in ordered:
        if "evidence" in event:
            values = event["evidence"]
            if not isinstance(values, dict):
                raise MonitorError(f"line {number}: `evidence` must be an object")
            for name, raw in values.items():
                decl = next((e for e in contract.evidence if e.name == name), None)
                if decl is None:
                    raise MonitorError(
                        f"line {number}: `{name}` is not evidence of `{contract.name}`"
                    )
                try:
                    evidence[name] = read_value(decl.type, raw)
                except ValueError as error:
                    raise MonitorError(f"line {number}: evidence `{name}`: {error}") from None
            delivered = float(event["time"])
            continue
        if "attempt" not in event or "operation" not in event:
            raise MonitorError(f"line {number}: an attempt needs `attempt` and `operation`")
        key = str(event["attempt"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((number, event))

    state = initial_state(contract, evidence)
    notes: list[str] = []
    attempts: list[Attempt] = []
    ev = Evaluator(contract)

    def broken(here: Mapping[str, object]) -> list[str]:
        env = state_env(contract, here, evidence)
        return [i.text for i in contract.invariants if not ev.evaluate(i.expr, env)]

    def shown_state(here: Mapping[str, object]) -> dict[str, object]:
        return {v.name: show_value(v.type, here[v.name]) for v in contract.variables}

    violation: Violation | None = None
    if broken(state):
        violation = Violation(
            invariant=broken(state)[0],
            line=None,
            attempt=None,
            operation=None,
            state=shown_state(state),
        )
    for key in order:
        lines = groups[key]
        first_line, first = lines[0]
        op_name = str(first["operation"])
        for number, event in lines[1:]:
            if str(event["operation"]) != op_name:
                raise MonitorError(
                    f"line {number}: attempt `{key}` changes its operation "
                    f"from `{op_name}` to `{event['operation']}`"
                )
        g = find_ground(contract, op_name)
        if g is None:
            raise MonitorError(
                f"line {first_line}: `{op_name}` is not an operation of `{contract.name}`"
            )
        legal = legal_ground(contract, state, evidence)
        is_legal = any(h.name == g.name for h in legal)
        last = lines[-1][1]
        confirmed = last.get("confirmed")
        if confirmed is not None and not isinstance(confirmed, bool):
            raise MonitorError(f"line {lines[-1][0]}: `confirmed` must be true or false")
        outcomes = {}
        given = last.get("outcomes")
        if given is not None and not isinstance(given, dict):
            raise MonitorError(f"line {lines[-1][0]}: `outcomes` must be an object")
        for name in given or {}:
            if not any(o.name == name for o in contract.outcomes):
                raise MonitorError(
                    f"line {lines[-1][0]}: `{name}` is not an outcome of `{contract.name}`"
                    + (
                        " (outcomes: " + ", ".join(o.name for o in contract.outcomes) + ")"
                        if contract.outcomes
                        else " (it has none)"
                    )
                )
        for o in contract.outcomes:
            raw = (
                last.get("outcomes", {}).get(o.name)
                if isinstance(last.get("outcomes"), dict)
                else None
            )
            if raw is not None:
                try:
                    outcomes[o.name] = read_value(o.type, raw)
                except ValueError as error:
                    raise MonitorError(
                        f"line {lines[-1][0]}: outcome `{o.name}`: {error}"
                    ) from None
        target = last.get("target")
        aimed = show_value(g.op.params[0].type, g.args[0]) if g.op.params else None
        executed = confirmed is True and (target is None or aimed is None or target == aimed)
        after = apply(contract, state, evidence, g, outcomes)
        if g.op.confirm is not None and confirmed is not None:
            env = with_args(state_env(contract, after, evidence, outcomes), g)
            predicted = bool(ev.evaluate(g.op.confirm.expr, env))
            if predicted != confirmed:
                notes.append(
                    f"line {lines[-1][0]}: the log says {'' if confirmed else 'not '}confirmed, but "
                    f"`{g.op.confirm.text}` is {str(predicted).lower()} after `{g.name}` with these outcomes"
                )
        if not is_legal:
            notes.append(
                f"line {first_line}: `{g.name}` was not legal; legal were: "
                + (", ".join(h.name for h in legal) or "(none)")
            )
        attempts.append(
            Attempt(
                attempt=key,
                line=first_line,
                time=float(first["time"]),
                object_id=None if first.get("object") is None else str(first["object"]),
                operation=g.name,
                legal=is_legal,
                legal_set=tuple(h.name for h in legal),
                confirmed=confirmed,
                target=target,
                executed=executed,
            )
        )
        state = after
        if violation is None and broken(state):
            violation = Violation(
                invariant=broken(state)[0],
                line=lines[-1][0],
                attempt=key,
                operation=g.name,
                state=shown_state(state),
            )
    choice = next((a for a in attempts if delivered is None or a.time >= delivered), None)
    obligation_list = number_obligations(attempts)
    env = state_env(contract, state, evidence)
    reached = bool(contract.goals) and all(bool(ev.evaluate(gl.expr, env)) for gl in contract.goals)
    final_broken = tuple(broken(state))
    if final_broken:
        completion = "violated"  # never recovered while the final state breaks an invariant
    elif not reached:
        completion = "incomplete"
    elif (
        violation is None
        and all(a.legal for a in attempts)
        and all(o.attempts == 1 and o.executed for o in obligation_list)
    ):
        completion = "clean"
    else:
        completion = "recovered"
    shown = {v.name: show_value(v.type, state[v.name]) for v in contract.variables}
    return MonitorReport(
        choice=choice,
        attempts=tuple(attempts),
        obligations=obligation_list,
        completion=completion,
        final_state=shown,
        notes=tuple(notes),
        violation=violation,
        final_broken=final_broken,
    )


def number_obligations(attempts: Iterable[Attempt]) -> tuple[Obligation, ...]:
    """The log's obligations, numbered in log order: an attempt joins the open obligation
    of its object and operation family (a retry) until one of its attempts was legal and
    executed; the next attempt of that family on that object opens the next obligation
    (`tube:mix#2`), so a contract that needs the same operation on the same object twice
    has two obligations of one attempt each, never one of two attempts.

    >>> def a(op: str, ok: bool = True) -> Attempt:
    ...     return Attempt(attempt=op, line=1, time=0.0, object_id="t", operation=op,
    ...                    legal=ok, legal_set=(), confirmed=True, target=None, executed=True)
    >>> [(o.key, o.attempts) for o in number_obligations([a("mix"), a("mix")])]
    [('t:mix', 1), ('t:mix#2', 1)]
    >>> [(o.key, o.attempts) for o in number_obligations([a("put(1)", False), a("put(2)")])]
    [('t:put', 2)]
    """
    groups: list[tuple[str, list[Attempt]]] = []
    open_at: dict[str, int] = {}  # family key -> index of its open obligation
    count: dict[str, int] = {}
    for a in attempts:
        family = f"{a.object_id or '-'}:{a.operation.split('(')[0]}"
        if family not in open_at:
            count[family] = count.get(family, 0) + 1
            key = family if count[family] == 1 else f"{family}#{count[family]}"
            open_at[family] = len(groups)
            groups.append((key, []))
        groups[open_at[family]][1].append(a)
        if a.legal and a.executed:
            del open_at[family]  # achieved: a later attempt is a new obligation
    return tuple(
        Obligation(key=k, attempts=len(v), executed=any(a.executed for a in v)) for k, v in groups
    )


def render_monitor(report: MonitorReport) -> str:
    c = report.choice
    lines = [
        "choice: "
        + (
            "(no attempt after the evidence)"
            if c is None
            else f"{'correct' if c.legal else 'incorrect'}: `{c.operation}` (attempt {c.attempt}, "
            f"t={c.time:g}); legal: {', '.join(c.legal_set) or '(none)'}"
        ),
        f"execution: {sum(o.executed for o in report.obligations)} of {len(report.obligations)} "
        "obligations executed",
    ]
    for o in report.obligations:
        lines.append(
            f"  {o.key}: {'executed' if o.executed else 'not executed'} "
            f"({o.attempts} attempt{'s' * (o.attempts != 1)})"
        )
    v = report.violation
    if v is None:
        lines.append("invariants: held in every observed state")
    else:
        where = (
            "the initial state"
            if v.line is None
            else f"`{v.operation}` (attempt {v.attempt}, line {v.line})"
        )
        lines.append(f"invariants: `{v.invariant}` first violated after {where}")
        if report.final_broken:
            lines.append("  broken at the end: " + ", ".join(f"`{t}`" for t in report.final_broken))
    lines.append(f"completion: {report.completion}")
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines) + "\n"
