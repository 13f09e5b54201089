"""The runtime evaluator and the Z3 encoding agree on legal sets and on steps."""

from __future__ import annotations

from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lablang.contracts.encode import Unrolling, as_bool, fresh, read, same
from lablang.contracts.model import Contract, domain
from lablang.contracts.semantics import apply, as_env_value, legal_ground
from tests.contracts.loading import DATA, STDLIB, load

CONTRACTS = {
    path.stem: load(path) for path in [*sorted(STDLIB.glob("*.lab")), *sorted(DATA.glob("*.lab"))]
}


def _pinned(
    contract: Contract, state: dict[str, object], evidence: dict[str, object]
) -> tuple[z3.Solver, Unrolling]:
    solver = z3.Solver()
    u = Unrolling(contract, "diff")
    for e in contract.evidence:
        value, _ = fresh(e.type, f"diff.ev.{e.name}")
        u.evidence[e.name] = value
        solver.add(as_bool(same(value, as_env_value(e.type, evidence[e.name]))))
    here: dict[str, Any] = {}
    for v in contract.variables:
        value, _ = fresh(v.type, f"diff.{v.name}@0")
        here[v.name] = value
        solver.add(as_bool(same(value, as_env_value(v.type, state[v.name]))))
    u.states.append(here)
    return solver, u


def _draw_state(
    data: st.DataObject, contract: Contract
) -> tuple[dict[str, object], dict[str, object]]:
    state = {
        v.name: data.draw(st.sampled_from(domain(v.type)), label=v.name) for v in contract.variables
    }
    evidence = {
        e.name: data.draw(st.sampled_from(domain(e.type)), label=e.name) for e in contract.evidence
    }
    return state, evidence


@pytest.mark.parametrize("name", sorted(CONTRACTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_z3_legal_set_equals_runtime_legal_set(name: str, data: st.DataObject) -> None:
    """In any typed state, an operation is legal for Z3 exactly when the runtime says so."""
    contract = CONTRACTS[name]
    state, evidence = _draw_state(data, contract)
    runtime = {g.name for g in legal_ground(contract, state, evidence)}
    solver, u = _pinned(contract, state, evidence)
    by_z3 = set()
    for i, g in enumerate(u.ops):
        solver.push()
        solver.add(as_bool(u.legal(0, i)))
        if solver.check() == z3.sat:
            by_z3.add(g.name)
        solver.pop()
    assert by_z3 == runtime


@pytest.mark.parametrize("name", sorted(CONTRACTS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_z3_step_equals_runtime_step(name: str, data: st.DataObject) -> None:
    """A legal operation with given outcomes leads to the same next state in both semantics."""
    contract = CONTRACTS[name]
    state, evidence = _draw_state(data, contract)
    legal = legal_ground(contract, state, evidence)
    if not legal:
        return
    g = data.draw(st.sampled_from(legal), label="op")
    outcomes = {
        o.name: data.draw(st.sampled_from(domain(o.type)), label=o.name) for o in contract.outcomes
    }
    expected = apply(contract, state, evidence, g, outcomes)
    solver, u = _pinned(contract, state, evidence)
    for c in u.extend():
        solver.add(as_bool(c))
    solver.add(u.acts[0] == u.ops.index(g))
    for o in contract.outcomes:
        solver.add(as_bool(same(u.outcomes[0][o.name], as_env_value(o.type, outcomes[o.name]))))
    assert solver.check() == z3.sat
    model = solver.model()
    got = {v.name: read(model, u.states[1][v.name], v.type) for v in contract.variables}
    assert got == expected
