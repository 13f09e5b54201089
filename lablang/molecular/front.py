"""From the checked AST to the molecular model, and the molecular checks (E04xx).

`build_model(program, report)` turns `segment`, `oligo`, `state`, `transition`,
`workflow` and `library` declarations into a `MolecularModel`: derived workflows are
run through the interpreter, declared states and transitions are read as written.
`check_program(program, report)` (called by `lablang check`) builds the model and
runs the checks: declared vs derived states, graph rules, reads against primers.
"""

from __future__ import annotations

from attrs import define, evolve, field

from lablang.diagnostics import Report
from lablang.molecular.builder.common import PARAMETER_DEFAULTS, Failure
from lablang.molecular.builder.compare import (
    compare_state,
    declared_graph,
    graph_problems,
    sequence_difference,
)
from lablang.molecular.builder.libraries import Libraries
from lablang.molecular.model import (
    Graph,
    LibraryDef,
    MolecularModel,
)
from lablang.molecular.molecule import (
    Pool,
)
from lablang.molecular.ops import REGISTRY
from lablang.molecular.sequence import (
    SequenceError,
)
from lablang.resolve import Program
from lablang.source import Source, Span

__all__ = [
    "PARAMETER_DEFAULTS",
    "MolecularProgram",
    "build_model",
    "check_program",
    "compare_state",
    "describe",
    "graph_problems",
    "sequence_difference",
]


@define
class MolecularProgram:
    """The model plus where each name was declared (for diagnostics)."""

    model: MolecularModel
    source: Source
    spans: dict[str, Span] = field(factory=dict)
    derived: dict[str, Pool] = field(factory=dict)  # "workflow.binding" -> pool


def check_program(program: Program, report: Report) -> None:
    """Build the molecular model of the root module and report every E04xx problem."""
    build_model(program, report)


def build_model(program: Program, report: Report) -> MolecularProgram:
    """The molecular model of a checked program; problems go to `report`."""
    builder = _Builder(program.root, report)
    return builder.build()


# ---------------------------------------------------------------------- the builder


class _Builder(Libraries):
    def build(self) -> MolecularProgram:
        module = self.info.module
        segs, olis = [], []
        for decl in module.decls:
            self.spans[decl.name] = decl.name_span
            try:
                if decl.kind == "segment":
                    segs.append(self.segment(self.info, decl))
                elif decl.kind == "oligo":
                    olis.append(self.oligo(self.info, decl))
            except Failure as failure:
                self.fail(failure)
            except SequenceError as error:
                self.error("E0413", f"`{decl.name}`: {error}", decl.name_span)
        # oligos imported with `use` are part of the protocol's oligo set (LibStructBench
        # Task 2): each explicitly imported one, in import order
        for name, symbol in self.info.imported.items():
            if symbol.decl.kind == "oligo" and all(o.name != name for o in olis):
                try:
                    olis.append(evolve(self.oligo(symbol.module, symbol.decl), name=name))
                except Failure as failure:
                    self.fail(failure)
                except SequenceError as error:
                    self.error("E0413", f"`{name}`: {error}", self.info.module.span)
        graphs: list[Graph] = []
        libraries: list[LibraryDef] = []
        derived: dict[str, Pool] = {}
        declared_states = [d for d in module.decls if d.kind == "state"]
        declared_transitions = [d for d in module.decls if d.kind == "transition"]
        for decl in module.decls:
            if decl.kind == "workflow":
                try:
                    graph, pools = self.workflow(decl)
                    graphs.append(graph)
                    derived.update({f"{decl.name}.{k}": v for k, v in pools.items()})
                    # each product state by its own name too (`gex.frag_1`)
                    for state in graph.states:
                        key = f"{decl.name}.{state.name}"
                        if (
                            key not in derived
                            and state.molecule is not None
                            and state.status != "unknown"
                        ):
                            derived[key] = Pool.of(state.molecule, state.name)
                except Failure as failure:
                    self.fail(failure)
        states = []
        for decl in declared_states:
            try:
                states.append(self.state(decl))
            except Failure as failure:
                self.fail(failure)
        transitions = []
        for decl in declared_transitions:
            try:
                transitions.append(self.transition(decl))
            except Failure as failure:
                self.fail(failure)
        if states or transitions:
            graph = declared_graph(module.name or "workflow", states, transitions, module.decls)
            graphs.insert(0, graph)
            self.check_graph(graph, {d.name: d for d in declared_states + declared_transitions})
            self.check_declared_pcr(graph, {d.name: d for d in declared_transitions})
            statuses = self.check_realizes(states, derived, {d.name: d for d in declared_states})
            graphs[0] = evolve(
                graph,
                states=tuple(
                    evolve(s, status=statuses[s.name][0], status_reason=statuses[s.name][1])
                    if s.name in statuses
                    else s
                    for s in graph.states
                ),
            )
        for graph in graphs:
            # a workflow with a failed step is incomplete: its graph rules (a product no
            # later step uses) would only restate that failure
            if graph.derived and not graph.unknown:
                self.check_graph(graph, {})
        for decl in module.decls:
            if decl.kind == "library":
                try:
                    libraries.append(self.library(decl, derived))
                except Failure as failure:
                    self.fail(failure)
        model = MolecularModel(
            name=module.name or "",
            title=module.title or "",
            segments=tuple(segs),
            oligos=tuple(olis),
            graphs=tuple(graphs),
            libraries=tuple(libraries),
        )
        return MolecularProgram(model, self.source, self.spans, derived)


def describe(name: str) -> str | None:
    """Documentation of a workflow operation for editors (hover) and `lablang explain`,
    from the operation registry; None if `name` is not an operation.

    >>> describe("pcr").splitlines()[0]
    '`pcr(molecule, primers: [oligo], cycles: number, suppressed: text)` — molecular operation (pcr)'
    """
    op = REGISTRY.get(name)
    return None if op is None else op.describe().rstrip()
