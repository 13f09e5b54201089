"""One solver per query group, with a deterministic rlimit budget per query and a
ledger for the whole command; `unknown` results name the limit that stopped them."""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from typing import Any

import z3

from lablang.contracts.encode import Unrolling, as_bool, fresh
from lablang.contracts.model import Span
from lablang.contracts.results import UNKNOWN, Result

DEFAULT_RLIMIT = 20_000_000
"""Z3 resource units allowed for one `check()` call (deterministic, unlike time)."""


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


class Session:
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
        self._base = rlimit_count(self.ctx)
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
        return rlimit_count(self.ctx) - self._base


def rlimit_count(ctx: Any) -> int:
    stats = z3.Solver(ctx=ctx).statistics()  # the count is global to the context
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0  # noqa: SIM118 (Statistics has no __contains__)


def unknown_result(
    check: str,
    item: str,
    session: Session,
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


def arbitrary_state(contract: Any, prefix: str, session: Session) -> Unrolling:
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
