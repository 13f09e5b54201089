"""The verification checks, each a search for a witness by incremental BMC.

Every check asserts `Init ∧ T^k` one step at a time (push/pop per query), so the first
witness is the shortest. A check's result is `holds` (no witness up to the depth),
`proved` (for every depth: 1-induction), `violated` (with a trace) or `unknown`
(the solver stopped: reason and rlimit budget). `unknown` never counts as a pass.
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from typing import Any

import attrs
import z3

from lablang.contracts.encode import Z3, Unrolling, as_bool, fresh, model_truth
from lablang.contracts.model import (
    Binary,
    Contract,
    Item,
    Span,
    show_value,
)
from lablang.contracts.semantics import Evaluator, first_failing, in_domain

DEFAULT_DEPTH = 8
MAX_DEPTH = 64
MAX_VERIFY_OPS = 1_024
"""Ground operations `verify` accepts (`legal` and `monitor` accept 4,096): each step
of the encoding chooses among them, and the solver's case split grows with their number
(4,000 operations took minutes)."""
MAX_GROUND_STEPS = 8_192
"""Ground operations times depth: a bound on the size of one unrolling."""
MAX_UNROLLED_TERMS = 2_000_000
"""Terms of one unrolling (expressions expanded, times depth), estimated before building."""
DEFAULT_RLIMIT = 20_000_000
"""Z3 resource units allowed for one `check()` call (deterministic, unlike time)."""

HOLDS, PROVED, VIOLATED, UNKNOWN = "holds", "proved", "violated", "unknown"


@attrs.frozen(slots=True, kw_only=True)
class Step:
    op: str
    outcomes: dict[str, object]
    changes: dict[str, object]
    raw_outcomes: dict[str, object] = attrs.field(factory=dict, eq=False, repr=False)


@attrs.frozen(slots=True, kw_only=True)
class Trace:
    """A run of the contract, shown as people read it (enum names, `none`, lists)."""

    evidence: dict[str, object]
    initial: dict[str, object]
    steps: tuple[Step, ...]
    states: tuple[dict[str, object], ...]
    raw_states: tuple[dict[str, object], ...] = attrs.field(eq=False, repr=False)
    raw_evidence: dict[str, object] = attrs.field(eq=False, repr=False)


@attrs.frozen(slots=True, kw_only=True)
class Result:
    check: str  # goal | deadlock | invariant | vacuity | pair | noninterference
    item: str
    status: str
    message: str
    span: Span | None = None
    traces: tuple[Trace, ...] = ()
    details: tuple[str, ...] = ()
    depth: int = 0
    rlimit: int = 0

    @property
    def passed(self) -> bool:
        return self.status in (HOLDS, PROVED)


DEFAULT_TOTAL_RLIMIT = 200_000_000
"""Z3 resource units allowed for all the queries of one command (`verify`), so that a
contract with thousands of invariants or pairs cannot run for hours on small queries."""


class Ledger:
    """The solver work of one command: every query draws from `total`; once it is spent,
    the remaining queries answer `unknown` (reason: the total budget) without solving."""

    def __init__(self, total: int = DEFAULT_TOTAL_RLIMIT) -> None:
        self.total = total
        self.spent = 0

    @property
    def left(self) -> int:
        return max(0, self.total - self.spent)


_LEDGER: contextvars.ContextVar[Ledger | None] = contextvars.ContextVar("ledger", default=None)


def _total_reason(ledger: Ledger) -> str:
    return (
        f"the total budget of {ledger.total} rlimit units for this command is spent "
        "(raise it with --total-rlimit)"
    )


class _Session:
    """One solver with a deterministic budget and rlimit accounting."""

    def __init__(self, budget: int) -> None:
        z3.set_param("smt.random_seed", 0)
        z3.set_param("sat.random_seed", 0)
        # a context per session: results and rlimit counts do not depend on what ran before
        self.ctx = z3.Context()
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("random_seed", 0)
        self.solver.set("rlimit", budget)
        self.budget = budget
        self._base = _rlimit_count(self.ctx)
        self.reason = ""

    def add(self, cons: Sequence[Any]) -> None:
        for c in cons:
            self.solver.add(as_bool(c, self.ctx))

    def check(self, *extra: Any) -> Any:
        ledger = _LEDGER.get()
        if ledger is not None:
            if ledger.left == 0:
                self.reason = _total_reason(ledger)
                return z3.unknown, None
            self.solver.set("rlimit", min(self.budget, ledger.left))
        before = self.used
        self.solver.push()
        for c in extra:
            self.solver.add(as_bool(c, self.ctx))
        answer = self.solver.check()
        if ledger is not None:
            ledger.spent += self.used - before
        if answer == z3.sat:
            model = self.solver.model()
        elif answer == z3.unknown:
            self.reason = self.solver.reason_unknown()
            if ledger is not None and ledger.left == 0:
                self.reason = _total_reason(ledger)
            model = None
        else:
            model = None
        self.solver.pop()
        return answer, model

    def check_assuming(self, *assumptions: Any) -> Any:
        """`check` with assumption literals (for unsat cores), on the same budget."""
        ledger = _LEDGER.get()
        if ledger is not None:
            if ledger.left == 0:
                self.reason = _total_reason(ledger)
                return z3.unknown
            self.solver.set("rlimit", min(self.budget, ledger.left))
        before = self.used
        answer = self.solver.check(*assumptions)
        if ledger is not None:
            ledger.spent += self.used - before
        if answer == z3.unknown:
            self.reason = self.solver.reason_unknown()
            if ledger is not None and ledger.left == 0:
                self.reason = _total_reason(ledger)
        return answer

    @property
    def used(self) -> int:
        return _rlimit_count(self.ctx) - self._base


def _rlimit_count(ctx: Any) -> int:
    stats = z3.Solver(ctx=ctx).statistics()  # the count is global to the context
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0  # noqa: SIM118 (Statistics has no __contains__)


def _unknown(
    check: str,
    item: str,
    session: _Session,
    depth: int,
    span: Span | None = None,
    rlimit: int | None = None,
) -> Result:
    return Result(
        check=check,
        item=item,
        status=UNKNOWN,
        message=f"solver stopped ({session.reason or 'unknown'}) at depth {depth} "
        f"with a budget of {session.budget} rlimit units per query",
        span=span,
        depth=depth,
        rlimit=session.used if rlimit is None else rlimit,
    )


def make_trace(contract: Contract, u: Unrolling, model: Any, length: int) -> Trace:
    evidence, states, steps = u.read_trace(model, length)
    show = {v.name: v.type for v in contract.variables}
    shown_states = tuple({n: show_value(show[n], s[n]) for n in s} for s in states)
    rows = []
    for t, (act, outs) in enumerate(steps):
        if act < len(u.ops):
            g = u.ops[act]
            op = g.name
            used = _outcomes_used(g.op.effects)
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


def _outcomes_used(effects: Sequence[Any]) -> set[str]:
    names: set[str] = set()

    def walk(x: Any) -> None:
        if attrs.has(type(x)):
            if type(x).__name__ == "Ref" and x.kind == "outcome":
                names.add(x.name)
            for f in attrs.fields(type(x)):
                walk(getattr(x, f.name))
        elif isinstance(x, tuple):
            for y in x:
                walk(y)

    for e in effects:
        walk(e.value)
    return names


# ------------------------------------------------------------------ one unrolling, many queries
def bmc(
    contract: Contract,
    depth: int,
    budget: int,
    want: frozenset[str] = frozenset({"goal", "deadlock", "range", "invariant", "vacuity"}),
    *,
    induction: bool = True,
    facts: dict[str, Any] | None = None,
) -> list[Result]:
    """Goals, deadlock, ranges, invariants (bounded part) and vacuity on one unrolling.

    Term building dominates small instances, so every query of depth k shares the
    k-step unrolling; each query runs in its own push/pop.
    """
    s = _Session(budget)
    u = Unrolling(contract, "b", ctx=s.ctx)
    s.add(u.start())
    n = len(u.ops)
    results: dict[str, Result] = {}
    cost: dict[str, int] = {}

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
            proved, no_deadlock, used = _houdini(
                contract, (candidates | {"range"}) - broken, budget, deadlock
            )
            cost["induction"] = cost.get("induction", 0) + used
            if facts is not None:
                facts["proved"] = sorted(
                    int(x.removeprefix("invariant")) for x in proved if x != "range"
                )
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
                results[key] = Result(
                    check="goal",
                    item=goal.text,
                    status=HOLDS,
                    span=goal.span,
                    message=f"reachable in {k} steps (shortest plan)",
                    traces=(make_trace(contract, u, model, k),),
                    depth=k,
                    rlimit=cost[key],
                )
            elif answer == z3.unknown:
                goals.remove((j, goal))
                results[key] = _unknown("goal", goal.text, s, k, goal.span, cost[key])
        if deadlock:
            stuck = Z3.and_([Z3.not_(u.terminal(k)), *(Z3.not_(u.pre(k, i)) for i in range(n))])
            answer, model = query("deadlock", stuck)
            if answer == z3.sat:
                deadlock = False
                trace = make_trace(contract, u, model, k)
                results["deadlock"] = Result(
                    check="deadlock",
                    item="deadlock freedom",
                    status=VIOLATED,
                    span=contract.span,
                    message=f"no operation is legal after {k} steps and the state is not terminal",
                    traces=(trace,),
                    details=tuple(_why_stuck(contract, trace)),
                    depth=k,
                    rlimit=cost["deadlock"],
                )
            elif answer == z3.unknown:
                deadlock = False
                results["deadlock"] = _unknown(
                    "deadlock", "deadlock freedom", s, k, contract.span, cost["deadlock"]
                )
        if ranges:
            answer, model = query("range", Z3.not_(u.in_range(k)))
            if answer != z3.unsat:
                ranges = False
                results["range"] = (
                    _range_violation(contract, u, model, k, cost["range"])
                    if answer == z3.sat
                    else _unknown("range", _RANGE, s, k, contract.span, cost["range"])
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
                    results[key] = _unknown(
                        "invariant", inv.text, s, k, inv.span, cost["invariants"]
                    )
                elif not model_truth(model, u.holds(k, inv.expr)):
                    trace = make_trace(contract, u, model, k)
                    results[key] = Result(
                        check="invariant",
                        item=inv.text,
                        status=VIOLATED,
                        span=inv.span,
                        message=f"false after {k} steps",
                        traces=(trace,),
                        details=tuple(explain_definitions(contract, inv.expr, trace)),
                        depth=k,
                        rlimit=cost["invariants"],
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
        blockers = _goal_blockers(contract, goal, depth, budget)
        why = (
            (
                "dropping the requirements of "
                + ("" if len(blockers) == 1 else "any one of ")
                + ", ".join(f"`{b}`" for b in blockers)
                + " makes the goal reachable within the depth (each relaxation checked)",
            )
            if blockers
            else ()
        )
        if dead_prefix is not None:
            results[key] = Result(
                check="goal",
                item=goal.text,
                status=VIOLATED,
                span=goal.span,
                message=f"unreachable: every execution stops (deadlock) before step {dead_prefix}",
                details=why,
                depth=dead_prefix,
                rlimit=cost.get(key, 0),
            )
        else:
            results[key] = Result(
                check="goal",
                details=why,
                item=goal.text,
                status=UNKNOWN,
                span=goal.span,
                message=f"not reached within depth {depth} (bound; try a larger --depth)",
                depth=depth,
                rlimit=cost.get(key, 0),
            )
    if deadlock_proved:
        results["deadlock"] = Result(
            check="deadlock",
            item="deadlock freedom",
            status=PROVED,
            span=contract.span,
            message="proved for every depth: no non-terminal state allowed by the proved "
            "invariants has every operation disabled",
            depth=reached,
            rlimit=cost.get("deadlock", 0) + cost.get("induction", 0),
        )
    elif deadlock:
        results["deadlock"] = Result(
            check="deadlock",
            item="deadlock freedom",
            status=HOLDS,
            span=contract.span,
            message=f"some operation is legal in every non-terminal state within depth {reached}",
            depth=reached,
            rlimit=cost.get("deadlock", 0),
        )
    if "range" in proved and "range" not in results:
        results["range"] = Result(
            check="range",
            item=_RANGE,
            status=PROVED,
            span=contract.span,
            message="proved for every depth by 1-induction (with the invariants)",
            depth=reached,
            rlimit=cost.get("range", 0) + cost.get("induction", 0),
        )
    elif ranges:
        results["range"] = Result(
            check="range",
            item=_RANGE,
            status=HOLDS,
            span=contract.span,
            message=f"every effect stays inside its variable's type within depth {reached}",
            depth=reached,
            rlimit=cost.get("range", 0),
        )
    for j, inv in enumerate(contract.invariants):
        key = f"invariant{j}"
        if key in results or "invariant" not in want:
            continue
        if key in proved:
            results[key] = Result(
                check="invariant",
                item=inv.text,
                status=PROVED,
                span=inv.span,
                message="proved for every depth by 1-induction (with the other proved invariants)",
                depth=reached,
                rlimit=cost.get("invariants", 0) + cost.get("induction", 0),
            )
        elif (
            induction
            and "range" in proved
            and (by := _k_induction(contract, j, proved, min(MAX_K, reached + 1), budget))[0]
        ):
            results[key] = Result(
                check="invariant",
                item=inv.text,
                status=PROVED,
                span=inv.span,
                message=f"proved for every depth by {by[0]}-induction (with the proved "
                "invariants; the base case is the bounded search)",
                depth=reached,
                rlimit=cost.get("invariants", 0) + by[1],
            )
        else:
            results[key] = Result(
                check="invariant",
                item=inv.text,
                status=HOLDS,
                span=inv.span,
                message=f"holds within depth {reached}; not k-inductive for k <= "
                f"{min(MAX_K, reached + 1)} (a run from unreachable states breaks it: a "
                "supporting invariant could prove it)",
                depth=reached,
                rlimit=cost.get("invariants", 0),
            )
    ordered = [results[f"goal{j}"] for j in range(len(contract.goals)) if f"goal{j}" in results]
    ordered += [results[k] for k in ("deadlock", "range") if k in results]
    ordered += [
        results[f"invariant{j}"]
        for j in range(len(contract.invariants))
        if f"invariant{j}" in results
    ]
    if vacuity:
        ordered += _vacuity_results(
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
        )
    return ordered


_RANGE = "variables stay in their types"


def _goal_blockers(contract: Contract, goal: Item, depth: int, budget: int) -> list[str]:
    """The operations whose requirements keep the goal out of reach within the depth:
    each operation's requirements are guarded by an assumption literal and the unsat
    core (minimized) names the ones that matter. Empty when no core is found."""
    s = _Session(budget)
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


def _vacuity_results(
    contract: Contract,
    u: Unrolling,
    enabled_at: dict[int, int],
    premises: list[tuple[int, Any]],
    premise_at: dict[int, int],
    stopped: bool,
    depth: int,
    budget: int,
    cost: int,
    s: _Session,
) -> list[Result]:
    results = []
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
            results.append(
                Result(
                    check="vacuity",
                    item=name,
                    status=HOLDS,
                    span=op.span,
                    message=f"first enabled after {first} steps",
                    details=details,
                    depth=depth,
                    rlimit=cost,
                )
            )
        elif stopped:
            results.append(_unknown("vacuity", name, s, depth, op.span, cost))
        elif (clash := _contradiction(contract, op, budget)) is not None:
            results.append(
                Result(
                    check="vacuity",
                    item=name,
                    status=VIOLATED,
                    span=op.span,
                    message="its requirements contradict each other: it can never be enabled"
                    + (
                        " (" + " and ".join(f"`{t}`" for t in clash) + " cannot hold together)"
                        if clash
                        else ""
                    ),
                    depth=depth,
                    rlimit=cost,
                )
            )
        else:
            results.append(
                Result(
                    check="vacuity",
                    item=name,
                    status=VIOLATED,
                    span=op.span,
                    message=f"never enabled in any execution of at most {depth} steps",
                    depth=depth,
                    rlimit=cost,
                )
            )
    for j, _ in premises:
        if j in premise_at:
            continue
        inv = contract.invariants[j]
        name = f"premise of `{inv.text}`"
        if stopped:
            results.append(_unknown("vacuity", name, s, depth, inv.span, cost))
        else:
            results.append(
                Result(
                    check="vacuity",
                    item=name,
                    status=VIOLATED,
                    span=inv.span,
                    message=f"the premise never holds within depth {depth}: the invariant is vacuous",
                    depth=depth,
                    rlimit=cost,
                )
            )
    return results


def check_goal(contract: Contract, goal: Item, depth: int, budget: int) -> Result:
    sub = attrs.evolve(contract, goals=(goal,))
    return bmc(sub, depth, budget, frozenset({"goal"}))[0]


def check_deadlock(contract: Contract, depth: int, budget: int) -> Result:
    return bmc(contract, depth, budget, frozenset({"deadlock"}))[0]


def check_invariant(contract: Contract, inv: Item, depth: int, budget: int) -> Result:
    j = contract.invariants.index(inv)
    return bmc(contract, depth, budget, frozenset({"invariant"}))[j]


def _why_stuck(contract: Contract, trace: Trace) -> list[str]:
    """For each operation, the first requirement that fails in the stuck state, grouping
    the ground instances that fail on the same requirement."""
    from lablang.contracts.model import ground

    state, evidence = trace.raw_states[-1], trace.raw_evidence
    lines = []
    for op in contract.operations:
        groups: dict[tuple[int, int], tuple[Item, list[str]]] = {}
        for g in ground(contract):
            if g.op is not op:
                continue
            item = first_failing(contract, state, evidence, g)
            if item is None:
                continue
            key = (item.span.start, item.span.end) if item.span else (id(item), 0)
            groups.setdefault(key, (item, []))[1].append(g.name)
        total = sum(len(names) for _, names in groups.values())
        for item, names in groups.values():
            if not op.params:
                who = op.name
            elif len(names) == total:
                who = f"{op.name}(" + ", ".join("*" for _ in op.params) + ")"
            else:
                who = ", ".join(names)
            text = item.text or _snippet(contract, item.span)
            lines.append(f"{who}: `{text}` is false{_location(contract, item.span)}")
    return lines


def _snippet(contract: Contract, span: Span | None) -> str:
    if span is None or contract.source is None:
        return "a requirement"
    text = contract.source.text[span.start : span.end]
    # a parenthesised operand's span can stop before its `)`: keep the text balanced
    return text + ")" * max(0, text.count("(") - text.count(")"))


def _location(contract: Contract, span: Span | None) -> str:
    if span is None or contract.source is None:
        return ""
    line, col = contract.source.position(span.start)
    return f" ({contract.source.name}:{line}:{col})"


# ------------------------------------------------------------------ induction
def _houdini(
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
    s = _Session(budget)
    u = _arbitrary_state(contract, "ind", s)
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
        d = _Session(budget)
        w = _arbitrary_state(contract, "dl", d)
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


def explain_definitions(contract: Contract, expr: Any, trace: Trace) -> list[str]:
    """The derived expressions a violated condition uses, evaluated in the trace's last
    state with the values they read: `balanced` = false: a=2, b=5, opposite=6."""
    from lablang.contracts.model import references
    from lablang.contracts.semantics import state_env

    defs = {d.name: d.expr for d in contract.definitions}
    order = [d.name for d in contract.definitions]
    used = _defines_used(expr, defs)
    if not used:
        return []
    ev = Evaluator(contract)
    env = state_env(contract, trace.raw_states[-1], trace.raw_evidence)
    shown = trace.states[-1]
    lines = []
    for name in sorted(used, key=order.index):
        value = ev.evaluate(defs[name], env)
        if isinstance(value, dict):
            continue
        reads = sorted(references(defs[name], defs))
        inner = sorted(_defines_used(defs[name], defs) - {name}, key=order.index)
        parts = [f"{v}={_plain(shown[v])}" for v in reads]
        parts += [f"{d}={_plain(ev.evaluate(defs[d], env))}" for d in inner]
        lines.append(f"`{name}` = {_plain(value)}: " + ", ".join(parts))
    return lines


def _defines_used(expr: Any, defs: dict[str, Any]) -> set[str]:
    from lablang.contracts.model import Ref

    found: set[str] = set()
    todo = [expr]
    while todo:
        x = todo.pop()
        if isinstance(x, Ref):
            if x.kind == "define" and x.name in defs and x.name not in found:
                found.add(x.name)
                todo.append(defs[x.name])
        elif isinstance(x, tuple):
            todo.extend(x)
        elif attrs.has(type(x)):
            todo.extend(getattr(x, f.name) for f in attrs.fields(type(x)))
    return found


def _plain(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _contradiction(contract: Contract, op: Any, budget: int) -> list[str] | None:
    """None when some typed state enables a ground instance of `op`; otherwise the
    requirement conjuncts that cannot hold together (a minimized unsat core over one
    assumption per conjunct; empty if the solver found none)."""
    from lablang.contracts.model import conjuncts
    from lablang.contracts.semantics import with_args

    if _satisfiable_requirements(contract, op, budget):
        return None
    s = _Session(budget)
    s.solver.set("core.minimize", True)
    u = _arbitrary_state(contract, "why", s)
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
        _snippet(contract, p.span) if p.span is not None else op.requires[i].text
        for lit, (p, i) in zip(lits, parts, strict=True)
        if str(lit) in core
    ]


MAX_K = 4
"""The largest k tried by k-induction for an invariant 1-induction cannot prove."""


def _k_induction(
    contract: Contract, j: int, proved: set[str], k_max: int, budget: int
) -> tuple[int, int]:
    """(k, rlimit) for the smallest k in 2..k_max such that invariant j is k-inductive:
    on any run of k steps from a typed state, where every state satisfies the proved
    invariants and invariant j holds in the first k states, it holds in the last one.
    With the bounded search having found no violation within k - 1 steps (the base
    case, which the caller guarantees), it holds at every depth. (0, rlimit) if none."""
    inv = contract.invariants[j].expr
    s = _Session(budget)
    u = _arbitrary_state(contract, "kind", s)
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


def _satisfiable_requirements(contract: Contract, op: Any, budget: int) -> bool:
    s = _Session(budget)
    u = Unrolling(contract, "sat", ctx=s.ctx)
    for e in contract.evidence:
        value, dom = fresh(e.type, f"sat.ev.{e.name}", s.ctx)
        u.evidence[e.name] = value
        s.add(dom)
    state: dict[str, Any] = {}
    for v in contract.variables:
        value, dom = fresh(v.type, f"sat.{v.name}@0", s.ctx)
        state[v.name] = value
        s.add(dom)
    u.states.append(state)
    pres = [u.pre(0, i) for i, g in enumerate(u.ops) if g.op is op]
    answer, _ = s.check(Z3.or_(pres))
    return bool(answer != z3.unsat)


def _legal_names(contract: Contract, trace: Trace) -> list[str]:
    from lablang.contracts.semantics import legal_operations

    return legal_operations(contract, trace.raw_states[-1], trace.raw_evidence)


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

    results.append(check_noninterference(contract, depth, budget, facts.get("proved")))
    if chc:
        results = [_by_chc(contract, r, depth, budget) for r in results]
    return results


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
    s = _Session(budget)
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
        return _unknown("initial", item, s, 0, contract.span)
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


def _by_chc(contract: Contract, r: Result, depth: int, budget: int) -> Result:
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
        return attrs.evolve(
            r, details=(*r.details, "the CHC engine gave up within its rlimit budget")
        )
    if answer:
        return attrs.evolve(
            r,
            status=VIOLATED,
            message=f"violated in more than {depth} steps (found by the CHC engine, which gives "
            "no trace: run with a larger --depth to see one)",
        )
    return attrs.evolve(
        r, status=PROVED, message="proved for every depth by the CHC engine (Spacer)"
    )


# ------------------------------------------------------------------ CHC (Spacer)
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


def _arbitrary_state(contract: Any, prefix: str, session: _Session) -> Unrolling:
    """An unrolling whose first state (and evidence) is any typed value, not the initial one."""
    unrolling = Unrolling(contract, prefix, ctx=session.ctx)
    for e in contract.evidence:
        value, dom = fresh(e.type, f"{prefix}.ev.{e.name}", session.ctx)
        unrolling.evidence[e.name] = value
        session.add(dom)
    state: dict[str, Any] = {}
    for v in contract.variables:
        value, dom = fresh(v.type, f"{prefix}.{v.name}@0", session.ctx)
        state[v.name] = value
        session.add(dom)
    unrolling.states.append(state)
    return unrolling
