"""Proofs for every depth: Houdini over the candidate invariants (1-induction, with
deadlock freedom on top) and k-induction for an invariant 1-induction cannot prove."""

from __future__ import annotations

from typing import Any

import z3

from lablang.contracts.encode import Z3, model_truth
from lablang.contracts.model import Contract
from lablang.contracts.session import Session, arbitrary_state

MAX_K = 4
"""The largest k tried by k-induction for an invariant 1-induction cannot prove."""


def houdini(
    contract: Contract, keys: set[str], budget: int, deadlock: bool
) -> tuple[set[str], bool, int]:
    """The largest subset of candidate invariants that is jointly 1-inductive.

    Candidates are `invariantJ` (the J-th invariant) and `range` (every variable in its
    type). From an arbitrary typed state where all remaining candidates hold, one step
    must keep each of them; a candidate that can break is dropped and the rest is
    checked again (Houdini). Together with the base case (checked at step 0 by BMC)
    the survivors hold at every depth. The pre-state is only assumed typed, so nothing
    is proved unless `range` survives. If asked, deadlock freedom is proved when no
    non-terminal state satisfying the survivors has every operation disabled.
    """
    s = Session(budget)
    u = arbitrary_state(contract, "ind", s)
    s.add(u.extend())

    def term(key: str, t: int) -> Any:
        if key == "range":
            return u.in_range(t)
        return u.holds(t, contract.invariants[int(key.removeprefix("invariant"))].expr)

    alive = set(keys)
    # one query per round: from a state where all survivors hold, can a step break any?
    # The model drops those it breaks; the greatest inductive subset does not depend on
    # the order. If the solver stops, fall back to one query per candidate.
    while alive:
        ordered = sorted(alive)
        assumed = Z3.and_([term(k, 0) for k in ordered])
        answer, model = s.check(assumed, Z3.or_([Z3.not_(term(k, 1)) for k in ordered]))
        if answer == z3.unsat:
            break
        if answer == z3.unknown:
            changed = True
            while changed and alive:
                changed = False
                for key in sorted(alive):
                    assumed = Z3.and_([term(k, 0) for k in sorted(alive)])
                    if s.check(assumed, Z3.not_(term(key, 1)))[0] != z3.unsat:
                        alive.discard(key)
                        changed = True
            break
        alive -= {k for k in ordered if not model_truth(model, term(k, 1))}
    if "range" not in alive:
        return set(), False, s.used
    no_deadlock = False
    if deadlock:
        # a fresh state without the step constraints (which would demand a successor)
        d = Session(budget)
        w = arbitrary_state(contract, "dl", d)
        invariants = [
            w.holds(0, contract.invariants[int(k.removeprefix("invariant"))].expr)
            for k in sorted(alive)
            if k != "range"
        ]
        stuck = Z3.and_(
            [Z3.not_(w.terminal(0)), *(Z3.not_(w.pre(0, i)) for i in range(len(w.ops)))]
        )
        answer, _ = d.check(Z3.and_(invariants), stuck)
        no_deadlock = answer == z3.unsat
    return alive, no_deadlock, s.used


def k_induction(
    contract: Contract, j: int, proved: set[str], k_max: int, budget: int
) -> tuple[int, int]:
    """(k, rlimit) for the smallest k in 2..k_max such that invariant j is k-inductive:
    on any run of k steps from a typed state, where every state satisfies the proved
    invariants and invariant j holds in the first k states, it holds in the last one.
    With the bounded search having found no violation within k - 1 steps (the base
    case, which the caller guarantees), it holds at every depth. (0, rlimit) if none."""
    inv = contract.invariants[j].expr
    s = Session(budget)
    u = arbitrary_state(contract, "kind", s)
    known = [
        contract.invariants[int(key.removeprefix("invariant"))].expr
        for key in sorted(proved)
        if key != "range"
    ]

    def assume(t: int) -> Any:
        return Z3.and_([u.in_range(t), *(u.holds(t, e) for e in known), u.holds(t, inv)])

    s.add([assume(0)])
    for k in range(1, k_max + 1):
        s.add(u.extend())
        if k >= 2:
            answer, _ = s.check(Z3.not_(u.holds(k, inv)))
            if answer == z3.unsat:
                return k, s.used
            if answer == z3.unknown:
                return 0, s.used
        s.add([assume(k)])
    return 0, s.used
