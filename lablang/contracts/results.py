"""What a check answers: a status, a message and, for a witness, the run shown as
people read it (enum names, `none`, lists)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import field, fields, frozen, has

from lablang.contracts.encode import Unrolling
from lablang.contracts.model import Contract, Span, show_value

HOLDS, PROVED, VIOLATED, UNKNOWN = "holds", "proved", "violated", "unknown"
BOUNDED = "bounded"
"""Not decided within the depth: the witness the check looks for (a plan to the goal, a
state enabling an operation, a choice for a pair) was not found within it, and a deeper
run may find one. Neither a pass nor a failure: `verify` exits 3 when nothing else fails."""

DECIDED_WHEN_HOLDS = frozenset({"goal", "vacuity"})
"""Checks whose `holds` rests on a witness found (a plan, a first enabling), so it does
not depend on the depth; every other `holds` means "no counterexample to depth k"."""


@frozen(kw_only=True)
class Step:
    op: str
    outcomes: dict[str, object]
    changes: dict[str, object]
    raw_outcomes: dict[str, object] = field(factory=dict, eq=False, repr=False)


@frozen(kw_only=True)
class Trace:
    """A run of the contract, shown as people read it (enum names, `none`, lists)."""

    evidence: dict[str, object]
    initial: dict[str, object]
    steps: tuple[Step, ...]
    states: tuple[dict[str, object], ...]
    raw_states: tuple[dict[str, object], ...] = field(eq=False, repr=False)
    raw_evidence: dict[str, object] = field(eq=False, repr=False)


@frozen(kw_only=True)
class Result:
    check: str  # goal | deadlock | invariant | vacuity | pair | eventually | ...
    item: str
    status: str
    message: str
    span: Span | None = None
    traces: tuple[Trace, ...] = ()
    details: tuple[str, ...] = ()
    depth: int = 0
    rlimit: int = 0
    loop: int | None = None  # a lasso: the state its last state repeats (`eventually`)

    @property
    def passed(self) -> bool:
        return self.status in (HOLDS, PROVED)

    @property
    def bounded_by(self) -> int | None:
        """The depth this verdict is limited to (None: it holds at every depth, or it is a
        finding, or the solver stopped)."""
        if self.status == BOUNDED or (
            self.status == HOLDS and self.check not in DECIDED_WHEN_HOLDS
        ):
            return self.depth
        return None


def make_trace(contract: Contract, u: Unrolling, model: Any, length: int) -> Trace:
    evidence, states, steps = u.read_trace(model, length)
    show = {v.name: v.type for v in contract.variables}
    shown_states = tuple({n: show_value(show[n], s[n]) for n in s} for s in states)
    rows = []
    for t, (act, outs) in enumerate(steps):
        if act < len(u.ops):
            g = u.ops[act]
            op = g.name
            used = outcomes_used(g.op.effects)
            outcomes = {
                o.name: show_value(o.type, outs[o.name])
                for o in contract.outcomes
                if o.name in used
            }
        else:
            op, outcomes = "(stutter)", {}
        changes = {
            n: shown_states[t + 1][n]
            for n in shown_states[t]
            if shown_states[t + 1][n] != shown_states[t][n]
        }
        rows.append(Step(op=op, outcomes=outcomes, changes=changes, raw_outcomes=outs))
    ev_types = {e.name: e.type for e in contract.evidence}
    return Trace(
        evidence={n: show_value(ev_types[n], v) for n, v in evidence.items()},
        initial=shown_states[0],
        steps=tuple(rows),
        states=shown_states,
        raw_states=tuple(states),
        raw_evidence=evidence,
    )


def outcomes_used(effects: Sequence[Any]) -> set[str]:
    names: set[str] = set()

    def walk(x: Any) -> None:
        if has(type(x)):
            if type(x).__name__ == "Ref" and x.kind == "outcome":
                names.add(x.name)
            for f in fields(type(x)):
                walk(getattr(x, f.name))
        elif isinstance(x, tuple):
            for y in x:
                walk(y)

    for e in effects:
        walk(e.value)
    return names


def legal_names(contract: Contract, trace: Trace) -> list[str]:
    from lablang.contracts.semantics import legal_operations

    return legal_operations(contract, trace.raw_states[-1], trace.raw_evidence)


def plain(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


EXIT_PASSED, EXIT_FAILED, EXIT_BOUNDED = 0, 1, 3


def exit_status(results: Sequence[Result]) -> int:
    """`verify`'s exit status: 0 when every check passed, 1 when one is `violated` or
    `unknown`, 3 when none is but some are `bounded` (not decided within the depth)."""
    if any(not r.passed and r.status != BOUNDED for r in results):
        return EXIT_FAILED
    return EXIT_BOUNDED if any(r.status == BOUNDED for r in results) else EXIT_PASSED
