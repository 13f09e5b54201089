"""The contract model: finite-domain state, evidence, outcomes, operations and properties.

A contract is built either by the front end (`lablang.contracts.front`) from a
`contract` declaration or directly in Python. Expressions are a small closed IR
(`Expr`): names are already resolved to what they refer to (`Ref.kind`), enum members
are their indices, and `none` is the integer `NONE` (-1), which is why optional
types must have non-negative values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

from attrs import field, fields, frozen, has

from lablang.records import Compared
from lablang.source import Source, Span

NONE = -1
"""The integer code of `none` in an optional value (optional domains are >= 0)."""


# ------------------------------------------------------------------ types
@frozen(kw_only=True, repr=False, eq=False)
class BoolType(Compared):
    def describe(self) -> str:
        return "bool"


@frozen(kw_only=True, repr=False, eq=False)
class IntType(Compared):
    """The integers `lo..hi` (both included)."""

    lo: int
    hi: int

    def describe(self) -> str:
        return f"int[{self.lo}..{self.hi}]"


@frozen(kw_only=True, repr=False, eq=False)
class ValuesType(Compared):
    """A finite set of integers, `one_of(1, 2, 5)`."""

    values: tuple[int, ...]

    def describe(self) -> str:
        return "one_of(" + ", ".join(map(str, self.values)) + ")"


@frozen(kw_only=True, repr=False, eq=False)
class EnumType(Compared):
    """Named members, `one_of(empty, heavy)`; a value is the member's index."""

    members: tuple[str, ...]

    def describe(self) -> str:
        return "one_of(" + ", ".join(self.members) + ")"


@frozen(kw_only=True, repr=False, eq=False)
class OptionType(Compared):
    """`T?`: a value of `T` or `none`."""

    inner: IntType | ValuesType | EnumType

    def describe(self) -> str:
        return self.inner.describe() + "?"


@frozen(kw_only=True, repr=False, eq=False)
class SetType(Compared):
    """`set(T)`: a subset of a finite type, one flag per element."""

    elem: IntType | ValuesType | EnumType

    def describe(self) -> str:
        return f"set({self.elem.describe()})"


ScalarType: TypeAlias = IntType | ValuesType | EnumType
Type: TypeAlias = BoolType | IntType | ValuesType | EnumType | OptionType | SetType


def elements(t: ScalarType) -> tuple[int, ...]:
    """The integer codes a finite scalar type allows, in order.

    >>> elements(IntType(lo=2, hi=4)), elements(EnumType(members=("x", "y")))
    ((2, 3, 4), (0, 1))
    """
    match t:
        case IntType():
            return tuple(range(t.lo, t.hi + 1))
        case ValuesType():
            return t.values
        case EnumType():
            return tuple(range(len(t.members)))
    raise AssertionError(t)


def domain(t: Type) -> tuple[object, ...]:
    """Every value of a type, as the runtime represents it (sets as frozensets)."""
    match t:
        case BoolType():
            return (False, True)
        case IntType() | ValuesType() | EnumType():
            return elements(t)
        case OptionType():
            return (NONE, *elements(t.inner))
        case SetType():
            elems = elements(t.elem)
            return tuple(
                frozenset(e for i, e in enumerate(elems) if mask >> i & 1)
                for mask in range(1 << len(elems))
            )
    raise AssertionError(t)


def default_value(t: Type) -> object:
    """The initial value of a variable declared without `init`."""
    match t:
        case BoolType():
            return False
        case IntType() | ValuesType() | EnumType():
            return elements(t)[0]
        case OptionType():
            return NONE
        case SetType():
            return frozenset()
    raise AssertionError(t)


def show_value(t: Type, value: object) -> object:
    """A runtime value as a person (and JSON) reads it: enum names, `none`, sorted lists."""
    match t:
        case BoolType() | IntType() | ValuesType():
            return value
        case EnumType():
            assert isinstance(value, int)
            return t.members[value]
        case OptionType():
            return None if value == NONE else show_value(t.inner, value)
        case SetType():
            assert isinstance(value, frozenset)
            return [show_value(t.elem, v) for v in sorted(value)]
    raise AssertionError(t)


def read_value(t: Type, raw: object) -> object:
    """The inverse of `show_value` (JSON in, runtime value out); ValueError if out of domain."""
    match t:
        case BoolType():
            if not isinstance(raw, bool):
                raise ValueError(f"expected true or false, got {raw!r}")
            return raw
        case IntType() | ValuesType():
            if isinstance(raw, bool) or not isinstance(raw, int) or raw not in elements(t):
                raise ValueError(f"expected a value of {t.describe()}, got {raw!r}")
            return raw
        case EnumType():
            if raw not in t.members:
                raise ValueError(f"expected one of {', '.join(t.members)}, got {raw!r}")
            assert isinstance(raw, str)
            return t.members.index(raw)
        case OptionType():
            return NONE if raw is None else read_value(t.inner, raw)
        case SetType():
            if not isinstance(raw, list):
                raise ValueError(f"expected a list for {t.describe()}, got {raw!r}")
            return frozenset(read_value(t.elem, item) for item in raw)
    raise AssertionError(t)


# ------------------------------------------------------------------ expressions
@frozen(kw_only=True, repr=False, eq=False)
class Const(Compared):
    value: int | bool
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Ref(Compared):
    """A resolved name: `var`, `evidence`, `outcome`, `arg` (operation parameter),
    `bound` (quantified variable) or `define` (a named derived expression)."""

    kind: str
    name: str
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Unary(Compared):
    op: str  # not | neg
    operand: Expr
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Binary(Compared):
    # add sub mul div mod | eq ne lt le gt ge | and or implies | in | union diff
    op: str
    left: Expr
    right: Expr
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class If(Compared):
    cond: Expr
    then: Expr
    other: Expr
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class SetLit(Compared):
    items: tuple[Expr, ...]
    elem: ScalarType | None = None
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Agg(Compared):
    func: str  # sum | size
    arg: Expr
    span: Span | None = field(default=None, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Quant(Compared):
    """`forall x in D: body` over a finite type or a set-valued expression."""

    kind: str  # forall | exists
    var: str
    domain: ScalarType | Expr
    body: Expr
    span: Span | None = field(default=None, eq=False)


Expr: TypeAlias = Const | Ref | Unary | Binary | If | SetLit | Agg | Quant

TRUE = Const(value=True)


def references(expr: object, definitions: Mapping[str, Expr], kind: str = "var") -> set[str]:
    """The names of `kind` (`var`, `evidence`, ...) an expression reads, through the
    derived expressions it uses.

    >>> e = Binary(op="add", left=Ref(kind="var", name="a"), right=Ref(kind="define", name="d"))
    >>> sorted(references(e, {"d": Ref(kind="var", name="b")}))
    ['a', 'b']
    """
    found: set[str] = set()
    seen: set[str] = set()
    todo: list[object] = [expr]
    while todo:
        x = todo.pop()
        if isinstance(x, Ref):
            if x.kind == kind:
                found.add(x.name)
            elif x.kind == "define" and x.name not in seen and x.name in definitions:
                seen.add(x.name)
                todo.append(definitions[x.name])
        elif isinstance(x, tuple):
            todo.extend(x)
        elif has(cls := type(x)):
            todo.extend(getattr(x, f.name) for f in fields(cls))
    return found


MAX_EXPANSION = 100_000
"""Terms one expression may expand to once its quantifiers are unrolled and its derived
expressions inlined (`forall x in 0..4095: exists y in 0..4095: ...` is 16,777,216)."""


def expansion(expr: object, definitions: Mapping[str, Expr]) -> int:
    """How many terms an expression becomes when the evaluator unrolls its quantifiers
    over their domains and inlines derived expressions (an estimate made before
    building anything; nested quantifiers multiply).

    >>> body = Binary(op="eq", left=Ref(kind="bound", name="i"), right=Const(value=3))
    >>> expansion(Quant(kind="exists", var="i", domain=IntType(lo=0, hi=9), body=body), {})
    31
    """
    memo: dict[str, int] = {}

    def size(x: object) -> int:
        match x:
            case Ref(kind="define", name=name) if name in definitions:
                if name not in memo:
                    memo[name] = 1  # a cycle is an error elsewhere; count it once
                    memo[name] = size(definitions[name])
                return memo[name]
            case Quant(domain=dom, body=body):
                if isinstance(dom, IntType | ValuesType | EnumType):
                    count, cost = len(elements(dom)), 0
                else:
                    count, cost = _set_width(dom, definitions), size(dom)
                return 1 + cost + count * size(body)
            case SetLit(items=items, elem=elem):
                width = len(elements(elem)) if elem is not None else 1
                return 1 + width * sum(size(i) for i in items)
            case Agg(arg=arg):
                return 1 + size(arg)
            case _ if has(cls := type(x)):
                listed = fields(cls)
                return 1 + sum(size(getattr(x, f.name)) for f in listed if f.name != "span")
            case tuple():
                return sum(size(y) for y in x)
        return 0

    return size(expr)


def _set_width(expr: object, definitions: Mapping[str, Expr]) -> int:
    """An upper bound on the elements of a set-valued expression (its type's width)."""
    del expr, definitions
    return MAX_SET_WIDTH


MAX_SET_WIDTH = 32
"""Elements of a `set(T)` (one flag each): the bound a quantifier over a set unrolls."""


def init_order(contract: Contract) -> tuple[list[str], list[list[str]]]:
    """The variables in an order where each `init` reads only variables before it, and
    the cycles that prevent one (a self-referencing `init` is a cycle of one).

    >>> y = Variable(name="y", type=BoolType(), init=Unary(op="not", operand=Ref(kind="var", name="y")))
    >>> init_order(Contract(name="c", variables=(y,)))
    ([], [['y']])
    """
    defs = {d.name: d.expr for d in contract.definitions}
    reads = {
        v.name: sorted(references(v.init, defs)) if v.init is not None else []
        for v in contract.variables
    }
    order: list[str] = []
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for other in reads[name]:
            if other not in reads:
                continue
            if state.get(other) == 1:
                cycle = path[path.index(other) :]
                if sorted(cycle) not in [sorted(c) for c in cycles]:
                    cycles.append(list(cycle))
            elif other not in state:
                visit(other)
        path.pop()
        state[name] = 2
        order.append(name)

    for v in contract.variables:
        if v.name not in state:
            visit(v.name)
    in_cycle = {n for c in cycles for n in c}
    return ([n for n in order if n not in in_cycle] if cycles else order), cycles


def conjuncts(expr: Expr) -> list[Expr]:
    """The top-level `and` operands of an expression, left to right."""
    if isinstance(expr, Binary) and expr.op == "and":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


# ------------------------------------------------------------------ declarations
@frozen(kw_only=True, repr=False, eq=False)
class Item(Compared):
    """A named, located condition: a requirement, goal, invariant or terminal."""

    expr: Expr
    text: str
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Variable(Compared):
    name: str
    type: Type
    init: Expr | None = None
    visible: Expr = TRUE
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Evidence(Compared):
    """A per-episode fact, constant through the episode; `authorized` says when the
    agent may know it (default: never)."""

    name: str
    type: Type
    authorized: Expr = Const(value=False)
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Outcome(Compared):
    """Per-step nondeterminism of the environment (a placement that fails)."""

    name: str
    type: Type
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class OpParam(Compared):
    name: str
    type: ScalarType


@frozen(kw_only=True, repr=False, eq=False)
class Effect(Compared):
    var: str
    value: Expr
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Operation(Compared):
    name: str
    params: tuple[OpParam, ...] = ()
    requires: tuple[Item, ...] = ()
    effects: tuple[Effect, ...] = ()
    confirm: Item | None = None
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Definition(Compared):
    name: str
    expr: Expr
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Pin(Compared):
    name: str  # a variable or evidence name
    value: Expr


@frozen(kw_only=True, repr=False, eq=False)
class Commute(Compared):
    """`commute(a, b)`: wherever both are legal, either order is legal and ends alike."""

    a: str
    b: str
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Eventually(Compared):
    """`eventually(c, fair: [a, b])`: every execution reaches `c`, assuming weak fairness
    of the named operations (one continuously legal is eventually taken)."""

    goal: Item
    fair: tuple[str, ...] = ()
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Pair(Compared):
    """Answer-changing evidence: the two sides must have disjoint legal `at` operations."""

    name: str
    left: tuple[Pin, ...]
    right: tuple[Pin, ...]
    at: tuple[str, ...]
    span: Span | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Contract(Compared):
    name: str
    params: Mapping[str, int] = field(factory=dict)
    variables: tuple[Variable, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    outcomes: tuple[Outcome, ...] = ()
    definitions: tuple[Definition, ...] = ()
    operations: tuple[Operation, ...] = ()
    goals: tuple[Item, ...] = ()
    invariants: tuple[Item, ...] = ()
    terminal: tuple[Item, ...] = ()
    pairs: tuple[Pair, ...] = ()
    commutes: tuple[Commute, ...] = ()
    eventually: tuple[Eventually, ...] = ()
    source: Source | None = field(default=None, eq=False)
    span: Span | None = None

    def variable(self, name: str) -> Variable:
        return next(v for v in self.variables if v.name == name)

    def type_of(self, kind: str, name: str) -> Type:
        """The declared type of a variable, evidence or outcome."""
        decls: tuple[Variable | Evidence | Outcome, ...] = (
            self.variables
            if kind == "var"
            else self.evidence
            if kind == "evidence"
            else self.outcomes
        )
        return next(d.type for d in decls if d.name == name)

    def operation(self, name: str) -> Operation:
        return next(o for o in self.operations if o.name == name)


@frozen(kw_only=True, repr=False, eq=False)
class GroundOp(Compared):
    """An operation with its parameters fixed, `place_b(6)`."""

    op: Operation
    args: tuple[int, ...]

    @property
    def name(self) -> str:
        if not self.op.params:
            return self.op.name
        shown = (show_value(p.type, a) for p, a in zip(self.op.params, self.args, strict=True))
        return f"{self.op.name}({', '.join(str(s) for s in shown)})"


def ground(contract: Contract) -> tuple[GroundOp, ...]:
    """Every ground operation, in declaration order then parameter order.

    >>> op = Operation(name="put", params=(OpParam(name="k", type=IntType(lo=0, hi=1)),))
    >>> [g.name for g in ground(Contract(name="c", operations=(op,)))]
    ['put(0)', 'put(1)']
    """
    import itertools

    result = []
    for op in contract.operations:
        domains = [elements(p.type) for p in op.params]
        for args in itertools.product(*domains):
            result.append(GroundOp(op=op, args=tuple(args)))
    return tuple(result)
