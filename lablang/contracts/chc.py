"""Proofs for every depth by Z3's CHC engine (Spacer), opt-in with `--chc`: the
verdicts that hold only up to the depth are handed to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3
from attrs import evolve

from lablang.contracts.encode import Z3, Unrolling, as_bool
from lablang.contracts.model import Contract
from lablang.contracts.results import HOLDS, PROVED, VIOLATED, Result
from lablang.contracts.session import _LEDGER


def by_chc(contract: Contract, r: Result, depth: int, budget: int) -> Result:
    if r.status != HOLDS or r.check not in ("invariant", "deadlock"):
        return r
    if r.check == "deadlock":

        def bad(u: Unrolling, t: int) -> Any:
            return Z3.and_(
                [Z3.not_(u.terminal(t)), *(Z3.not_(u.pre(t, i)) for i in range(len(u.ops)))]
            )

    else:
        inv = next(i for i in contract.invariants if i.span == r.span and i.text == r.item)

        def bad(u: Unrolling, t: int) -> Any:
            return Z3.not_(u.holds(t, inv.expr))

    answer = chc_reachable(contract, bad, budget)
    if answer is None:
        return evolve(r, details=(*r.details, "the CHC engine gave up within its rlimit budget"))
    if answer:
        return evolve(
            r,
            status=VIOLATED,
            message=f"violated in more than {depth} steps (found by the CHC engine, which gives "
            "no trace: run with a larger --depth to see one)",
        )
    return evolve(r, status=PROVED, message="proved for every depth by the CHC engine (Spacer)")


def _flatten(values: Any) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, dict):
            out += [value[k] for k in sorted(value)]
        else:
            out.append(value)
    return out


def chc_reachable(contract: Contract, bad: Any, budget: int) -> bool | None:
    """Is a state satisfying `bad(u, t)` reachable at any depth? Z3's CHC engine (Spacer)
    over `Reach(evidence, state)`; None when it gives up within the rlimit budget.

    `bad` is a function of an unrolling and a step index returning a condition.
    """
    ledger = _LEDGER.get()
    if ledger is not None:
        budget = min(budget, ledger.left)
        if budget == 0:
            return None
        ledger.spent += budget  # Spacer's own count is not exposed: charge the whole cap
    ctx = z3.Context(rlimit=budget)
    u = Unrolling(contract, "chc", ctx=ctx)
    init = u.start()
    step = u.extend()
    evidence = _flatten(u.evidence[e.name] for e in contract.evidence)
    before = _flatten(u.states[0][v.name] for v in contract.variables)
    after = _flatten(u.states[1][v.name] for v in contract.variables)
    outcomes = _flatten(u.outcomes[0][o.name] for o in contract.outcomes)
    sorts = [x.sort() for x in evidence + before]
    reach = z3.Function("reach", *sorts, z3.BoolSort(ctx)) if sorts else None
    fp = z3.Fixedpoint(ctx=ctx)
    fp.set(engine="spacer")
    try:
        if reach is None:  # no state at all: only the initial (empty) state exists
            return bool(_solve(ctx, init, bad(u, 0)))
        fp.register_relation(reach)
        fp.declare_var(*evidence, *before, *after, *outcomes, u.acts[0])
        fp.rule(reach(*evidence, *before), [as_bool(c, ctx) for c in init])
        fp.rule(
            reach(*evidence, *after), [reach(*evidence, *before), *(as_bool(c, ctx) for c in step)]
        )
        answer = fp.query(z3.And(reach(*evidence, *before), as_bool(bad(u, 0), ctx)))
    except z3.Z3Exception:
        return None  # the resource limit (or another give-up) ends as "unknown"
    if answer == z3.unknown:
        return None
    return bool(answer == z3.sat)


def _solve(ctx: Any, cons: Sequence[Any], goal: Any) -> bool:
    solver = z3.Solver(ctx=ctx)
    solver.add(*(as_bool(c, ctx) for c in cons), as_bool(goal, ctx))
    return bool(solver.check() == z3.sat)
