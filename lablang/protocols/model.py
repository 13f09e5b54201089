"""The protocol model: materials, containers and typed steps with exact quantities.

A `Protocol` is what the front end (`lablang.protocols.frontend`) builds from a
`protocol` declaration, and what the checks, the semantic diff and rubric checks read.
Every step holds exactly one typed action; parameters are `Amount`s (exact, in the
canonical unit of their dimension), names, counts or text.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TypeAlias

from attrs import field, fields, frozen

from lablang.protocols.quantities import Amount
from lablang.records import Compared
from lablang.source import NO_SPAN, Span

Value: TypeAlias = Amount | str | int | None


# ------------------------------------------------------------ actions
@frozen(kw_only=True, repr=False, eq=False)
class Add(Compared):
    """Add a `volume` (liquid) or `mass` (solid) of a material to a container."""

    volume: Amount | None
    material: str | None
    destination: str | None
    mass: Amount | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Transfer(Compared):
    """Move `volume` (None = all of it) from one container to another."""

    volume: Amount | None
    source: str | None
    destination: str | None


@frozen(kw_only=True, repr=False, eq=False)
class Mix(Compared):
    method: str | None
    count: int | None = None
    speed: Amount | None = None
    duration: Amount | None = None
    volume: Amount | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Incubate(Compared):
    temperature: Amount | None
    duration: Amount | None


@frozen(kw_only=True, repr=False, eq=False)
class Segment(Compared):
    """One thermocycler segment: hold `temperature` for `duration`."""

    temperature: Amount
    duration: Amount | None
    span: Span = field(default=NO_SPAN, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Repeat(Compared):
    count: int
    segments: tuple[Segment, ...]
    span: Span = field(default=NO_SPAN, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Hold(Compared):
    temperature: Amount
    duration: Amount | None = None
    span: Span = field(default=NO_SPAN, eq=False)


Stage: TypeAlias = Segment | Repeat | Hold


@frozen(kw_only=True, repr=False, eq=False)
class Thermocycle(Compared):
    stages: tuple[Stage, ...]


@frozen(kw_only=True, repr=False, eq=False)
class Centrifuge(Compared):
    """`speed` is a rotation speed (rpm) or a relative centrifugal force (xg).

    `discard: flow_through` (a spin column) empties the container in the ledger: what
    passed through the column leaves the protocol.
    """

    speed: Amount | None
    duration: Amount | None
    temperature: Amount | None = None
    discard: str | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Cleanup(Compared):
    """Bead cleanup at `ratio` x the sample volume; `elute` sets the volume afterwards."""

    ratio: Amount | None
    material: str | None = None
    elute: Amount | None = None
    # double-sided size selection: `keep: supernatant` after the first ratio, then beads
    # up to `then` (the second ratio, of the original sample volume) bind what is kept
    keep: str | None = None
    then: Amount | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Wash(Compared):
    volume: Amount | None
    material: str | None = None
    times: int | None = None
    duration: Amount | None = None  # each wash's duration (`3 x 5 min`: times 3, 5 min)


@frozen(kw_only=True, repr=False, eq=False)
class Measure(Compared):
    """A QC measurement that consumes `volume` of the sample (if given)."""

    what: str
    volume: Amount | None = None
    instrument: str | None = None
    # qPCR quantification: the number of standards, their fragment length, the replicates
    # of each reaction, and whether a melt curve follows (`yes` / `no`)
    standards: int | None = None
    standard_size: Amount | None = None
    replicates: int | None = None
    melt_curve: str | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Wait(Compared):
    duration: Amount | None


@frozen(kw_only=True, repr=False, eq=False)
class Run(Compared):
    """Run an instrument with its settings, e.g. a wet transfer at 100 V constant for 60 min.

    `consumable` is what the run acts on (a membrane, a gel); `mode` is what the
    instrument holds constant (`voltage`, `current`, `power`).
    """

    instrument: str | None
    voltage: Amount | None = None
    current: Amount | None = None
    power: Amount | None = None
    mode: str | None = None
    duration: Amount | None = None
    temperature: Amount | None = None
    consumable: str | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Note(Compared):
    text: str


Action: TypeAlias = (
    Add
    | Transfer
    | Mix
    | Incubate
    | Thermocycle
    | Centrifuge
    | Cleanup
    | Wash
    | Measure
    | Wait
    | Run
    | Note
)

ACTION_KINDS: dict[type, str] = {
    Add: "add",
    Transfer: "transfer",
    Mix: "mix",
    Incubate: "incubate",
    Thermocycle: "thermocycle",
    Centrifuge: "centrifuge",
    Cleanup: "cleanup",
    Wash: "wash",
    Measure: "measure",
    Wait: "wait",
    Run: "run",
    Note: "note",
}


# ------------------------------------------------------------ hazards
# What a material or a step may be marked as (`hazard: [flammable, toxic]`): the GHS
# pictograms' classes and the bench's own. A drafted task weighs a change that touches one
# first (`lablang.protocols.task`); the check rejects a name not listed here (E0811).
HAZARDS: dict[str, str] = {
    "explosive": "unstable or explosive (GHS01)",
    "flammable": "flammable liquid, solid or gas (GHS02)",
    "oxidizing": "oxidizer (GHS03)",
    "compressed_gas": "gas under pressure (GHS04)",
    "corrosive": "corrosive to skin, eyes or metal (GHS05)",
    "toxic": "acutely toxic (GHS06)",
    "harmful": "irritant, sensitizer or harmful (GHS07)",
    "health_hazard": "carcinogen, mutagen, reproductive or organ toxicant (GHS08)",
    "environmental": "hazardous to the aquatic environment (GHS09)",
    "biohazard": "infectious or biological material",
    "radioactive": "radioactive material",
    "cryogenic": "cryogenic liquid or surface",
    "hot": "hot surface, liquid or steam",
    "electrical": "high voltage or current",
    "uv": "ultraviolet light",
    "sharps": "needles, blades or glass",
}


# ------------------------------------------------------------ steps and protocols
@frozen(kw_only=True, repr=False, eq=False)
class Step(Compared):
    """A named step holding one action.

    `container` is the container the step works in when it names one; a step that
    names none works in the protocol's current container (the last destination).
    """

    name: str
    action: Action
    title: str | None = None
    container: str | None = None
    realizes: str | None = None
    note: str | None = None
    hazards: tuple[str, ...] = ()  # names of HAZARDS (`hazard: electrical`)
    span: Span = field(default=NO_SPAN, eq=False)
    spans: Mapping[str, Span] = field(factory=dict, eq=False)

    @property
    def kind(self) -> str:
        return ACTION_KINDS[type(self.action)]

    def span_of(self, parameter: str) -> Span:
        return self.spans.get(parameter, self.span)


@frozen(kw_only=True, repr=False, eq=False)
class Component(Compared):
    """One component of a material at its concentration (`methanol: 20 %`, `tris: 25 mM`)."""

    name: str
    amount: Amount | None


@frozen(kw_only=True, repr=False, eq=False)
class Material(Compared):
    """A reagent: its identity (`description`), its composition and its dilution.

    `components` are the material's parts with their concentrations, `solvent` what they
    are dissolved in (`5 % BSA in TBST`: components bsa 5 %, solvent tbst), `dilution` the
    fold dilution it is used at (`1:1000` is `1000 x`).
    """

    name: str
    description: str | None = None
    components: tuple[Component, ...] = ()
    solvent: str | None = None
    dilution: Amount | None = None
    hazards: tuple[str, ...] = ()  # names of HAZARDS (`hazard: [flammable, toxic]`)
    span: Span = field(default=NO_SPAN, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Consumable(Compared):
    """A membrane, gel, column or plate as an object: what it is made of and its properties."""

    name: str
    material: str | None = None
    description: str | None = None
    properties: tuple[tuple[str, Value], ...] = ()
    span: Span = field(default=NO_SPAN, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Container(Compared):
    """`initial` is the starting volume; None means unknown (distinct from empty)."""

    name: str
    initial: Amount | None
    span: Span = field(default=NO_SPAN, eq=False)


@frozen(kw_only=True, repr=False, eq=False)
class Protocol(Compared):
    name: str
    steps: tuple[Step, ...]
    title: str | None = None
    realizes: str | None = None
    materials: tuple[Material, ...] = ()
    equipment: tuple[str, ...] = ()
    containers: tuple[Container, ...] = ()
    consumables: tuple[Consumable, ...] = ()
    span: Span = field(default=NO_SPAN, eq=False)

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)


# ------------------------------------------------------------ parameters


def thermocycle_parameters(cycle: Thermocycle) -> dict[str, Value]:
    """Name each thermocycler segment by its role, as protocols are read.

    Before the first `repeat`: the first segment is `initial_denaturation`. In the
    first `repeat`: `cycles`, then `denaturation`, `annealing`, `extension` in order
    (a two-segment cycle has no separate `extension`). After the last `repeat`: the
    first segment is `final_extension`; the `hold` is `hold`. Every segment gives its
    temperature under its name and its duration under `NAME_time`; anything beyond
    those roles keeps a positional name (`pre2`, `repeat2.segment1`, `post2`).

    >>> from lablang.protocols.quantities import Amount
    >>> seg = lambda t, s: Segment(temperature=Amount.parse(t, "C"), duration=Amount.parse(s, "s"))
    >>> params = thermocycle_parameters(Thermocycle(stages=(
    ...     seg("98", "180"), Repeat(count=11, segments=(seg("98", "15"), seg("63", "20"))),
    ...     Hold(temperature=Amount.parse("4", "C")))))
    >>> sorted(params)[:4], params["cycles"], str(params["annealing"])
    (['annealing', 'annealing_time', 'cycles', 'denaturation'], 11, '63 C')
    """
    params: dict[str, Value] = {}
    repeats = [i for i, stage in enumerate(cycle.stages) if isinstance(stage, Repeat)]
    first = repeats[0] if repeats else len(cycle.stages)
    last = repeats[-1] if repeats else len(cycle.stages)
    pre = post = repeat_number = 0

    def put(name: str, segment: Segment | Hold) -> None:
        params[name] = segment.temperature
        params[f"{name}_time"] = segment.duration

    for index, stage in enumerate(cycle.stages):
        match stage:
            case Hold():
                put("hold", stage)
            case Repeat():
                repeat_number += 1
                if repeat_number == 1:
                    params["cycles"] = stage.count
                    roles = ("denaturation", "annealing", "extension")
                    for j, segment in enumerate(stage.segments):
                        put(roles[j] if j < 3 else f"segment{j + 1}", segment)
                else:
                    params[f"repeat{repeat_number}.cycles"] = stage.count
                    for j, segment in enumerate(stage.segments):
                        put(f"repeat{repeat_number}.segment{j + 1}", segment)
            case Segment() if index < first:
                pre += 1
                put("initial_denaturation" if pre == 1 else f"pre{pre}", stage)
            case Segment() if index > last:
                post += 1
                put("final_extension" if post == 1 else f"post{post}", stage)
            case Segment():
                put(f"between{index}", stage)
    return params


def step_parameters(step: Step) -> dict[str, Value]:
    """The step's parameters by name, as the diff compares them and rubric checks read them."""
    params: dict[str, Value] = {}
    action = step.action
    if isinstance(action, Thermocycle):
        params.update(thermocycle_parameters(action))
    else:
        for field in fields(type(action)):
            params[field.name] = getattr(action, field.name)
    params["container"] = step.container
    params["realizes"] = step.realizes
    params["note"] = step.note
    return {key: value for key, value in params.items() if value is not None}


def format_parameter(value: Value) -> str:
    match value:
        case Amount():
            return str(value)
        case None:
            return "none"
        case _:
            return str(value)


def fraction_of(value: Value) -> Fraction | None:
    return value.value if isinstance(value, Amount) else None


def answer_view(protocol: Protocol) -> dict[str, object]:
    """The protocol as plain data for rubric checks (`lablang.rubrics.evaluate`).

    >>> p = Protocol(name="p", steps=(Step(name="n", action=Note(text="hi")),))
    >>> answer_view(p)["steps"]
    [{'name': 'n', 'kind': 'note', 'index': 0, 'title': None, 'text': 'hi'}]
    """
    steps: list[dict[str, object]] = []
    for index, step in enumerate(protocol.steps):
        view: dict[str, object] = {
            "name": step.name,
            "kind": step.kind,
            "index": index,
            "title": step.title,
        }
        view.update(step_parameters(step))
        steps.append(view)
    return {
        "name": protocol.name,
        "title": protocol.title,
        "realizes": protocol.realizes,
        "steps": steps,
        "materials": [m.name for m in protocol.materials],
        "equipment": list(protocol.equipment),
        "containers": [c.name for c in protocol.containers],
        # what each material is and holds, for checks such as
        # `answer.reagents.blocker.components.bsa == 5 %`
        "reagents": {m.name: _reagent_view(m) for m in protocol.materials},
        "consumables": {
            c.name: {
                "name": c.name,
                **{
                    k: v for k, v in (("material", c.material), ("description", c.description)) if v
                },
                **dict(c.properties),
            }
            for c in protocol.consumables
        },
    }


def _reagent_view(material: Material) -> dict[str, object]:
    view: dict[str, object] = {
        "name": material.name,
        "components": {c.name: c.amount or c.name for c in material.components},
    }
    for key in ("description", "solvent", "dilution"):
        value = getattr(material, key)
        if value is not None:
            view[key] = value
    return view
