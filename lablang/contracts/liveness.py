"""Goal liveness: from every reachable state the goal stays reachable (within the bound).

A goal that is reachable from the initial state can still be lost on the way: an
operation whose requirements are too weak (`close_lid` before the second tube is
placed) leads to a state from which no execution reaches the goal, often a terminal
one. This check looks for such a *dead end*: a state reachable within `depth` steps
from which no execution of at most `depth` steps reaches the goal (outcomes chosen in
the goal's favour, evidence fixed: it is part of the state).

"For every reachable state there is a path" is a ∀∃ question, which one SMT query
cannot ask; it is answered by a loop (counterexample-guided, like CEGAR):

1. find a reachable state at depth `j` where the goal is false and that no known plan
   covers (a plan is a sequence of ground operations with their outcomes; it covers a
   state when it is legal from it step by step and ends in the goal);
2. search a plan from that concrete state by BMC; if there is none, it is a dead end;
   otherwise the plan and its suffixes become known plans, and the loop goes on;
3. depth `j` is done when every reachable state at `j` is covered; then `j + 1`.

Depths are finished in order, so the first dead end is found at the smallest depth:
its predecessor on the trace is not a dead end, and the last operation of the trace is
the one that closed the way to the goal. Every query draws from the same deterministic
rlimit budgets as the other checks; a stopped solver makes the result `unknown`.
"""

from __future__ import annotations

from typing import Any

import z3

from lablang.contracts.encode import Z3, Unrolling, as_bool, model_truth, same, symbol
from lablang.contracts.model import Contract, Item, default_value
from lablang.contracts.results import (
    BOUNDED,
    HOLDS,
    UNKNOWN,
    VIOLATED,
    Result,
    legal_names,
    make_trace,
    outcomes_used,
)
from lablang.contracts.semantics import as_env_value, with_args
from lablang.contracts.session import Session, unknown_result

MAX_PLANS = 2_000
"""Known plans one liveness check may collect before it answers `unknown`."""

Plan = tuple[tuple[int, tuple[tuple[str, object], ...]], ...]
"""Per step: the ground operation's index and the outcomes its effects read."""


def check_liveness(contract: Contract, goal: Item, depth: int, budget: int) -> Result:
    """Is there a state reachable within `depth` steps from which the goal cannot be
    reached within `depth` steps? `violated` with the trace into the first such state."""
    item = f"goal stays reachable: {goal.text}"
    s = Session(budget)
    u = Unrolling(contract, "lv", ctx=s.ctx)
    s.add(u.start())
    plans: list[Plan] = []
    known: set[Plan] = set()
    spent = [0]  # rlimit units of the plan searches (their own solver)
    planner = _Planner(contract, goal, budget)
    for j in range(depth + 1):
        if j:
            s.add(u.extend())
            answer, _ = s.check()
            if answer == z3.unknown:
                return unknown_result("liveness", item, s, j, goal.span, s.used + spent[0])
            if answer == z3.unsat:
                break  # no execution is longer than j - 1 steps
        # each known plan excludes the states it covers at depth j: one clause per plan,
        # added once and switched on by this depth's literal (not rebuilt per query)
        lit = z3.Bool(f"lv.cover@{j}", s.ctx)

        def block(plan: Plan, j: int = j, lit: Any = lit) -> None:
            s.solver.add(z3.Implies(lit, as_bool(Z3.not_(_follows(u, j, plan, goal)), s.ctx)))

        for p in plans:
            block(p)
        while True:
            answer, model = s.check(Z3.not_(u.holds(j, goal.expr)), lit)
            if answer == z3.unknown:
                return unknown_result("liveness", item, s, j, goal.span, s.used + spent[0])
            if answer == z3.unsat:
                break
            trace = make_trace(contract, u, model, j)
            found = planner.plan(trace.raw_states[-1], trace.raw_evidence, depth)
            spent[0] = planner.s.used
            if found is None:
                s.reason = planner.s.reason
                return unknown_result("liveness", item, s, j, goal.span, s.used + spent[0])
            if not found:
                lost = planner.lost(trace.raw_states[-1], trace.raw_evidence, depth)
                spent[0] = planner.s.used
                return _dead_end(
                    contract,
                    item,
                    trace,
                    j,
                    depth,
                    model_truth(model, u.terminal(j)),
                    s.used + spent[0],
                    goal,
                    lost is True,
                )
            plan = found[0]
            for start in range(len(plan)):
                suffix = plan[start:]
                if suffix not in known:
                    known.add(suffix)
                    plans.append(suffix)
                    block(suffix)
            if len(plans) > MAX_PLANS:
                return Result(
                    check="liveness",
                    item=item,
                    status=UNKNOWN,
                    span=goal.span,
                    message=f"more than {MAX_PLANS} distinct plans to the goal were needed to "
                    f"cover the states reachable within {j} steps (the limit of plans per "
                    "check); lower --depth",
                    depth=j,
                    rlimit=s.used + spent[0],
                )
    return Result(
        check="liveness",
        item=item,
        status=HOLDS,
        span=goal.span,
        message=f"from every state reachable within {depth} steps the goal is reachable "
        f"within {depth} steps ({len(plans)} plans cover them)",
        depth=depth,
        rlimit=s.used + spent[0],
    )


def _dead_end(
    contract: Contract,
    item: str,
    trace: Any,
    j: int,
    depth: int,
    terminal: bool,
    used: int,
    goal: Item,
    lost: bool,
) -> Result:
    # a terminal state, one where nothing is legal, or one whose every reachable state
    # is reachable within the depth (`lost`) never reaches the goal; any other state
    # only did not within the depth, which decides nothing beyond it
    stuck = not terminal and not legal_names(contract, trace)
    final = terminal or stuck or lost
    where = "the initial state" if j == 0 else f"the state after {j} steps"
    if terminal:
        message = f"after {j} steps the episode is over (terminal) without the goal"
    elif stuck:
        message = f"after {j} steps no operation is legal and the goal does not hold"
    elif final:
        message = (
            f"after {j} steps the goal can no longer be reached: every state reachable from "
            f"there is reachable within {depth} steps, and none meets the goal"
        )
    else:
        message = (
            f"from {where} the goal is not reached within {depth} steps; unknown beyond "
            "(try a larger --depth)"
        )
    details: tuple[str, ...] = ()
    if j:
        last = trace.steps[-1].op
        details = (
            f"`{last}` (step {j}) "
            + ("closed the way" if final else "led there")
            + ": before it the goal was reachable within the depth",
        )
    return Result(
        check="liveness",
        item=item,
        status=VIOLATED if final else BOUNDED,
        span=goal.span,
        message=message,
        traces=(trace,),
        details=details,
        depth=j,
        rlimit=used,
    )


class _Planner:
    """Shortest plans from concrete states, on one unrolling from a symbolic state that
    each search pins to its candidate (built once, extended as deep as needed)."""

    def __init__(self, contract: Contract, goal: Item, budget: int) -> None:
        self.contract, self.goal = contract, goal
        self.s = Session(budget)
        self.u = Unrolling(contract, "plan", ctx=self.s.ctx)
        self.u.evidence = {
            e.name: symbol(e.type, f"plan.ev.{e.name}", self.s.ctx) for e in contract.evidence
        }
        self.u.states.append(
            {v.name: symbol(v.type, f"plan.{v.name}@0", self.s.ctx) for v in contract.variables}
        )

    def plan(
        self, state: dict[str, object], evidence: dict[str, object], depth: int
    ) -> tuple[Plan] | tuple[()] | None:
        """The shortest plan (at most `depth` steps) from a concrete state to the goal:
        `(plan,)`, `()` when there is none, None when the solver stopped."""
        c, u = self.contract, self.u
        pins = [
            same(u.evidence[e.name], as_env_value(e.type, evidence[e.name])) for e in c.evidence
        ]
        pins += [
            same(u.states[0][v.name], as_env_value(v.type, state[v.name])) for v in c.variables
        ]
        for d in range(depth + 1):
            while len(u.states) <= d:
                self.s.add(u.extend())
            answer, model = self.s.check(*pins, u.holds(d, self.goal.expr))
            if answer == z3.unknown:
                return None
            if answer == z3.sat:
                _, _, steps = u.read_trace(model, d)
                plan = []
                for act, outs in steps:
                    used = outcomes_used(u.ops[act].op.effects) if act < len(u.ops) else set()
                    plan.append((act, tuple(sorted((n, outs[n]) for n in used))))
                return (tuple(plan),)
        return ()

    def lost(
        self, state: dict[str, object], evidence: dict[str, object], depth: int
    ) -> bool | None:
        """After `plan` found no plan within `depth` steps: is the goal lost for good?
        True when no run of `depth + 1` steps from the state visits distinct states only
        (then every state reachable from it is reachable within `depth` steps, so none
        meets the goal); None when the solver stopped."""
        c, u = self.contract, self.u
        while len(u.states) <= depth + 1:
            self.s.add(u.extend())
        pins = [
            same(u.evidence[e.name], as_env_value(e.type, evidence[e.name])) for e in c.evidence
        ]
        pins += [
            same(u.states[0][v.name], as_env_value(v.type, state[v.name])) for v in c.variables
        ]
        distinct = [
            Z3.not_(Z3.and_(same(u.states[a][v.name], u.states[b][v.name]) for v in c.variables))
            for b in range(depth + 2)
            for a in range(b)
        ]
        answer, _ = self.s.check(*pins, *distinct)
        return None if answer == z3.unknown else answer == z3.unsat


def _follows(u: Unrolling, t: int, plan: Plan, goal: Item) -> Any:
    """The condition on the state at step `t` of `u` under which `plan` is legal step by
    step and ends in a goal state."""
    ev, c = u.ev, u.contract
    env: dict[tuple[str, str], Any] = dict(u.env(t))
    parts: list[Any] = []
    for act, outs in plan:
        if act >= len(u.ops):
            continue  # a stutter: the state does not change
        g = u.ops[act]
        parts.append(Z3.not_(Z3.or_(ev.evaluate(x.expr, env) for x in c.terminal)))
        genv = with_args(env, g)
        parts += [ev.evaluate(r.expr, genv) for r in g.op.requires]
        chosen = dict(outs)
        for o in c.outcomes:
            value = chosen.get(o.name, default_value(o.type))
            genv[("outcome", o.name)] = as_env_value(o.type, value)
        updates = {e.var: ev.evaluate(e.value, genv) for e in g.op.effects}
        for name, value in updates.items():
            env[("var", name)] = value
    parts.append(ev.evaluate(goal.expr, env))
    return Z3.and_(parts)
