"""Protocols against the chemistry they carry out: a thermocycling step's annealing
temperature against the melting temperature of each primer where it anneals in the
workflow step the protocol (or the step) `realizes` (W0408).

Where the protocols and molecular backends meet, so a module of its own above both (the
driver's check for `protocol` declarations: the protocols check, then this). The
molecular model is built only when a protocol anneals in a step it links to a workflow
step, and primer3 is imported only then (`lablang.molecular.thermo`).
"""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.protocols import front as protocols_front
from lablang.protocols.model import Protocol, Step, Thermocycle, thermocycle_parameters
from lablang.protocols.quantities import Amount
from lablang.resolve import Program

__all__ = ["check_program"]


def check_program(program: Program, report: Report) -> None:
    """Check every protocol of the root module, then its annealing temperatures against
    the primers of the workflow steps it realizes."""
    # looked up at call time, so a caller that wraps the protocols check (a test's spy,
    # a profiler) wraps it here too
    protocols = protocols_front.check_program(program, report)
    buffers = {
        (protocol.name, step.name): _step_buffer(program, protocol.name, step.name, report)
        for protocol in protocols
        for step in protocol.steps
        if isinstance(step.action, Thermocycle)
    }
    wanted = [
        (protocol, step, target, annealing)
        for protocol in protocols
        for step in protocol.steps
        if isinstance(step.action, Thermocycle)
        and (target := step.realizes or protocol.realizes)
        and isinstance(annealing := thermocycle_parameters(step.action).get("annealing"), Amount)
    ]
    if not wanted:
        return
    from lablang.molecular.front import build_model

    model = build_model(program, Report()).model  # its problems are the molecular check's
    for protocol, step, target, annealing in wanted:
        buffer = buffers[protocol.name, step.name]
        for primer, tm, conditions in _primer_tms(model, target, buffer):
            if tm is not None and float(annealing.value) > tm:
                _warn(report, program, protocol, step, target, annealing, primer, tm, conditions)


def _step_buffer(
    program: Program, protocol: str, step: str, report: Report
) -> dict[str, float] | None:
    """The buffer a thermocycling step states (`salt: 20 mM`, `mg`, `dntp`,
    `primer_conc`), in BUFFER_FIELDS' units; None when it states none. A value that is
    not a concentration in bounds is E0429, with the default as its fix."""
    from lablang.molecular.thermo import BUFFER_FIELDS, DEFAULT_CONDITIONS, buffer_amount

    decl = next((d for d in program.decls("protocol") if d.name == protocol), None)
    entry = next(
        (
            m
            for m in (decl.body.members if decl is not None and decl.body else ())
            if isinstance(m, ast.Entry) and m.keyword == "step" and m.name == step
        ),
        None,
    )
    stated: dict[str, float] = {}
    for member in entry.body.members if entry is not None and entry.body else ():
        if not isinstance(member, ast.Field) or member.key not in BUFFER_FIELDS:
            continue
        value = member.value
        written = value if isinstance(value, ast.Quantity) else None
        amount, problem = buffer_amount(
            member.key, written.number if written else None, written.unit if written else None
        )
        field, unit = BUFFER_FIELDS[member.key][:2]
        if problem:
            default = f"{getattr(DEFAULT_CONDITIONS, field):g} {unit}"
            report.add(
                "E0429",
                problem + " (the buffer melting temperatures are computed in)",
                program.root.source,
                value.span,
                help=f"write the concentration in the reaction, e.g. `{default}` "
                "(primer3's default)",
                fix=Fix(f"use `{default}`", (Edit(value.span, default),)),
            )
            continue
        stated[member.key] = float(amount.to(unit).magnitude)
    return stated or None


def _primer_tms(
    model: Any, target: str, buffer: dict[str, float] | None = None
) -> list[tuple[str, float | None, str]]:
    """(primer, Tm at its best site, the conditions in words) for each primer of the
    derived step `target` (`workflow.step`), in the buffer the protocol step states
    (`buffer`) over the one the workflow states for it; empty when the target is not a
    derived step with primers."""
    from lablang.molecular.primer_sites import primer_sites, step_conditions
    from lablang.molecular.thermo import conditions_of

    workflow, _, name = target.partition(".")
    graph = next((g for g in model.graphs if g.derived and g.name == workflow), None)
    transition = next((t for t in graph.transitions if t.name == name), None) if graph else None
    if graph is None or transition is None:
        return []
    # the protocol step's fields over the workflow's `param`s over primer3's defaults
    conditions = conditions_of(buffer or {}, step_conditions(transition))
    oligos = {o.name: o for o in model.oligos}
    return [
        (site.primer, site.tm, conditions.text())
        for site in primer_sites(oligos, graph, transition, conditions)
    ]


def _warn(
    report: Report,
    program: Program,
    protocol: Protocol,
    step: Step,
    target: str,
    annealing: Amount,
    primer: str,
    tm: float,
    conditions: str,
) -> None:
    span = step.spans.get("thermocycle", step.span)
    report.add(
        "W0408",
        f"step `{step.name}` of protocol `{protocol.name}` anneals at {annealing.text}, above "
        f"the melting temperature of primer `{primer}` at its site in `{target}` "
        f"({tm:.1f} C; {conditions}): it would bind weakly or not at all",
        program.root.source,
        span,
        help=f"anneal at or below {tm:.0f} C (a few degrees under the Tm is usual), or use a "
        "primer whose 3' part pairs over more bases",
    )
