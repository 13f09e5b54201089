"""A task's skill calls, checked against the skills' signatures
(`catalog.SKILL_SIGNATURES`): the arity, each argument's kind (a quantity, a count, a
container, an object, a button), a container's use, a skill's needs and `wait`'s limit."""

from __future__ import annotations

from lablang import ast
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_checks import check_container_use, check_skill_needs, check_slot_fit
from lablang.sim.front_exprs import Front
from lablang.sim.front_values import lookup, suggest
from lablang.source import Span


def skill_call(front: Front, stmt: ast.Member, scene: sm.Scene) -> sm.Call | None:
    """One statement of a `do` block (or an `operations:` entry) as a checked skill call,
    or None after reporting why it is not one."""
    if isinstance(stmt, ast.ExprEntry) and stmt.keyword == "wait" and stmt.body is None:
        # `wait` is also a keyword of the language: `wait(2 s)` and `wait 2 s` both arrive here
        func = ast.Name(id="wait", span=Span(stmt.span.start, stmt.span.start + 4))
        arg = ast.Arg(name=None, value=stmt.value, span=stmt.value.span)
        stmt = ast.ExprStmt(
            value=ast.Call(func=func, args=(arg,), span=stmt.span), clauses=(), span=stmt.span
        )
    if not (
        isinstance(stmt, ast.ExprStmt)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
    ):
        front.error("E0708", "a `do` block holds skill calls such as `pick(tube_A)`", stmt.span)
        return None
    call = stmt.value
    name = call.func.id  # type: ignore[union-attr]
    signature = catalog.SKILL_SIGNATURES.get(name)
    if signature is None:
        front.error(
            "E0702",
            f"unknown skill `{name}`",
            call.func.span,
            label="not a skill of the simulator",
            help=suggest(name, catalog.SKILL_SIGNATURES, "see `docs/sim.md` for the skills"),
        )
        return None
    kinds, _family = signature
    converted = front.call(call, scene, condition=False)
    if not isinstance(converted, sm.Call):
        return None
    required = [k for k in kinds if not k.startswith("?")]
    if not len(required) <= len(converted.args) <= len(kinds):
        front.error(
            "E0709",
            f"`{name}` takes {len(required)}"
            + (f" to {len(kinds)}" if len(kinds) != len(required) else "")
            + f" arguments ({', '.join(k.lstrip('?') for k in kinds) or 'none'}), "
            f"got {len(converted.args)}",
            call.span,
        )
        return None
    for kind, converted_arg in zip(kinds, converted.args, strict=False):
        check_argument(front, name, kind.lstrip("?"), converted_arg, scene)
    check_container_use(converted, scene, front.error)
    check_skill_needs(converted, scene, front.error)
    check_slot_fit(converted, scene, front.error)
    if name == "wait" and converted.args:
        first = converted.args[0]
        if isinstance(first, sm.Num) and not 0 <= first.value <= catalog.MAX_WAIT:
            front.error("E0709", f"`wait` is limited to {catalog.MAX_WAIT:g} s", call.span)
    return converted


def check_argument(front: Front, skill: str, kind: str, arg: sm.Expr, scene: sm.Scene) -> None:
    """E0709 when `arg` is not of the signature's `kind` for `skill`."""
    span = arg.span or Span(0, 0)
    if kind in ("duration", "volume", "temperature", "mass"):
        want = {"duration": "time"}.get(kind, kind)
        if not (
            isinstance(arg, sm.Num)
            and arg.dimension == want
            and (arg.value >= 0 or want == "temperature")
        ):
            front.error("E0709", f"`{skill}` needs a {want} here", span)
        return
    if kind == "count":
        if not (
            isinstance(arg, sm.Num)
            and arg.dimension == ""
            and arg.value == int(arg.value)
            and arg.value >= 1
        ):
            front.error("E0709", f"`{skill}` needs a whole number here", span)
        return
    if isinstance(arg, sm.Call):
        return  # computed at run time (e.g. `opposite(rotor, slot_of(tube_A))`)
    if not isinstance(arg, sm.Ref):
        front.error("E0709", f"`{skill}` needs an entity here", span)
        return
    entity = lookup(scene, arg.name)
    if entity is None:
        return  # reported by `expr`
    role = catalog.ASSET_KINDS[entity.asset]
    if kind == "container" and not (
        (not arg.path and role.open_container) or (arg.path[:1] == ("well",) and role.wells)
    ):
        front.error(
            "E0709",
            f"`{skill}` needs a container (a beaker, an open tube, a well "
            f"such as `plate.well[0]`); `{arg.text()}` is not one",
            span,
        )
    elif kind == "object" and (arg.path or role.role != "object"):
        front.error(
            "E0709",
            f"`{skill}` needs an object that can be picked up; `{arg.text()}` is a {entity.asset}",
            span,
        )
    elif kind == "button" and len(arg.path) != 1:
        front.error(
            "E0709",
            f"`{skill}` needs a button such as `{arg.name}.{(role.parts or ('start',))[0]}`",
            span,
        )
