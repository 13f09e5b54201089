"""Vacuity: operations never enabled and invariant premises that never hold, with the
reason (contradictory requirements, named by an unsat core) when there is one.

Not being seen within the depth decides nothing (`bounded`); `violated` needs a proof
for every depth: requirements no typed state meets, or that no state allowed by the
proved invariants meets (which include every reachable state)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, as_bool
from lablang.contracts.explain import snippet
from lablang.contracts.model import Contract, Span
from lablang.contracts.results import BOUNDED, HOLDS, VIOLATED, Result
from lablang.contracts.session import Session, arbitrary_state, unknown_result


def vacuity_results(
    contract: Contract,
    u: Unrolling,
    enabled_at: dict[int, int],
    premises: list[tuple[int, Any]],
    premise_at: dict[int, int],
    stopped: bool,
    depth: int,
    budget: int,
    cost: int,
    s: Session,
    known: list[Any] | None = None,
) -> list[Result]:
    """`known`: the proved invariants, when "every variable stays in its type" is proved
    too (None otherwise): a state none of them allows is unreachable at every depth."""
    results = []

    def verdict(name: str, span: Span | None, status: str, message: str, *details: str) -> None:
        results.append(
            Result(
                check="vacuity",
                item=name,
                status=status,
                span=span,
                message=message,
                details=details,
                depth=depth,
                rlimit=cost,
            )
        )

    for op in contract.operations:
        idx = [i for i, g in enumerate(u.ops) if g.op is op]
        name = f"operation `{op.name}`"
        if any(i in enabled_at for i in idx):
            first = min(enabled_at[i] for i in idx if i in enabled_at)
            dead = [u.ops[i].name for i in idx if i not in enabled_at]
            if not dead:
                details: tuple[str, ...] = ()
            elif stopped:
                # the search stopped early: that they were not seen enabled proves nothing
                details = (
                    f"unknown whether {', '.join(dead)} are ever enabled: the solver stopped "
                    f"({s.reason or 'unknown'}) before the search finished",
                )
            else:
                details = (f"never enabled within depth {depth}: {', '.join(dead)}",)
            verdict(name, op.span, HOLDS, f"first enabled after {first} steps", *details)
        elif stopped:
            results.append(unknown_result("vacuity", name, s, depth, op.span, cost))
        elif (clash := contradiction(contract, op, budget)) is not None:
            together = " and ".join(f"`{t}`" for t in clash)
            verdict(
                name,
                op.span,
                VIOLATED,
                "its requirements contradict each other: it can never be enabled"
                + (
                    f" ({together} cannot hold together)"
                    if len(clash) > 1
                    else f" ({together} can never hold)"
                    if clash
                    else ""
                ),
            )
        elif known is not None and not satisfiable(contract, _enablings(op), budget, known):
            verdict(
                name,
                op.span,
                VIOLATED,
                "never enabled: no state allowed by the proved invariants meets its requirements",
            )
        else:
            verdict(
                name,
                op.span,
                BOUNDED,
                f"not enabled within depth {depth}; unknown beyond it (try a larger --depth)",
            )
    for j, premise in premises:
        if j in premise_at:
            continue
        inv = contract.invariants[j]
        name = f"premise of `{inv.text}`"

        def meets(u: Unrolling, premise: Any = premise) -> list[Any]:
            return [u.holds(0, premise)]

        if stopped:
            results.append(unknown_result("vacuity", name, s, depth, inv.span, cost))
        elif known is not None and not satisfiable(contract, meets, budget, known):
            verdict(
                name,
                inv.span,
                VIOLATED,
                "the premise never holds: no state allowed by the proved invariants meets it; "
                "the invariant is vacuous",
            )
        else:
            verdict(
                name,
                inv.span,
                BOUNDED,
                f"the premise does not hold within depth {depth}; unknown beyond it "
                "(the invariant may be vacuous)",
            )
    return results


def contradiction(contract: Contract, op: Any, budget: int) -> list[str] | None:
    """None when some typed state enables a ground instance of `op`; otherwise the
    requirement conjuncts that cannot hold together (a minimized unsat core over one
    assumption per conjunct; empty if the solver found none)."""
    from lablang.contracts.model import conjuncts
    from lablang.contracts.semantics import with_args

    if satisfiable_requirements(contract, op, budget):
        return None
    s = Session(budget)
    s.solver.set("core.minimize", True)
    u = arbitrary_state(contract, "why", s)
    parts = [(p, i) for i, r in enumerate(op.requires) for p in conjuncts(r.expr)]
    lits = [z3.Bool(f"req:{n}", s.ctx) for n in range(len(parts))]
    instances = []
    for idx, g in enumerate(u.ops):
        if g.op is not op:
            continue
        genv = with_args(u.env(0), g)
        instances.append(
            Z3.and_(
                [
                    Z3.implies(lit, u.ev.evaluate(p, genv))
                    for lit, (p, _) in zip(lits, parts, strict=True)
                ]
            )
        )
        del idx
    s.solver.add(as_bool(Z3.or_(instances), s.ctx))
    if s.check_assuming(*lits) != z3.unsat:
        return []
    core = {str(c) for c in s.solver.unsat_core()}
    return [
        snippet(contract, p.span) if p.span is not None else op.requires[i].text
        for lit, (p, i) in zip(lits, parts, strict=True)
        if str(lit) in core
    ]


def satisfiable_requirements(contract: Contract, op: Any, budget: int) -> bool:
    return satisfiable(contract, _enablings(op), budget)


def _enablings(op: Any) -> Any:
    def pres(u: Unrolling) -> list[Any]:
        return [u.pre(0, i) for i, g in enumerate(u.ops) if g.op is op]

    return pres


def satisfiable(contract: Contract, cases: Any, budget: int, known: Sequence[Any] = ()) -> bool:
    """Does some typed state (meeting the `known` invariants) satisfy one of `cases(u)`?
    True also when the solver stops: only unsat is taken as a proof."""
    s = Session(budget)
    u = arbitrary_state(contract, "sat", s)
    s.add([u.holds(0, e) for e in known])
    answer, _ = s.check(Z3.or_(cases(u)))
    return bool(answer != z3.unsat)
