"""Changes to what a protocol works with: its materials and consumables.

A material's identity (`is`), components with their concentrations, solvent and dilution,
and a consumable's material and properties are compared as exact quantities, so
`20 %` -> `10 %` methanol in a transfer buffer or nitrocellulose -> PVDF is a change even
when no step's text moves. A changed material's dependents are the steps that use it
(and the materials made with it, and their steps), with everything downstream of those
steps through the ledger; a changed consumable's are the steps that run on it or work in it.

A material that only changed its name (`milk` -> `blotto`: the same identity and composition,
recorded, under a new name, used in the same steps) is a rename, cosmetic as a renamed step
is: `material_renames` pairs them and `rename_materials` rewrites the published protocol in
the new names, so its steps are compared as if the name had always been the new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from attrs import evolve, frozen

from lablang.protocols.model import (
    Action,
    Add,
    Cleanup,
    Consumable,
    Material,
    Protocol,
    Step,
    Value,
    Wash,
)
from lablang.protocols.quantities import Amount


@frozen(kw_only=True)
class ParameterChange:
    """`old` is None for a parameter the new step adds, `new` is None for one it drops."""

    parameter: str
    old: Value
    new: Value


@frozen(kw_only=True)
class ResourceChange:
    """`kind` is `material` or `consumable`; `change` is `added`, `removed`, `changed` or
    `renamed` (a material under a new name, `old_name` the published one)."""

    kind: str
    name: str
    change: str
    parameters: tuple[ParameterChange, ...] = ()
    dependents: tuple[str, ...] = ()  # the steps whose inputs it changes, in order
    old_name: str | None = None

    @property
    def consequential(self) -> bool:
        """A rename changes nothing at the bench; every other change does."""
        return self.change != "renamed"


def same(a: Value, b: Value) -> bool:
    """Equal values: quantities by dimension and exact magnitude, the rest by equality."""
    if isinstance(a, Amount) and isinstance(b, Amount):
        return a.dimension == b.dimension and a.value == b.value
    return a == b


def material_parameters(material: Material) -> dict[str, Value]:
    """A material's comparable parameters: `description`, `solvent`, `dilution` and one
    `component.NAME` per component (its concentration, or the name when none is given)."""
    params: dict[str, Value] = {
        "description": material.description,
        "solvent": material.solvent,
        "dilution": material.dilution,
    }
    for component in material.components:
        params[f"component.{component.name}"] = component.amount or component.name
    return {k: v for k, v in params.items() if v is not None}


def consumable_parameters(consumable: Consumable) -> dict[str, Value]:
    params: dict[str, Value] = {
        "material": consumable.material,
        "description": consumable.description,
        **dict(consumable.properties),
    }
    return {k: v for k, v in params.items() if v is not None}


def parameter_changes(old: dict[str, Value], new: dict[str, Value]) -> tuple[ParameterChange, ...]:
    ordered = list(old) + [k for k in new if k not in old]
    return tuple(
        ParameterChange(parameter=key, old=old.get(key), new=new.get(key))
        for key in ordered
        if not same(old.get(key), new.get(key))
    )


def resource_changes(
    old: Protocol, new: Protocol, downstream: Callable[[int], tuple[str, ...]]
) -> tuple[ResourceChange, ...]:
    """Materials present in both protocols whose content changed, and consumables changed,
    added or removed. (A material added or removed shows in the steps that use it.)
    `downstream(j)` names the steps downstream of new step `j`."""
    found: list[ResourceChange] = []
    old_materials = {m.name: m for m in old.materials}
    for material in new.materials:
        before = old_materials.get(material.name)
        if before is None:
            continue
        parameters = parameter_changes(material_parameters(before), material_parameters(material))
        if parameters:
            users = _material_users(new, material.name)
            found.append(
                ResourceChange(
                    kind="material",
                    name=material.name,
                    change="changed",
                    parameters=parameters,
                    dependents=_with_downstream(new, users, downstream),
                )
            )
    old_consumables = {c.name: c for c in old.consumables}
    new_consumables = {c.name: c for c in new.consumables}
    for name in [*old_consumables, *(n for n in new_consumables if n not in old_consumables)]:
        a, b = old_consumables.get(name), new_consumables.get(name)
        parameters = parameter_changes(
            consumable_parameters(a) if a else {}, consumable_parameters(b) if b else {}
        )
        if a is not None and b is not None and not parameters:
            continue
        users = [j for j, step in enumerate(new.steps) if _works_on(step, name)]
        found.append(
            ResourceChange(
                kind="consumable",
                name=name,
                change="changed" if a and b else ("added" if b else "removed"),
                parameters=parameters,
                dependents=_with_downstream(new, users, downstream),
            )
        )
    return tuple(found)


def material_renames(old: Protocol, new: Protocol) -> dict[str, str]:
    """Published name -> new name for each material that is in only one protocol under
    each name and has, under both, the same recorded identity and composition (a material
    with nothing recorded but its name cannot be told apart from a different one). A pair
    is taken only when neither side has another material of that identity."""
    old_names = {m.name for m in old.materials}
    new_names = {m.name for m in new.materials}
    gone = [m for m in old.materials if m.name not in new_names and material_parameters(m)]
    fresh = [m for m in new.materials if m.name not in old_names and material_parameters(m)]

    def alike(a: Material, b: Material) -> bool:
        return not parameter_changes(material_parameters(a), material_parameters(b))

    renames = {}
    for a in gone:
        matches = [b for b in fresh if alike(a, b)]
        if len(matches) == 1 and [g for g in gone if alike(g, matches[0])] == [a]:
            renames[a.name] = matches[0].name
    return renames


def rename_materials(protocol: Protocol, renames: Mapping[str, str]) -> Protocol:
    """The protocol with its materials renamed: their names, the steps that use them, and
    the materials made with them (a solvent, a component)."""
    if not renames:
        return protocol

    def name(n: str | None) -> str | None:
        return renames.get(n, n) if n is not None else None

    steps = tuple(
        evolve(s, action=_action_renamed(s.action, renames)) if uses_material(s, *renames) else s
        for s in protocol.steps
    )
    materials = tuple(
        evolve(
            m,
            name=renames.get(m.name, m.name),
            solvent=name(m.solvent),
            components=tuple(evolve(c, name=renames.get(c.name, c.name)) for c in m.components),
        )
        for m in protocol.materials
    )
    return evolve(protocol, steps=steps, materials=materials)


def _action_renamed(action: Action, renames: Mapping[str, str]) -> Action:
    match action:
        case Add(material=str(name)):
            return evolve(action, material=renames.get(name, name))
        case Cleanup(material=str(name)):
            return evolve(action, material=renames.get(name, name))
        case Wash(material=str(name)):
            return evolve(action, material=renames.get(name, name))
    return action


def uses_material(step: Step, *names: str) -> bool:
    """The step's action uses one of the materials `names` (adds it, binds or washes with it)."""
    return getattr(step.action, "material", None) in names


def _material_users(protocol: Protocol, name: str) -> list[int]:
    """Steps using `name` or a material made with it (as a component or the solvent)."""
    names = {name}
    for material in protocol.materials:
        if material.solvent == name or any(c.name == name for c in material.components):
            names.add(material.name)
    return [
        j
        for j, step in enumerate(protocol.steps)
        if getattr(step.action, "material", None) in names
    ]


def _works_on(step: Step, name: str) -> bool:
    """The step runs on the consumable, works in it, or adds to or draws from it."""
    return name in (
        step.container,
        *(getattr(step.action, key, None) for key in ("consumable", "destination", "source")),
    )


def _with_downstream(
    protocol: Protocol, users: list[int], downstream: Callable[[int], tuple[str, ...]]
) -> tuple[str, ...]:
    names: set[str] = set()
    for j in users:
        names.add(protocol.steps[j].name)
        names.update(downstream(j))
    return tuple(step.name for step in protocol.steps if step.name in names)
