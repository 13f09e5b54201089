"""Machine checks: evaluate a rubric item's `check:` expression against an answer.

A small tree-walking evaluator over `lablang.ast` expressions (never `eval`). The
answer is plain data, so rubrics do not depend on any one backend: a mapping with
`name`, `title`, `steps` (a list of step mappings, each with `name`, `kind`, `index`
and its parameters) and `materials`. The caller builds it (the CLI builds it from a
protocol) and supplies `quantity(number, unit)` for literals such as `98 C`, returning
values that compare with the answer's quantities.

In a check, `answer` is the answer; `answer.step(NAME)` is the step named NAME (or
`none`); `answer.index(NAME)` its position; `answer.steps` the list of steps;
`len(xs)`, `count(xs)`; `forall`/`exists x in xs: ...` quantify over lists; any other
bare name is a symbol (a step, material or method name), so `s.material == amp_mix`
compares with the name `amp_mix`. Something the answer lacks is `none`: comparing it
with anything other than `none` is false, and the explanation says what was missing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from attrs import frozen

from lablang import ast
from lablang.diagnostics import Report
from lablang.source import Source

QuantityFactory = Callable[[str, str], object]
MAX_STEPS = 100_000
ALLOWED_BINARY = frozenset(
    {"and", "or", "->", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/"}
)
FUNCTIONS = frozenset({"len", "count"})
ANSWER_METHODS = frozenset({"step", "index"})


@frozen
class CheckResult:
    """`passed` is None when the check could not be evaluated (with the reason)."""

    passed: bool | None
    explanation: str

    @property
    def grade(self) -> int:
        return 2 if self.passed else 0


@frozen
class _Missing:
    reason: str


class _Failure(Exception):
    pass


def validate_check(expr: ast.Expr, source: Source | None, report: Report) -> bool:
    """Report constructs a check may not use; True when the check can be evaluated."""
    ok = True

    def bad(node: ast.Expr, what: str) -> None:
        nonlocal ok
        ok = False
        report.add(
            "E0823",
            f"{what} cannot be used in a rubric check",
            source,
            node.span,
            label="not allowed in a check",
            help="a check may use `answer`, steps and their parameters, literals, "
            "comparisons, and/or/not, `in`, len/count and forall/exists",
        )

    def visit(node: ast.Expr) -> None:
        match node:
            case (
                ast.Number()
                | ast.Quantity()
                | ast.String()
                | ast.Bool()
                | ast.NoneLit()
                | ast.Name()
            ):
                pass
            case ast.Attribute():
                visit(node.value)
            case ast.Index():
                visit(node.value)
                visit(node.index)
            case ast.Call():
                if isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
                    pass
                elif isinstance(node.func, ast.Attribute) and node.func.name in ANSWER_METHODS:
                    visit(node.func.value)
                else:
                    bad(node, "this call")
                for arg in node.args:
                    visit(arg.value)
            case ast.Unary():
                if node.op not in ("not", "-", "+"):
                    bad(node, f"`{node.op}`")
                visit(node.operand)
            case ast.Binary():
                if node.op not in ALLOWED_BINARY:
                    bad(node, f"the operator `{node.op}`")
                visit(node.left)
                visit(node.right)
            case ast.Quantifier():
                visit(node.domain)
                visit(node.body)
            case ast.ListExpr() | ast.TupleExpr():
                for item in node.items:
                    visit(item)
            case ast.Sequence() | ast.End() | ast.Optional() | ast.Block():
                bad(node, "this expression")
            case _:
                bad(node, "this expression")

    visit(expr)
    return ok


def evaluate_check(
    expr: ast.Expr, answer: Mapping[str, object], quantity: QuantityFactory
) -> CheckResult:
    """Evaluate `expr` against `answer`.

    >>> from lablang.source import Span
    >>> s = Span(0, 0)
    >>> expr = ast.Binary(op=">=", left=ast.Call(func=ast.Name(id="len", span=s),
    ...     args=(ast.Arg(name=None, value=ast.Attribute(value=ast.Name(id="answer", span=s),
    ...     name="steps", span=s), span=s),), span=s), right=ast.Number(text="2", span=s), span=s)
    >>> evaluate_check(expr, {"steps": [{"name": "a"}]}, lambda n, u: None)
    CheckResult(passed=False, explanation='false: `len(answer.steps) >= 2` evaluated to false')
    """
    evaluator = _Evaluator(answer, quantity)
    try:
        value = evaluator.evaluate(expr, {})
    except _Failure as failure:
        return CheckResult(None, f"could not evaluate: {failure}")
    if isinstance(value, _Missing):
        return CheckResult(False, f"false: {value.reason}")
    if not isinstance(value, bool):
        return CheckResult(None, "could not evaluate: the check is not a true/false condition")
    if value:
        return CheckResult(True, "true")
    reason = evaluator.missing[0] if evaluator.missing else (f"`{render(expr)}` evaluated to false")
    return CheckResult(False, f"false: {reason}")


class _Evaluator:
    def __init__(self, answer: Mapping[str, object], quantity: QuantityFactory) -> None:
        self.answer = answer
        self.quantity = quantity
        self.missing: list[str] = []
        self.budget = MAX_STEPS

    def _tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _Failure("the check takes too many steps")

    def _miss(self, reason: str) -> _Missing:
        self.missing.append(reason)
        return _Missing(reason)

    def evaluate(self, node: ast.Expr, scope: dict[str, object]) -> object:
        self._tick()
        match node:
            case ast.Number():
                return Fraction(node.text)
            case ast.Quantity():
                try:
                    return self.quantity(node.number, node.unit)
                except (KeyError, ValueError) as error:
                    raise _Failure(f"unknown unit `{node.unit}`") from error
            case ast.String():
                return node.value
            case ast.Bool():
                return node.value
            case ast.NoneLit():
                return None
            case ast.Name():
                if node.id in scope:
                    return scope[node.id]
                if node.id == "answer":
                    return self.answer
                return node.id  # a symbol: a step, material or method name
            case ast.Attribute():
                return self._attribute(self.evaluate(node.value, scope), node.name, node)
            case ast.Index():
                return self._index(
                    self.evaluate(node.value, scope), self.evaluate(node.index, scope)
                )
            case ast.Call():
                return self._call(node, scope)
            case ast.Unary():
                operand = self.evaluate(node.operand, scope)
                if node.op == "not":
                    return not self._truth(operand)
                if isinstance(operand, Fraction):
                    return -operand if node.op == "-" else operand
                if node.op == "-" and isinstance(node.operand, ast.Quantity):
                    return self.quantity("-" + node.operand.number, node.operand.unit)
                raise _Failure(f"`{node.op}` needs a number")
            case ast.Binary():
                return self._binary(node, scope)
            case ast.Quantifier():
                domain = self.evaluate(node.domain, scope)
                if isinstance(domain, _Missing):
                    return domain if node.kind == "exists" else True
                if not isinstance(domain, list | tuple):
                    raise _Failure(f"`{node.kind}` needs a list")
                results = (
                    self._truth(self.evaluate(node.body, {**scope, node.var: item}))
                    for item in domain
                )
                return any(results) if node.kind == "exists" else all(results)
            case ast.ListExpr() | ast.TupleExpr():
                return [self.evaluate(item, scope) for item in node.items]
            case _:
                raise _Failure("this expression cannot be used in a check")

    def _truth(self, value: object) -> bool:
        if isinstance(value, _Missing):
            return False
        if isinstance(value, bool):
            return value
        raise _Failure("expected a true/false condition")

    def _attribute(self, value: object, name: str, node: ast.Attribute) -> object:
        if isinstance(value, _Missing):
            return value
        if value is None:
            return self._miss(f"`{render(node.value)}` is none, so it has no `{name}`")
        if isinstance(value, Mapping):
            if name in value:
                return value[name]
            what = value.get("name", "the answer")
            return self._miss(f"`{what}` has no `{name}`")
        raise _Failure(f"`{render(node.value)}` has no attributes")

    def _index(self, value: object, index: object) -> object:
        if isinstance(value, _Missing):
            return value
        if (
            isinstance(value, list | tuple)
            and isinstance(index, Fraction)
            and index.denominator == 1
        ):
            position = int(index)
            if 0 <= position < len(value):
                return value[position]
            return self._miss(f"index {position} is out of range")
        raise _Failure("indexing needs a list and a whole number")

    def _call(self, node: ast.Call, scope: dict[str, object]) -> object:
        args = [self.evaluate(arg.value, scope) for arg in node.args]
        func = node.func
        if isinstance(func, ast.Name) and func.id in FUNCTIONS:
            if len(args) != 1:
                raise _Failure(f"`{func.id}` takes one argument")
            if isinstance(args[0], _Missing):
                return Fraction(0)
            if not isinstance(args[0], list | tuple):
                raise _Failure(f"`{func.id}` needs a list")
            return Fraction(len(args[0]))
        if isinstance(func, ast.Attribute) and func.name in ANSWER_METHODS:
            owner = self.evaluate(func.value, scope)
            if not isinstance(owner, Mapping) or "steps" not in owner:
                raise _Failure(f"`{func.name}` is a method of `answer`")
            if len(args) != 1 or not isinstance(args[0], str):
                raise _Failure(f"`answer.{func.name}` takes one step name")
            steps = owner["steps"]
            assert isinstance(steps, Sequence)
            for position, step in enumerate(steps):
                if isinstance(step, Mapping) and step.get("name") == args[0]:
                    return step if func.name == "step" else Fraction(position)
            self.missing.append(f"the answer has no step `{args[0]}`")
            return None if func.name == "step" else _Missing(f"the answer has no step `{args[0]}`")
        raise _Failure("this call cannot be used in a check")

    def _binary(self, node: ast.Binary, scope: dict[str, object]) -> object:
        op = node.op
        if op in ("and", "or", "->"):
            first = self._truth(self.evaluate(node.left, scope))
            if op == "and" and not first:
                return False
            if op == "or" and first:
                return True
            if op == "->" and not first:
                return True
            return self._truth(self.evaluate(node.right, scope))
        left, right = self.evaluate(node.left, scope), self.evaluate(node.right, scope)
        if op in ("==", "!="):
            if isinstance(left, _Missing) or isinstance(right, _Missing):
                return False  # nothing is concluded about what the answer lacks
            try:
                equal = left == right
            except TypeError as error:
                raise _Failure(str(error)) from error
            return equal if op == "==" else not equal
        if isinstance(left, _Missing) or isinstance(right, _Missing):
            return False
        if op == "in":
            if not isinstance(right, list | tuple):
                raise _Failure("`in` needs a list on its right")
            return left in right
        if left is None or right is None:
            return False
        try:
            match op:
                case "<":
                    return left < right  # type: ignore[operator]
                case "<=":
                    return left <= right  # type: ignore[operator]
                case ">":
                    return left > right  # type: ignore[operator]
                case ">=":
                    return left >= right  # type: ignore[operator]
                case "+":
                    return left + right  # type: ignore[operator]
                case "-":
                    return left - right  # type: ignore[operator]
                case "*":
                    return left * right  # type: ignore[operator]
                case "/":
                    if right == 0:
                        raise _Failure("division by zero")
                    return left / right  # type: ignore[operator]
        except TypeError as error:
            raise _Failure(f"cannot apply `{op}` to {_kind(left)} and {_kind(right)}") from error
        raise _Failure(f"the operator `{op}` cannot be used in a check")


def _kind(value: object) -> str:
    dimension = getattr(value, "dimension", None)
    if dimension:
        return f"a {str(dimension).replace('_', ' ')}"
    if isinstance(value, Fraction):
        return "a number"
    if isinstance(value, str):
        return "a name"
    return type(value).__name__


def render(node: ast.Expr) -> str:
    """A compact source-like rendering of a check expression (for messages)."""
    match node:
        case ast.Number():
            return node.text
        case ast.Quantity():
            return f"{node.number} {node.unit}"
        case ast.String():
            return '"' + node.value.replace('"', '\\"') + '"'
        case ast.Bool():
            return "true" if node.value else "false"
        case ast.NoneLit():
            return "none"
        case ast.Name():
            return node.id
        case ast.Attribute():
            return f"{render(node.value)}.{node.name}"
        case ast.Index():
            return f"{render(node.value)}[{render(node.index)}]"
        case ast.Call():
            args = ", ".join((f"{a.name}: " if a.name else "") + render(a.value) for a in node.args)
            return f"{render(node.func)}({args})"
        case ast.Unary():
            space = " " if node.op == "not" else ""
            return f"{node.op}{space}{render(node.operand)}"
        case ast.Binary():
            return f"{render(node.left)} {node.op} {render(node.right)}"
        case ast.Quantifier():
            return f"{node.kind} {node.var} in {render(node.domain)}: {render(node.body)}"
        case ast.ListExpr():
            return "[" + ", ".join(render(i) for i in node.items) + "]"
        case ast.TupleExpr():
            return "(" + ", ".join(render(i) for i in node.items) + ")"
        case _:
            return "..."
