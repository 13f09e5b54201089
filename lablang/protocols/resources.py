"""What a protocol works with, built from its `materials`, `containers` and `consumables`.

    materials: {
      transfer_buffer: { is: "Towbin buffer"  components: {tris: 25 mM, methanol: 20 %} }
      blocker: { components: {bsa: 5 %}  solvent: tbst }
      primary: { is: "anti-GAPDH"  dilution: 1000 x }       # used at 1:1000
    }
    containers: {sample: 20 uL of lysate, eluate: unknown}
    consumables: { membrane: { material: pvdf  pore_size: 0.45 um } }

A material written as a string (`{beads: "SPRI beads"}`) has only a description, as
before. Compositions, dilutions and a consumable's properties are quantities with units,
so the diff compares them exactly rather than as text.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Protocol

from lablang import ast
from lablang.diagnostics import Report
from lablang.protocols.model import Component, Consumable, Container, Material, Value
from lablang.protocols.quantities import Amount
from lablang.source import Source, Span


class _Builder(Protocol):
    """What these builders need of the protocol front end's builder (its reporting)."""

    def _names(self, expr: ast.Expr, what: str) -> list[tuple[str, Span]]: ...
    def _unknown(self, member: ast.Member, where: str) -> None: ...
    def _text(self, expr: ast.Expr, what: str) -> str | None: ...
    def _amount(self, expr: ast.Expr, dims: tuple[str, ...], what: str) -> Amount | None: ...

    @property
    def report(self) -> Report: ...
    @property
    def source(self) -> Source: ...


# the dimensions a component's concentration may have
CONCENTRATIONS = ("percent", "molar_concentration", "mass_concentration", "fold")
# the dimensions a consumable's property may have (others are names or text)
PROPERTY_DIMENSIONS = ("length", "volume", "percent", "sequence_length", "mass")
MATERIAL_FIELDS = ("is", "components", "solvent", "dilution", "hazard")


def hazards(builder: _Builder, expr: ast.Expr, where: str) -> tuple[str, ...]:
    """The hazard classes of `hazard: NAME` or `hazard: [NAME, ...]` (names of `HAZARDS`);
    an unknown one is E0811 with the closest name as its fix."""
    from lablang.check.names import did_you_mean
    from lablang.diagnostics import Edit, Fix
    from lablang.protocols.model import HAZARDS

    found = []
    for name, span in builder._names(expr, "hazard"):
        if name in HAZARDS:
            found.append(name)
            continue
        wanted = did_you_mean(name, sorted(HAZARDS))
        builder.report.add(
            "E0811",
            f"`{name}` is not a hazard class {where}",
            builder.source,
            span,
            label="unknown hazard",
            help=(f"did you mean `{wanted}`? " if wanted else "")
            + "hazards: " + ", ".join(f"`{h}`" for h in HAZARDS),
            fix=Fix(f"use `{wanted}`", (Edit(span, wanted),)) if wanted else None,
        )  # fmt: skip
    return tuple(dict.fromkeys(found))


def _fields(builder: _Builder, block: ast.Block, where: str) -> Iterator[ast.Field]:
    """The block's `key: value` fields; anything else is reported as not understood."""
    for member in block.members:
        if isinstance(member, ast.Field):
            yield member
        else:
            builder._unknown(member, where)


def materials(builder: _Builder, expr: ast.Expr) -> list[Material]:
    if not isinstance(expr, ast.Block):
        return [Material(name=n, span=s) for n, s in builder._names(expr, "material")]
    found = []
    for member in _fields(builder, expr, 'in `materials`; expected `name: "description"`'):
        if isinstance(member.value, ast.Block):
            found.append(_material(builder, member.key, member.value, member))
            continue
        text = member.value.value if isinstance(member.value, ast.String) else None
        found.append(Material(name=member.key, description=text, span=member.key_span))
    return found


def _material(builder: _Builder, name: str, body: ast.Block, field: ast.Field) -> Material:
    description = solvent = None
    dilution = None
    components: list[Component] = []
    marked: tuple[str, ...] = ()
    for member in body.members:
        match member:
            case ast.Field(key="hazard"):
                marked = hazards(builder, member.value, f"(material `{name}`)")
            case ast.Field(key="is"):
                description = builder._text(member.value, "the material's identity")
            case ast.Field(key="solvent"):
                solvent = builder._text(member.value, "the solvent")
            case ast.Field(key="dilution"):
                dilution = builder._amount(member.value, ("fold",), f"the dilution of `{name}`")
            case ast.Field(key="components") if isinstance(member.value, ast.Block):
                for part in _fields(
                    builder, member.value, "in `components`; expected `NAME: 20 %`"
                ):
                    amount = builder._amount(
                        part.value, CONCENTRATIONS, f"the concentration of `{part.key}`"
                    )
                    components.append(Component(name=part.key, amount=amount))
            case _:
                builder._unknown(
                    member,
                    f"in material `{name}`; expected "
                    + ", ".join(f"`{f}`" for f in MATERIAL_FIELDS),
                )
    return Material(
        name=name,
        description=description,
        components=tuple(components),
        solvent=solvent,
        dilution=dilution,
        hazards=marked,
        span=field.key_span,
    )


def containers(builder: _Builder, expr: ast.Expr) -> list[Container]:
    if not isinstance(expr, ast.Block):
        return [
            Container(name=n, initial=Amount(Fraction(0), "volume", "0 uL"), span=s)
            for n, s in builder._names(expr, "container")
        ]
    found = []
    where = "in `containers`; expected `name: VOLUME` or `name: unknown`"
    for member in _fields(builder, expr, where):
        value = member.value
        if isinstance(value, ast.Binary) and value.op == "of":
            value = value.left
        initial: Amount | None
        if isinstance(value, ast.Name) and value.id == "unknown":
            initial = None
        elif isinstance(value, ast.Number) and Fraction(value.text) == 0:
            initial = Amount(Fraction(0), "volume", "0 uL")
        else:
            initial = builder._amount(value, ("volume",), f"the volume of `{member.key}`")
        found.append(Container(name=member.key, initial=initial, span=member.key_span))
    return found


def consumables(builder: _Builder, expr: ast.Expr) -> list[Consumable]:
    if not isinstance(expr, ast.Block):
        return [Consumable(name=n, span=s) for n, s in builder._names(expr, "consumable")]
    found = []
    for member in _fields(builder, expr, "in `consumables`; expected `NAME: { material: ... }`"):
        if not isinstance(member.value, ast.Block):
            text = builder._text(member.value, "a consumable's description")
            found.append(Consumable(name=member.key, description=text, span=member.key_span))
            continue
        material = description = None
        properties: list[tuple[str, Value]] = []
        where = f"in consumable `{member.key}`; expected `KEY: VALUE`"
        for part in _fields(builder, member.value, where):
            if part.key == "material":
                material = builder._text(part.value, "the consumable's material")
            elif part.key == "is":
                description = builder._text(part.value, "the consumable's identity")
            elif isinstance(part.value, ast.Quantity | ast.Unary):
                what = f"`{part.key}` of `{member.key}`"
                properties.append(
                    (part.key, builder._amount(part.value, PROPERTY_DIMENSIONS, what))
                )
            else:
                properties.append((part.key, builder._text(part.value, f"`{part.key}`")))
        found.append(
            Consumable(
                name=member.key,
                material=material,
                description=description,
                properties=tuple(properties),
                span=member.key_span,
            )
        )
    return found
