"""`eventually(c, fair: [a, b])`: every execution reaches `c`, under weak fairness of the
named operations (an operation that stays legal from some point on is taken again and
again; an operation with parameters is fair as a whole, any ground instance counts).

A violation is a lasso: a run from an initial state in which `c` never holds, made of a
prefix and a loop back to one of its states, such that in the loop each fair operation is
taken at some step or is not legal in some state (so it is not continuously enabled).
A run that stops in a state where no operation is legal (terminal or stuck) without `c`
is a lasso whose loop is that state (nothing is enabled, so fairness asks for nothing).

BMC on one incremental unrolling with `not c` asserted at every step: at depth k, a lasso
of k steps is a loop from some l < k (state l equals state k, the evidence being constant
per trace) with the fairness condition over steps l..k-1, or a stop at k. The first depth
that finds one gives the shortest lasso. When no run of k steps avoids `c` at all, every
execution reaches it within k steps: `proved`. Otherwise a lasso longer than the depth may
still exist: `bounded` (unknown beyond it).
"""

from __future__ import annotations

from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, model_truth, same
from lablang.contracts.model import Contract, Eventually
from lablang.contracts.results import BOUNDED, PROVED, VIOLATED, Result, make_trace
from lablang.contracts.session import Session, unknown_result


def claim_text(claim: Eventually) -> str:
    """The claim as printed: its condition and its fair operations."""
    fair = f" (fair: {', '.join(claim.fair)})" if claim.fair else " (no fairness)"
    return claim.goal.text + fair


def check_eventually(
    contract: Contract, claim: Eventually, depth: int, budget: int, *, further: int = 0
) -> Result:
    """The shortest lasso within `depth` that avoids the claim's condition, fairly. With
    `further` > `depth`, an open result says whether a search to `further` decides it."""
    item = claim_text(claim)
    s = Session(budget)
    u = Unrolling(contract, "ev", ctx=s.ctx)
    s.add(u.start())
    n = len(u.ops)
    fair = {name: [i for i, g in enumerate(u.ops) if g.op.name == name] for name in claim.fair}
    taken: list[dict[str, Any]] = []  # per step j: fair operation -> "taken at step j"
    disabled: list[dict[str, Any]] = []  # per state j: fair operation -> "not legal in j"
    for k in range(depth + 1):
        if k:
            s.add(u.extend())
            act = u.acts[k - 1]
            taken.append({a: Z3.or_(act == i for i in idx) for a, idx in fair.items()})
        s.add([Z3.not_(u.holds(k, claim.goal.expr))])
        disabled.append({a: Z3.not_(Z3.or_(u.legal(k, i) for i in idx)) for a, idx in fair.items()})
        answer, _ = s.check()
        if answer == z3.unknown:
            return unknown_result("eventually", item, s, k, claim.span)
        if answer == z3.unsat:
            return Result(
                check="eventually",
                item=item,
                status=PROVED,
                span=claim.span,
                message=f"proved for every depth: every execution reaches it within {k} steps",
                depth=k,
                rlimit=s.used,
            )
        stop = Z3.and_(Z3.not_(u.legal(k, i)) for i in range(n))
        loops = [_loop(contract, u, taken, disabled, lo, k) for lo in range(k)]
        answer, model = s.check(Z3.or_([stop, *loops]))
        if answer == z3.unknown:
            return unknown_result("eventually", item, s, k, claim.span)
        if answer == z3.sat:
            back = k if model_truth(model, stop) else _first_loop(model, loops)
            trace = make_trace(contract, u, model, k)
            return Result(
                check="eventually",
                item=item,
                status=VIOLATED,
                span=claim.span,
                message=_lasso_words(back, k, model_truth(model, u.terminal(k))),
                traces=(trace,),
                details=tuple(_fairness_words(claim, trace.steps, model, taken, disabled, back)),
                depth=k,
                rlimit=s.used,
                loop=back,
            )
    deeper = check_eventually(contract, claim, further, budget) if further > depth else None
    details: tuple[str, ...] = ()
    if deeper is not None and deeper.status in (PROVED, VIOLATED):
        found = "a lasso" if deeper.status == VIOLATED else "a proof"
        details = (f"{found} at depth {deeper.depth}: run with --depth {deeper.depth}",)
    elif deeper is not None and deeper.status == BOUNDED:
        details = (f"still open at depth {further}: no lasso of at most {further} steps",)
    return Result(
        check="eventually",
        item=item,
        status=BOUNDED,
        span=claim.span,
        message=f"no lasso of at most {depth} steps avoids it, but a run avoids it for "
        f"{depth} steps: a longer lasso may exist; unknown beyond depth {depth}",
        details=details,
        depth=depth,
        rlimit=s.used + (deeper.rlimit if deeper is not None else 0),
    )


def _loop(
    contract: Contract,
    u: Unrolling,
    taken: list[dict[str, Any]],
    disabled: list[dict[str, Any]],
    lo: int,
    k: int,
) -> Any:
    """State k equals state `lo`, and in steps lo..k-1 each fair operation is taken or,
    in some state of the loop, not legal."""
    back = [same(u.states[lo][v.name], u.states[k][v.name]) for v in contract.variables]
    fairness = [
        Z3.or_([*(taken[j][a] for j in range(lo, k)), *(disabled[j][a] for j in range(lo, k))])
        for a in disabled[0]
    ]
    return Z3.and_([*back, *fairness])


def _first_loop(model: Any, loops: list[Any]) -> int:
    return next(lo for lo, cond in enumerate(loops) if model_truth(model, cond))


def _lasso_words(back: int, k: int, terminal: bool) -> str:
    if back == k:
        where = "a terminal state" if terminal else "a state where no operation is legal"
        return f"a run never reaches it: after {k} steps it stops in {where}"
    return (
        f"a run never reaches it: after {back} steps it repeats a loop of {k - back} "
        f"steps forever (state {k} is state {back})"
    )


def _fairness_words(
    claim: Eventually,
    steps: Any,
    model: Any,
    taken: list[dict[str, Any]],
    disabled: list[dict[str, Any]],
    back: int,
) -> list[str]:
    """Why the loop is fair: per fair operation, the step that takes it or the state
    where it is not legal."""
    k = len(steps)
    if back == k:
        return []  # nothing is legal: fairness asks for nothing
    lines = []
    for a in claim.fair:
        took = [j + 1 for j in range(back, k) if model_truth(model, taken[j][a])]
        off = [j for j in range(back, k) if model_truth(model, disabled[j][a])]
        if took:
            lines.append(f"fair `{a}`: taken in the loop (step {took[0]})")
        else:
            lines.append(
                f"fair `{a}`: not legal in the state of step {off[0]}, so not always legal"
            )
    return lines
