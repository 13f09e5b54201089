"""The grounded, quantifier-free transition system of a contract, as Z3 terms.

A state is one Z3 constant per scalar variable (Int with its range, or Bool) and one
Bool per element of a set variable. Evidence is a set of constants per trace; each
step has its own outcome constants and one integer selector `act` that picks a ground
operation or the terminal stutter (only in a terminal state). Every choice states its
frame: variables an effect does not assign keep their value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import z3

from lablang.contracts.model import (
    NONE,
    BoolType,
    Contract,
    EnumType,
    GroundOp,
    IntType,
    OptionType,
    SetType,
    Type,
    ValuesType,
    elements,
    ground,
)
from lablang.contracts.semantics import Algebra, Evaluator, Value, with_args


def _is_py(x: object) -> bool:
    return isinstance(x, bool | int)


class Z3Algebra(Algebra):
    """Builds Z3 terms, folding operations whose operands are all Python constants.

    Comparisons and `+ - * %` are the base class's: Python's operators build Z3 terms too."""

    def and_(self, xs: Iterable[Value]) -> Value:
        terms = []
        for x in xs:
            if x is False:
                return False
            if x is not True:
                terms.append(x)
        if not terms:
            return True
        return terms[0] if len(terms) == 1 else z3.And(*terms)

    def or_(self, xs: Iterable[Value]) -> Value:
        terms = []
        for x in xs:
            if x is True:
                return True
            if x is not False:
                terms.append(x)
        if not terms:
            return False
        return terms[0] if len(terms) == 1 else z3.Or(*terms)

    def not_(self, x: Value) -> Value:
        return (not x) if _is_py(x) else z3.Not(x)

    def implies(self, a: Value, b: Value) -> Value:
        if _is_py(a):
            return b if a else True
        if b is True:
            return True
        return z3.Implies(a, b) if b is not False else z3.Not(a)

    def ite(self, c: Value, a: Value, b: Value) -> Value:
        if _is_py(c):
            return a if c else b
        if _is_py(a) and _is_py(b) and a == b and type(a) is type(b):
            return a
        return z3.If(c, a, b)

    def div(self, a: Value, b: int) -> Value:
        return a // b if _is_py(a) else a / b

    def total(self, xs: list[Value]) -> Value:
        consts = sum(x for x in xs if _is_py(x))
        terms = [x for x in xs if not _is_py(x)]
        if not terms:
            return consts
        result = terms[0] if len(terms) == 1 else z3.Sum(*terms)
        return result + consts if consts else result


Z3 = Z3Algebra()


def symbol(t: Type, name: str, ctx: Any = None) -> Value:
    """A new symbolic value of type `t`, without domain constraints."""
    match t:
        case BoolType():
            return z3.Bool(name, ctx)
        case SetType():
            return {e: z3.Bool(f"{name}[{e}]", ctx) for e in elements(t.elem)}
    return z3.Int(name, ctx)


def _member(x: Any, values: tuple[int, ...]) -> Any:
    """`x` is one of `values`, as a few interval tests (or a stride) rather than one
    equality per value (4,096 values times 40 variables times the depth added up)."""
    ordered = sorted(values)
    lo, hi = ordered[0], ordered[-1]
    if len(ordered) > 2:
        stride = ordered[1] - ordered[0]
        if stride > 1 and ordered == list(range(lo, hi + 1, stride)):
            return z3.And(x >= lo, x <= hi, (x - lo) % stride == 0)
    runs: list[tuple[int, int]] = []
    for v in ordered:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    tests = [x == a if a == b else z3.And(x >= a, x <= b) for a, b in runs]
    return tests[0] if len(tests) == 1 else z3.Or(*tests)


def fresh(t: Type, name: str, ctx: Any = None) -> tuple[Value, list[Any]]:
    """A new symbolic value of type `t` and its domain constraints."""
    match t:
        case BoolType():
            return z3.Bool(name, ctx), []
        case IntType():
            x = z3.Int(name, ctx)
            return x, [x >= t.lo, x <= t.hi]
        case ValuesType() | EnumType():
            x = z3.Int(name, ctx)
            return x, [_member(x, elements(t))]
        case OptionType():
            x = z3.Int(name, ctx)
            return x, [_member(x, (NONE, *elements(t.inner)))]
        case SetType():
            return {e: z3.Bool(f"{name}[{e}]", ctx) for e in elements(t.elem)}, []
    raise AssertionError(t)


def range_constraints(t: Type, x: Value) -> list[Any]:
    match t:
        case BoolType() | SetType():
            return []
        case IntType():
            return [x >= t.lo, x <= t.hi]
        case ValuesType() | EnumType():
            return [_member(x, elements(t))]
        case OptionType():
            return [_member(x, (NONE, *elements(t.inner)))]
    raise AssertionError(t)


def same(a: Value, b: Value) -> Value:
    if isinstance(a, dict):
        return Z3.and_(Z3.eq(a[k], b[k]) for k in sorted(a))
    return Z3.eq(a, b)


def read(model: Any, value: Value, t: Type) -> object:
    """A model's value for a symbolic value, as a runtime value."""
    if isinstance(value, dict):
        return frozenset(k for k, v in value.items() if model_truth(model, v))
    if _is_py(value):
        return value
    if isinstance(t, BoolType):
        return model_truth(model, value)
    return model_int(model, value)


# Reading a satisfying assignment: z3's `ModelRef.evaluate` computes a solver term's
# value in the model (with defaults for unconstrained symbols); nothing from a `.lab`
# file is ever run as code. A Python constant is its own value.


def model_truth(model: Any, v: Value) -> bool:
    """The truth of a condition in a solver model."""
    if _is_py(v):
        return bool(v)
    return bool(z3.is_true(model.evaluate(v, model_completion=True)))


def model_int(model: Any, v: Value) -> int:
    """The value of an integer term in a solver model."""
    if _is_py(v):
        return int(v)
    return int(model.evaluate(v, model_completion=True).as_long())


class Unrolling:
    """One trace of the transition system, extended a step at a time."""

    def __init__(self, contract: Contract, tag: str, *, ctx: Any = None) -> None:
        self.contract = contract
        self.ctx = ctx
        self.tag = tag
        # operation name -> assumption literal: when set, an operation's requirements
        # bind only while its literal is assumed (for unsat cores)
        self.guards: dict[str, Any] = {}
        self.ev = Evaluator(contract, Z3)
        self.ops: tuple[GroundOp, ...] = ground(contract)
        self.stutter = len(self.ops)
        self.evidence: dict[str, Value] = {}
        self.states: list[dict[str, Value]] = []
        self.outcomes: list[dict[str, Value]] = []
        self.acts: list[Any] = []
        self._pre: dict[tuple[int, int], Value] = {}
        self._terminal: dict[int, Value] = {}
        self.init_of: dict[str, Any] = {}  # variable -> its `init` constraint (after start)

    # ---- construction
    def start(self) -> list[Any]:
        """Evidence, the initial state and their constraints."""
        cons: list[Any] = []
        for e in self.contract.evidence:
            value, dom = fresh(e.type, f"{self.tag}.ev.{e.name}", self.ctx)
            self.evidence[e.name] = value
            cons += dom
        state: dict[str, Value] = {}
        for v in self.contract.variables:
            value = symbol(v.type, f"{self.tag}.{v.name}@0", self.ctx)  # fixed by its init below
            state[v.name] = value
        self.states.append(state)
        env = self.env(0)
        for v in self.contract.variables:
            if v.init is None:
                from lablang.contracts.model import default_value
                from lablang.contracts.semantics import as_env_value

                init = as_env_value(v.type, default_value(v.type))
            else:
                init = self.ev.evaluate(v.init, env)
            self.init_of[v.name] = _as_bool(_assign(state[v.name], init), self.ctx)
            cons.append(self.init_of[v.name])
        return cons

    def extend(self) -> list[Any]:
        """Add one step; returns the transition constraints from the last state."""
        t = len(self.states) - 1
        cons: list[Any] = []
        outcomes: dict[str, Value] = {}
        for o in self.contract.outcomes:
            value, dom = fresh(o.type, f"{self.tag}.out.{o.name}@{t}", self.ctx)
            outcomes[o.name] = value
            cons += dom
        self.outcomes.append(outcomes)
        # No range constraints after step 0: every next value is an effect or a frame
        # copy, and an effect that leaves its range is found by the `range` check
        # instead of silently disabling the operation.
        nxt: dict[str, Value] = {}
        for v in self.contract.variables:
            value = symbol(v.type, f"{self.tag}.{v.name}@{t + 1}", self.ctx)
            nxt[v.name] = value
        self.states.append(nxt)
        act = z3.Int(f"{self.tag}.act@{t}", self.ctx)
        self.acts.append(act)
        top = self.stutter
        cons += [act >= 0, act <= top]
        cur = self.states[t]
        env = self.env(t, with_outcomes=True)
        not_terminal = Z3.not_(self.terminal(t))
        # Each choice implies its requirements; each variable's next value is one
        # if-then-else over the operations that assign it, its current value otherwise
        # (the frame). This is equivalent to per-operation frame equalities and smaller.
        updates: dict[str, list[tuple[int, Value]]] = {n: [] for n in cur}
        for i, g in enumerate(self.ops):
            requirement = z3.Implies(
                act == i, _as_bool(Z3.and_([self.pre(t, i), not_terminal]), self.ctx)
            )
            guard = self.guards.get(g.op.name)
            cons.append(requirement if guard is None else z3.Implies(guard, requirement))
            genv = with_args(env, g)
            for e in g.op.effects:
                updates[e.var].append((i, self.ev.evaluate(e.value, genv)))
        cons.append(z3.Implies(act == self.stutter, _as_bool(self.terminal(t), self.ctx)))
        for name, cases in updates.items():
            if len(cases) <= CHAIN_CASES:
                cons.append(_assign(nxt[name], _choose(act, cases, cur[name])))
                continue
            # many assigning operations: one implication each and a frame for the rest;
            # a long if-then-else chain over the selector is slow to solve
            for i, value in cases:
                cons.append(z3.Implies(act == i, _as_bool(_assign(nxt[name], value), self.ctx)))
            assigning = {i for i, _ in cases}
            others = [i for i in range(top + 1) if i not in assigning]
            keep = _as_bool(_assign(nxt[name], cur[name]), self.ctx)
            cons.append(z3.Implies(_selects(act, others, self.ctx), keep))
        return cons

    # ---- terms over step t
    def env(self, t: int, *, with_outcomes: bool = False) -> dict[tuple[str, str], Value]:
        env: dict[tuple[str, str], Value] = {}
        for name, value in self.contract.params.items():
            env[("param", name)] = value
        for name, value in self.states[t].items():
            env[("var", name)] = value
        for name, value in self.evidence.items():
            env[("evidence", name)] = value
        if with_outcomes:
            for name, value in self.outcomes[t].items():
                env[("outcome", name)] = value
        return env

    def pre(self, t: int, i: int) -> Value:
        key = (t, i)
        if key not in self._pre:
            genv = with_args(self.env(t), self.ops[i])
            self._pre[key] = Z3.and_(
                self.ev.evaluate(r.expr, genv) for r in self.ops[i].op.requires
            )
        return self._pre[key]

    def terminal(self, t: int) -> Value:
        if t not in self._terminal:
            env = self.env(t)
            self._terminal[t] = Z3.or_(
                self.ev.evaluate(x.expr, env) for x in self.contract.terminal
            )
        return self._terminal[t]

    def in_range(self, t: int) -> Value:
        """Every variable of step t holds a value of its type."""
        parts: list[Value] = []
        for v in self.contract.variables:
            value = self.states[t][v.name]
            if not isinstance(value, dict):
                parts += range_constraints(v.type, value)
        return Z3.and_(parts)

    def legal(self, t: int, i: int) -> Value:
        return Z3.and_([Z3.not_(self.terminal(t)), self.pre(t, i)])

    def holds(self, t: int, expr: Any) -> Value:
        return self.ev.evaluate(expr, self.env(t))

    # ---- reading a model
    def read_trace(
        self, model: Any, length: int
    ) -> tuple[dict[str, object], list[dict[str, object]], list[tuple[int, dict[str, object]]]]:
        c = self.contract
        evidence = {e.name: read(model, self.evidence[e.name], e.type) for e in c.evidence}
        states = [
            {v.name: read(model, self.states[t][v.name], v.type) for v in c.variables}
            for t in range(length + 1)
        ]
        steps = []
        for t in range(length):
            act = model_int(model, self.acts[t])
            outs = {o.name: read(model, self.outcomes[t][o.name], o.type) for o in c.outcomes}
            steps.append((act, outs))
        return evidence, states, steps


CHAIN_CASES = 16
"""Up to this many assigning operations, a variable's next value is one if-then-else."""


def _selects(act: Any, indices: list[int], ctx: Any) -> Any:
    """`act` is one of `indices` (sorted), as a few interval tests."""
    runs: list[tuple[int, int]] = []
    for i in indices:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    tests = [act == lo if lo == hi else z3.And(act >= lo, act <= hi) for lo, hi in runs]
    return z3.Or(*tests) if len(tests) > 1 else tests[0] if tests else z3.BoolVal(False, ctx)


def _choose(act: Any, cases: list[tuple[int, Value]], default: Value) -> Value:
    """`If(act == i1, v1, If(act == i2, v2, ... default))`, element-wise for sets."""
    if isinstance(default, dict):
        return {
            k: _choose(act, [(i, v.get(k, False)) for i, v in cases], flag)
            for k, flag in default.items()
        }
    result = default
    for i, value in reversed(cases):
        result = Z3.ite(act == i, value, result)
    return result


def _as_bool(v: Value, ctx: Any = None) -> Any:
    return z3.BoolVal(v, ctx) if isinstance(v, bool) else v


def _assign(target: Value, value: Value) -> Value:
    if isinstance(target, dict):
        return Z3.and_(Z3.eq(target[k], value.get(k, False)) for k in sorted(target))
    return Z3.eq(target, value)


def as_bool(v: Value, ctx: Any = None) -> Any:
    """A folded value as a Z3 boolean term (Python True/False become BoolVals)."""
    return _as_bool(v, ctx)
