"""Checks over a built protocol: values, plausible ranges, materials and the volume ledger.

The ledger follows every container through the steps. A container's volume is either
known exactly or unknown (`None`): a container declared without a volume, or first
used as a source without being declared, is unknown, and stays unknown until a step
sets it (an elution, or emptying it by `transfer: all`). Drawing more than a known
volume is an error; nothing is concluded from an unknown one.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from attrs import frozen

from lablang.diagnostics import Report
from lablang.protocols.model import (
    Add,
    Centrifuge,
    Cleanup,
    Hold,
    Incubate,
    Measure,
    Mix,
    Note,
    Protocol,
    Repeat,
    Run,
    Segment,
    Step,
    Thermocycle,
    Transfer,
    Wait,
    Wash,
)
from lablang.protocols.quantities import CANONICAL, Amount, format_value
from lablang.records import Compared
from lablang.source import Source

# Plausible ranges: (dimension, low, high) in canonical units; outside is a warning.
_C = Fraction
RANGES: dict[str, tuple[str, Fraction, Fraction]] = {
    "volume": ("volume", _C(1, 10), _C(50_000)),
    "mass": ("mass", _C(1, 1_000_000), _C(1000)),  # 1 ug to 1 kg weighed out
    "cycle_temperature": ("temperature", _C(0), _C(100)),
    "incubate_temperature": ("temperature", _C(-80), _C(100)),
    "centrifuge_temperature": ("temperature", _C(-20), _C(40)),
    "segment_time": ("time", _C(1), _C(3600)),
    "long_time": ("time", _C(1), _C(72 * 3600)),
    "rpm": ("rotation_speed", _C(100), _C(30_000)),
    "relative_centrifugal_force": ("relative_centrifugal_force", _C(10), _C(100_000)),
    "ratio": ("fold", _C(3, 10), _C(7, 2)),
}
COUNT_RANGES = {
    "cycles": (1, 60),
    "mix_count": (1, 100),
    "wash_times": (1, 10),
    "standards": (1, 12),
    "replicates": (1, 6),
}
# what a spin column's `discard:` names when the liquid that passed through it is thrown away
FLOW_THROUGH = frozenset({"flow_through", "flowthrough"})


@frozen(repr=False, eq=False)
class LedgerEntry(Compared):
    """The volume of each container after one step (None = unknown), and the mass of solid
    (g) in each container a solid was added to."""

    step: str
    volumes: tuple[tuple[str, Fraction | None], ...]
    masses: tuple[tuple[str, Fraction | None], ...] = ()


def check_protocol(
    protocol: Protocol,
    source: Source | None,
    report: Report,
    *,
    materials: Iterable[str] = (),
) -> tuple[LedgerEntry, ...]:
    """Check one protocol; add diagnostics to `report`; return the volume ledger.

    `materials` are names declared outside the protocol (module-level `material`s).

    >>> from lablang.protocols.quantities import Amount
    >>> p = Protocol(name="p", materials=(), steps=(
    ...     Step(name="a", action=Add(volume=Amount.parse("5", "uL"), material="water",
    ...                                destination="t1")),))
    >>> report = Report()
    >>> ledger = check_protocol(p, None, report)
    >>> [d.code for d in report], ledger[-1].volumes
    (['E0804'], (('t1', Fraction(5, 1)),))
    """
    declared = {m.name for m in protocol.materials} | set(materials)
    _check_names(protocol, source, report)
    for step in protocol.steps:
        _check_values(step, source, report)
        for name, parameter in _materials_of(step):
            if name not in declared:
                report.add(
                    "E0804",
                    f"material `{name}` is not declared",
                    source,
                    step.span_of(parameter),
                    label="not in `materials` or a `material` declaration",
                    help=f"add `{name}` to the protocol's `materials: [...]` list",
                )
    return _ledger(protocol, source, report)


def _check_names(protocol: Protocol, source: Source | None, report: Report) -> None:
    seen: set[str] = set()
    for step in protocol.steps:
        if step.name in seen:
            report.add(
                "E0809",
                f"step `{step.name}` is declared twice",
                source,
                step.span,
                help="give each step a distinct name; the diff matches steps by name",
            )
        seen.add(step.name)


def _materials_of(step: Step) -> list[tuple[str, str]]:
    action = step.action
    match action:
        case Add() | Cleanup() | Wash():
            return [(action.material, "material")] if action.material else []
        case _:
            return []


# ------------------------------------------------------------ values and ranges
def _check_values(step: Step, source: Source | None, report: Report) -> None:
    action = step.action

    def positive(parameter: str, amount: Amount | None, what: str) -> bool:
        if amount is None:
            return False
        if amount.value <= 0:
            report.add(
                "E0802",
                f"{what} of step `{step.name}` must be positive, not {amount.text or amount}",
                source,
                step.span_of(parameter),
                label="not positive",
            )
            return False
        return True

    def plausible(parameter: str, amount: Amount | None, kind: str, what: str) -> None:
        if amount is None:
            return
        dimension, low, high = RANGES[kind]
        if amount.dimension == dimension and not low <= amount.value <= high:
            unit = CANONICAL[dimension]
            report.add(
                "W0801",
                f"{what} of step `{step.name}` is {amount.text or amount}, "
                f"outside the usual {format_value(low, unit)} to {format_value(high, unit)}",
                source,
                step.span_of(parameter),
                label="implausible value",
                help="check the number and its unit",
            )

    def count(parameter: str, value: int | None, kind: str, what: str) -> None:
        if value is None:
            return
        low, high = COUNT_RANGES[kind]
        if value < 1:
            report.add(
                "E0802",
                f"{what} of step `{step.name}` must be positive, not {value}",
                source,
                step.span_of(parameter),
                label="not positive",
            )
        elif not low <= value <= high:
            report.add(
                "W0801",
                f"{what} of step `{step.name}` is {value}, outside the usual {low} to {high}",
                source,
                step.span_of(parameter),
                label="implausible value",
                help="check the number",
            )

    def volume(parameter: str, amount: Amount | None) -> None:
        if positive(parameter, amount, "the volume"):
            plausible(parameter, amount, "volume", "the volume")

    def time(parameter: str, amount: Amount | None, kind: str = "long_time") -> None:
        if positive(parameter, amount, "the duration"):
            plausible(parameter, amount, kind, "the duration")

    match action:
        case Add() | Transfer() | Wash():
            volume("volume", action.volume)
            if isinstance(action, Add) and positive("mass", action.mass, "the mass"):
                plausible("mass", action.mass, "mass", "the mass")
            if isinstance(action, Wash):
                count("times", action.times, "wash_times", "the number of washes")
                time("duration", action.duration)
        case Mix():
            volume("volume", action.volume)
            time("duration", action.duration)
            count("count", action.count, "mix_count", "the mix count")
            if action.speed is not None and positive("speed", action.speed, "the speed"):
                plausible("speed", action.speed, "rpm", "the speed")
        case Incubate():
            plausible("temperature", action.temperature, "incubate_temperature", "the temperature")
            time("duration", action.duration)
        case Thermocycle():
            for stage in action.stages:
                segments = stage.segments if isinstance(stage, Repeat) else (stage,)
                if isinstance(stage, Repeat):
                    count("cycles", stage.count, "cycles", "the cycle count")
                for segment in segments:
                    _check_segment(step, segment, source, report)
        case Centrifuge():
            if action.speed is not None and positive("speed", action.speed, "the speed"):
                kind = (
                    "relative_centrifugal_force"
                    if action.speed.dimension == "relative_centrifugal_force"
                    else "rpm"
                )
                plausible("speed", action.speed, kind, "the speed")
            time("duration", action.duration)
            plausible(
                "temperature", action.temperature, "centrifuge_temperature", "the temperature"
            )
        case Cleanup():
            if positive("ratio", action.ratio, "the bead ratio"):
                plausible("ratio", action.ratio, "ratio", "the bead ratio")
            if positive("then", action.then, "the second bead ratio"):
                plausible("then", action.then, "ratio", "the second bead ratio")
            volume("elute", action.elute)
        case Measure():
            volume("volume", action.volume)
            count("standards", action.standards, "standards", "the number of standards")
            count("replicates", action.replicates, "replicates", "the number of replicates")
            positive("standard_size", action.standard_size, "the standards' length")
        case Run():
            for parameter in ("voltage", "current", "power"):
                positive(parameter, getattr(action, parameter), f"the {parameter}")
            time("duration", action.duration)
        case Wait():
            time("duration", action.duration)
        case Note():
            pass


def _check_segment(
    step: Step, segment: Segment | Hold, source: Source | None, report: Report
) -> None:
    span = segment.span if segment.span.end else step.span
    temperature = segment.temperature
    if not 0 <= temperature.value <= 100:
        report.add(
            "W0801",
            f"a thermocycler temperature of step `{step.name}` is "
            f"{temperature.text or temperature}, outside the usual 0 C to 100 C",
            source,
            span,
            label="implausible value",
            help="check the number and its unit",
        )
    duration = segment.duration
    if duration is None:
        return
    if duration.value <= 0:
        report.add(
            "E0802",
            f"a thermocycler segment of step `{step.name}` must last a positive "
            f"time, not {duration.text or duration}",
            source,
            span,
            label="not positive",
        )
    elif isinstance(segment, Segment) and duration.value > 3600:
        report.add(
            "W0801",
            f"a thermocycler segment of step `{step.name}` lasts "
            f"{duration.text or duration}, outside the usual 1 s to 1 h",
            source,
            span,
            label="implausible value",
            help="check the number and its unit",
        )


# ------------------------------------------------------------ the ledger
def _ledger(protocol: Protocol, source: Source | None, report: Report) -> tuple[LedgerEntry, ...]:
    declared = {c.name: c for c in protocol.containers}
    volumes: dict[str, Fraction | None] = {
        c.name: (c.initial.value if c.initial is not None else None) for c in protocol.containers
    }
    strict = bool(declared)
    current: str | None = None
    entries: list[LedgerEntry] = []

    def use(name: str, step: Step, parameter: str, as_source: bool) -> bool:
        if name in volumes:
            return True
        if strict:
            known = ", ".join(f"`{n}`" for n in sorted(declared))
            report.add(
                "E0805",
                f"container `{name}` is not declared",
                source,
                step.span_of(parameter),
                label="not in `containers`",
                help=f"declared containers: {known}",
            )
            return False
        # An undeclared container first used as a destination is a fresh, empty one;
        # first used as a source, its contents come from outside the protocol.
        volumes[name] = None if as_source else Fraction(0)
        return True

    def draw(name: str, amount: Fraction, step: Step, parameter: str, text: str) -> None:
        held = volumes[name]
        if held is None:
            return
        if amount > held:
            report.add(
                "E0803",
                f"step `{step.name}` draws {text} from `{name}`, which holds "
                f"only {format_value(held, 'uL')}",
                source,
                step.span_of(parameter),
                label="more than the container holds",
                notes=(f"the ledger before this step: {_describe(volumes)}",),
                help="reduce the volume or add enough to the container first",
            )
            volumes[name] = None  # avoid a cascade of errors from one mistake
        else:
            volumes[name] = held - amount

    # a solid dissolves in what its container holds: a transfer moves its share of the
    # volume (all of it with `transfer: all`), unknown when either volume is unknown
    masses: dict[str, Fraction | None] = {}

    def put(name: str, amount: Fraction | None) -> None:
        held = volumes[name]
        volumes[name] = None if held is None or amount is None else held + amount

    def weigh_in(name: str, amount: Fraction | None) -> None:
        held = masses.get(name, Fraction(0))
        masses[name] = None if held is None or amount is None else held + amount

    def carry(origin: str, target: str, moved: Fraction | None, held: Fraction | None) -> None:
        if origin not in masses:
            return
        solid = masses[origin]
        if moved is not None and held is not None and moved >= held:
            share = solid
        elif moved is None or held is None or solid is None or held == 0:
            share = None
        else:
            share = solid * moved / held
        weigh_in(target, share)
        masses[origin] = None if share is None or solid is None else solid - share

    for step in protocol.steps:
        action = step.action
        here = step.container or current
        match action:
            case Add():
                target = action.destination or here
                if target is None:
                    _missing(step, "destination", "`to: CONTAINER`", source, report)
                elif use(target, step, "destination", as_source=False):
                    if action.mass is not None:
                        weigh_in(target, action.mass.value)
                    else:
                        put(target, action.volume.value if action.volume else None)
                    current = target
            case Transfer():
                origin = action.source or here
                target = action.destination
                if origin is None:
                    _missing(step, "source", "`from CONTAINER`", source, report)
                if target is None:
                    _missing(step, "destination", "`to: CONTAINER`", source, report)
                if origin is None or target is None:
                    continue
                ok_origin = use(origin, step, "source", as_source=True)
                ok_target = use(target, step, "destination", as_source=False)
                if not (ok_origin and ok_target):
                    continue
                before = volumes[origin]
                if action.volume is None:
                    moved = volumes[origin]
                    volumes[origin] = Fraction(0)
                else:
                    moved = action.volume.value
                    draw(origin, moved, step, "volume", action.volume.text or str(action.volume))
                put(target, moved)
                carry(origin, target, moved if action.volume is not None else before, before)
                current = target
            case Cleanup():
                if here is not None and use(here, step, "container", as_source=True):
                    volumes[here] = _after_cleanup(action, volumes[here])
                    current = here
            case Centrifuge() if action.discard in FLOW_THROUGH:
                if here is not None and use(here, step, "container", as_source=True):
                    volumes[here] = Fraction(0)  # the flow-through leaves the protocol
                    current = here
            case Measure():
                if here is not None and use(here, step, "container", as_source=True):
                    if action.volume is not None:
                        draw(
                            here,
                            action.volume.value,
                            step,
                            "volume",
                            action.volume.text or str(action.volume),
                        )
                    current = here
            case (
                Mix() | Incubate() | Thermocycle() | Centrifuge() | Wash() | Wait() | Run() | Note()
            ):
                if step.container is not None and use(
                    step.container, step, "container", as_source=True
                ):
                    current = step.container
        entries.append(
            LedgerEntry(step.name, tuple(sorted(volumes.items())), tuple(sorted(masses.items())))
        )
    return tuple(entries)


def _after_cleanup(action: Cleanup, held: Fraction | None) -> Fraction | None:
    """The container's volume after a bead cleanup: the elution volume when it elutes; the
    sample with its beads when only the supernatant is kept; otherwise unknown."""
    if action.elute is not None:
        return action.elute.value
    if action.keep == "supernatant" and action.then is None and held is not None and action.ratio:
        return held * (1 + action.ratio.value)
    return None


def _missing(
    step: Step, parameter: str, syntax: str, source: Source | None, report: Report
) -> None:
    report.add(
        "E0806",
        f"step `{step.name}` has no {parameter}",
        source,
        step.span,
        label=f"needs a {parameter}",
        help=f"add {syntax} to the step",
    )


def _describe(volumes: dict[str, Fraction | None]) -> str:
    return ", ".join(
        f"`{name}` {'unknown' if v is None else format_value(v, 'uL')}"
        for name, v in sorted(volumes.items())
    )
