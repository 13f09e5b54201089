"""What a task's steps show about a protocol step: the calls that move liquid (with a
pipette's ledger), the success spec's atoms, the task's bindings and tolerances, and
where a finding is reported (the task's place and the protocol's)."""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from lablang.diagnostics import Fix, Label, Report
from lablang.protocols import model as pm
from lablang.protocols.quantities import CANONICAL, Amount
from lablang.sim import model as sm
from lablang.sim.front_instruction import predicate_calls
from lablang.sim.front_values import SI
from lablang.source import NO_SPAN, Source, Span
from lablang.units import UNITS

# skill -> (index of the source container, of the destination, of the volume); None: none
LIQUID_SKILLS: dict[str, tuple[int | None, int | None, int | None]] = {
    "pour": (0, 1, 2),
    "aspirate": (1, None, 2),
    "dispense": (None, 1, 2),
    "transfer": (1, 2, 3),
}
# the same for the skills that move a powder by mass: `scoop(tool, source, mass)` takes a
# dose as `aspirate` draws, `empty_scoop(tool, target)` releases it all as a `dispense`
# without a volume; `dispense_powder(held, target, mass)` tips a held container
SOLID_SKILLS: dict[str, tuple[int | None, int | None, int | None]] = {
    "scoop": (1, None, 2),
    "empty_scoop": (None, 1, None),
    "dispense_powder": (0, 1, 2),
}
# the skills that release what a tool took (its source is where the tool took it)
GIVING = frozenset({"dispense", "empty_scoop", "dispense_powder"})
# the skills that take contents into a tool (a pipette, a scoop) rather than deliver them
TAKING = frozenset({"aspirate", "scoop"})
# a protocol's mixing method -> the skills that do it, and the index of their count
MIX_SKILLS: dict[str, dict[str, int | None]] = {
    "pipette": {"mix_by_pipetting": 2},
    "invert": {"invert": 1},
    "inversion": {"invert": 1},
    "vortex": {"vortex": None, "shake": None},
    "shake": {"shake": None},
    "swirl": {"swirl": None},
    "stir": {"stir": None},
}
# mixers that act on the fixture the container stands on (`stir(stirrer, 6 s)`): the
# container is not among their arguments, so the spec (`on(flask, stirrer)`) ties them
ON_FIXTURE = frozenset({"stir"})


def si_value(amount: Amount) -> float:
    """A protocol's exact amount as the simulator's SI float (temperatures in C)."""
    unit = UNITS[CANONICAL[amount.dimension]]
    return float(amount.value * unit.factor + unit.offset) * SI.get(amount.dimension, 1.0)


def words(value: float, dimension: str) -> str:
    """An SI value in the unit a bench reader expects (`20 mL`, `150 uL`, `37 C`)."""
    if dimension == "volume":
        unit, scale = ("mL", 1e-6) if abs(value) >= 1e-6 else ("uL", 1e-9)
    elif dimension == "mass":
        unit, scale = ("g", 1e-3) if abs(value) >= 1e-3 else ("mg", 1e-6)
    else:
        unit, scale = {"temperature": "C", "time": "s"}.get(dimension, ""), 1.0
    return f"{value / scale:.6g} {unit}".strip()


def shown(amount: Amount) -> str:
    """A protocol's amount as its author wrote it."""
    return amount.text or str(amount)


@frozen
class Where:
    """The task's file and the protocol's, for diagnostics at both places."""

    task: Source
    protocol: Source
    report: Report

    def add(
        self,
        code: str,
        message: str,
        span: Span | None,
        at_protocol: Span,
        what: str,
        *,
        label: str = "",
        help: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        labels: list[Label] = []
        notes: list[str] = []
        if self.protocol is self.task or self.protocol.name == self.task.name:
            labels.append(Label(at_protocol, what))
        else:
            line, column = self.protocol.position(at_protocol.start)
            notes.append(f"{what}: {self.protocol.name}:{line}:{column}")
        self.report.add(
            code,
            message,
            self.task,
            span or NO_SPAN,
            label=label,
            labels=labels,
            notes=notes,
            help=help,
            fix=fix,
        )


@frozen
class Bound:
    containers: dict[str, sm.Ref]  # protocol container -> scene entity (or part)
    materials: dict[str, str]  # protocol material -> scene substance
    working: dict[int, str | None]  # `working_containers` of the protocol


@frozen
class Delivery:
    call: sm.Call
    source: str | None  # the entity the contents came from (a tool's: where it took them)
    destination: str | None
    amount: float | None  # SI (m^3 or kg); None when unknown
    dimension: str = "volume"  # "volume" (a liquid) or "mass" (a powder)


def pipette_ledger(task: sm.Task) -> dict[int, Delivery]:
    """Each call of the task's programs that moves contents (by `id`), with its source,
    destination and amount: a pipette's dispense without a volume empties it, and its
    source is where it last aspirated; a scoop's dose comes from where it scooped."""
    held: dict[str, tuple[str | None, float]] = {}
    found: dict[int, Delivery] = {}
    for step in task.steps:
        for call in step.all_calls:
            table = LIQUID_SKILLS if call.func in LIQUID_SKILLS else SOLID_SKILLS
            if call.func not in table:
                continue
            src, dst, vol = table[call.func]
            amount = number(call, vol)
            source = ref(call, src)
            tool = ref(call, 0)
            if call.func in TAKING and tool:
                before = held.get(tool, (source, 0.0))[1]
                held[tool] = (source, before + (amount or 0.0))
            elif call.func in GIVING and tool in held:
                source, inside = held[tool]
                amount = inside if amount is None else amount
                held[tool] = (source, max(inside - amount, 0.0))
            dimension = "volume" if table is LIQUID_SKILLS else "mass"
            found[id(call)] = Delivery(call, source, ref(call, dst), amount, dimension)
    return found


def ref(call: sm.Call, index: int | None) -> str | None:
    if index is None or index >= len(call.args):
        return None
    arg = call.args[index]
    return arg.text() if isinstance(arg, sm.Ref) else None


def number(call: sm.Call, index: int | None) -> float | None:
    if index is None or index >= len(call.args):
        return None
    arg = call.args[index]
    return arg.value if isinstance(arg, sm.Num) else None


def tolerance(task: sm.Task, dimension: str) -> float:
    trace = task.trace
    assert trace is not None
    found = next((n.value for n in trace.tolerances if n.dimension == dimension), 0.0)
    return found + 1e-12 * max(1.0, found)  # float noise, never a unit's worth


def atoms(steps: list[sm.Step], func: str) -> Iterator[sm.Call]:
    for step in steps:
        for atom in predicate_calls(step.success):
            if atom.func == func:
                yield atom


def working_containers(protocol: pm.Protocol) -> dict[int, str | None]:
    """The container each step (by `id`) works in when it names none: the last
    destination before it (one pass, as the diff and the ledger read it)."""
    found: dict[int, str | None] = {}
    current = None
    for step in protocol.steps:
        found[id(step)] = step.container or current
        current = getattr(step.action, "destination", None) or step.container or current
    return found


def containers_of(step: pm.Step, working: dict[int, str | None]) -> list[str]:
    """The containers a protocol step names, or works in (`mix`, `incubate`)."""
    action = step.action
    names = [getattr(action, key, None) for key in ("source", "destination")]
    names.append(step.container)
    if isinstance(action, pm.Mix | pm.Incubate):
        names.append(working.get(id(step)))
    return [n for n in names if n]
