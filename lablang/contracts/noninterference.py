"""Non-interference: what the agent may do depends only on what it may observe.

Two questions, both over two executions with the same operations:

* **legal sets**: two states that look the same to the agent (equal visible
  variables and authorized evidence; hidden variables, unauthorized evidence and
  outcomes free) must have the same legal operations;
* **observations**: two executions with the same operations and the same outcomes
  that differ only in evidence the agent may not know yet must look the same. A
  visible variable that differs between them reveals that evidence: it is the leak,
  even though the legal sets agree on every pair of equal views.

The first is proved for every depth from the proved invariants when it can be; the
second when no visible variable (and no visibility condition) can depend on evidence
that is not always authorized (a flow analysis over `init`s and effects). Otherwise
both are searched by BMC up to the depth.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, model_truth, same
from lablang.contracts.model import Const, Contract, references
from lablang.contracts.pairs import lockstep, twin_traces, twin_unrollings
from lablang.contracts.results import HOLDS, PROVED, VIOLATED, Result, Trace, legal_names, plain
from lablang.contracts.session import Session, arbitrary_state, unknown_result


def check_noninterference(
    contract: Contract, depth: int, budget: int, proved: Sequence[int] | None = None
) -> Result:
    """After the same operations, two states the agent cannot tell apart must have the
    same legal set, and no visible variable may reveal unauthorized evidence.

    With `proved` (indices of invariants proved for every reachable state), it first
    tries to prove both for every depth; otherwise, or if that fails, it searches by BMC.
    """
    item = "non-interference"
    leaks = leaking_variables(contract)
    if proved is not None and not leaks:
        done = _noninterference_by_invariants(contract, proved, budget)
        if done is not None:
            return done
    s = Session(budget)
    left, right = twin_unrollings(contract, s)
    for k in range(depth + 1):
        lockstep(s, left, right, k)
        if leaks:
            found = _observation_leak(contract, s, left, right, k)
            if found is not None:
                return found
        same_view = _same_view(contract, left, right, k)
        differ = Z3.or_(
            [Z3.not_(Z3.eq(left.legal(k, i), right.legal(k, i))) for i in range(len(left.ops))]
        )
        answer, model = s.check(same_view, differ)
        if answer == z3.unknown:
            return unknown_result("noninterference", item, s, k, contract.span)
        if answer == z3.sat:
            lt, rt = twin_traces(contract, left, right, model, k)
            ll, rl = set(legal_names(contract, lt)), set(legal_names(contract, rt))
            hidden = _hidden_difference(contract, lt, rt)
            return Result(
                check="noninterference",
                item=item,
                status=VIOLATED,
                span=contract.span,
                message="two states the agent cannot tell apart have different legal operations"
                + (f" (they differ only in hidden {', '.join(hidden)})" if hidden else ""),
                traces=(lt, rt),
                details=(
                    f"only left: {', '.join(sorted(ll - rl)) or '(none)'}",
                    f"only right: {', '.join(sorted(rl - ll)) or '(none)'}",
                ),
                depth=k,
                rlimit=s.used,
            )
    return Result(
        check="noninterference",
        item=item,
        status=HOLDS,
        span=contract.span,
        message=f"the legal set depends only on what the agent may see, and what it sees "
        f"reveals no unauthorized evidence, within depth {depth}",
        depth=depth,
        rlimit=s.used,
    )


def leaking_variables(contract: Contract) -> list[str]:
    """The variables whose value or visibility can depend on evidence that is not always
    authorized (through `init`s and effects, transitively), among the visible ones.
    Empty means no observation can reveal unauthorized evidence, at any depth."""
    defs = {d.name: d.expr for d in contract.definitions}
    secret = {e.name for e in contract.evidence if e.authorized != Const(value=True)}
    tainted: set[str] = set()

    def reads_secret(expr: object) -> bool:
        return bool(references(expr, defs, "evidence") & secret) or bool(
            references(expr, defs) & tainted
        )

    changed = True
    while changed:
        changed = False
        for v in contract.variables:
            if v.name in tainted:
                continue
            sources = [v.init] if v.init is not None else []
            sources += [
                e.value for op in contract.operations for e in op.effects if e.var == v.name
            ]
            if any(reads_secret(x) for x in sources):
                tainted.add(v.name)
                changed = True
    return [
        v.name
        for v in contract.variables
        if v.visible != Const(value=False) and (v.name in tainted or reads_secret(v.visible))
    ]


def _observation_leak(
    contract: Contract, s: Session, left: Unrolling, right: Unrolling, k: int
) -> Result | None:
    """Two executions with the same operations and outcomes, equal on the evidence
    authorized at step k, whose visible variables differ at k."""
    item = "non-interference"
    same_outcomes = [
        same(left.outcomes[t][o.name], right.outcomes[t][o.name])
        for t in range(k)
        for o in contract.outcomes
    ]
    known = []
    for e in contract.evidence:
        lv, rv = left.holds(k, e.authorized), right.holds(k, e.authorized)
        known.append(
            Z3.implies(Z3.or_([lv, rv]), same(left.evidence[e.name], right.evidence[e.name]))
        )
    seen = []
    for v in contract.variables:
        lv, rv = left.holds(k, v.visible), right.holds(k, v.visible)
        seen.append(
            Z3.or_(
                [
                    Z3.not_(Z3.eq(lv, rv)),
                    Z3.and_([lv, Z3.not_(same(left.states[k][v.name], right.states[k][v.name]))]),
                ]
            )
        )
    answer, model = s.check(Z3.and_([*same_outcomes, *known]), Z3.or_(seen))
    if answer == z3.unknown:
        return unknown_result("noninterference", item, s, k, contract.span)
    if answer != z3.sat:
        return None
    lt, rt = twin_traces(contract, left, right, model, k)
    shown = [
        v.name for v, term in zip(contract.variables, seen, strict=True) if model_truth(model, term)
    ]
    secret = [n for n in lt.evidence if lt.evidence[n] != rt.evidence[n]]
    return Result(
        check="noninterference",
        item=item,
        status=VIOLATED,
        span=contract.span,
        message=f"visible {', '.join(f'`{n}`' for n in shown)} reveals unauthorized evidence "
        f"{', '.join(f'`{n}`' for n in secret)} after {k} steps: two episodes with the same "
        "operations and outcomes that differ only in evidence the agent may not know yet "
        "look different",
        traces=(lt, rt),
        details=(
            *(
                f"`{n}`: left {plain(lt.states[-1][n])}, right {plain(rt.states[-1][n])}"
                for n in shown
            ),
            "hide it until the evidence is authorized (`visible: ...`) or authorize "
            f"{', '.join(f'`{n}`' for n in secret)} when it becomes visible",
        ),
        depth=k,
        rlimit=s.used,
    )


def _noninterference_by_invariants(
    contract: Contract, proved: Sequence[int], budget: int
) -> Result | None:
    s = Session(budget)
    sides = []
    for tag in ("niL", "niR"):
        u = arbitrary_state(contract, tag, s)
        s.add([u.holds(0, contract.invariants[j].expr) for j in proved])
        sides.append(u)
    left, right = sides
    differ = Z3.or_(
        [Z3.not_(Z3.eq(left.legal(0, i), right.legal(0, i))) for i in range(len(left.ops))]
    )
    answer, _ = s.check(_same_view(contract, left, right, 0), differ)
    if answer != z3.unsat:
        return None
    return Result(
        check="noninterference",
        item="non-interference",
        status=PROVED,
        span=contract.span,
        message="proved for every depth: any two states allowed by the proved invariants "
        "that look the same to the agent have the same legal operations",
        rlimit=s.used,
    )


def _same_view(contract: Contract, left: Unrolling, right: Unrolling, k: int) -> Any:
    parts = []
    for v in contract.variables:
        lv, rv = left.holds(k, v.visible), right.holds(k, v.visible)
        parts += [
            Z3.eq(lv, rv),
            Z3.implies(lv, same(left.states[k][v.name], right.states[k][v.name])),
        ]
    for e in contract.evidence:
        lv, rv = left.holds(k, e.authorized), right.holds(k, e.authorized)
        parts += [
            Z3.eq(lv, rv),
            Z3.implies(lv, same(left.evidence[e.name], right.evidence[e.name])),
        ]
    return Z3.and_(parts)


def _hidden_difference(contract: Contract, lt: Trace, rt: Trace) -> list[str]:
    names = [f"`{n}`" for n in lt.states[-1] if lt.states[-1][n] != rt.states[-1][n]]
    names += [f"`{n}`" for n in lt.evidence if lt.evidence[n] != rt.evidence[n]]
    return names
