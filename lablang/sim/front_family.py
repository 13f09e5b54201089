"""Task families: a task written over roles, instantiated once per object binding.

```lab
task weigh_one in bench {
  roles: [load]
  bindings: {
    training: { light: {load: w10}, mid: {load: w20} }
    heldout: { heavy: {load: w50} }          # a geometrically different weight
  }
  step weigh { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }
}
```

`read_family` reads `roles:` and `bindings:` (the roles then read like entities in the
steps: each stands for its first training entity while the steps are read); `check_family`
checks every binding against the task, as if the task had been written with its entities:

* E0740: a binding names a role the task does not declare;
* E0741: a binding leaves a declared role unbound;
* E0742: a bound entity does not fit the role's uses (the calls and predicates that name
  the role, checked as `check` checks them with the entity written in);
* E0743: a binding makes the spec impossible (two roles on one entity; a container asked
  to hold, or to end with, more than its capacity);
* E0744: a held-out binding brings no new geometry (each of its entities has the asset
  and footprint of an entity a training binding gives the same role).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from attrs import evolve, frozen

from lablang import ast
from lablang.check.names import did_you_mean
from lablang.diagnostics import Edit, Fix, Label, Report
from lablang.diagnostics.severity import Severity
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front_checks import check_container_use, check_skill_needs, check_slot_fit
from lablang.sim.front_exprs import Front
from lablang.source import Span

PROTOCOLS = ("training", "heldout")
# Gymnasium reads a trailing `-v2` of an id as a version
_VERSION = re.compile(r"v\d+")
# skills that put an amount into a container: (index of the container, index of the amount)
_RECEIVES = {"pour": (1, 2), "dispense": (1, 2), "transfer": (2, 3)}


@frozen
class Family:
    """A task's `roles:` and `bindings:` as read (names located for the checks)."""

    roles: tuple[tuple[str, Span], ...]
    bindings: tuple[sm.FamilyBinding, ...]
    role_spans: tuple[tuple[str, str, Span], ...]  # binding, role, where the role is written

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _span in self.roles)


def read_family(front: Front, members: Sequence[ast.Member], scene: sm.Scene) -> Family | None:
    """The task's `roles: [a, b]` and `bindings: {...}`, or None when it declares neither
    (a diagnostic for each malformed part)."""
    roles_field = next((m for m in members if isinstance(m, ast.Field) and m.key == "roles"), None)
    bindings_field = next(
        (m for m in members if isinstance(m, ast.Field) and m.key == "bindings"), None
    )
    if roles_field is None and bindings_field is None:
        return None
    if roles_field is None or bindings_field is None:
        where = roles_field or bindings_field
        assert where is not None
        front.error(
            "E0708",
            "a task family declares its roles and their bindings together: `roles: [load]` "
            "and `bindings: { training: { a: {load: w10} } heldout: { b: {load: w50} } }`",
            where.span,
        )
        return None
    roles = _roles(front, roles_field, scene)
    bindings: list[sm.FamilyBinding] = []
    spans: list[tuple[str, str, Span]] = []
    value = bindings_field.value
    groups = value.members if isinstance(value, ast.Block) else ()
    if not groups:
        front.error(
            "E0708",
            "write `bindings: { training: { NAME: {role: entity} } heldout: { ... } }`",
            value.span,
        )
    for group in groups:
        if not (isinstance(group, ast.Field) and group.key in PROTOCOLS):
            front.error(
                "E0708",
                "`bindings:` holds `training: { ... }` and `heldout: { ... }`",
                group.span,
            )
            continue
        entries = group.value.members if isinstance(group.value, ast.Block) else None
        if entries is None:
            front.error("E0708", f"write `{group.key}: {{ NAME: {{role: entity}} }}`", group.span)
            continue
        for entry in entries:
            binding = _binding(front, entry, group.key == "heldout", scene, spans)
            if binding is not None:
                bindings.append(binding)
    names = [b.name for b in bindings]
    for index, binding in enumerate(bindings):
        if binding.name in names[:index]:
            front.error("E0708", f"two bindings are named `{binding.name}`", _span(binding))
    if bindings and not any(not b.heldout for b in bindings):
        front.error(
            "E0708",
            "a task family needs at least one training binding",
            bindings_field.span,
            help="move a binding into `training: { ... }`",
        )
    return Family(roles, tuple(bindings), tuple(spans))


def reading_scene(scene: sm.Scene, family: Family) -> sm.Scene:
    """The scene the family's steps are read in: each role stands for the first entity a
    binding gives it, training bindings first (each binding is checked on its own
    afterwards, by `check_family`)."""
    bound: dict[str, str] = {}
    for binding in sorted(family.bindings, key=lambda b: b.heldout):
        for role, entity in binding.roles:
            bound.setdefault(role, entity)
    extra = tuple(sm.RoleBinding(role, (bound[role],)) for role in family.names() if role in bound)
    return evolve(scene, randomizations=(*scene.randomizations, *extra))


def check_family(
    front: Front,
    family: Family,
    members: Sequence[ast.Member],
    scene: sm.Scene,
    task_name: str,
    reader: Callable[[Report], Any],
) -> tuple[sm.FamilyBinding, ...]:
    """Every binding checked against the task (E0740-E0744); the bindings that pass, with
    the task's name as their family. `reader(report)` is a new task reader (a `TaskFront`)
    reporting into `report`: each binding's steps are read again with it."""
    steps = [m for m in members if isinstance(m, ast.Entry) and m.keyword == "step"]
    out: list[sm.FamilyBinding] = []
    for binding in family.bindings:
        if not _roles_match(front, family, binding, task_name):
            continue
        read, report = _bound_steps(reader, binding, steps, scene)
        if _fits(front, binding, report) and _possible(front, binding, read, scene):
            out.append(evolve(binding, family=task_name))
    _new_geometry(front, family, scene)
    return tuple(out)


def _roles_match(front: Front, family: Family, binding: sm.FamilyBinding, task_name: str) -> bool:
    """E0740 for a role the task does not declare, E0741 for a declared one left unbound."""
    declared = family.names()
    ok = True
    for role, span in ((r, s) for b, r, s in family.role_spans if b == binding.name):
        if role in declared:
            continue
        guess = did_you_mean(role, declared)
        front.error(
            "E0740",
            f"binding `{binding.name}` binds `{role}`, which is not a role of task `{task_name}`",
            span,
            label="not in `roles:`",
            help=f"did you mean `{guess}`?"
            if guess
            else f"declare it in `roles: [...]`, or bind {_list(declared)}",
            fix=Fix(f"rename it to `{guess}`", (Edit(span, guess),)) if guess else None,
        )
        ok = False
    missing = [r for r in declared if r not in dict(binding.roles)]
    if missing and ok:  # after an unknown role (a typo of the missing one), that is enough
        front.error(
            "E0741",
            f"binding `{binding.name}` leaves {_list(missing)} unbound",
            _span(binding),
            label="every role of the task needs an entity here",
            help="add " + ", ".join(f"`{r}: ENTITY`" for r in missing) + " to the binding",
        )
        ok = False
    return ok


def _roles(front: Front, field: ast.Field, scene: sm.Scene) -> tuple[tuple[str, Span], ...]:
    items = field.value.items if isinstance(field.value, ast.ListExpr) else None
    if not items:
        front.error("E0708", "write `roles: [load]` (the names the steps use)", field.value.span)
        return ()
    out: list[tuple[str, Span]] = []
    for item in items:
        if not isinstance(item, ast.Name):
            front.error("E0708", "a role is a name, such as `load`", item.span)
        elif scene.entity(item.id) is not None or item.id == "table":
            front.error(
                "E0708",
                f"the role `{item.id}` is already an entity's name",
                item.span,
                help="name the role for what it does in the task, e.g. `load` or `receiver`",
            )
        elif item.id in scene.roles() or item.id in (n for n, _ in out):
            front.error("E0708", f"the role `{item.id}` is declared twice", item.span)
        else:
            out.append((item.id, item.span))
    return tuple(out)


def _binding(
    front: Front,
    entry: ast.Member,
    heldout: bool,
    scene: sm.Scene,
    spans: list[tuple[str, str, Span]],
) -> sm.FamilyBinding | None:
    if not (isinstance(entry, ast.Field) and isinstance(entry.value, ast.Block)):
        front.error("E0708", "a binding is written `NAME: {role: entity}`", entry.span)
        return None
    name = entry.key
    if _VERSION.fullmatch(name) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        front.error(
            "E0708",
            f"`{name}` cannot name a binding: Gymnasium reads `-{name}` as a version",
            entry.key_span,
            help=f"rename it, e.g. `b{name}`",
        )
        return None
    roles: list[tuple[str, str]] = []
    for item in entry.value.members:
        if not (isinstance(item, ast.Field) and isinstance(item.value, ast.Name)):
            front.error("E0708", "bind a role to an entity: `load: w50`", item.span)
            return None
        if scene.entity(item.value.id) is None:
            front.unknown_entity(item.value.id, item.value.span, scene)
            return None
        roles.append((item.key, item.value.id))
        spans.append((name, item.key, item.key_span))
    return sm.FamilyBinding("", name, heldout, tuple(roles), span=entry.key_span)


def _bound_steps(
    make_reader: Callable[[Report], Any],
    binding: sm.FamilyBinding,
    steps: Sequence[ast.Entry],
    scene: sm.Scene,
) -> tuple[list[sm.Step], Report]:
    """The steps read again with the binding's entities for the roles (the report holds
    what `check` says of them then), their roles replaced by the entities."""
    extra = tuple(sm.RoleBinding(role, (entity,)) for role, entity in binding.roles)
    scene_b = evolve(scene, randomizations=(*scene.randomizations, *extra))
    report = Report()
    reader = make_reader(report)
    bound = dict(binding.roles)
    read = [s for s in (reader.step(entry, scene_b) for entry in steps) if s is not None]
    task = sm.bind_task(sm.Task("", scene, tuple(read)), bound)
    for step in task.steps:
        # the checks that skip a role (its entity is only known per binding)
        for call in step.all_calls:
            check_container_use(call, scene, reader.error)
            check_skill_needs(call, scene, reader.error)
            check_slot_fit(call, scene, reader.error)
        for atom in _in_atoms(step.success):
            check_slot_fit(atom, scene, reader.error)
    return list(task.steps), report


def _fits(front: Front, binding: sm.FamilyBinding, report: Report) -> bool:
    """E0742: the steps, read with this binding's entities, check cleanly."""
    errors = [d for d in report.sorted() if d.severity == Severity.ERROR]
    if not errors:
        return True
    first = errors[0]
    front.error(
        "E0742",
        f"binding `{binding.name}` does not fit the task: {first.message}",
        _span(binding),
        label="bound here",
        labels=(Label(first.span, "the use it does not fit"),),
        notes=(
            f"in binding `{binding.name}`, "
            + ", ".join(f"`{role}` is `{entity}`" for role, entity in binding.roles),
            *(f"also: {d.message}" for d in errors[1:4]),
        ),
        help=first.help or "bind the role to an entity of the kind its uses need",
    )
    return False


def _possible(
    front: Front, binding: sm.FamilyBinding, steps: Sequence[sm.Step], scene: sm.Scene
) -> bool:
    """E0743: no two roles share an entity, and no container is asked for more than it holds."""
    entities = [entity for _role, entity in binding.roles]
    for entity in dict.fromkeys(entities):
        if entities.count(entity) > 1:
            shared = [role for role, e in binding.roles if e == entity]
            front.error(
                "E0743",
                f"binding `{binding.name}` binds {_list(shared)} to one entity, `{entity}`",
                _span(binding),
                label="the roles are distinct objects in the task",
                help="bind each role to its own entity",
            )
            return False
    for step in steps:
        for expr in (*step.all_calls, *_contains_atoms(step.success)):
            problem = _over_capacity(expr, scene)
            if problem:
                front.error(
                    "E0743",
                    f"binding `{binding.name}` makes step `{step.name}` impossible: {problem}",
                    _span(binding),
                    label="bound here",
                    labels=(Label(expr.span or _span(binding), "asks for more than that"),),
                    help="bind a container large enough, or change the amount",
                )
                return False
    return True


def _in_atoms(expr: sm.Expr | None) -> list[sm.Call]:
    from lablang.sim.front_instruction import predicate_calls

    return [a for a in predicate_calls(expr) if a.func == "in"]


def _contains_atoms(expr: sm.Expr | None) -> list[sm.Call]:
    from lablang.sim.front_instruction import predicate_calls

    return [a for a in predicate_calls(expr) if a.func == "contains" and len(a.args) == 3]


def _over_capacity(expr: sm.Expr, scene: sm.Scene) -> str:
    """Why an amount cannot fit its container (a pour into it, or `contains(c, s, V)`)."""
    if not isinstance(expr, sm.Call):
        return ""
    if expr.func == "contains":
        index, amount_index = 0, 2
    elif expr.func in _RECEIVES:
        index, amount_index = _RECEIVES[expr.func]
    else:
        return ""
    if amount_index >= len(expr.args):
        return ""
    container, amount = expr.args[index], expr.args[amount_index]
    if not (isinstance(container, sm.Ref) and not container.path and isinstance(amount, sm.Num)):
        return ""
    entity = scene.entity(container.name)
    if entity is None or amount.dimension != "volume":
        return ""
    capacity = catalog.capacity(entity.asset, dict(entity.params))
    if capacity is None:
        return ""
    held = sum(c.amount for c in entity.contents if c.kind == "liquid")
    if expr.func != "contains" and held + amount.value > capacity * (1 + 1e-9):
        return (
            f"`{expr.func}` puts {amount.value * 1e6:g} mL into `{entity.name}`, which holds "
            f"{held * 1e6:g} mL of its {capacity * 1e6:g} mL"
        )
    if expr.func == "contains" and amount.value > capacity * (1 + 1e-9):
        return (
            f"the spec asks `{entity.name}` to contain {amount.value * 1e6:g} mL, more than "
            f"its capacity of {capacity * 1e6:g} mL"
        )
    return ""


def _new_geometry(front: Front, family: Family, scene: sm.Scene) -> None:
    """E0744: a held-out binding binds some role to a shape no training binding gives it."""

    def shape(name: str) -> tuple[object, ...]:
        entity = scene.entity(name)
        if entity is None:
            return (name,)
        return (entity.asset, catalog.footprint(entity.asset, dict(entity.params)))

    seen = {(role, shape(e)) for b in family.bindings if not b.heldout for role, e in b.roles}
    for binding in (b for b in family.bindings if b.heldout):
        if binding.roles and all((r, shape(e)) in seen for r, e in binding.roles):
            front.error(
                "E0744",
                f"held-out binding `{binding.name}` brings no new geometry: each of its "
                "entities has the asset and footprint of one a training binding uses",
                _span(binding),
                label="not a held-out object",
                help="bind a role to an object of another size or asset (same operation and "
                "spec), or move the binding into `training:`",
            )


def _span(binding: sm.FamilyBinding) -> Span:
    return binding.span or Span(0, 0)


def _list(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)
