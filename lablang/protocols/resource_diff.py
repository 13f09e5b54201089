"""Changes to what a protocol works with: its materials and consumables.

A material's identity (`is`), components with their concentrations, solvent and dilution,
and a consumable's material and properties are compared as exact quantities, so
`20 %` -> `10 %` methanol in a transfer buffer or nitrocellulose -> PVDF is a change even
when no step's text moves. A changed material's dependents are the steps that use it
(and the materials made with it, and their steps), with everything downstream of those
steps through the ledger; a changed consumable's are the steps that run on it or work in it.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from lablang.protocols.model import Consumable, Material, Protocol, Step, Value
from lablang.protocols.quantities import Amount


@frozen(kw_only=True)
class ParameterChange:
    """`old` is None for a parameter the new step adds, `new` is None for one it drops."""

    parameter: str
    old: Value
    new: Value


@frozen(kw_only=True)
class ResourceChange:
    """`kind` is `material` or `consumable`; `change` is `added`, `removed` or `changed`."""

    kind: str
    name: str
    change: str
    parameters: tuple[ParameterChange, ...] = ()
    dependents: tuple[str, ...] = ()  # the steps whose inputs it changes, in order

    @property
    def consequential(self) -> bool:
        return True


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
