"""What a contract means, written once over an algebra of values.

`Evaluator` gives every expression its value through an `Algebra`: `PY` computes with
Python ints and bools (the runtime: `legal_operations`, `step`, the monitor), and the
Z3 algebra in `lablang.contracts.encode` builds solver terms from the same code.
Sets are dicts from element code to a boolean value in both.

>>> from lablang.contracts.model import Contract, Variable, Operation, Item, Effect
>>> from lablang.contracts.model import BoolType, Ref, Unary, Const
>>> lid = Variable(name="lid", type=BoolType())
>>> close = Operation(name="close", requires=(Item(expr=Unary(op="not",
...     operand=Ref(kind="var", name="lid")), text="not lid"),),
...     effects=(Effect(var="lid", value=Const(value=True)),))
>>> c = Contract(name="box", variables=(lid,), operations=(close,))
>>> legal_operations(c, initial_state(c, {}))
['close']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lablang.contracts.model import (
    NONE,
    Agg,
    Binary,
    BoolType,
    Const,
    Contract,
    EnumType,
    Expr,
    GroundOp,
    If,
    IntType,
    Item,
    OptionType,
    Quant,
    Ref,
    SetLit,
    SetType,
    Type,
    Unary,
    ValuesType,
    conjuncts,
    default_value,
    elements,
    ground,
)

Value = Any  # a Python int/bool, a Z3 term, or a set: dict[int, bool-valued]
Env = Mapping[tuple[str, str], Value]


class Algebra:
    """Python arithmetic and logic; the Z3 algebra overrides every method."""

    def and_(self, xs: Iterable[Value]) -> Value:
        return all(xs)

    def or_(self, xs: Iterable[Value]) -> Value:
        return any(xs)

    def not_(self, x: Value) -> Value:
        return not x

    def implies(self, a: Value, b: Value) -> Value:
        return (not a) or b

    def ite(self, c: Value, a: Value, b: Value) -> Value:
        return a if c else b

    def eq(self, a: Value, b: Value) -> Value:
        return a == b

    def lt(self, a: Value, b: Value) -> Value:
        return a < b

    def le(self, a: Value, b: Value) -> Value:
        return a <= b

    def add(self, a: Value, b: Value) -> Value:
        return a + b

    def sub(self, a: Value, b: Value) -> Value:
        return a - b

    def mul(self, a: Value, b: Value) -> Value:
        return a * b

    def div(self, a: Value, b: int) -> Value:
        return a // b

    def mod(self, a: Value, b: int) -> Value:
        return a % b

    def total(self, xs: list[Value]) -> Value:
        return sum(xs)


PY = Algebra()


class EvaluationError(Exception):
    """An expression the runtime cannot evaluate (division by zero, unbound name)."""


class Evaluator:
    """Evaluates contract expressions in an environment of resolved names."""

    def __init__(self, contract: Contract, alg: Algebra = PY) -> None:
        self.contract = contract
        self.alg = alg
        self.defs = {d.name: d.expr for d in contract.definitions}

    def evaluate(self, expr: Expr, env: Env) -> Value:
        alg = self.alg
        match expr:
            case Const(value=value):
                return value
            case Ref(kind="define", name=name):
                return self.evaluate(self.defs[name], env)
            case Ref(kind=kind, name=name):
                try:
                    return env[(kind, name)]
                except KeyError:
                    raise EvaluationError(f"`{name}` has no value here") from None
            case Unary(op="not", operand=operand):
                return alg.not_(self.evaluate(operand, env))
            case Unary(op="neg", operand=operand):
                return alg.sub(0, self.evaluate(operand, env))
            case Unary():
                raise EvaluationError(f"unknown unary operator `{expr.op}`")
            case Binary(op="and"):
                return alg.and_(self.evaluate(c, env) for c in conjuncts(expr))
            case Binary(op="or"):
                return alg.or_([self.evaluate(expr.left, env), self.evaluate(expr.right, env)])
            case Binary(op="implies"):
                return alg.implies(self.evaluate(expr.left, env), self.evaluate(expr.right, env))
            case Binary(op="div" | "mod", right=Const(value=int() as c)) if (
                c > 0 and not isinstance(c, bool)
            ):
                a = self.evaluate(expr.left, env)
                if isinstance(a, int):
                    return a // c if expr.op == "div" else a % c
                span = bounds(self.contract, expr.left, env)
                if span is None:
                    return alg.div(a, c) if expr.op == "div" else alg.mod(a, c)
                return _piecewise(alg, expr.op, a, c, span)
            case Binary():
                return self._binary(
                    expr.op, self.evaluate(expr.left, env), self.evaluate(expr.right, env)
                )
            case If(cond=cond, then=then, other=other):
                c = self.evaluate(cond, env)
                a, b = self.evaluate(then, env), self.evaluate(other, env)
                if isinstance(a, dict):
                    keys = sorted(set(a) | set(b))
                    return {k: alg.ite(c, a.get(k, False), b.get(k, False)) for k in keys}
                return alg.ite(c, a, b)
            case SetLit(items=items, elem=elem):
                result: dict[int, Value] = {}
                if elem is not None:
                    result = {e: False for e in elements(elem)}
                for item in items:
                    v = self.evaluate(item, env)
                    if isinstance(v, int):
                        result[v] = True
                    else:
                        if elem is None:
                            raise EvaluationError("a set literal with a computed item needs a type")
                        for e in elements(elem):
                            result[e] = alg.or_([result[e], alg.eq(v, e)])
                return result
            case Agg(func="sum", arg=arg):
                s = self.evaluate(arg, env)
                return alg.total([alg.ite(flag, k, 0) for k, flag in sorted(s.items())])
            case Agg(func="size", arg=arg):
                s = self.evaluate(arg, env)
                return alg.total([alg.ite(flag, 1, 0) for _, flag in sorted(s.items())])
            case Agg():
                raise EvaluationError(f"unknown aggregate `{expr.func}`")
            case Quant(kind=kind, var=var, domain=dom, body=body):
                parts = []
                if isinstance(dom, IntType | ValuesType | EnumType):
                    for e in elements(dom):
                        parts.append(self.evaluate(body, {**env, ("bound", var): e}))
                else:
                    members = self.evaluate(dom, env)
                    for e, flag in sorted(members.items()):
                        inner = self.evaluate(body, {**env, ("bound", var): e})
                        parts.append(
                            alg.implies(flag, inner)
                            if kind == "forall"
                            else alg.and_([flag, inner])
                        )
                return alg.and_(parts) if kind == "forall" else alg.or_(parts)
        raise AssertionError(f"unhandled expression {expr!r}")

    def _binary(self, op: str, a: Value, b: Value) -> Value:
        alg = self.alg
        if isinstance(a, dict) or isinstance(b, dict):
            return self._set_binary(op, a, b)
        match op:
            case "eq":
                return alg.eq(a, b)
            case "ne":
                return alg.not_(alg.eq(a, b))
            case "lt":
                return alg.lt(a, b)
            case "le":
                return alg.le(a, b)
            case "gt":
                return alg.lt(b, a)
            case "ge":
                return alg.le(b, a)
            case "add":
                return alg.add(a, b)
            case "sub":
                return alg.sub(a, b)
            case "mul":
                return alg.mul(a, b)
            case "div" | "mod":
                if not isinstance(b, int) or b <= 0:
                    raise EvaluationError("`/` and `%` need a positive constant on the right")
                return alg.div(a, b) if op == "div" else alg.mod(a, b)
        raise EvaluationError(f"operator `{op}` does not apply to these values")

    def _set_binary(self, op: str, a: Value, b: Value) -> Value:
        alg = self.alg
        if op == "in":
            assert isinstance(b, dict)
            if isinstance(a, int) and not isinstance(a, bool):
                return b.get(a, False)
            return alg.or_([alg.and_([alg.eq(a, k), flag]) for k, flag in sorted(b.items())])
        if not (isinstance(a, dict) and isinstance(b, dict)):
            raise EvaluationError(f"operator `{op}` mixes a set and a value")
        keys = sorted(set(a) | set(b))
        match op:
            case "union":
                return {k: alg.or_([a.get(k, False), b.get(k, False)]) for k in keys}
            case "diff":
                return {k: alg.and_([a.get(k, False), alg.not_(b.get(k, False))]) for k in keys}
            case "eq" | "ne":
                same = alg.and_([alg.eq(a.get(k, False), b.get(k, False)) for k in keys])
                return same if op == "eq" else alg.not_(same)
            case "le":  # subset
                return alg.and_([alg.implies(a.get(k, False), b.get(k, False)) for k in keys])
        raise EvaluationError(f"operator `{op}` does not apply to sets")


MAX_PIECES = 8


def _piecewise(alg: Algebra, op: str, a: Value, c: int, span: tuple[int, int]) -> Value:
    """`a // c` or `a % c` for `a` in `span`, as a few linear cases instead of the
    solver's non-linear division: `If(a < c, a, If(a < 2c, a - c, ...))` for `%`."""
    lo, hi = span
    quotients = list(range(lo // c, hi // c + 1))
    if len(quotients) > MAX_PIECES:
        return alg.div(a, c) if op == "div" else alg.mod(a, c)
    result: Value = quotients[-1] if op == "div" else alg.sub(a, quotients[-1] * c)
    for q in reversed(quotients[:-1]):
        piece = q if op == "div" else alg.sub(a, q * c)
        result = alg.ite(alg.lt(a, (q + 1) * c), piece, result)
    return result


def bounds(contract: Contract, expr: Expr, env: Env) -> tuple[int, int] | None:
    """An interval containing every value of an integer expression (None if unknown)."""
    match expr:
        case Const(value=value) if not isinstance(value, bool):
            return value, value
        case Ref(kind="define", name=name):
            definition = next((d.expr for d in contract.definitions if d.name == name), None)
            return None if definition is None else bounds(contract, definition, env)
        case Ref(kind="var" | "evidence" | "outcome", name=name):
            known = env.get((expr.kind, name))
            if isinstance(known, int) and not isinstance(known, bool):
                return known, known
            t = contract.type_of(expr.kind, name)
            match t:
                case IntType() | ValuesType() | EnumType():
                    codes = elements(t)
                    return min(codes), max(codes)
                case OptionType():
                    codes = elements(t.inner)
                    return min(NONE, *codes), max(NONE, *codes)
            return None
        case Ref(name=name):
            known = env.get((expr.kind, name))
            if isinstance(known, int) and not isinstance(known, bool):
                return known, known
            return None
        case Unary(op="neg", operand=operand):
            inner = bounds(contract, operand, env)
            return None if inner is None else (-inner[1], -inner[0])
        case Binary(op="add" | "sub" | "mul", left=left, right=right):
            a, b = bounds(contract, left, env), bounds(contract, right, env)
            if a is None or b is None:
                return None
            if expr.op == "add":
                return a[0] + b[0], a[1] + b[1]
            if expr.op == "sub":
                return a[0] - b[1], a[1] - b[0]
            products = [x * y for x in a for y in b]
            return min(products), max(products)
        case Binary(op="div" | "mod", left=left, right=Const(value=int() as c)) if c > 0:
            a = bounds(contract, left, env)
            if a is None:
                return None
            return (a[0] // c, a[1] // c) if expr.op == "div" else (0, c - 1)
        case If(then=then, other=other):
            a, b = bounds(contract, then, env), bounds(contract, other, env)
            if a is None or b is None:
                return None
            return min(a[0], b[0]), max(a[1], b[1])
    return None


# ------------------------------------------------------------------ runtime
State = dict[str, object]


def as_env_value(t: Type, value: object) -> Value:
    """A runtime value as the evaluator sees it (sets become element -> flag dicts)."""
    if isinstance(t, SetType):
        assert isinstance(value, frozenset)
        return {e: e in value for e in elements(t.elem)}
    return value


def from_env_value(t: Type, value: Value) -> object:
    if isinstance(t, SetType):
        return frozenset(k for k, flag in value.items() if flag and k in elements(t.elem))
    return value


def in_domain(t: Type, value: object) -> bool:
    match t:
        case BoolType():
            return isinstance(value, bool)
        case IntType() | ValuesType() | EnumType():
            return isinstance(value, int) and not isinstance(value, bool) and value in elements(t)
        case OptionType():
            return value == NONE or in_domain(t.inner, value)
        case SetType():
            return isinstance(value, frozenset) and all(v in elements(t.elem) for v in value)
    raise AssertionError(t)


def state_env(
    contract: Contract,
    state: Mapping[str, object],
    evidence: Mapping[str, object],
    outcomes: Mapping[str, object] | None = None,
) -> dict[tuple[str, str], Value]:
    env: dict[tuple[str, str], Value] = {}
    for name, value in contract.params.items():
        env[("param", name)] = value
    for v in contract.variables:
        env[("var", v.name)] = as_env_value(v.type, state[v.name])
    for e in contract.evidence:
        env[("evidence", e.name)] = as_env_value(e.type, evidence[e.name])
    for o in contract.outcomes:
        outcome = (outcomes or {}).get(o.name, default_value(o.type))
        env[("outcome", o.name)] = as_env_value(o.type, outcome)
    return env


def default_evidence(contract: Contract) -> dict[str, object]:
    return {e.name: default_value(e.type) for e in contract.evidence}


def initial_state(contract: Contract, evidence: Mapping[str, object]) -> State:
    """The state an episode starts in, given its evidence."""
    from lablang.contracts.model import init_order

    order, cycles = init_order(contract)
    if cycles:
        raise EvaluationError(
            "no initial state: the `init` of "
            + "; ".join(" -> ".join(f"`{n}`" for n in (*c, c[0])) for c in cycles)
            + " refers to itself"
        )
    evidence = {**default_evidence(contract), **evidence}
    state: State = {v.name: default_value(v.type) for v in contract.variables}
    ev = Evaluator(contract)
    decl = {v.name: v for v in contract.variables}
    for name in order:  # each `init` reads only the variables initialised before it
        v = decl[name]
        if v.init is not None:
            env = state_env(contract, state, evidence)
            state[name] = from_env_value(v.type, ev.evaluate(v.init, env))
    return {v.name: state[v.name] for v in contract.variables}


def with_args(env: Env, g: GroundOp) -> dict[tuple[str, str], Value]:
    result = dict(env)
    for p, a in zip(g.op.params, g.args, strict=True):
        result[("arg", p.name)] = a
    return result


def is_terminal(
    contract: Contract, state: Mapping[str, object], evidence: Mapping[str, object]
) -> bool:
    ev = Evaluator(contract)
    env = state_env(contract, state, {**default_evidence(contract), **evidence})
    return any(bool(ev.evaluate(t.expr, env)) for t in contract.terminal)


def legal_operations(
    contract: Contract,
    state: Mapping[str, object],
    evidence: Mapping[str, object] | None = None,
) -> list[str]:
    """The ground operations whose requirements hold in `state` (none in a terminal state).

    Values are runtime codes (see `read_state` for JSON input). Pure Python: no solver.
    """
    return [g.name for g in legal_ground(contract, state, evidence or {})]


def legal_ground(
    contract: Contract, state: Mapping[str, object], evidence: Mapping[str, object]
) -> list[GroundOp]:
    evidence = {**default_evidence(contract), **evidence}
    ev = Evaluator(contract)
    env = state_env(contract, state, evidence)
    if any(bool(ev.evaluate(t.expr, env)) for t in contract.terminal):
        return []
    return [
        g
        for g in ground(contract)
        if all(bool(ev.evaluate(r.expr, with_args(env, g))) for r in g.op.requires)
    ]


def first_failing(
    contract: Contract, state: Mapping[str, object], evidence: Mapping[str, object], g: GroundOp
) -> Item | None:
    """The first requirement conjunct of `g` that is false in `state` (None if enabled)."""
    ev = Evaluator(contract)
    env = with_args(state_env(contract, state, {**default_evidence(contract), **evidence}), g)
    for item in g.op.requires:
        for part in conjuncts(item.expr):
            if not ev.evaluate(part, env):
                return item if part is item.expr else Item(expr=part, text="", span=part.span)
    return None


def apply(
    contract: Contract,
    state: Mapping[str, object],
    evidence: Mapping[str, object],
    g: GroundOp,
    outcomes: Mapping[str, object] | None = None,
) -> State:
    """The state after `g` with the given environment outcomes (effects are simultaneous)."""
    ev = Evaluator(contract)
    env = with_args(
        state_env(contract, state, {**default_evidence(contract), **evidence}, outcomes), g
    )
    result = dict(state)
    for effect in g.op.effects:
        t = contract.variable(effect.var).type
        result[effect.var] = from_env_value(t, ev.evaluate(effect.value, env))
    return result


def find_ground(contract: Contract, name: str) -> GroundOp | None:
    """The ground operation printed as `name` (spaces ignored), e.g. `place_b(6)`."""
    wanted = name.replace(" ", "")
    return next((g for g in ground(contract) if g.name.replace(" ", "") == wanted), None)


def evaluate(contract: Contract, expr: Expr, env: Env) -> Value:
    return Evaluator(contract).evaluate(expr, env)


def read_state(contract: Contract, raw: Mapping[str, Any]) -> tuple[State, dict[str, object]]:
    """A state from JSON: variable values (missing ones from the initial state) and an
    optional `evidence` object. ValueError names the offending key.

    >>> from lablang.contracts.model import Contract, Variable, OptionType, IntType
    >>> c = Contract(name="c", variables=(Variable(name="a", type=OptionType(inner=IntType(lo=0, hi=3))),))
    >>> read_state(c, {"a": None}), read_state(c, {"a": 2})[0]
    (({'a': -1}, {}), {'a': 2})
    """
    from lablang.contracts.model import read_value

    known = {v.name for v in contract.variables} | {"evidence"}
    for key in raw:
        if key not in known:
            raise ValueError(f"`{key}` is not a variable of `{contract.name}`")
    evidence: dict[str, object] = {}
    raw_evidence = raw.get("evidence", {})
    if not isinstance(raw_evidence, Mapping):
        raise ValueError("`evidence` must be an object")
    for name, value in raw_evidence.items():
        decl = next((e for e in contract.evidence if e.name == name), None)
        if decl is None:
            raise ValueError(f"`{name}` is not evidence of `{contract.name}`")
        try:
            evidence[name] = read_value(decl.type, value)
        except ValueError as error:
            raise ValueError(f"evidence `{name}`: {error}") from None
    state = initial_state(contract, evidence)
    for v in contract.variables:
        if v.name in raw:
            try:
                state[v.name] = read_value(v.type, raw[v.name])
            except ValueError as error:
                raise ValueError(f"`{v.name}`: {error}") from None
    return state, evidence
