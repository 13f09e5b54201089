"""Checks over two executions of one contract: answer-changing pairs, and the shared
machinery of two unrollings in lockstep that non-interference uses too."""

from __future__ import annotations

from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, model_truth, same
from lablang.contracts.model import Contract, Pair, Pin
from lablang.contracts.results import (
    BOUNDED,
    HOLDS,
    VIOLATED,
    Result,
    Trace,
    legal_names,
    make_trace,
)
from lablang.contracts.semantics import Evaluator, as_env_value
from lablang.contracts.session import Session, unknown_result


def check_pair(contract: Contract, pair: Pair, depth: int, budget: int) -> Result:
    """Two episodes that differ only in what each side pins (evidence or state at the
    choice; unpinned evidence is equal, step outcomes are free) and in which the agent
    did the same operations: at the scored choice their legal `at` operations must
    not overlap."""
    s = Session(budget)
    left, right = twin_unrollings(contract, s)
    at = [i for i, g in enumerate(left.ops) if g.op.name in pair.at]
    item = f"pair `{pair.name}`"
    # the two episodes differ only in what the sides pin (and in step outcomes)
    pinned = {p.name for p in pair.left + pair.right}
    s.add(
        [
            same(left.evidence[e.name], right.evidence[e.name])
            for e in contract.evidence
            if e.name not in pinned
        ]
    )
    reached = None
    for k in range(depth + 1):
        lockstep(s, left, right, k)
        side = Z3.and_([_pins(contract, left, k, pair.left), _pins(contract, right, k, pair.right)])
        choice = Z3.and_(
            [
                side,
                Z3.or_([left.legal(k, i) for i in at]),
                Z3.or_([right.legal(k, i) for i in at]),
            ]
        )
        answer, model = s.check(choice)
        if answer == z3.unknown:
            return unknown_result("pair", item, s, k, pair.span)
        if answer != z3.sat:
            continue
        if reached is None:
            reached = (k, model)
        overlap = Z3.or_([Z3.and_([left.legal(k, i), right.legal(k, i)]) for i in at])
        answer, model = s.check(choice, overlap)
        if answer == z3.unknown:
            return unknown_result("pair", item, s, k, pair.span)
        if answer == z3.sat:
            lt, rt = twin_traces(contract, left, right, model, k)
            shared = [
                left.ops[i].name
                for i in at
                if model_truth(model, left.legal(k, i)) and model_truth(model, right.legal(k, i))
            ]
            details = (f"shared: {', '.join(shared)}", *_legal_sides(contract, lt, rt))
            return Result(
                check="pair",
                item=item,
                status=VIOLATED,
                span=pair.span,
                message=f"not answer-changing: after the same {k} operations both sides allow "
                + ", ".join(shared),
                traces=(lt, rt),
                details=details,
                depth=k,
                rlimit=s.used,
            )
    if reached is None:
        return Result(
            check="pair",
            item=item,
            status=BOUNDED,
            span=pair.span,
            message=f"vacuous within depth {depth}: the two sides do not reach a choice of "
            f"`{', '.join(pair.at)}` after the same operations; unknown beyond it",
            depth=depth,
            rlimit=s.used,
        )
    k, model = reached
    lt, rt = twin_traces(contract, left, right, model, k)
    return Result(
        check="pair",
        item=item,
        status=HOLDS,
        span=pair.span,
        message=f"the legal `{', '.join(pair.at)}` operations differ on the two sides "
        f"(first scored choice after {k} steps; checked to depth {depth})",
        traces=(lt, rt),
        details=_legal_sides(contract, lt, rt),
        depth=depth,
        rlimit=s.used,
    )


def twin_unrollings(contract: Contract, session: Session) -> tuple[Unrolling, Unrolling]:
    """Two executions of the contract from its initial states, `L` and `R` (pairs and
    non-interference compare them)."""
    left = Unrolling(contract, "L", ctx=session.ctx)
    right = Unrolling(contract, "R", ctx=session.ctx)
    session.add(left.start())
    session.add(right.start())
    return left, right


def lockstep(session: Session, left: Unrolling, right: Unrolling, k: int) -> None:
    """Unroll both executions to step `k` (nothing at 0), doing the same operations."""
    if k:
        session.add(left.extend())
        session.add(right.extend())
        session.add([left.acts[k - 1] == right.acts[k - 1]])


def twin_traces(
    contract: Contract, left: Unrolling, right: Unrolling, model: Any, k: int
) -> tuple[Trace, Trace]:
    return make_trace(contract, left, model, k), make_trace(contract, right, model, k)


def _legal_sides(contract: Contract, lt: Trace, rt: Trace) -> tuple[str, str]:
    return (
        f"left legal: {', '.join(legal_names(contract, lt)) or '(none)'}",
        f"right legal: {', '.join(legal_names(contract, rt)) or '(none)'}",
    )


def _pins(contract: Contract, u: Unrolling, k: int, pins: tuple[Pin, ...]) -> Any:
    ev = Evaluator(contract)
    env = {("param", n): v for n, v in contract.params.items()}
    parts = []
    for pin in pins:
        value = ev.evaluate(pin.value, env)
        if any(v.name == pin.name for v in contract.variables):
            t = contract.variable(pin.name).type
            parts.append(same(u.states[k][pin.name], as_env_value(t, _runtime(value))))
        else:
            t = contract.type_of("evidence", pin.name)
            parts.append(same(u.evidence[pin.name], as_env_value(t, _runtime(value))))
    return Z3.and_(parts)


def _runtime(value: Any) -> Any:
    if isinstance(value, dict):
        return frozenset(k for k, v in value.items() if v)
    return value
