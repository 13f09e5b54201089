"""Commutation claims: `commute(a, b)` says that in every reachable state where a ground
`a` and a ground `b` are both legal, either order is legal and both orders end in the
same state (with each operation seeing the same outcomes in either order).

First a proof for every depth: no state allowed by the proved invariants (when the
variables are proved to stay in their types) breaks it. Otherwise the states reachable
within the depth are searched by BMC, and the first one where order matters is the
counterexample: the trace into it, then what each order does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, fresh, model_truth, read, same
from lablang.contracts.model import Commute, Contract, GroundOp, show_value
from lablang.contracts.results import HOLDS, PROVED, VIOLATED, Result, make_trace, plain
from lablang.contracts.semantics import with_args
from lablang.contracts.session import Session, arbitrary_state, unknown_result

Env = dict[tuple[str, str], Any]


def check_commute(
    contract: Contract, claim: Commute, depth: int, budget: int, proved: Sequence[int] | None
) -> Result:
    """Is there a reachable state (within `depth`) where the order of `a` and `b` matters?"""
    item = f"`{claim.a}` and `{claim.b}` commute"
    # a proof for every depth, from the invariants the bounded checks proved
    if proved is not None:
        s = Session(budget)
        u = arbitrary_state(contract, "cp", s)
        s.add([u.holds(0, contract.invariants[j].expr) for j in proved])
        s.add([u.in_range(0)])
        order = _order_matters(contract, u, u.env(0), claim, _fresh_outcomes(contract, s))
        answer, _ = s.check(Z3.or_(order.values()))
        if answer == z3.unsat:
            return Result(
                check="commute",
                item=item,
                status=PROVED,
                span=claim.span,
                message="proved for every depth: in every state allowed by the proved "
                "invariants where both are legal, either order is legal and ends alike",
                rlimit=s.used,
            )
        spent = s.used
    else:
        spent = 0
    s = Session(budget)
    u = Unrolling(contract, "cm", ctx=s.ctx)
    s.add(u.start())
    outs = _fresh_outcomes(contract, s)
    for k in range(depth + 1):
        if k:
            s.add(u.extend())
        order = _order_matters(contract, u, u.env(k), claim, outs)
        answer, model = s.check(Z3.or_(order.values()))
        if answer == z3.unknown:
            return unknown_result("commute", item, s, k, claim.span, s.used + spent)
        if answer == z3.sat:
            pair = next(p for p, cond in order.items() if model_truth(model, cond))
            return Result(
                check="commute",
                item=item,
                status=VIOLATED,
                span=claim.span,
                message=f"after {k} steps the order of `{pair[0].name}` and `{pair[1].name}` "
                "matters",
                traces=(make_trace(contract, u, model, k),),
                details=tuple(_difference(contract, u, model, pair, outs, k)),
                depth=k,
                rlimit=s.used + spent,
            )
    return Result(
        check="commute",
        item=item,
        status=HOLDS,
        span=claim.span,
        message=f"in every state reachable within {depth} steps where both are legal, either "
        "order is legal and ends alike",
        depth=depth,
        rlimit=s.used + spent,
    )


def _fresh_outcomes(contract: Contract, s: Session) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fresh outcomes for the `a` and the `b` application, the same in either order."""
    sides = []
    for side in ("a", "b"):
        values = {}
        for o in contract.outcomes:
            value, dom = fresh(o.type, f"commute.{side}.{o.name}", s.ctx)
            values[o.name] = value
            s.add(dom)
        sides.append(values)
    return sides[0], sides[1]


def _ground(contract: Contract, u: Unrolling, name: str) -> list[GroundOp]:
    return [g for g in u.ops if g.op.name == name]


def _order_matters(
    contract: Contract, u: Unrolling, env: Env, claim: Commute, outs: Any
) -> dict[tuple[GroundOp, GroundOp], Any]:
    """Per pair of ground instances: both legal in `env` and either order illegal or the
    two end states different."""
    oa, ob = outs
    found = {}
    for ga in _ground(contract, u, claim.a):
        for gb in _ground(contract, u, claim.b):
            after_a, after_b = _after(u, env, ga, oa), _after(u, env, gb, ob)
            ab, ba = _after(u, after_a, gb, ob), _after(u, after_b, ga, oa)
            alike = Z3.and_(
                [
                    _legal(u, after_a, gb),
                    _legal(u, after_b, ga),
                    *(same(ab[("var", v.name)], ba[("var", v.name)]) for v in contract.variables),
                ]
            )
            found[(ga, gb)] = Z3.and_([_legal(u, env, ga), _legal(u, env, gb), Z3.not_(alike)])
    return found


def _legal(u: Unrolling, env: Env, g: GroundOp) -> Any:
    ev, c = u.ev, u.contract
    genv = with_args(env, g)
    return Z3.and_(
        [
            Z3.not_(Z3.or_(ev.evaluate(x.expr, env) for x in c.terminal)),
            *(ev.evaluate(r.expr, genv) for r in g.op.requires),
        ]
    )


def _after(u: Unrolling, env: Env, g: GroundOp, outcomes: dict[str, Any]) -> Env:
    """The state after `g` from `env` (effects are simultaneous: all read `env`)."""
    genv = with_args(env, g)
    for name, value in outcomes.items():
        genv[("outcome", name)] = value
    new = dict(env)
    for e in g.op.effects:
        new[("var", e.var)] = u.ev.evaluate(e.value, genv)
    return new


def _difference(
    contract: Contract, u: Unrolling, model: Any, pair: tuple[GroundOp, GroundOp], outs: Any, k: int
) -> list[str]:
    """What each order does from the counterexample state, in the contract's words."""
    env = u.env(k)
    ga, gb = pair
    oa, ob = outs
    lines, ends = [], []
    for first, second, o1, o2 in ((ga, gb, oa, ob), (gb, ga, ob, oa)):
        mid = _after(u, env, first, o1)
        if not model_truth(model, _legal(u, mid, second)):
            lines.append(f"`{second.name}` is not legal after `{first.name}`")
            continue
        end = _after(u, mid, second, o2)
        ends.append(
            (
                f"`{first.name}` then `{second.name}`",
                {
                    v.name: plain(show_value(v.type, read(model, end[("var", v.name)], v.type)))
                    for v in contract.variables
                },
            )
        )
    if len(ends) == 2:
        differ = [n for n in ends[0][1] if ends[0][1][n] != ends[1][1][n]]
        lines += [
            f"{order}: " + " ".join(f"{n}={values[n]}" for n in differ) for order, values in ends
        ]
    return lines
