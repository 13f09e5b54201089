"""The front end's base: diagnostics collected for one scene or task, and task expressions
(conditions, skill arguments) read into the model and checked against the scene."""

from __future__ import annotations

from fractions import Fraction

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_values import COMPARE_OPS, SI, lookup, si_number, suggest
from lablang.source import Source, Span
from lablang.units import UNITS


class Front:
    """Reads one scene's or one task's declarations; `failed` once it reported an error."""

    def __init__(self, source: Source, report: Report) -> None:
        self.source = source
        self.report = report
        self.failed = False

    def error(self, code: str, message: str, span: Span, **kw: object) -> None:
        self.failed = True
        self.report.add(code, message, self.source, span, **kw)  # type: ignore[arg-type]

    def reserved_name(self, kind: str, word: str, at: Span) -> None:
        """E0708 for `step hold { ... }`: a keyword cannot name a step or an event."""
        span = Span(at.start, at.start + len(word))
        self.error(
            "E0708",
            f"`{word}` is a reserved word, so it cannot name {kind}",
            span,
            label="a keyword of the language",
            help=f"rename it, e.g. `{word}_`",
            fix=Fix(f"rename it to `{word}_`", (Edit(span, f"{word}_"),)),
        )

    def unknown_entity(self, name: str, span: Span, scene: sm.Scene) -> None:
        names = [e.name for e in scene.entities] + ["table", *scene.roles()]
        self.error(
            "E0704",
            f"scene `{scene.name}` has no entity `{name}`",
            span,
            help=suggest(name, names),
        )

    def expr(self, node: ast.Expr, scene: sm.Scene, condition: bool) -> sm.Expr | None:
        match node:
            case ast.Binary(op="and" | "or", left=left, right=right):
                parts = [self.expr(left, scene, condition), self.expr(right, scene, condition)]
                if None in parts:
                    return None
                flat: list[sm.Expr] = []
                for part in parts:
                    if isinstance(part, sm.Logic) and part.op == node.op:
                        flat.extend(part.parts)
                    elif part is not None:
                        flat.append(part)
                return sm.Logic(node.op, tuple(flat), span=node.span)
            case ast.Binary(op="in", left=left, right=right):
                a, b = self.expr(left, scene, False), self.expr(right, scene, False)
                if a is None or b is None:
                    return None
                return sm.Call("in", (a, b), span=node.span)
            case ast.Binary(op=op, left=left, right=right) if op in COMPARE_OPS:
                a, b = self.expr(left, scene, False), self.expr(right, scene, False)
                if a is None or b is None:
                    return None
                return sm.Compare(op, a, b, span=node.span)
            case ast.Unary(op="not", operand=operand):
                inner = self.expr(operand, scene, condition)
                return None if inner is None else sm.Not(inner, span=node.span)
            case ast.Call():
                return self.call(node, scene, condition)
            case ast.Name() | ast.Attribute() | ast.Index():
                return self.ref(node, scene)
            case ast.Quantity(unit=unit) if unit in UNITS and UNITS[unit].dimension in SI:
                dimension = UNITS[unit].dimension
                value = si_number(node, dimension)
                return sm.Num(value or 0.0, dimension, span=node.span)
            case ast.Number(text=text):
                return sm.Num(float(Fraction(text)), "", span=node.span)
            case ast.Unary(op="-" | "+"):
                for dimension in ("", *SI):
                    value = si_number(node, dimension)
                    if value is not None:
                        return sm.Num(value, dimension, span=node.span)
            case ast.String(value=value):
                return sm.Text(value, span=node.span)
            case ast.Bool(value=value):
                return sm.Bool(value, span=node.span)
            case _:
                pass
        self.error(
            "E0708",
            "this expression is not supported in a task (partial: predicates, "
            "`and`/`or`/`not`, `true`/`false`, comparisons, entities, slots and quantities of length, mass, "
            "volume, time and angle are)",
            node.span,
        )
        return None

    def call(self, node: ast.Call, scene: sm.Scene, condition: bool) -> sm.Expr | None:
        if not isinstance(node.func, ast.Name):
            self.error("E0708", "only named predicates and skills can be called", node.func.span)
            return None
        name = node.func.id
        known = (*catalog.PREDICATE_NAMES, *catalog.FUNCTION_NAMES, *catalog.SKILL_SIGNATURES)
        if name not in known:
            pool = catalog.PREDICATE_NAMES + catalog.FUNCTION_NAMES
            self.error(
                "E0703",
                f"unknown predicate `{name}`",
                node.func.span,
                help=suggest(
                    name,
                    pool,
                    "predicates: " + ", ".join(f"`{p}`" for p in catalog.PREDICATE_NAMES),
                ),
            )
            return None
        args: list[sm.Expr] = []
        kwargs: list[tuple[str, sm.Expr]] = []
        ok = True
        for index, arg in enumerate(node.args):
            if (
                name == "contains"
                and index == 1
                and isinstance(arg.value, ast.Name)
                and scene.entity(arg.value.id) is None
            ):  # a substance, not an entity
                args.append(sm.Ref(arg.value.id, span=arg.value.span))
                continue
            value = self.expr(arg.value, scene, False)
            if value is None:
                ok = False
            elif arg.name is None:
                args.append(value)
            else:
                kwargs.append((arg.name, value))
        if not ok:
            return None
        return sm.Call(name, tuple(args), tuple(kwargs), span=node.span)

    def ref(self, node: ast.Expr, scene: sm.Scene) -> sm.Ref | None:
        path: list[str | int] = []
        walk = node
        while True:
            match walk:
                case ast.Attribute(value=inner, name=name):
                    path.insert(0, name)
                    walk = inner
                case ast.Index(value=inner, index=ast.Number(text=text)) if text.isdigit():
                    path.insert(0, int(text))
                    walk = inner
                case ast.Name(id=name):
                    break
                case _:
                    self.error(
                        "E0708", "write a part as `rotor.slot[3]` or `scale.tare`", node.span
                    )
                    return None
        name = walk.id
        entity = lookup(scene, name)
        if entity is None:
            if name == "table" and not path:
                return sm.Ref(name, span=node.span)
            self.unknown_entity(name, walk.span, scene)
            return None
        kind = catalog.ASSET_KINDS[entity.asset]
        match tuple(path):
            case () | ("pose",):
                pass
            case ("well", int(k)) if kind.wells:
                count = int(entity.param("wells", kind.params["wells"].default))
                if not 0 <= k < count:
                    self.error("E0706", f"`{name}` has wells 0 to {count - 1}, not {k}", node.span)
                    return None
            case ("slot", int(k)) if kind.slots:
                count = int(entity.param("slots", kind.params["slots"].default))
                if not 0 <= k < count:
                    self.error("E0706", f"`{name}` has slots 0 to {count - 1}, not {k}", node.span)
                    return None
            case (str(part),) if part in kind.parts:
                pass
            case _:
                parts = [
                    *kind.parts,
                    *(["slot[k]"] if kind.slots else []),
                    *(["well[k]"] if kind.wells else []),
                ]
                self.error(
                    "E0704",
                    f"`{name}` ({entity.asset}) has no part `{'.'.join(map(str, path))}`",
                    node.span,
                    help=("its parts: " + ", ".join(f"`{p}`" for p in parts)) if parts else None,
                )
                return None
        return sm.Ref(name, tuple(p for p in path if p != "pose"), span=node.span)
