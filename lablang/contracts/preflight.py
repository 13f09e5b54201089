"""Before any solving: the size of the unrolling against its limits, and whether the
contract has an initial state at all (without one every check would hold vacuously)."""

from __future__ import annotations

import z3

from lablang.contracts.encode import Unrolling
from lablang.contracts.model import Contract
from lablang.contracts.results import UNKNOWN, VIOLATED, Result
from lablang.contracts.session import Session, unknown_result

MAX_VERIFY_OPS = 1_024
"""Ground operations `verify` accepts (`legal` and `monitor` accept 4,096): each step
of the encoding chooses among them, and the solver's case split grows with their number
(4,000 operations took minutes)."""
MAX_GROUND_STEPS = 8_192
"""Ground operations times depth: a bound on the size of one unrolling."""
MAX_UNROLLED_TERMS = 2_000_000
"""Terms of one unrolling (expressions expanded, times depth), estimated before building."""


def estimated_terms(contract: Contract, depth: int) -> int:
    """The terms of a `depth`-step unrolling, estimated from the expressions' expanded
    sizes before anything is built."""
    from lablang.contracts.model import expansion, ground

    defs = {d.name: d.expr for d in contract.definitions}
    per_op = {
        op.name: sum(expansion(r.expr, defs) for r in op.requires)
        + sum(expansion(e.value, defs) for e in op.effects)
        + 2
        for op in contract.operations
    }
    step = sum(per_op[g.op.name] for g in ground(contract))
    step += sum(
        expansion(i.expr, defs) for i in (*contract.goals, *contract.invariants, *contract.terminal)
    )
    step += sum(expansion(v.visible, defs) + 2 for v in contract.variables)
    return step * max(depth, 1)


def size_limit(contract: Contract, depth: int) -> Result | None:
    """The refusal (with the size and the limit) when the contract is too large to verify
    at this depth; None when it fits. Computed before any term is built."""
    from lablang.contracts.model import ground

    ops = len(ground(contract))
    terms = estimated_terms(contract, depth)
    if ops > MAX_VERIFY_OPS:
        why = f"{ops} ground operations exceed the limit of {MAX_VERIFY_OPS} for `verify`"
    elif ops * max(depth, 1) > MAX_GROUND_STEPS:
        why = (
            f"{ops * max(depth, 1)} ground operation steps ({ops} operations x depth {depth}) "
            f"exceed the limit of {MAX_GROUND_STEPS}"
        )
    elif terms > MAX_UNROLLED_TERMS:
        why = (
            f"the unrolling would have about {terms} terms at depth {depth}, more than the "
            f"limit of {MAX_UNROLLED_TERMS}"
        )
    else:
        return None
    return Result(
        check="size",
        item="unrolling size",
        status=UNKNOWN,
        span=contract.span,
        message=f"not verified: {why}; lower --depth or the parameter sizes (--param)",
        depth=depth,
    )


def check_initial(contract: Contract, budget: int) -> Result | None:
    """None when the contract has an initial state; otherwise the failing result that
    names the variables whose `init`s leave none (an unsat core over one assumption per
    `init`), or `unknown` if the solver stopped. Without an initial state every other
    check would pass vacuously."""
    from lablang.contracts.model import init_order

    item = "initial states"
    cycles = init_order(contract)[1]
    if cycles:
        return Result(
            check="initial",
            item=item,
            status=VIOLATED,
            span=contract.span,
            message="no initial state: the `init` of "
            + "; ".join(" -> ".join(f"`{n}`" for n in (*c, c[0])) for c in cycles)
            + " refers to itself",
        )
    s = Session(budget)
    u = Unrolling(contract, "init", ctx=s.ctx)
    cons = u.start()
    inits = set(map(id, u.init_of.values()))
    s.add([c for c in cons if id(c) not in inits])
    guards = {n: z3.Bool(f"init:{n}", s.ctx) for n in u.init_of}
    for n, c in u.init_of.items():
        s.solver.add(z3.Implies(guards[n], c))
    s.solver.set("core.minimize", True)
    answer = s.check_assuming(*guards.values())
    if answer == z3.sat:
        return None
    if answer == z3.unknown:
        return unknown_result("initial", item, s, 0, contract.span)
    core = {str(lit) for lit in s.solver.unsat_core()}
    names = [n for n, lit in guards.items() if str(lit) in core]
    return Result(
        check="initial",
        item=item,
        status=VIOLATED,
        span=contract.span,
        message="no initial state: "
        + (
            "the `init`s of " + ", ".join(f"`{n}`" for n in names) + " contradict each other"
            if names
            else "the evidence has no value"
        )
        + "; every other check would hold vacuously",
        rlimit=s.used,
    )
