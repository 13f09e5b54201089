"""The verification checks, each a search for a witness by incremental BMC.

Every check asserts `Init ∧ T^k` one step at a time (push/pop per query), so the first
witness is the shortest. A check's result is `holds` (no witness up to the depth),
`proved` (for every depth: 1-induction), `violated` (with a trace) or `unknown`
(the solver stopped: reason and rlimit budget). `unknown` never counts as a pass.
"""

from __future__ import annotations

from typing import Any

import z3
from attrs import evolve

from lablang.contracts.chc import by_chc
from lablang.contracts.encode import Z3, Unrolling, as_bool, model_truth
from lablang.contracts.explain import explain_definitions, plan_remarks, why_stuck
from lablang.contracts.induction import MAX_K, houdini, k_induction
from lablang.contracts.model import Binary, Contract, Item
from lablang.contracts.preflight import (
    MAX_GROUND_STEPS as MAX_GROUND_STEPS,
)
from lablang.contracts.preflight import (
    MAX_UNROLLED_TERMS as MAX_UNROLLED_TERMS,
)
from lablang.contracts.preflight import (
    MAX_VERIFY_OPS as MAX_VERIFY_OPS,
)
from lablang.contracts.preflight import (
    check_initial,
    size_limit,
)
from lablang.contracts.results import (
    BOUNDED,
    HOLDS,
    PROVED,
    VIOLATED,
    Result,
    make_trace,
)
from lablang.contracts.results import UNKNOWN as UNKNOWN
from lablang.contracts.results import Step as Step
from lablang.contracts.results import Trace as Trace
from lablang.contracts.semantics import in_domain
from lablang.contracts.session import _LEDGER, DEFAULT_TOTAL_RLIMIT, Ledger, Session, unknown_result
from lablang.contracts.session import DEFAULT_RLIMIT as DEFAULT_RLIMIT
from lablang.contracts.vacuity import vacuity_results

DEFAULT_DEPTH = 8
MAX_DEPTH = 64


# ------------------------------------------------------------------ one unrolling, many queries
def bmc(
    contract: Contract,
    depth: int,
    budget: int,
    want: frozenset[str] = frozenset({"goal", "deadlock", "range", "invariant", "vacuity"}),
    *,
    induction: bool = True,
    facts: dict[str, Any] | None = None,
    hints: bool = True,
) -> list[Result]:
    """Goals, deadlock, ranges, invariants (bounded part) and vacuity on one unrolling.

    Term building dominates small instances, so every query of depth k shares the
    k-step unrolling; each query runs in its own push/pop. With `hints`, a result the
    depth left open is looked at further (a deeper search, a relaxed requirement) to say
    why; the searches those hints run have it off.
    """
    s = Session(budget)
    u = Unrolling(contract, "b", ctx=s.ctx)
    s.add(u.start())
    n = len(u.ops)
    results: dict[str, Result] = {}
    cost: dict[str, int] = {}

    def verdict(
        check: str, about: Item | None, status: str, message: str, at: int, rlimit: int, **more: Any
    ) -> Result:
        """A result about one goal or invariant, or (`about` None) the whole contract."""
        return Result(
            check=check,
            item=about.text if about is not None else _WHOLE[check],
            status=status,
            span=about.span if about is not None else contract.span,
            message=message,
            depth=at,
            rlimit=rlimit,
            **more,
        )

    def query(key: str, *extra: Any) -> tuple[Any, Any]:
        before = s.used
        answer, model = s.check(*extra)
        cost[key] = cost.get(key, 0) + s.used - before
        return answer, model

    goals = list(enumerate(contract.goals)) if "goal" in want else []
    invariants = list(enumerate(contract.invariants)) if "invariant" in want else []
    deadlock, ranges, vacuity = "deadlock" in want, "range" in want, "vacuity" in want
    enabled_at: dict[int, int] = {}
    premises = [
        (j, inv.expr.left)
        for j, inv in enumerate(contract.invariants)
        if vacuity and isinstance(inv.expr, Binary) and inv.expr.op == "implies"
    ]
    premise_at: dict[int, int] = {}
    vacuity_stopped = False
    dead_prefix = None
    # every invariant helps the induction, even when only deadlock freedom is asked for
    candidates = {f"invariant{j}" for j in range(len(contract.invariants))}
    if deadlock or ranges:
        candidates.add("range")
    proved: set[str] = set()
    deadlock_proved = False
    reached = depth
    for k in range(depth + 1):
        if k == 1 and candidates and induction:
            # the base case is done: what is jointly inductive needs no deeper unrolling
            # every candidate must hold initially; the bounded queries above only
            # covered the checks that were asked for, so check the rest here
            broken = {key for key, r in results.items() if r.status != HOLDS}

            def initially(key: str) -> Any:
                if key == "range":
                    return u.in_range(0)
                return u.holds(0, contract.invariants[int(key.removeprefix("invariant"))].expr)

            # one query for all candidates; a model drops those it breaks, and again
            open_keys = sorted((candidates | {"range"}) - broken)
            while open_keys:
                answer, model = query(
                    "induction", Z3.or_([Z3.not_(initially(key)) for key in open_keys])
                )
                if answer == z3.unsat:
                    break
                if answer == z3.unknown:
                    broken |= set(open_keys)  # nothing is known to hold initially
                    break
                false = [key for key in open_keys if not model_truth(model, initially(key))]
                broken |= set(false)
                open_keys = [key for key in open_keys if key not in false]
            proved, no_deadlock, used = houdini(
                contract, (candidates | {"range"}) - broken, budget, deadlock
            )
            cost["induction"] = cost.get("induction", 0) + used
            if facts is not None:
                facts["proved"] = sorted(
                    int(x.removeprefix("invariant")) for x in proved if x != "range"
                )
                # the proved invariants cover every reachable state only when the
                # variables are proved to stay in their types too
                facts["proved_typed"] = facts["proved"] if "range" in proved else None
            if no_deadlock:
                deadlock, deadlock_proved = False, True
            invariants = [(j, inv) for j, inv in invariants if f"invariant{j}" not in proved]
            ranges = ranges and "range" not in proved
        vacuity_open = (
            vacuity
            and not vacuity_stopped
            and (len(enabled_at) < n or len(premise_at) < len(premises))
        )
        if k and not (goals or deadlock or ranges or invariants or vacuity_open):
            reached = k - 1
            break  # nothing left to look for: deeper unrolling would only cost time
        if k:
            s.add(u.extend())
            if goals:
                answer, _ = query("prefix")
                if answer == z3.unsat:
                    dead_prefix = k
                    break
        for j, goal in list(goals):
            key = f"goal{j}"
            answer, model = query(key, u.holds(k, goal.expr))
            if answer == z3.sat:
                goals.remove((j, goal))
                plan = make_trace(contract, u, model, k)
                results[key] = verdict(
                    "goal",
                    goal,
                    HOLDS,
                    f"reachable in {k} steps (shortest plan)",
                    k,
                    cost[key],
                    traces=(plan,),
                    details=tuple(plan_remarks(contract, plan)),
                )
            elif answer == z3.unknown:
                goals.remove((j, goal))
                results[key] = unknown_result("goal", goal.text, s, k, goal.span, cost[key])
        if deadlock:
            stuck = Z3.and_([Z3.not_(u.terminal(k)), *(Z3.not_(u.pre(k, i)) for i in range(n))])
            answer, model = query("deadlock", stuck)
            if answer == z3.sat:
                deadlock = False
                trace = make_trace(contract, u, model, k)
                results["deadlock"] = verdict(
                    "deadlock",
                    None,
                    VIOLATED,
                    f"no operation is legal after {k} steps and the state is not terminal",
                    k,
                    cost["deadlock"],
                    traces=(trace,),
                    details=tuple(why_stuck(contract, trace)),
                )
            elif answer == z3.unknown:
                deadlock = False
                results["deadlock"] = unknown_result(
                    "deadlock", "deadlock freedom", s, k, contract.span, cost["deadlock"]
                )
        if ranges:
            answer, model = query("range", Z3.not_(u.in_range(k)))
            if answer != z3.unsat:
                ranges = False
                results["range"] = (
                    _range_violation(contract, u, model, k, cost["range"])
                    if answer == z3.sat
                    else unknown_result("range", _RANGE, s, k, contract.span, cost["range"])
                )
        # one query for all open invariants; only a hit is split up
        while invariants:
            answer, model = query(
                "invariants", Z3.or_([Z3.not_(u.holds(k, inv.expr)) for _, inv in invariants])
            )
            if answer == z3.unsat:
                break
            for j, inv in list(invariants):
                key = f"invariant{j}"
                if answer == z3.unknown:
                    results[key] = unknown_result(
                        "invariant", inv.text, s, k, inv.span, cost["invariants"]
                    )
                elif not model_truth(model, u.holds(k, inv.expr)):
                    trace = make_trace(contract, u, model, k)
                    results[key] = verdict(
                        "invariant",
                        inv,
                        VIOLATED,
                        f"false after {k} steps",
                        k,
                        cost["invariants"],
                        traces=(trace,),
                        details=tuple(explain_definitions(contract, inv.expr, trace)),
                    )
                else:
                    continue
                invariants.remove((j, inv))
        while vacuity and not vacuity_stopped:
            open_ops = [i for i in range(n) if i not in enabled_at]
            open_prem = [(j, p) for j, p in premises if j not in premise_at]
            if not open_ops and not open_prem:
                break
            found = Z3.or_(
                [u.legal(k, i) for i in open_ops] + [u.holds(k, p) for _, p in open_prem]
            )
            answer, model = query("vacuity", found)
            if answer == z3.unknown:
                vacuity_stopped = True
            if answer != z3.sat:
                break
            for i in open_ops:
                if model_truth(model, u.legal(k, i)):
                    enabled_at[i] = k
            for j, p in open_prem:
                if model_truth(model, u.holds(k, p)):
                    premise_at[j] = k
    if dead_prefix is not None:
        reached = dead_prefix
    for j, goal in goals:
        key = f"goal{j}"
        why = _goal_hint(contract, goal, depth, budget, dead_prefix is not None) if hints else ()
        if dead_prefix is not None:
            results[key] = verdict(
                "goal",
                goal,
                VIOLATED,
                f"unreachable: every execution stops (deadlock) before step {dead_prefix}",
                dead_prefix,
                cost.get(key, 0),
                details=why,
            )
        else:
            results[key] = verdict(
                "goal",
                goal,
                BOUNDED,
                f"not reached within depth {depth}; unknown beyond it",
                depth,
                cost.get(key, 0),
                details=why,
            )
    if deadlock_proved:
        results["deadlock"] = verdict(
            "deadlock",
            None,
            PROVED,
            "proved for every depth: no non-terminal state allowed by the proved "
            "invariants has every operation disabled",
            reached,
            cost.get("deadlock", 0) + cost.get("induction", 0),
        )
    elif deadlock:
        results["deadlock"] = verdict(
            "deadlock",
            None,
            HOLDS,
            f"some operation is legal in every non-terminal state within depth {reached}",
            reached,
            cost.get("deadlock", 0),
        )
    if "range" in proved and "range" not in results:
        results["range"] = verdict(
            "range",
            None,
            PROVED,
            "proved for every depth by 1-induction (with the invariants)",
            reached,
            cost.get("range", 0) + cost.get("induction", 0),
        )
    elif ranges:
        results["range"] = verdict(
            "range",
            None,
            HOLDS,
            f"every effect stays inside its variable's type within depth {reached}",
            reached,
            cost.get("range", 0),
        )
    deeper: list[Result] | None = None
    for j, inv in enumerate(contract.invariants):
        key = f"invariant{j}"
        if key in results or "invariant" not in want:
            continue
        if key in proved:
            results[key] = verdict(
                "invariant",
                inv,
                PROVED,
                "proved for every depth by 1-induction (with the other proved invariants)",
                reached,
                cost.get("invariants", 0) + cost.get("induction", 0),
            )
        elif (
            induction
            and "range" in proved
            and (by := k_induction(contract, j, proved, min(MAX_K, reached + 1), budget))[0]
        ):
            results[key] = verdict(
                "invariant",
                inv,
                PROVED,
                f"proved for every depth by {by[0]}-induction (with the proved "
                "invariants; the base case is the bounded search)",
                reached,
                cost.get("invariants", 0) + by[1],
            )
        else:
            k_max = min(MAX_K, reached + 1)
            if hints and deeper is None and induction:
                # a run of k steps breaks the induction; if its start is reachable within
                # the depth, a search k steps deeper finds the violation itself
                further = min(MAX_DEPTH, reached + k_max)
                deeper = (
                    bmc(
                        contract,
                        further,
                        budget,
                        frozenset({"invariant"}),
                        induction=False,
                        hints=False,
                    )
                    if further > reached
                    else []
                )
            found = deeper[j] if deeper else None
            if found is not None and found.status == VIOLATED:
                results[key] = evolve(
                    found,
                    message=f"{found.message} (beyond --depth {depth}: found by searching "
                    f"{found.depth - reached} steps deeper when the induction failed)",
                )
            elif found is not None and found.status == HOLDS:
                results[key] = verdict(
                    "invariant",
                    inv,
                    HOLDS,
                    f"holds within depth {found.depth}; not k-inductive for k <= {k_max}: "
                    f"the run that breaks the induction starts from a state not reached "
                    f"within {reached} steps (if it is unreachable, a supporting invariant "
                    "could prove it; if not, a deeper run would find the violation)",
                    found.depth,
                    cost.get("invariants", 0) + found.rlimit,
                )
            else:
                results[key] = verdict(
                    "invariant",
                    inv,
                    HOLDS,
                    f"holds within depth {reached}; not k-inductive for k <= {k_max} (a run "
                    "from a state not reached within the depth breaks the induction: a "
                    "supporting invariant, or a deeper run, could decide it)",
                    reached,
                    cost.get("invariants", 0),
                )
    ordered = [results[f"goal{j}"] for j in range(len(contract.goals)) if f"goal{j}" in results]
    ordered += [results[k] for k in ("deadlock", "range") if k in results]
    ordered += [
        results[f"invariant{j}"]
        for j in range(len(contract.invariants))
        if f"invariant{j}" in results
    ]
    if vacuity:
        ordered += vacuity_results(
            contract,
            u,
            enabled_at,
            premises,
            premise_at,
            vacuity_stopped,
            reached,
            budget,
            cost.get("vacuity", 0),
            s,
            [inv.expr for j, inv in enumerate(contract.invariants) if f"invariant{j}" in proved]
            if "range" in proved
            else None,
        )
    return ordered


_RANGE = "variables stay in their types"
_WHOLE = {"deadlock": "deadlock freedom", "range": _RANGE}


def _goal_hint(
    contract: Contract, goal: Item, depth: int, budget: int, deadlocked: bool
) -> tuple[str, ...]:
    """Why a goal was not reached within the depth. Unless every execution stops first,
    a deeper search (twice the depth, at most MAX_DEPTH) tells a depth that is only too
    small (then no operation is blamed) from requirements that block the goal: only
    operations whose relaxation alone makes it reachable within the depth are named."""
    further = min(MAX_DEPTH, 2 * depth)
    if not deadlocked and further > depth:
        sub = evolve(contract, goals=(goal,))
        deeper = bmc(sub, further, budget, frozenset({"goal"}), hints=False)[0]
        if deeper.status == HOLDS:
            return (f"reached in {deeper.depth} steps: run with --depth {deeper.depth}",)
    blockers = _goal_blockers(contract, goal, depth, budget)
    if not blockers:
        return ()
    return (
        "dropping the requirements of "
        + ("" if len(blockers) == 1 else "any one of ")
        + ", ".join(f"`{b}`" for b in blockers)
        + " makes the goal reachable within the depth (each relaxation checked"
        + (f"; not reached within {further} steps either)" if further > depth else ")"),
    )


def _goal_blockers(contract: Contract, goal: Item, depth: int, budget: int) -> list[str]:
    """The operations whose requirements keep the goal out of reach within the depth:
    each operation's requirements are guarded by an assumption literal and the unsat
    core (minimized) names the ones that matter. Empty when no core is found."""
    s = Session(budget)
    s.solver.set("core.minimize", True)
    u = Unrolling(contract, "why", ctx=s.ctx)
    u.guards = {op.name: z3.Bool(f"requires:{op.name}", s.ctx) for op in contract.operations}
    s.add(u.start())
    for _ in range(depth):
        s.add(u.extend())
    s.solver.add(as_bool(Z3.or_([u.holds(k, goal.expr) for k in range(depth + 1)]), s.ctx))
    if s.check_assuming(*u.guards.values()) != z3.unsat:
        return []
    core = {str(lit) for lit in s.solver.unsat_core()}
    blockers = [name for name, lit in u.guards.items() if str(lit) in core]
    # name only relaxations checked to work: without the requirements of that one
    # operation (all others kept) the goal is reachable within the depth
    checked = []
    for name in blockers:
        others = [lit for other, lit in u.guards.items() if other != name]
        if s.check_assuming(*others) == z3.sat:
            checked.append(name)
    return checked


def _range_violation(contract: Contract, u: Unrolling, model: Any, k: int, cost: int) -> Result:
    trace = make_trace(contract, u, model, k)
    bad = [
        f"`{v.name}` = {trace.states[-1][v.name]} is not a {v.type.describe()}"
        for v in contract.variables
        if not in_domain(v.type, trace.raw_states[-1][v.name])
    ]
    return Result(
        check="range",
        item=_RANGE,
        status=VIOLATED,
        span=contract.span,
        message=("an initial value" if k == 0 else f"the effect of step {k}")
        + " leaves a variable's type",
        traces=(trace,),
        details=tuple(bad),
        depth=k,
        rlimit=cost,
    )


def check_goal(contract: Contract, goal: Item, depth: int, budget: int) -> Result:
    sub = evolve(contract, goals=(goal,))
    return bmc(sub, depth, budget, frozenset({"goal"}))[0]


def check_deadlock(contract: Contract, depth: int, budget: int) -> Result:
    return bmc(contract, depth, budget, frozenset({"deadlock"}))[0]


def check_invariant(contract: Contract, inv: Item, depth: int, budget: int) -> Result:
    j = contract.invariants.index(inv)
    return bmc(contract, depth, budget, frozenset({"invariant"}))[j]


# ------------------------------------------------------------------ everything
def verify(
    contract: Contract,
    depth: int = DEFAULT_DEPTH,
    budget: int = DEFAULT_RLIMIT,
    chc: bool = False,
    total: int = DEFAULT_TOTAL_RLIMIT,
) -> list[Result]:
    """Run every check on a contract; results in a fixed order.

    `budget` caps each solver query, `total` all of them together (after it is spent,
    every remaining check answers `unknown` and names that limit).

    With `chc`, invariants and deadlock freedom that hold only up to the depth are handed
    to Z3's CHC engine (Spacer) for a proof for every depth (opt-in: it can be slow).

    >>> from lablang.contracts.model import Contract, Variable, Operation, Item, Effect
    >>> from lablang.contracts.model import BoolType, Ref, Const
    >>> done = Ref(kind="var", name="done")
    >>> c = Contract(name="t", variables=(Variable(name="done", type=BoolType()),),
    ...     operations=(Operation(name="finish", effects=(Effect(var="done",
    ...     value=Const(value=True)),)),), goals=(Item(expr=done, text="done"),),
    ...     terminal=(Item(expr=done, text="done"),))
    >>> [(r.check, r.status) for r in verify(c, depth=3)][:2]
    [('goal', 'holds'), ('deadlock', 'proved')]
    """
    token = _LEDGER.set(Ledger(total))
    try:
        return _verify(contract, max(0, min(depth, MAX_DEPTH)), budget, chc)
    finally:
        _LEDGER.reset(token)


def _verify(contract: Contract, depth: int, budget: int, chc: bool) -> list[Result]:

    refused = size_limit(contract, depth)
    if refused is not None:
        return [refused]
    empty = check_initial(contract, budget)
    if empty is not None:
        return [empty]  # every other verdict would hold vacuously
    facts: dict[str, Any] = {}
    results = bmc(contract, depth, budget, facts=facts)
    from lablang.contracts.liveness import check_liveness

    goals = {r.item: r for r in results if r.check == "goal"}
    for goal in contract.goals:
        # a goal not reached at all already failed; its liveness would repeat that
        if goals.get(goal.text) is not None and goals[goal.text].status == HOLDS:
            results.append(check_liveness(contract, goal, depth, budget))
    from lablang.contracts.noninterference import check_noninterference
    from lablang.contracts.pairs import check_pair

    results += [check_pair(contract, p, depth, budget) for p in contract.pairs]
    from lablang.contracts.commute import check_commute

    results += [
        check_commute(contract, c, depth, budget, facts.get("proved_typed"))
        for c in contract.commutes
    ]
    from lablang.contracts.eventually import check_eventually

    further = min(MAX_DEPTH, 2 * depth)  # an open claim's note: does a deeper search decide it?
    results += [
        check_eventually(contract, e, depth, budget, further=further) for e in contract.eventually
    ]

    results.append(check_noninterference(contract, depth, budget, facts.get("proved")))
    if chc:
        results = [by_chc(contract, r, depth, budget) for r in results]
    return results
