"""A contract's state moved by what was physically observed, not by what was commanded.

Two rules a judge of a real episode (`lablang.bound.ContractJudge`) needs, written over
the contract alone:

* `explaining_outcomes`: an operation with environment outcomes (`place_a(k)` with
  `fail` and `slip`) took effect with the outcomes that explain where the object really
  is. Its `confirm` holds after it when the placement was confirmed; when it was not, the
  outcomes are those under which the operation the object's actual resting place would
  have been (`place_a(k + 1)` for a tube that slipped into the next slot) is confirmed,
  or, when it rests at no target of that operation, under which no ground form of it is
  (a `fail`: the tube is not seated anywhere).
* `observation_operations`: operations that only mark something as seen (`confirm_a`:
  every effect sets a variable that some `visible:` reads). The agent performs them by
  looking, when an outcome reaches it, so a judge applies each enabled one then.

>>> from lablang.contracts.model import BoolType, Const, Contract, Effect, Operation
>>> from lablang.contracts.model import Ref, Variable
>>> seen = Variable(name="seen", type=BoolType())
>>> a = Variable(name="a", type=BoolType(), visible=Ref(kind="var", name="seen"))
>>> look = Operation(name="look", effects=(Effect(var="seen", value=Const(value=True)),))
>>> c = Contract(name="c", variables=(seen, a), operations=(look,))
>>> [op.name for op in observation_operations(c)]
['look']
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from lablang.contracts.model import (
    Contract,
    GroundOp,
    Operation,
    default_value,
    domain,
    ground,
    references,
)
from lablang.contracts.semantics import State, apply, legal_ground, state_env, with_args
from lablang.contracts.semantics import evaluate as evaluate_expr

MAX_OUTCOME_CHOICES = 256  # outcome assignments tried to explain one observation


def observation_operations(contract: Contract) -> tuple[Operation, ...]:
    """The operations without parameters or `confirm` whose every effect sets a
    visibility flag (a variable that some variable's `visible:` reads)."""
    defs = {d.name: d.expr for d in contract.definitions}
    flags: set[str] = set()
    for v in contract.variables:
        flags |= references(v.visible, defs)
    return tuple(
        op
        for op in contract.operations
        if not op.params
        and op.confirm is None
        and op.effects
        and all(e.var in flags for e in op.effects)
    )


def observe(
    contract: Contract, state: Mapping[str, object], evidence: Mapping[str, object]
) -> State:
    """The state after the agent looked: each enabled observation operation applied
    (repeatedly, until none is enabled; at most once each)."""
    looks = observation_operations(contract)
    result = dict(state)
    for _ in looks:
        enabled = [g for g in legal_ground(contract, result, evidence) if g.op in looks]
        if not enabled:
            break
        result = apply(contract, result, evidence, enabled[0])
    return result


def explaining_outcomes(
    contract: Contract,
    state: Mapping[str, object],
    evidence: Mapping[str, object],
    g: GroundOp,
    confirmed: bool,
    actual: GroundOp | None = None,
) -> dict[str, object] | None:
    """The outcomes under which `g`, taken in `state`, leaves the world as observed
    (`confirmed`; `actual`: the ground operation the object's resting place is), the
    fewest outcomes off their defaults first; None when no outcome explains it (a
    refuted placement of an operation that cannot fail: it did not take effect)."""
    if g.op.confirm is None:
        return {} if confirmed else None
    names = [o.name for o in contract.outcomes]
    defaults = [default_value(o.type) for o in contract.outcomes]
    choices = list(itertools.product(*(domain(o.type) for o in contract.outcomes)))
    choices.sort(key=lambda values: sum(v != d for v, d in zip(values, defaults, strict=True)))
    same = [h for h in ground(contract) if h.op is g.op]
    for values in choices[:MAX_OUTCOME_CHOICES]:
        outcomes = dict(zip(names, values, strict=True))
        after = apply(contract, state, evidence, g, outcomes)
        if _confirms(contract, after, evidence, outcomes, g) != confirmed:
            continue
        if confirmed:
            return outcomes
        if actual is not None and actual.op is g.op:
            if _confirms(contract, after, evidence, outcomes, actual):
                return outcomes
        elif not any(_confirms(contract, after, evidence, outcomes, h) for h in same):
            return outcomes
    return None


def _confirms(
    contract: Contract,
    state: Mapping[str, object],
    evidence: Mapping[str, object],
    outcomes: Mapping[str, object],
    g: GroundOp,
) -> bool:
    assert g.op.confirm is not None
    env = with_args(state_env(contract, state, evidence, outcomes), g)
    return bool(evaluate_expr(contract, g.op.confirm.expr, env))
