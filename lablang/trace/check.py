"""The driver's hook for scenes and tasks: the simulation's front end, then the trace of
every task that says `realizes PROTOCOL`, the protocol found through the module's own
declarations and imports (`lablang.resolve`, with its roots)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import evolve, frozen

from lablang.check.names import did_you_mean
from lablang.diagnostics import Edit, Fix, Report
from lablang.resolve import Program
from lablang.sim import model as sm
from lablang.sim.front import tasks_of
from lablang.source import NO_SPAN, Source

if TYPE_CHECKING:
    from lablang.protocols.model import Protocol


@frozen
class Traced:
    """A task, the protocol it realizes and the protocol's source (for locations)."""

    task: sm.Task
    protocol: Protocol
    protocol_source: Source


def check_program(program: Program, report: Report) -> None:
    """`lablang check` for scenes and tasks: the simulator's model, then each trace."""
    traced_tasks(program, report)


def traced_tasks(program: Program, report: Report) -> list[Traced]:
    """Every task of the root module that realizes a protocol, its trace checked into
    `report` (the tasks with front-end errors, or whose protocol is not found, left out)."""
    source = program.root.source
    found: list[Traced] = []
    for task in tasks_of(program, report).values():
        if task.trace is None:
            continue
        # the protocols' model and the trace load only for a task that has one
        from lablang.trace.steps import check_trace

        protocol = _protocol(task.trace.protocol, program, source, report)
        if protocol is None:
            continue
        model, protocol_source = protocol
        check_trace(task, source, model, protocol_source, report)
        found.append(Traced(task, model, protocol_source))
    return found


def _protocol(
    name: sm.Named, program: Program, source: Source, report: Report
) -> tuple[Protocol, Source] | None:
    symbol = program.root.lookup(tuple(name.name.split(".")))
    at = name.span or NO_SPAN
    if symbol is None or symbol.decl.kind != "protocol":
        pool = [s.name for s in program.root.visible() if s.decl.kind == "protocol"]
        guess = did_you_mean(name.name, pool)
        report.add(
            "E0840",
            f"`{name.name}` is not a protocol declared in this module or imported",
            source,
            at,
            label="the protocol this task realizes",
            help=f"did you mean `{guess}`?"
            if guess
            else "declare it here, or import it: `use protocols.prep.{prep}`",
            fix=Fix(f"realize `{guess}`", (Edit(at, guess),)) if guess and name.span else None,
        )
        return None
    from lablang.protocols.front import build_protocols

    scratch = Report()  # the protocol's own problems are reported where it is checked
    only = evolve(symbol.module.module, decls=(symbol.decl,))
    (model,) = build_protocols(only, symbol.module.source, scratch)
    if scratch.has_errors:
        report.add(
            "E0840",
            f"protocol `{name.name}` has errors, so the task's trace to it is not checked",
            source,
            at,
            notes=[f"see `lablang check {symbol.module.source.name}`"],
            help="fix the protocol first",
        )
        return None
    return model, symbol.module.source
