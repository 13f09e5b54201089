"""The front end of a task's trace to a protocol: `realizes`, `bind`, `defer`,
`tolerance` and `family`, read into `model.TaskTrace` without the protocol (the trace
check, `lablang.trace`, resolves the protocol and compares the two)."""

from __future__ import annotations

from lablang import ast
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_exprs import Front
from lablang.sim.front_values import si_number, suggest
from lablang.source import Span
from lablang.units import UNITS

# the task fields of the trace (documented in `lablang.check.fields.DECL_FIELDS`)
TRACE_KEYS = frozenset({"bind", "defer", "tolerance", "family"})


def realized_names(front: Front, clause: ast.Clause) -> tuple[sm.Named, ...]:
    """`realizes a` or `realizes [a, b]` on a task step: the protocol steps' names."""
    value = clause.value
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    names = []
    for item in items:
        if isinstance(item, ast.Name):
            names.append(sm.Named(item.id, item.span))
        else:
            front.error("E0708", "write `realizes STEP` or `realizes [STEP, STEP]`", item.span)
    return tuple(names)


def task_trace(
    front: Front, decl: ast.Decl, fields: dict[str, ast.Field], scene: sm.Scene
) -> tuple[sm.TaskTrace | None, str]:
    """The task's trace (None when it names no protocol) and its family."""
    family = ""
    if "family" in fields:
        value = fields["family"].value
        if isinstance(value, ast.String) and value.value in catalog.TASK_FAMILIES:
            family = value.value
        else:
            text = value.value if isinstance(value, ast.String) else ""
            front.error(
                "E0708",
                "a task's `family` is one of " + ", ".join(f'"{f}"' for f in catalog.TASK_FAMILIES),
                value.span,
                help=suggest(text, catalog.TASK_FAMILIES),
            )
    protocol = None
    for clause in decl.clauses:
        if clause.keyword == "realizes" and isinstance(clause.value, ast.Name | ast.Attribute):
            protocol = sm.Named(_dotted(clause.value), clause.value.span)
        else:
            front.error(
                "E0708",
                "a task may name the protocol it carries out: `task T in SCENE realizes "
                "PROTOCOL { ... }` (no other clause)",
                clause.span,
            )
    if protocol is None:
        for key in ("bind", "defer", "tolerance"):
            if key in fields:
                front.error(
                    "E0708",
                    f"`{key}:` traces the task to a protocol: name it with "
                    f"`task {decl.name} in ... realizes PROTOCOL`",
                    fields[key].span,
                )
        return None, family
    return (
        sm.TaskTrace(
            protocol,
            bind=_bind(front, fields.get("bind"), scene),
            defer=_defer(front, fields.get("defer")),
            tolerances=_tolerances(front, fields.get("tolerance")),
        ),
        family,
    )


def _dotted(expr: ast.Expr) -> str:
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.name}"
    return expr.id if isinstance(expr, ast.Name) else "?"


def _key_span(member: ast.Field) -> Span:
    """Where a record's key stands (`tube1` of `tube1: tube`), for fixes that rename it."""
    return Span(member.span.start, member.span.start + len(member.key))


def _record(front: Front, field: ast.Field | None, example: str) -> list[ast.Field]:
    if field is None:
        return []
    if not isinstance(field.value, ast.Block) or not all(
        isinstance(m, ast.Field) for m in field.value.members
    ):
        front.error("E0708", f"write `{field.key}: {example}`", field.value.span)
        return []
    return [m for m in field.value.members if isinstance(m, ast.Field)]


def _bind(
    front: Front, field: ast.Field | None, scene: sm.Scene
) -> tuple[tuple[sm.Named, sm.Ref | sm.Text], ...]:
    pairs: list[tuple[sm.Named, sm.Ref | sm.Text]] = []
    for member in _record(front, field, "{tube1: tube, buffer: buffer}"):
        value = member.value
        name = sm.Named(member.key, _key_span(member))
        if (
            isinstance(value, ast.Name)
            and scene.entity(value.id) is None
            and value.id not in scene.roles()
        ):
            # not an entity nor a role: a substance of the scene's contents (checked by the
            # trace); a role is bound to each binding's entity (`sm.bind_task`)
            pairs.append((name, sm.Text(value.id, value.span)))
            continue
        target = front.expr(value, scene, False)
        if isinstance(target, sm.Ref):
            pairs.append((name, target))
        elif target is not None:
            front.error(
                "E0708", "bind a protocol's container to an entity such as `tube`", value.span
            )
    return tuple(pairs)


def _defer(front: Front, field: ast.Field | None) -> tuple[tuple[sm.Named, str], ...]:
    pairs = []
    for member in _record(front, field, '{spin: "done by the centrifuge, not the robot"}'):
        if isinstance(member.value, ast.String) and member.value.value.strip():
            pairs.append((sm.Named(member.key, _key_span(member)), member.value.value.strip()))
        else:
            front.error(
                "E0708",
                f'a deferred step says why no robot does it: `{member.key}: "done by ..."`',
                member.value.span,
            )
    return tuple(pairs)


def _tolerances(front: Front, field: ast.Field | None) -> tuple[sm.Num, ...]:
    if field is None:
        return ()
    value = field.value
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    found: list[sm.Num] = []
    for item in items:
        unit = UNITS.get(item.unit) if isinstance(item, ast.Quantity) else None
        dimension = unit.dimension if unit else ""
        si = si_number(item, dimension) if dimension else None
        number = sm.Num(si, dimension, item.span) if si is not None else None
        if (
            number is None
            or number.value < 0
            or any(n.dimension == number.dimension for n in found)
        ):
            front.error(
                "E0708",
                "a tolerance is a quantity per dimension: `0.5 uL` or `[0.5 uL, 1 C]`",
                item.span,
            )
        else:
            found.append(number)
    return tuple(found)
