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

from lablang.diagnostics import Report
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
        for primer, tm in _primer_tms(model, target):
            if tm is not None and float(annealing.value) > tm:
                _warn(report, program, protocol, step, target, annealing, primer, tm)


def _primer_tms(model: Any, target: str) -> list[tuple[str, float | None]]:
    """(primer, Tm at its best site) for each primer of the derived step `target`
    (`workflow.step`); empty when the target is not a derived step with primers."""
    from lablang.molecular.primer_sites import primer_sites

    workflow, _, name = target.partition(".")
    graph = next((g for g in model.graphs if g.derived and g.name == workflow), None)
    transition = next((t for t in graph.transitions if t.name == name), None) if graph else None
    if graph is None or transition is None:
        return []
    return [
        (site.primer, site.tm)
        for site in primer_sites({o.name: o for o in model.oligos}, graph, transition)
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
) -> None:
    from lablang.molecular.thermo import DEFAULT_CONDITIONS

    span = step.spans.get("thermocycle", step.span)
    report.add(
        "W0408",
        f"step `{step.name}` of protocol `{protocol.name}` anneals at {annealing.text}, above "
        f"the melting temperature of primer `{primer}` at its site in `{target}` "
        f"({tm:.1f} C; {DEFAULT_CONDITIONS.text()}): it would bind weakly or not at all",
        program.root.source,
        span,
        help=f"anneal at or below {tm:.0f} C (a few degrees under the Tm is usual), or use a "
        "primer whose 3' part pairs over more bases",
    )
