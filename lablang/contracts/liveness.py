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

from lablang.contracts.checks import (
    HOLDS,
    UNKNOWN,
    VIOLATED,
    Result,
    _outcomes_used,
    _Session,
    _true,
    _unknown,
    make_trace,
)
from lablang.contracts.encode import Z3, Unrolling
from lablang.contracts.model import Contract, Item, default_value
from lablang.contracts.semantics import as_env_value, with_args

MAX_PLANS = 2_000
"""Known plans one liveness check may collect before it answers `unknown`."""

Plan = tuple[tuple[int, tuple[tuple[str, object], ...]], ...]
"""Per step: the ground operation's index and the outcomes its effects read."""


def check_liveness(contract: Contract, goal: Item, depth: int, budget: int) -> Result:
    """Is there a state reachable within `depth` steps from which the goal cannot be
    reached within `depth` steps? `violated` with the trace into the first such state."""
    item = f"goal stays reachable: {goal.text}"
    s = _Session(budget)
    u = Unrolling(contract, "lv", ctx=s.ctx)
    s.add(u.start())
    plans: list[Plan] = []
    known: set[Plan] = set()
    spent = [0]  # rlimit units of the plan searches (their own solvers)
    for j in range(depth + 1):
        if j:
            s.add(u.extend())
            answer, _ = s.check()
            if answer == z3.unknown:
                return _unknown("liveness", item, s, j, goal.span, s.used + spent[0])
            if answer == z3.unsat:
                break  # no execution is longer than j - 1 steps
        covered = [_follows(u, j, p, goal) for p in plans]
        while True:
            answer, model = s.check(
                Z3.not_(u.holds(j, goal.expr)), Z3.not_(Z3.or_(covered)) if covered else True
            )
            if answer == z3.unknown:
                return _unknown("liveness", item, s, j, goal.span, s.used + spent[0])
            if answer == z3.unsat:
                break
            trace = make_trace(contract, u, model, j)
            found = _plan_from(
                contract, goal, trace.raw_states[-1], trace.raw_evidence, depth, s, spent
            )
            if found is None:
                return _unknown("liveness", item, s, j, goal.span, s.used + spent[0])
            if not found:
                return _dead_end(
                    contract,
                    item,
                    trace,
                    j,
                    depth,
                    _true(model, u.terminal(j)),
                    s.used + spent[0],
                    goal,
                )
            plan = found[0]
            for start in range(len(plan)):
                suffix = plan[start:]
                if suffix not in known:
                    known.add(suffix)
                    plans.append(suffix)
                    covered.append(_follows(u, j, suffix, goal))
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
) -> Result:
    if j == 0:
        message = f"the goal is not reachable within {depth} steps from the initial state"
        details: tuple[str, ...] = ()
    else:
        last = trace.steps[-1].op
        message = (
            f"after {j} steps the episode is over (terminal) without the goal"
            if terminal
            else f"after {j} steps the goal can no longer be reached within {depth} steps"
        )
        details = (f"`{last}` (step {j}) closed the way: before it the goal was still reachable",)
    return Result(
        check="liveness",
        item=item,
        status=VIOLATED,
        span=goal.span,
        message=message,
        traces=(trace,),
        details=details,
        depth=j,
        rlimit=used,
    )


def _plan_from(
    contract: Contract,
    goal: Item,
    state: dict[str, object],
    evidence: dict[str, object],
    depth: int,
    parent: _Session,
    spent: list[int],
) -> tuple[Plan] | tuple[()] | None:
    """The shortest plan (at most `depth` steps) from a concrete state to the goal:
    `(plan,)`, `()` when there is none, None when the solver stopped."""
    s = _Session(parent.budget)
    u = Unrolling(contract, "plan", ctx=s.ctx)
    u.evidence = {e.name: as_env_value(e.type, evidence[e.name]) for e in contract.evidence}
    u.states.append({v.name: as_env_value(v.type, state[v.name]) for v in contract.variables})
    try:
        for d in range(depth + 1):
            if d:
                s.add(u.extend())
            answer, model = s.check(u.holds(d, goal.expr))
            if answer == z3.unknown:
                parent.reason = s.reason
                return None
            if answer == z3.sat:
                _, _, steps = u.read_trace(model, d)
                plan = []
                for act, outs in steps:
                    used = _outcomes_used(u.ops[act].op.effects) if act < len(u.ops) else set()
                    plan.append((act, tuple(sorted((n, outs[n]) for n in used))))
                return (tuple(plan),)
        return ()
    finally:
        spent[0] += s.used


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
