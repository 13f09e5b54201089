"""Declared states and transitions, and the checks on declared graphs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lablang import ast
from lablang.molecular import operations as ops
from lablang.molecular.builder.common import (
    Failure,
    block_fields,
    dotted,
    names_of,
    word_of,
)
from lablang.molecular.builder.compare import (
    GRAPH_HELP,
    closeness,
    compare_state,
    graph_problems,
)
from lablang.molecular.builder.derivation import (
    Derivation,
)
from lablang.molecular.model import (
    OPERATIONS,
    Discontinuity,
    Graph,
    StateDef,
    StrandDef,
    TransitionDef,
)
from lablang.molecular.molecule import (
    Architecture,
    MolType,
    Pool,
    Single,
    Strand,
)
from lablang.molecular.sequence import (
    Seq,
    SequenceError,
    plain,
    reverse_complement,
)
from lablang.source import Span


class DeclaredChecks(Derivation):
    def state(self, decl: ast.Decl) -> StateDef:
        arch_word = word_of(decl.type) if decl.type is not None else None
        try:
            arch = Architecture(arch_word) if arch_word else Architecture.UNKNOWN
        except ValueError:
            raise Failure(
                "E0410",
                f"`{arch_word}` is not a strand architecture",
                decl.type.span,  # type: ignore[union-attr]
                help="one of: " + ", ".join(a.value for a in Architecture),
            ) from None
        strands: list[StrandDef] = []
        pairs: list[tuple[str, str]] = []
        breaks: list[Discontinuity] = []
        realizes = None
        partial: str | None = None
        for clause in decl.clauses:
            if clause.keyword == "realizes" and not isinstance(clause.value, ast.Assignment):
                realizes = dotted(clause.value)
        for member in decl.body.members if decl.body else ():
            match member:
                case ast.Entry(keyword="strand", name=name, type=ast.Sequence() as seq_node):
                    strand_seq = self.sequence(self.info, seq_node)
                    derived_from = []
                    for clause in member.clauses:
                        if clause.keyword == "from" and not isinstance(
                            clause.value, ast.Assignment
                        ):
                            src = dotted(clause.value)
                            orientation = self.provenance(src, strand_seq, name or "", clause)
                            derived_from.append((src, orientation))
                    moltype = MolType.RNA if seq_node.moltype == "RNA" else MolType.DNA
                    strands.append(
                        StrandDef(
                            name or f"s{len(strands) + 1}",
                            strand_seq,
                            moltype,
                            tuple(derived_from),
                        )
                    )
                case ast.ExprEntry(keyword="pair", value=ast.Binary(op="~", left=a, right=b)):
                    pairs.append((dotted(a), dotted(b)))
                case ast.Entry(keyword="nick" | "gap" | "break" as kind):
                    fields = block_fields(member.body) if member.body else {}
                    breaks.append(
                        Discontinuity(
                            kind,
                            word_of(fields.get("strand")) or member.name or "",
                            word_of(fields.get("after")) or "",
                            word_of(fields.get("before")) or "",
                        )
                    )
                case ast.Field(key="derived") | ast.Field(key="realizes"):
                    realizes = dotted(member.value)
                case ast.Field(key="partial", value=ast.String(value=reason)):
                    partial = reason
                case _:
                    pass
        state = StateDef(
            decl.name,
            tuple(strands),
            arch,
            decl.title or "",
            tuple(pairs),
            tuple(breaks),
            realizes,
            status="partial" if partial is not None else "declared",
            status_reason=partial or "",
        )
        self.check_architecture(state, decl)
        return state

    def provenance(self, source: str, strand: Seq, strand_name: str, clause: ast.Clause) -> str:
        """The orientation in which a strand carries the oligo it says it comes from;
        W0404 when it carries it in neither."""
        found = self.lookup(self.info, source.split("."))
        if found is None or found[1].kind not in ("oligo", "segment"):
            return "unknown"  # the core reports undeclared names
        holder = self.oligo(*found) if found[1].kind == "oligo" else self.segment(*found)
        wanted = plain(holder.seq).tokens()
        have = plain(strand).tokens()
        if _contains(have, wanted):
            return "same_orientation"
        if _contains(have, reverse_complement(plain(holder.seq)).tokens()):
            return "reverse_complement"
        self.error(
            "W0404",
            f"strand `{strand_name}` says it comes from `{source}` but carries its sequence in "
            "neither orientation",
            clause.span,
            help=f"include `{{{source}}}` in the strand or correct the provenance",
        )
        return "unknown"

    def check_architecture(self, state: StateDef, decl: ast.Decl) -> None:
        arch, n = state.architecture, len(state.strands)
        names = {s.name for s in state.strands}
        for a, b in state.pairs:
            for side in (a, b):
                if side not in names:
                    self.error(
                        "E0410",
                        f"`pair` names `{side}`, which is not a strand of `{state.name}`",
                        decl.name_span,
                        help="strands: " + ", ".join(f"`{s}`" for s in names),
                    )
        problem = None
        types = sorted(s.moltype.value for s in state.strands)
        match arch:
            case Architecture.SINGLE_STRANDED:
                if n != 1:
                    problem = f"single_stranded needs one strand, `{state.name}` has {n}"
            case Architecture.RNA_DNA_HYBRID:
                if types != ["DNA", "RNA"]:
                    problem = f"rna_dna_hybrid needs one RNA and one DNA strand, `{state.name}` has {types}"
                elif not state.pairs:
                    problem = f"rna_dna_hybrid `{state.name}` declares no `pair`"
            case Architecture.DOUBLE_STRANDED | Architecture.Y_SHAPED_DUPLEX:
                if n != 2:
                    problem = f"{arch.value} needs two strands, `{state.name}` has {n}"
                elif not state.pairs:
                    problem = f"{arch.value} `{state.name}` declares no `pair`"
            case Architecture.PARTIALLY_DUPLEX:
                if n < 2:
                    problem = f"partially_duplex needs at least two strands, `{state.name}` has {n}"
                elif not state.pairs:
                    problem = f"partially_duplex `{state.name}` declares no `pair`"
            case _:
                pass
        if problem:
            self.error(
                "E0410",
                problem,
                decl.type.span if decl.type else decl.name_span,
                help="the architecture must match the strands and their pairing",
            )

    def transition(self, decl: ast.Decl) -> TransitionDef:
        operation = word_of(decl.type) if decl.type is not None else None
        if operation not in OPERATIONS:
            raise Failure(
                "E0412",
                f"`{operation}` is not a LibStructBench operation",
                decl.type.span if decl.type else decl.name_span,
                help="one of: " + ", ".join(OPERATIONS),
            )
        fields = block_fields(decl.body) if decl.body else {}
        reagents = []
        raw = fields.get("reagents")
        if isinstance(raw, ast.ListExpr):
            for item in raw.items:
                reagents.append((word_of(item) or "", ""))
        return TransitionDef(
            decl.name,
            operation,
            names_of(fields.get("substrates")),
            names_of(fields.get("products")),
            names_of(fields.get("carried")),
            names_of(fields.get("discarded")),
            names_of(fields.get("oligos")),
            tuple(reagents),
            word_of(fields.get("detail")) or "",
        )

    # -- checks
    def check_graph(self, graph: Graph, decls: dict[str, ast.Decl]) -> None:
        for code, message, where in graph_problems(graph):
            span = decls[where].name_span if where in decls else Span(0, 0)
            if not decls and graph.derived:
                span = self.spans.get(graph.name, span)
            self.error(code, message, span, help=GRAPH_HELP[code])

    def check_declared_pcr(self, graph: Graph, decls: dict[str, ast.Decl]) -> None:
        """Run each declared PCR on its substrates' strands: primers that amplify none of
        them are reported (W0402), with the interpreter's reason."""
        for transition in graph.transitions:
            if transition.operation != "pcr" or len(transition.oligos) not in (1, 2):
                continue
            primers = []
            for name in transition.oligos:
                found = self.lookup(self.info, name.split("."))
                if found is None or found[1].kind != "oligo":
                    break
                try:
                    primers.append(self.oligo(*found).as_oligo())
                except (Failure, SequenceError):
                    break
            if len(primers) != len(transition.oligos):
                continue
            # a mix of substrates (tagmentation or fragmentation products) is one pool:
            # as in the interpreter, members no primer pair amplifies are discarded, and
            # only a mix of which none amplifies is reported
            unamplified: list[tuple[str, list[str]]] = []
            for substrate in transition.substrates:
                state = graph.state(substrate)
                if state is None:
                    continue
                reasons = []
                amplified = False
                for strand in state.strands:
                    if strand.moltype is not MolType.DNA:
                        continue
                    try:
                        pool = ops.pcr(
                            Single(Strand(strand.seq, MolType.DNA, strand.name)), primers
                        )
                    except ops.OperationFailure as failure:
                        reasons.append(failure.message)
                        continue
                    amplified = amplified or bool(pool.carried)
                    reasons.extend(p.reason for p in pool.discarded)
                if state.strands:
                    if amplified:
                        break
                    unamplified.append((substrate, reasons))
            else:
                for substrate, reasons in unamplified:
                    names = ", ".join(f"`{o}`" for o in transition.oligos)
                    self.error(
                        "W0402",
                        f"pcr `{transition.name}` with {names} does not amplify substrate "
                        f"`{substrate}`",
                        decls[transition.name].name_span,
                        notes=sorted(set(reasons))[:3],
                        help="check the substrate's strands and the primers, or the disposition "
                        "of the product that should be amplified",
                    )

    def not_derived(self, name: str) -> str | None:
        """Why `workflow.step` (or one of its products, `step_2`) was not derived, or None."""
        base = re.sub(r"_\d+$", "", name)
        return self.unknown.get(name) or self.unknown.get(base)

    def check_realizes(
        self, states: Iterable[StateDef], derived: dict[str, Pool], decls: dict[str, ast.Decl]
    ) -> dict[str, tuple[str, str]]:
        """Compare each state that `realizes` a derived step with it (E0405 when they
        differ); returns the verified status of each such state: derived when equal,
        unknown when the step could not be derived (its failure is reported once)."""
        statuses: dict[str, tuple[str, str]] = {}
        for state in states:
            if state.realizes is None:
                continue
            pool = derived.get(state.realizes)
            decl = decls[state.name]
            if pool is None:
                why = self.not_derived(state.realizes)
                if why is not None:
                    statuses[state.name] = ("unknown", f"`{state.realizes}` not derived: {why}")
                    continue
                self.error(
                    "E0405",
                    f"`{state.realizes}` is not a derived workflow step",
                    decl.name_span,
                    help="name a step as `workflow.step`",
                )
                continue
            carried = pool.carried
            if not carried:
                continue
            # a step with several carried products (a fragment mix): any one may match
            problems = [compare_state(state, product.molecule) for product in carried]
            problem = None
            if all(p is not None for p in problems):
                # report against the product the declaration comes closest to
                best = max(range(len(carried)), key=lambda k: closeness(state, carried[k].molecule))
                problem = problems[best]
            if problem is not None:
                message, notes = problem
                self.error(
                    "E0405",
                    f"declared state `{state.name}` differs from derived `{state.realizes}`: "
                    + message,
                    decl.name_span,
                    notes=notes,
                    help="correct the declared strand or the workflow",
                )
            elif state.status != "partial":
                statuses[state.name] = ("derived", f"equals derived `{state.realizes}`")
        return statuses

    # -- libraries and reads


def _contains(haystack: tuple[Any, ...], needle: tuple[Any, ...]) -> bool:
    if not needle:
        return True
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))
