"""`lablang explain NAME FILE`: what a workflow step or an oligo of a checked file does,
in words, with each primer's site and melting temperature there (`primer_sites`).

>>> from lablang.molecular.model import MolecularModel
>>> explain_in_model(MolecularModel(), "nothing") is None
True
"""

from __future__ import annotations

from lablang.molecular.model import Graph, MolecularModel, OligoDef, TransitionDef
from lablang.molecular.primer_sites import primer_sites, step_conditions

__all__ = ["explain_in_model", "explainable_names"]


def explainable_names(model: MolecularModel) -> list[str]:
    """The names `explain_in_model` knows: `workflow.step`, each step alone, each oligo."""
    steps = [f"{g.name}.{t.name}" for g in model.graphs for t in g.transitions]
    alone = [t.name for g in model.graphs for t in g.transitions]
    return list(dict.fromkeys([*steps, *alone, *(o.name for o in model.oligos)]))


def explain_in_model(model: MolecularModel, name: str) -> str | None:
    """The explanation of the step `workflow.step` (or `step`, in every workflow that has
    one) or of the oligo `name`, or None when the model has neither."""
    workflow, dot, step = name.rpartition(".")
    steps = [
        (graph, transition)
        for graph in model.graphs
        for transition in graph.transitions
        if transition.name == (step if dot else name) and (not dot or graph.name == workflow)
    ]
    if steps:
        return "\n\n".join(_step_text(model, g, t) for g, t in steps) + "\n"
    oligo = model.oligo(name)
    if oligo is None:
        return None
    from lablang.molecular.sequence import render

    role = f" ({oligo.role.replace('_', ' ')})" if oligo.role else ""
    lines = [f"oligo `{oligo.name}`{role}: " + ", ".join(render(s) for s in oligo.strands)]
    used = [(g, t) for g in model.graphs for t in g.transitions if oligo.name in t.oligos]
    for graph, transition in used:
        site = next(
            (s for s in primer_sites(_oligos(model), graph, transition) if s.primer == name), None
        )
        where = f"step `{transition.name}` of workflow `{graph.name}` ({transition.detail})"
        if site is None:
            lines.append(f"  in {where}: does not anneal to the step's substrates")
        else:
            lines.append(f"  in {where}: {site.text().split(': ', 1)[1]}")
            lines.append(f"    ({step_conditions(transition).text()})")
    if not used:
        lines.append("  used in no workflow step")
    return "\n".join(lines) + "\n"


def _step_text(model: MolecularModel, graph: Graph, transition: TransitionDef) -> str:
    """A step: what it runs on what, what it gives, and its primers at their sites."""
    kind = "derived" if graph.derived else "declared"
    what = transition.detail or transition.operation
    category = transition.operation.replace("_", " ")
    lines = [
        f"step `{transition.name}` of workflow `{graph.name}` ({kind}): {what}"
        + (f" ({category})" if category != what else ""),
        "  substrates: " + (", ".join(f"`{s}`" for s in transition.substrates) or "none"),
        "  products: "
        + (", ".join(_product(graph, transition, p) for p in transition.products) or "none"),
    ]
    if transition.oligos:
        lines.append("  oligos: " + ", ".join(f"`{o}`" for o in transition.oligos))
    sites = primer_sites(_oligos(model), graph, transition)
    if sites:
        lines.append(f"  primers at their sites ({step_conditions(transition).text()}):")
        lines += [f"    {site.text()}" for site in sites]
    return "\n".join(lines)


def _product(graph: Graph, transition: TransitionDef, name: str) -> str:
    state = graph.state(name)
    notes = [state.architecture.value.replace("_", " ")] if state is not None else []
    if state is not None and state.status != "derived":
        notes.append(state.status)
    if name in transition.discarded:
        notes.append("discarded")
    return f"`{name}`" + (f" ({', '.join(notes)})" if notes else "")


def _oligos(model: MolecularModel) -> dict[str, OligoDef]:
    return {o.name: o for o in model.oligos}
