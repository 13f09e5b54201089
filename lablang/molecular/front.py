"""From the checked AST to the molecular model, and the molecular checks (E04xx).

`build_model(program, report)` turns `segment`, `oligo`, `state`, `transition`,
`workflow` and `library` declarations into a `MolecularModel`: derived workflows are
run through the interpreter, declared states and transitions are read as written.
`check_program(program, report)` (called by `lablang check`) builds the model and
runs the checks: declared vs derived states, graph rules, reads against primers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import attrs

from lablang import ast
from lablang.diagnostics import Report
from lablang.molecular import operations as ops
from lablang.molecular.model import (
    MODALITIES,
    OPERATIONS,
    Discontinuity,
    Graph,
    LibraryDef,
    MolecularModel,
    OligoDef,
    ReadDef,
    SegmentDef,
    StateDef,
    StrandDef,
    TransitionDef,
    state_from_molecule,
)
from lablang.molecular.molecule import (
    Architecture,
    Disposition,
    Duplex,
    MolType,
    Pool,
    Product,
    Single,
    Strand,
    top_strand,
)
from lablang.molecular.sequence import (
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Part,
    Ribo,
    Seq,
    SequenceError,
    Symbol,
    Thioate,
    fold_anchors,
    kept_positions,
    placeholder,
    plain,
    render,
    reverse_complement,
)
from lablang.resolve import ModuleInfo, Program
from lablang.source import Source, Span

__all__ = ["MolecularProgram", "build_model", "check_program"]

SEGMENT_KINDS = {
    "barcode": "CELL_BARCODE", "umi": "UMI", "index": "INDEX", "payload": "CDNA",
    "spacer": "SPACER", "linker": "LINKER",
}  # fmt: skip
MAX_WORKFLOW_STEPS = 2_000
OLIGO_KINDS = ("single", "assembled", "double_stranded", "hairpin", "unknown")
MAX_SEGMENT_LENGTH = 100_000
MAX_SEQUENCE_PARTS = 20_000
MAX_SEQUENCE_TOKENS = 200_000


@attrs.define
class MolecularProgram:
    """The model plus where each name was declared (for diagnostics)."""

    model: MolecularModel
    source: Source
    spans: dict[str, Span] = attrs.field(factory=dict)
    derived: dict[str, Pool] = attrs.field(factory=dict)  # "workflow.binding" -> pool


class _Failure(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        span: Span,
        *,
        label: str = "",
        notes: Sequence[str] = (),
        help: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.span = code, message, span
        self.label, self.notes, self.help = label, tuple(notes), help


def check_program(program: Program, report: Report) -> None:
    """Build the molecular model of the root module and report every E04xx problem."""
    build_model(program, report)


def build_model(program: Program, report: Report) -> MolecularProgram:
    """The molecular model of a checked program; problems go to `report`."""
    builder = _Builder(program.root, report)
    return builder.build()


# ---------------------------------------------------------------------- the builder


class _Builder:
    def __init__(self, info: ModuleInfo, report: Report) -> None:
        self.info = info
        self.report = report
        self.source = info.source
        self.segments: dict[tuple[int, str], SegmentDef] = {}
        self.oligos: dict[tuple[int, str], OligoDef] = {}
        self.busy: set[tuple[int, str]] = set()
        self.spans: dict[str, Span] = {}
        self.params: dict[str, Any] = dict(PARAMETER_DEFAULTS)

    # -- diagnostics
    def error(self, code: str, message: str, span: Span, **kw: Any) -> None:
        self.report.add(code, message, self.source, span, **kw)

    def fail(self, failure: _Failure) -> None:
        self.error(
            failure.code,
            failure.message,
            failure.span,
            label=failure.label,
            notes=failure.notes,
            help=failure.help,
        )

    # -- top level
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
            except _Failure as failure:
                self.fail(failure)
            except SequenceError as error:
                self.error("E0413", f"`{decl.name}`: {error}", decl.name_span)
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
                        if key not in derived and state.molecule is not None:
                            derived[key] = Pool.of(state.molecule, state.name)
                except _Failure as failure:
                    self.fail(failure)
        states = []
        for decl in declared_states:
            try:
                states.append(self.state(decl))
            except _Failure as failure:
                self.fail(failure)
        transitions = []
        for decl in declared_transitions:
            try:
                transitions.append(self.transition(decl))
            except _Failure as failure:
                self.fail(failure)
        if states or transitions:
            graph = _declared_graph(module.name or "workflow", states, transitions, module.decls)
            graphs.insert(0, graph)
            self.check_graph(graph, {d.name: d for d in declared_states + declared_transitions})
            self.check_declared_pcr(graph, {d.name: d for d in declared_transitions})
            self.check_realizes(states, derived, {d.name: d for d in declared_states})
        for graph in graphs:
            if graph.derived:
                self.check_graph(graph, {})
        for decl in module.decls:
            if decl.kind == "library":
                try:
                    libraries.append(self.library(decl, derived))
                except _Failure as failure:
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

    # -- names
    def lookup(self, info: ModuleInfo, path: Sequence[str]) -> tuple[ModuleInfo, ast.Decl] | None:
        symbol = info.lookup(list(path))
        if symbol is None:
            return None
        return symbol.module, symbol.decl

    def named_oligo(self, info: ModuleInfo, name: str, span: Span) -> OligoDef:
        found = self.lookup(info, name.split("."))
        if found is None or found[1].kind != "oligo":
            raise _Failure(
                "E0412",
                f"`{name}` is not an oligo",
                span,
                label="an oligo is expected here",
                help="declare it with `oligo`",
            )
        return self.oligo(*found)

    # -- segments and oligos
    def segment(self, info: ModuleInfo, decl: ast.Decl) -> SegmentDef:
        key = (id(info), decl.name)
        if key in self.segments:
            return self.segments[key]
        if key in self.busy:
            raise _Failure("E0413", f"segment `{decl.name}` refers to itself", decl.name_span)
        self.busy.add(key)
        try:
            seg = self._segment(info, decl)
        finally:
            self.busy.discard(key)
        self.segments[key] = seg
        return seg

    def _segment(self, info: ModuleInfo, decl: ast.Decl) -> SegmentDef:
        value = decl.value
        parts: list[tuple[str, Seq]] = []
        if value is None and decl.body is not None:
            fields = _fields(decl.body)
            value = fields.get("seq")
            for key, field_value in fields.items():
                if key != "seq" and isinstance(field_value, ast.Sequence):
                    parts.append(
                        (key, self.sequence(info, field_value, label=f"{decl.name}.{key}"))
                    )
        if value is None:
            raise _Failure(
                "E0413",
                f"segment `{decl.name}` has no sequence",
                decl.name_span,
                help="write `segment X = 5'-ACGT-3'` or `segment CB = barcode(16)`",
            )
        if isinstance(value, ast.Sequence):
            # a segment is one named unit: `segment R2 = 5'-{sample_index_seq}-3'` is `R2`
            # wherever it is used, not the name of what it was written with
            seq = self.sequence(info, value, label=decl.name).with_label(decl.name)
            kind = "homopolymer" if all(isinstance(p, Homopolymer) for p in seq.parts) else "fixed"
            return SegmentDef(decl.name, seq, kind, parts=tuple(parts))
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in (*SEGMENT_KINDS, "fixed", "homopolymer")
        ):
            kind = value.func.id
            args = _args(value)
            if kind in ("fixed", "homopolymer"):
                first = args.get(0)
                if not isinstance(first, ast.Sequence):
                    raise _Failure("E0413", f"`{kind}` takes a sequence", value.span)
                return SegmentDef(decl.name, self.sequence(info, first, label=decl.name), kind)
            role_arg = args.get("role")
            role = (
                role_arg.value
                if isinstance(role_arg, ast.String)
                else role_arg.id
                if isinstance(role_arg, ast.Name)
                else SEGMENT_KINDS[kind]
            )
            if kind == "payload" and isinstance(args.get(0), ast.String | ast.Name):
                first_arg = args[0]
                role = _word(first_arg) or role
            low, high = self.length(args.get(0) if kind != "payload" else args.get("length"))
            linker_seq = args.get(0)
            if kind == "linker" and isinstance(linker_seq, ast.Sequence):
                return SegmentDef(decl.name, self.sequence(info, linker_seq, label=decl.name), kind)
            if kind not in ("payload",) and low is None:
                raise _Failure(
                    "E0413",
                    f"{kind} `{decl.name}` needs a length",
                    value.span,
                    help=f"write `{kind}(12)` or a range `{kind}(8..11)`",
                )
            onlist = args.get("onlist")
            if kind == "payload":
                # a payload stays symbolic even when named like a run (`POLY_T` of 1..98)
                sym: Part = Symbol(role.upper(), role.upper(), low, high, label=decl.name)
            else:
                made = placeholder(role, low, high, name=None)
                assert isinstance(made, Symbol | Homopolymer)
                sym = attrs.evolve(made, label=decl.name)
            return SegmentDef(
                decl.name,
                Seq((sym,)),
                kind,
                onlist=onlist.value if isinstance(onlist, ast.String) else None,
            )
        raise _Failure(
            "E0413",
            f"segment `{decl.name}` must be a sequence or barcode(...), "
            "umi(...), index(...), payload(...), spacer(...), linker(...)",
            value.span,
        )

    def length(self, expr: ast.Expr | None) -> tuple[int | None, int | None]:
        low, high = self._length(expr)
        if low is not None and high is not None and (low > high or high > MAX_SEGMENT_LENGTH):
            assert expr is not None
            raise _Failure(
                "E0413",
                f"length {low}..{high} is not a range of at most {MAX_SEGMENT_LENGTH}",
                expr.span,
                help="write the shorter length first, e.g. `8..11`",
            )
        return low, high

    def _length(self, expr: ast.Expr | None) -> tuple[int | None, int | None]:
        match expr:
            case None:
                return None, None
            case ast.Number(text=text):
                return int(Fraction(text)), int(Fraction(text))
            case ast.Quantity(number=number):
                return int(Fraction(number)), int(Fraction(number))
            case ast.Binary(op="..", left=left, right=right):
                return self._length(left)[0], self._length(right)[0]
        raise _Failure("E0413", "a length is a number or a range `8..11`", expr.span)

    def oligo(self, info: ModuleInfo, decl: ast.Decl) -> OligoDef:
        key = (id(info), decl.name)
        if key in self.oligos:
            return self.oligos[key]
        if key in self.busy:
            raise _Failure("E0413", f"oligo `{decl.name}` refers to itself", decl.name_span)
        self.busy.add(key)
        try:
            fields = _fields(decl.body) if decl.body else {}
            strands: list[Seq] = []
            parts: list[tuple[str, Seq]] = []
            seq_expr = fields.get("seq") or decl.value
            if isinstance(seq_expr, ast.Sequence):
                strands.append(self.sequence(info, seq_expr, label=decl.name))
            listed = fields.get("strands")
            if isinstance(listed, ast.ListExpr):
                for item in listed.items:
                    if isinstance(item, ast.Sequence):
                        strands.append(self.sequence(info, item, label=decl.name))
            if decl.body:
                for member in decl.body.members:
                    if (
                        isinstance(member, ast.Entry)
                        and member.keyword == "strand"
                        and isinstance(member.type, ast.Sequence)
                    ):
                        strands.append(self.sequence(info, member.type, label=decl.name))
                for k, v in fields.items():
                    if k not in ("seq",) and isinstance(v, ast.Sequence):
                        parts.append((k, self.sequence(info, v, label=f"{decl.name}.{k}")))
            if not strands:
                raise _Failure(
                    "E0413",
                    f"oligo `{decl.name}` has no sequence",
                    decl.name_span,
                    help="add `seq: 5'-...-3'` (or two `strand` entries for an adapter)",
                )
            kind = _word(fields.get("kind")) or (
                "double_stranded" if len(strands) > 1 else "single"
            )
            if kind not in OLIGO_KINDS:
                raise _Failure(
                    "E0413",
                    f"oligo kind `{kind}` is not one of {', '.join(OLIGO_KINDS)}",
                    fields["kind"].span,
                )
            attached = fields.get("attached")
            attached_end = None
            if decl.body:
                for member in decl.body.members:
                    if isinstance(member, ast.Field) and member.key == "attached":
                        for clause in member.clauses:
                            if clause.keyword == "at" and isinstance(clause.value, ast.End):
                                attached_end = clause.value.prime
            aliases = fields.get("aliases")
            result = OligoDef(
                decl.name,
                tuple(strands),
                decl.title or "",
                kind,
                _word(fields.get("role")) or "",
                attached=_word(attached),
                attached_end=attached_end,
                aliases=tuple(_word(a) or "" for a in aliases.items)
                if isinstance(aliases, ast.ListExpr)
                else (),
                parts=tuple(parts),
            )
        finally:
            self.busy.discard(key)
        self.oligos[key] = result
        return result

    def sequence(self, info: ModuleInfo, node: ast.Sequence, label: str | None = None) -> Seq:
        out: list[Part] = []
        for part in node.parts:
            match part:
                case ast.Bases(text=text):
                    out.append(Bases(text.upper().replace("U", "T"), label))
                case ast.Placeholder(role=role, min_len=low, max_len=high, revcomp=rc):
                    seg = self.placeholder_segment(info, role)
                    if seg is not None:
                        seq = seg.seq if not rc else reverse_complement(seg.seq)
                        out.extend(seq.parts)
                    else:
                        made = placeholder(role, low, high, rc)
                        out.append(
                            attrs.evolve(made, label=label)
                            if label and isinstance(made, Homopolymer)
                            else made
                        )
                case ast.Homopolymer(base=base, count=count):
                    out.append(Homopolymer(base.upper().replace("U", "T"), count, label))
                case ast.SeqRef(path=path, revcomp=rc):
                    seq = self.reference(info, path, part.span)
                    out.extend((reverse_complement(seq) if rc else seq).parts)
                case ast.Modification(code=code):
                    out.append(Modification(code))
                case ast.Ribo(base=base):
                    out.append(Ribo(base.upper().replace("U", "T"), label))
                case ast.LNA(base=base):
                    out.append(LNA(base.upper().replace("U", "T"), label))
                case ast.Thioate():
                    out.append(Thioate())
            if len(out) > MAX_SEQUENCE_PARTS:
                raise _Failure(
                    "E0415",
                    f"sequence expands to more than {MAX_SEQUENCE_PARTS} parts",
                    node.span,
                    help="references nest too deeply or repeat too often",
                )
        seq = Seq.of(out)
        if len(seq) > MAX_SEQUENCE_TOKENS:
            raise _Failure(
                "E0415", f"sequence expands to more than {MAX_SEQUENCE_TOKENS} positions", node.span
            )
        return seq

    def placeholder_segment(self, info: ModuleInfo, role: str) -> SegmentDef | None:
        found = self.lookup(info, [role])
        if found is not None and found[1].kind == "segment":
            return self.segment(*found)
        return None

    def reference(self, info: ModuleInfo, path: Sequence[str], span: Span) -> Seq:
        found = self.lookup(info, path)
        sub: str | None = None
        if found is None and len(path) > 1:
            found = self.lookup(info, path[:-1])
            sub = path[-1]
        if found is None:
            raise _Failure("E0414", f"`{'.'.join(path)}` is not a segment or oligo", span)
        module, decl = found
        holder: SegmentDef | OligoDef
        if decl.kind == "segment":
            holder = self.segment(module, decl)
        elif decl.kind == "oligo":
            holder = self.oligo(module, decl)
        else:
            raise _Failure(
                "E0414", f"`{'.'.join(path)}` is a {decl.kind}, not a segment or oligo", span
            )
        if sub is None:
            return holder.seq
        named = dict(holder.parts)
        if sub not in named:
            raise _Failure(
                "E0414",
                f"`{decl.name}` has no part `{sub}`",
                span,
                help="parts: " + (", ".join(f"`{n}`" for n in named) or "none"),
            )
        return named[sub]

    # -- workflows (derived)
    def workflow(self, decl: ast.Decl) -> tuple[Graph, dict[str, Pool]]:
        self.params = dict(PARAMETER_DEFAULTS)
        env: dict[str, Pool] = {}
        states: list[StateDef] = []
        transitions: list[TransitionDef] = []
        initial: list[str] = []
        finals: list[tuple[str, str]] = []
        outputs: list[tuple[str, str]] = []
        state_names: dict[str, tuple[str, ...]] = {}
        members = decl.body.members if decl.body else ()
        if len(members) > MAX_WORKFLOW_STEPS:
            raise _Failure(
                "E0415",
                f"workflow has {len(members)} steps, more than {MAX_WORKFLOW_STEPS}",
                decl.name_span,
            )
        for member in members:
            try:
                match member:
                    case ast.Entry(keyword="input", name=name) if name:
                        pool = self.input_pool(member)
                        env[name] = pool
                        states.append(_named_state(name, pool.products[0], member.title or ""))
                        state_names[name] = (name,)
                        initial.append(name)
                    case ast.Binding(name=name, value=value):
                        pool, transition = self.step(decl.name, name, value, env, state_names)
                        env[name] = pool
                        product_names = []
                        for idx, product in enumerate(pool.products):
                            pname = name if len(pool.products) == 1 else f"{name}_{idx + 1}"
                            product_names.append(pname)
                            states.append(_named_state(pname, product, product.name))
                        state_names[name] = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.CARRIED
                        )
                        carried = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.CARRIED
                        )
                        discarded = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.DISCARDED
                        )
                        transitions.append(
                            attrs.evolve(
                                transition,
                                products=tuple(product_names),
                                carried=carried,
                                discarded=discarded,
                            )
                        )
                        if not carried:
                            reasons = "; ".join(
                                sorted({p.reason for p in pool.products if p.reason})
                            )
                            raise _Failure(
                                "E0404",
                                f"step `{name}` leaves no product to carry forward",
                                member.span,
                                notes=[reasons] if reasons else (),
                                help="check primers and adapters: every product was discarded",
                            )
                    case ast.ExprEntry(keyword="output", value=ast.Name(id=out)):
                        modality = "gene expression"
                        for clause in member.clauses:
                            if clause.keyword == "as" and isinstance(
                                clause.value, ast.Name | ast.String
                            ):
                                modality = _modality(_word(clause.value) or "")
                        if out not in state_names:
                            raise _Failure(
                                "E0412",
                                f"output `{out}` is not a step of this workflow",
                                member.value.span,
                            )
                        finals.extend((s, modality) for s in state_names[out])
                        outputs.extend((s, out) for s in state_names[out])
                    case ast.ExprEntry(keyword="expect", value=value):
                        self.expect(value, env)
                    case ast.Entry(keyword="param"):
                        self.param(member)
                    case _:
                        pass
            except _Failure as failure:
                self.fail(failure)
                break
            except ops.OperationFailure as failure:
                self.error(
                    failure.code,
                    failure.message,
                    member.span,
                    notes=failure.notes,
                    help=failure.help,
                )
                break
        if not finals and transitions:
            last = transitions[-1]
            finals = [(s, "gene expression") for s in last.carried]
        graph = Graph(
            decl.name,
            tuple(states),
            tuple(transitions),
            tuple(initial),
            tuple(finals),
            derived=True,
            outputs=tuple(outputs),
        )
        return graph, env

    def param(self, entry: ast.Entry) -> None:
        """`param min_anneal: 15` / `param nontemplated: "CC"`: an interpreter parameter
        for the steps of this workflow that follow (defaults: `stdlib/molecular.lab`)."""
        name = entry.name or ""
        if name not in PARAMETER_DEFAULTS:
            raise _Failure(
                "E0412",
                f"`{name}` is not a parameter of the molecular interpreter",
                entry.span,
                help="parameters: " + ", ".join(f"`{k}`" for k in PARAMETER_DEFAULTS),
            )
        value = entry.type
        if name == "min_anneal":
            if not isinstance(value, ast.Number | ast.Quantity):
                raise _Failure("E0412", "`min_anneal` is a number of bases", entry.span)
            count = self.arg_value(value, [])
            if not 1 <= count <= 200:
                raise _Failure(
                    "E0412",
                    f"`min_anneal` must be between 1 and 200 bases, not {count}",
                    entry.span,
                )
            self.params[name] = count
        elif name == "nontemplated":
            text = value.value if isinstance(value, ast.String) else None
            if text is None or len(text) > 10 or set(text) - set("ACGT"):
                raise _Failure(
                    "E0412", '`nontemplated` is a short string of bases, e.g. "CCC"', entry.span
                )
            self.params[name] = text

    def input_pool(self, entry: ast.Entry) -> Pool:
        if not isinstance(entry.type, ast.Sequence):
            raise _Failure(
                "E0412",
                f"input `{entry.name}` needs a sequence such as `RNA 5'-[CDNA] (A)30-3'`",
                entry.span,
            )
        seq = self.sequence(self.info, entry.type)
        moltype = MolType.RNA if entry.type.moltype == "RNA" else MolType.DNA
        name = entry.name or "input"
        if any(
            c.keyword == "as"
            and not isinstance(c.value, ast.Assignment)
            and _word(c.value) == "duplex"
            for c in entry.clauses
        ):
            return Pool.of(Duplex(core=seq, top_name=name, bottom_name=f"{name}'"), name)
        return Pool.of(Single(Strand(seq, moltype, name)), name)

    def step(
        self,
        workflow: str,
        name: str,
        value: ast.Expr,
        env: dict[str, Pool],
        state_names: dict[str, tuple[str, ...]],
    ) -> tuple[Pool, TransitionDef]:
        chain: list[tuple[str, ast.Call | ast.Name]] = []
        node: ast.Expr = value
        while isinstance(node, ast.Binary) and node.op == "|>":
            if not isinstance(node.right, ast.Call | ast.Name):
                raise _Failure(
                    "E0412", "the right side of `|>` must be an operation", node.right.span
                )
            chain.append((_func_name(node.right), node.right))
            node = node.left
        if not isinstance(node, ast.Call):
            raise _Failure(
                "E0412",
                f"step `{name}` must call an operation, such as `pcr(x, primers: [F, R])`",
                node.span,
            )
        chain.append((_func_name(node), node))
        chain.reverse()
        first_name, first_call = chain[0]
        assert isinstance(first_call, ast.Call)
        if not first_call.args or first_call.args[0].name is not None:
            raise _Failure(
                "E0412",
                f"`{first_name}` needs the molecule it acts on as its first argument",
                first_call.span,
            )
        subject = first_call.args[0].value
        if not isinstance(subject, ast.Name) or subject.id not in env:
            raise _Failure(
                "E0412",
                "the first argument must be an input or an earlier step of this workflow",
                subject.span,
                help="known: " + ", ".join(f"`{k}`" for k in env),
            )
        pool = env[subject.id]
        oligo_names: list[str] = []
        reagents: list[tuple[str, str]] = []
        for op_name, call in chain:
            kwargs = self.call_args(call, oligo_names)
            pool = self.apply(op_name, call, pool, kwargs)
        operation = _LSB_OPERATION.get(first_name, "other")
        detail = " |> ".join(n for n, _ in chain)
        transition = TransitionDef(
            name=name,
            operation=operation,
            substrates=state_names.get(subject.id, (subject.id,)),
            oligos=tuple(dict.fromkeys(oligo_names)),
            reagents=tuple(reagents),
            detail=detail,
        )
        return pool, transition

    def call_args(self, call: ast.Call | ast.Name, oligo_names: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if isinstance(call, ast.Name):
            return out
        for arg in call.args[1:] if call.args and call.args[0].name is None else call.args:
            if arg.name is None:
                raise _Failure("E0412", "only the first argument may be unnamed", arg.span)
            out[arg.name] = self.arg_value(arg.value, oligo_names)
        return out

    def arg_value(self, expr: ast.Expr, oligo_names: list[str]) -> Any:
        match expr:
            case ast.Name(id=ident):
                found = self.lookup(self.info, [ident])
                if found is not None and found[1].kind == "oligo":
                    oligo_names.append(ident)
                    return self.oligo(*found).as_oligo()
                if found is not None and found[1].kind == "segment":
                    return ident
                return ident
            case ast.Attribute():
                dotted = _dotted(expr)
                found = self.lookup(self.info, dotted.split("."))
                if found is not None and found[1].kind == "oligo":
                    oligo_names.append(dotted)
                    return self.oligo(*found).as_oligo()
                return dotted
            case ast.ListExpr(items=items):
                return [self.arg_value(item, oligo_names) for item in items]
            case ast.String(value=value):
                return value
            case ast.Number(text=text):
                return int(Fraction(text))
            case ast.Quantity(number=number, unit=unit):
                scale = {"kb": 1000}.get(unit, 1)
                return int(Fraction(number) * scale)
            case ast.End(prime=prime):
                return prime
            case ast.Bool(value=value):
                return value
            case ast.Sequence():
                return self.sequence(self.info, expr)
        raise _Failure(
            "E0412", "this argument is not a name, list, number, length or string", expr.span
        )

    def apply(
        self, op_name: str, call: ast.Call | ast.Name, pool: Pool, kwargs: dict[str, Any]
    ) -> Pool:
        spec = _OPERATIONS.get(op_name)
        if spec is None:
            raise _Failure(
                "E0412",
                f"`{op_name}` is not a molecular operation",
                call.span,
                help="operations: " + ", ".join(sorted(_OPERATIONS)),
            )
        function, on_pool = spec
        self.check_args(op_name, call, kwargs)
        if op_name in _ANNEALING:
            kwargs = {"min_match": self.params["min_anneal"], **kwargs}
        if op_name == "reverse_transcribe":
            kwargs = {"nontemplated": self.params["nontemplated"], **kwargs}
        try:
            if on_pool:
                return function(pool, **kwargs)
            products: list[Product] = []
            unbound: list[ops.OperationFailure] = []
            for product in pool.carried:
                try:
                    result = function(product.molecule, **kwargs)
                except ops.OperationFailure as failure:
                    # In a mix, a molecule no primer binds is simply not carried on;
                    # only when that is true of every molecule is it an error.
                    if failure.code != "E0401" or len(pool.carried) == 1:
                        raise
                    unbound.append(failure)
                    products.append(
                        Product(
                            product.molecule,
                            Disposition.DISCARDED,
                            failure.message.split(":")[0] + ": not carried",
                            name=product.name,
                        )
                    )
                    continue
                if isinstance(result, Pool):
                    products.extend(result.products)
                else:
                    products.append(Product(result, name=product.name))
                if len(products) > ops.MAX_PRODUCTS:
                    raise _Failure(
                        "E0415",
                        f"`{op_name}` gives more than {ops.MAX_PRODUCTS} products",
                        call.span,
                    )
            if unbound and len(unbound) == len(pool.carried):
                raise unbound[0]
            return Pool(_distinct(products))
        except ops.OperationFailure as failure:
            raise _Failure(
                failure.code, failure.message, call.span, notes=failure.notes, help=failure.help
            ) from None
        except TypeError as error:
            raise _Failure(
                "E0412", f"wrong arguments for `{op_name}`: {error}", call.span
            ) from None
        except SequenceError as error:
            raise _Failure("E0412", f"`{op_name}`: {error}", call.span) from None

    def check_args(self, op_name: str, call: ast.Call | ast.Name, kwargs: dict[str, Any]) -> None:
        kinds = _PARAMETERS.get(op_name, {})
        for key, value in kwargs.items():
            kind = kinds.get(key)
            if kind is None:
                known = ", ".join(f"`{k}`" for k in kinds) or "none"
                raise _Failure(
                    "E0412",
                    f"`{op_name}` has no parameter `{key}`",
                    call.span,
                    help=f"parameters: {known}",
                )
            ok = {
                "oligo": isinstance(value, ops.Oligo),
                "oligos": isinstance(value, list) and all(isinstance(v, ops.Oligo) for v in value),
                "probe": isinstance(value, ops.Oligo | str),
                "text": isinstance(value, str),
                "number": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                "any": True,
            }[kind]
            if not ok:
                wanted = {
                    "oligo": "an oligo",
                    "oligos": "a list of oligos",
                    "probe": "an oligo or a segment",
                    "text": "a name or a string",
                    "number": "a non-negative number",
                    "any": "a value",
                }[kind]
                raise _Failure(
                    "E0412",
                    f"`{key}` of `{op_name}` must be {wanted}",
                    call.span,
                    help="declare the oligo with `oligo` and pass its name",
                )

    def expect(self, value: ast.Expr, env: dict[str, Pool]) -> None:
        if not (
            isinstance(value, ast.Binary)
            and value.op == "=="
            and isinstance(value.right, ast.Sequence)
        ):
            return
        left = value.left
        strand_name = "top"
        if isinstance(left, ast.Attribute) and left.name in ("top", "bottom"):
            strand_name = left.name
            left = left.value
        if not isinstance(left, ast.Name) or left.id not in env:
            raise _Failure(
                "E0412",
                "`expect` compares a step's strand, as in `expect lib.top == 5'-...-3'`",
                value.left.span,
            )
        carried = env[left.id].carried
        if not carried:
            return
        molecule = carried[0].molecule
        got = (
            top_strand(molecule)
            if strand_name == "top" or isinstance(molecule, Single)
            else molecule.bottom
        )
        want = self.sequence(self.info, value.right)
        diff = sequence_difference(want, got)
        if diff is not None:
            raise _Failure(
                "E0416",
                f"`{left.id}.{strand_name}` differs from the expected sequence at segment `{diff}`",
                value.span,
                notes=[f"expected: {render(want)}", f"derived:  {render(got)}"],
                help="correct the expectation or the workflow step that makes it",
            )

    # -- declared states and transitions
    def state(self, decl: ast.Decl) -> StateDef:
        arch_word = _word(decl.type) if decl.type is not None else None
        try:
            arch = Architecture(arch_word) if arch_word else Architecture.UNKNOWN
        except ValueError:
            raise _Failure(
                "E0410",
                f"`{arch_word}` is not a strand architecture",
                decl.type.span,  # type: ignore[union-attr]
                help="one of: " + ", ".join(a.value for a in Architecture),
            ) from None
        strands: list[StrandDef] = []
        pairs: list[tuple[str, str]] = []
        breaks: list[Discontinuity] = []
        realizes = None
        for clause in decl.clauses:
            if clause.keyword == "realizes" and not isinstance(clause.value, ast.Assignment):
                realizes = _dotted(clause.value)
        for member in decl.body.members if decl.body else ():
            match member:
                case ast.Entry(keyword="strand", name=name, type=ast.Sequence() as seq_node):
                    strand_seq = self.sequence(self.info, seq_node)
                    derived_from = []
                    for clause in member.clauses:
                        if clause.keyword == "from" and not isinstance(
                            clause.value, ast.Assignment
                        ):
                            src = _dotted(clause.value)
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
                    pairs.append((_dotted(a), _dotted(b)))
                case ast.Entry(keyword="nick" | "gap" | "break" as kind):
                    fields = _fields(member.body) if member.body else {}
                    breaks.append(
                        Discontinuity(
                            kind,
                            _word(fields.get("strand")) or member.name or "",
                            _word(fields.get("after")) or "",
                            _word(fields.get("before")) or "",
                        )
                    )
                case ast.Field(key="derived") | ast.Field(key="realizes"):
                    realizes = _dotted(member.value)
                case _:
                    pass
        state = StateDef(
            decl.name, tuple(strands), arch, decl.title or "", tuple(pairs), tuple(breaks), realizes
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
        operation = _word(decl.type) if decl.type is not None else None
        if operation not in OPERATIONS:
            raise _Failure(
                "E0412",
                f"`{operation}` is not a LibStructBench operation",
                decl.type.span if decl.type else decl.name_span,
                help="one of: " + ", ".join(OPERATIONS),
            )
        fields = _fields(decl.body) if decl.body else {}
        reagents = []
        raw = fields.get("reagents")
        if isinstance(raw, ast.ListExpr):
            for item in raw.items:
                reagents.append((_word(item) or "", ""))
        return TransitionDef(
            decl.name,
            operation,
            _names(fields.get("substrates")),
            _names(fields.get("products")),
            _names(fields.get("carried")),
            _names(fields.get("discarded")),
            _names(fields.get("oligos")),
            tuple(reagents),
            _word(fields.get("detail")) or "",
        )

    # -- checks
    def check_graph(self, graph: Graph, decls: dict[str, ast.Decl]) -> None:
        for code, message, where in graph_problems(graph):
            span = decls[where].name_span if where in decls else Span(0, 0)
            if not decls and graph.derived:
                span = self.spans.get(graph.name, span)
            self.error(code, message, span, help=_GRAPH_HELP[code])

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
                except (_Failure, SequenceError):
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

    def check_realizes(
        self, states: Iterable[StateDef], derived: dict[str, Pool], decls: dict[str, ast.Decl]
    ) -> None:
        for state in states:
            if state.realizes is None:
                continue
            pool = derived.get(state.realizes)
            decl = decls[state.name]
            if pool is None:
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
                best = max(
                    range(len(carried)), key=lambda k: _closeness(state, carried[k].molecule)
                )
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

    # -- libraries and reads
    def library(self, decl: ast.Decl, derived: dict[str, Pool]) -> LibraryDef:
        fields = _fields(decl.body) if decl.body else {}
        source_name = None
        derived_seq: Seq | None = None
        pool: Pool | None = None
        src = fields.get("from")
        for clause in decl.clauses:
            if clause.keyword == "from" and not isinstance(clause.value, ast.Assignment):
                src = clause.value
        if src is not None:
            source_name = _dotted(src)
            pool = derived.get(source_name)
            if pool is None or not pool.carried:
                raise _Failure(
                    "E0405", f"`{source_name}` is not a derived workflow output", src.span
                )
            derived_seq = top_strand(pool.carried[0].molecule)
        seq_node = fields.get("seq") or fields.get("structure")
        seq = (
            self.sequence(self.info, seq_node, label=None)
            if isinstance(seq_node, ast.Sequence)
            else None
        )
        if seq is not None and derived_seq is not None and pool is not None:
            # a step that carries several libraries (Smart-seq3: 5' UMI and internal
            # fragments): the declared library may be any one of them
            candidates = [top_strand(p.molecule) for p in pool.carried]
            matched = next((c for c in candidates if sequence_difference(seq, c) is None), None)
            diff = sequence_difference(seq, derived_seq)
            if matched is not None:
                derived_seq = matched
            elif diff is not None:
                others = (
                    [f"`{source_name}` carries {len(candidates)} products; none matches"]
                    if len(candidates) > 1
                    else []
                )
                self.error(
                    "E0405",
                    f"library `{decl.name}` differs from derived `{source_name}` at "
                    f"segment `{diff}`",
                    seq_node.span,  # type: ignore[union-attr]
                    notes=[f"declared: {render(seq)}", f"derived:  {render(derived_seq)}", *others],
                    help="correct the declared structure or the workflow",
                )
        final = seq if seq is not None else derived_seq
        if final is None:
            raise _Failure(
                "E0413", f"library `{decl.name}` has neither `seq` nor `from`", decl.name_span
            )
        reads: list[ReadDef] = []
        for member in decl.body.members if decl.body else ():
            if isinstance(member, ast.Entry) and member.keyword == "read":
                rf = _fields(member.body) if member.body else {}
                primer = _dotted(rf["primer"]) if "primer" in rf else ""
                low, high = self.length(rf.get("length")) if "length" in rf else (None, None)
                read = ReadDef(
                    member.name or f"R{len(reads) + 1}",
                    primer,
                    _word(rf.get("strand")) or "bottom",
                    high,
                    low,
                )
                reads.append(read)
                self.check_read(read, final, member)
        modality = _modality(_word(fields.get("modality")) or "gene expression")
        return LibraryDef(decl.name, final, modality, decl.title or "", tuple(reads), source_name)

    def check_read(self, read: ReadDef, library: Seq, member: ast.Entry) -> None:
        if not read.primer:
            self.error(
                "E0411",
                f"read `{read.name}` names no primer",
                member.span,
                help="add `primer: <oligo>`",
            )
            return
        try:
            primer = self.named_oligo(self.info, read.primer, member.span)
        except _Failure as failure:
            self.fail(failure)
            return
        if read.strand not in ("top", "bottom"):
            self.error(
                "E0411", f"read `{read.name}`: strand must be `top` or `bottom`", member.span
            )
            return
        # `strand` names the template strand the primer anneals to (LibStructBench's
        # `template_strand`); the read then copies the other strand.
        # A sequencing primer hybridises over its whole length (it has no tail), so
        # every base must pair, not only the 12 a PCR primer's 3' end needs.
        template = plain(_strand_for(library, read.strand))
        whole = plain(primer.seq).min_length
        sites = ops.anneal_sites(plain(primer.seq), template, whole)
        if sites and read.length is not None:
            # the read copies the template from the primer's 3' end to the template's 5' end
            room = template.slice(0, sites[0].start).max_length
            if room is not None and read.length > room:
                self.error(
                    "W0403",
                    f"read `{read.name}` is {read.length} nt but only {room} bases follow "
                    f"primer `{primer.name}` on the library",
                    member.span,
                    help="shorten the read or check the library's structure",
                )
        if not sites:
            problem = ops.no_site_failure(
                primer.name, plain(primer.seq), [(f"library {read.strand} strand", template)], whole
            )
            self.error(
                "E0411",
                f"read `{read.name}` cannot be sequenced: primer `{primer.name}` does not "
                f"anneal to the library's {read.strand} strand",
                member.span,
                notes=problem.notes,
                help="check the primer and the strand the read is primed on",
            )


def _distinct(products: list[Product]) -> tuple[Product, ...]:
    """Products that are the same molecule (made from different inputs of a mix) once."""
    from lablang.molecular.molecule import strands as molecule_strands

    seen: set[tuple[str, ...]] = set()
    out = []
    for product in products:
        key = (
            product.disposition.value,
            *(render(plain(s.seq)) for s in molecule_strands(product.molecule)),
        )
        if key not in seen:
            seen.add(key)
            out.append(product)
    return tuple(out)


def _contains(haystack: tuple[Any, ...], needle: tuple[Any, ...]) -> bool:
    if not needle:
        return True
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def _strand_for(library: Seq, strand: str) -> Seq:
    return library if strand == "top" else reverse_complement(library)


# ---------------------------------------------------------------------- comparisons


def segment_at(seq: Seq, token: int) -> str:
    """The segment (label, or the part as written) at a token position."""
    pos = 0
    for part in seq.parts:
        width = len(Seq((part,)))
        if width and pos <= token < pos + width:
            label = getattr(part, "label", None)
            return label or render(Seq((part,)))[3:-3]
        pos += width
    return "end of sequence"


def sequence_difference(want: Seq, got: Seq) -> str | None:
    """None when equal (up to chemistry and degenerate bases folded into payloads);
    otherwise the first differing segment of `want`."""
    full = plain(want).tokens()
    kept = kept_positions(full)
    a = tuple(full[i] for i in kept)
    b = fold_anchors(plain(got).tokens())
    if a == b:
        return None
    index = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    position = kept[index] if index < len(kept) else len(full)
    return segment_at(plain(want), position)


def compare_state(state: StateDef, molecule: Any) -> tuple[str, list[str]] | None:
    """None when every declared strand is a strand of the derived molecule."""
    from lablang.molecular.molecule import strands as molecule_strands

    derived = molecule_strands(molecule)
    for strand in state.strands:
        if any(sequence_difference(strand.seq, d.seq) is None for d in derived):
            continue
        best = max(derived, key=lambda d: _common_prefix(strand.seq, d.seq))
        diff = sequence_difference(strand.seq, best.seq) or "?"
        rna = strand.moltype is MolType.RNA
        return (
            f"strand `{strand.name}` first differs at segment `{diff}`",
            [
                f"declared: {render(strand.seq, rna=rna)}",
                f"derived:  {render(best.seq, rna=best.moltype is MolType.RNA)}",
            ],
        )
    return None


def _closeness(state: StateDef, molecule: Any) -> int:
    """How far the declared strands agree with the molecule's, position by position."""
    from lablang.molecular.molecule import strands as molecule_strands

    derived = molecule_strands(molecule)
    return sum(
        max((_common_prefix(s.seq, d.seq) for d in derived), default=0) for s in state.strands
    )


def _common_prefix(a: Seq, b: Seq) -> int:
    ta, tb = fold_anchors(plain(a).tokens()), fold_anchors(plain(b).tokens())
    n = 0
    for x, y in zip(ta, tb, strict=False):
        if x != y:
            break
        n += 1
    return n


# ---------------------------------------------------------------------- graph rules

_GRAPH_HELP = {
    "E0406": "a molecular workflow is a DAG: a product cannot be a substrate of an earlier step",
    "E0407": "list every product of a transition under `carried` or `discarded`",
    "E0408": "use the product as a substrate of a later transition, mark it final, or discard it",
    "E0409": "connect the final state to an initial state through transitions",
}


def graph_problems(graph: Graph) -> list[tuple[str, str, str]]:
    """LibStructBench's modelling rules, as (code, message, entity name) triples.

    Rules: acyclic; every product carried or discarded; every carried product that is
    not final is a later substrate; every final state reachable from an initial state.
    Plain graph search (no networkx), so `lablang check` stays light.
    """
    problems: list[tuple[str, str, str]] = []
    edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for state in graph.states:
        edges.setdefault(("s", state.name), [])
    known = {state.name for state in graph.states}
    finals = {f for f, _ in graph.finals}
    for t in graph.transitions:
        node = ("t", t.name)
        edges.setdefault(node, [])
        for s in t.substrates:
            edges.setdefault(("s", s), []).append(node)
        for s in t.products:
            edges[node].append(("s", s))
            edges.setdefault(("s", s), [])
        for s in (*t.substrates, *t.products, *t.carried, *t.discarded):
            if s not in known:
                problems.append(
                    (
                        "E0409",
                        f"transition `{t.name}` names `{s}`, which is not a declared state",
                        t.name,
                    )
                )
        for s in t.products:
            if s not in t.carried and s not in t.discarded:
                problems.append(
                    (
                        "E0407",
                        f"product `{s}` of `{t.name}` is neither carried nor discarded",
                        t.name,
                    )
                )
        for s in (*t.carried, *t.discarded):
            if s not in t.products:
                problems.append(
                    (
                        "E0407",
                        f"`{s}` is carried or discarded by `{t.name}` but is not its product",
                        t.name,
                    )
                )
    cycle = _find_cycle(edges)
    if cycle:
        names = " -> ".join(f"`{n[1]}`" for n in cycle)
        problems.append(("E0406", f"the workflow has a cycle: {names}", cycle[0][1]))
    used = {s for t in graph.transitions for s in t.substrates}
    for t in graph.transitions:
        for s in t.carried:
            if s not in used and s not in finals:
                problems.append(
                    (
                        "E0408",
                        f"`{s}` is carried forward by `{t.name}` but no later step uses it "
                        "and it is not final",
                        s if s in known else t.name,
                    )
                )
    initial = set(graph.initial) or {
        s.name
        for s in graph.states
        if not any(s.name in t.products for t in graph.transitions) and s.name in used
    }
    reachable = _reachable(edges, [("s", i) for i in sorted(initial)])
    for f in sorted(finals):
        if ("s", f) not in edges:
            problems.append(("E0409", f"final state `{f}` is not declared", f))
        elif f not in initial and ("s", f) not in reachable:
            problems.append(
                ("E0409", f"final state `{f}` is not reachable from an initial state", f)
            )
    return problems


def _find_cycle(edges: dict[tuple[str, str], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """One cycle as a node list (empty when acyclic); iterative DFS with colours."""
    colour: dict[tuple[str, str], int] = {}
    for root in sorted(edges):
        if colour.get(root):
            continue
        stack = [(root, iter(edges[root]))]
        path = [root]
        colour[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            state = colour.get(child, 0)
            if state == 1:
                return [*path[path.index(child) :], child]
            if state == 0:
                colour[child] = 1
                stack.append((child, iter(edges.get(child, []))))
                path.append(child)
    return []


def _reachable(
    edges: dict[tuple[str, str], list[tuple[str, str]]], roots: list[tuple[str, str]]
) -> set[tuple[str, str]]:
    seen = set(roots)
    todo = list(roots)
    while todo:
        for child in edges.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _declared_graph(
    name: str, states: list[StateDef], transitions: list[TransitionDef], decls: Sequence[ast.Decl]
) -> Graph:
    finals: list[tuple[str, str]] = []
    for decl in decls:
        if decl.kind == "state" and decl.body:
            for member in decl.body.members:
                if isinstance(member, ast.Field) and member.key == "final":
                    finals.append((decl.name, _modality(_word(member.value) or "gene expression")))
    products = {p for t in transitions for p in t.products}
    substrates = {s for t in transitions for s in t.substrates}
    initial = tuple(s.name for s in states if s.name not in products and s.name in substrates)
    if not finals:
        substrates = {s for t in transitions for s in t.substrates}
        finals = [
            (s.name, "gene expression")
            for s in states
            if s.name in products
            and s.name not in substrates
            and any(s.name in t.carried for t in transitions)
        ]
    return Graph(name, tuple(states), tuple(transitions), initial, tuple(finals))


def _named_state(name: str, product: Product, title: str) -> StateDef:
    state = state_from_molecule(name, product.molecule, title)
    return attrs.evolve(state, disposition_reason=product.reason)


# ---------------------------------------------------------------------- operation table


def _rt(
    molecule: Any,
    primer: ops.Oligo,
    switch: ops.Oligo | None = None,
    nontemplated: str = "CCC",
    min_match: int = ops.MIN_ANNEAL,
) -> Any:
    return ops.reverse_transcribe(
        molecule, primer, switch=switch, nontemplated=nontemplated, min_match=min_match
    )


def _pcr(
    molecule: Any,
    primers: list[ops.Oligo],
    cycles: int | None = None,
    min_match: int = ops.MIN_ANNEAL,
) -> Pool:
    return ops.pcr(molecule, primers, min_match=min_match)


def _linear(
    molecule: Any, primer: ops.Oligo, cycles: int | None = None, min_match: int = ops.MIN_ANNEAL
) -> Pool:
    return ops.linear_amplify(molecule, primer, min_match=min_match)


def _ligate(molecule: Any, adapter: ops.Oligo, ends: str = "both") -> Any:
    return ops.ligate(molecule, adapter, ends=ends)


def _tagment(molecule: Any, adapters: list[ops.Oligo]) -> Pool:
    return ops.tagment(molecule, adapters)


def _extend(molecule: Any, primer: ops.Oligo, min_match: int = ops.MIN_ANNEAL) -> Any:
    return ops.extend(molecule, primer, min_match=min_match)


def _second(molecule: Any, primer: ops.Oligo | None = None) -> Any:
    return ops.second_strand(molecule, primer)


def _switch(molecule: Any, tso: ops.Oligo) -> Any:
    return ops.template_switch(molecule, tso)


def _denature(molecule: Any, keep: str | None = None) -> Pool:
    return ops.denature(molecule, keep)


def _digest(molecule: Any, enzyme: str) -> Pool:
    return ops.digest(molecule, enzyme)


def _bisulfite(molecule: Any, methylated: str = "none") -> Pool:
    return ops.bisulfite(molecule, methylated)


def _round(
    molecule: Any,
    barcode: ops.Oligo,
    end: str = "5'",
    by: str = "ligation",
    splint: ops.Oligo | None = None,
) -> Any:
    return ops.barcode_round(molecule, barcode, end=end, by=by, splint=splint)


def _split_pool(
    molecule: Any, rounds: list[ops.Oligo], end: str = "5'", by: str = "ligation"
) -> Any:
    return ops.split_pool(molecule, rounds, end=end, by=by)


def _capture(pool: Pool, probe: ops.Oligo | str, min_match: int = ops.MIN_ANNEAL) -> Pool:
    return ops.capture(pool, probe, min_match=min_match)


def _cleanup(pool: Pool, min: int = 100, ratio: Any = None) -> Pool:
    return ops.cleanup(pool, minimum=min)


def _size_select(pool: Pool, min: int | None = None, max: int | None = None) -> Pool:
    return ops.size_select(pool, minimum=min, maximum=max)


# Interpreter parameters a workflow may set with `param NAME: VALUE`; the defaults are
# written out in `stdlib/molecular.lab` (a test keeps the two equal).
PARAMETER_DEFAULTS: dict[str, Any] = {
    "min_anneal": ops.MIN_ANNEAL,  # bases a primer's 3' end must pair over
    "nontemplated": "CCC",  # bases MMLV-type reverse transcriptases add at the 3' end
}
# operations whose primers anneal (they take `min_anneal`)
_ANNEALING = frozenset(
    {"reverse_transcribe", "pcr", "amplify", "linear_amplify", "extend", "capture"}
)

# name -> (function, takes the whole pool)
_OPERATIONS: dict[str, tuple[Callable[..., Any], bool]] = {
    "reverse_transcribe": (_rt, False),
    "template_switch": (_switch, False),
    "extend": (_extend, False),
    "second_strand": (_second, False),
    "pcr": (_pcr, False),
    "amplify": (_pcr, False),
    "linear_amplify": (_linear, False),
    "fragment": (ops.fragment, False),
    "end_repair": (ops.end_repair, False),
    "a_tail": (ops.a_tail, False),
    "ligate": (_ligate, False),
    "tagment": (_tagment, False),
    "denature": (_denature, False),
    "digest": (_digest, False),
    "bisulfite": (_bisulfite, False),
    "barcode_round": (_round, False),
    "split_pool": (_split_pool, False),
    "capture": (_capture, True),
    "cleanup": (_cleanup, True),
    "size_select": (_size_select, True),
}
_PARAMETERS: dict[str, dict[str, str]] = {
    "reverse_transcribe": {"primer": "oligo", "switch": "oligo", "nontemplated": "text"},
    "template_switch": {"tso": "oligo"},
    "extend": {"primer": "oligo"},
    "second_strand": {"primer": "oligo"},  # optional: RNase H / Pol I without one
    "pcr": {"primers": "oligos", "cycles": "number"},
    "amplify": {"primers": "oligos", "cycles": "number"},
    "linear_amplify": {"primer": "oligo", "cycles": "number"},
    "fragment": {}, "end_repair": {}, "a_tail": {},
    "ligate": {"adapter": "oligo", "ends": "text"},
    "tagment": {"adapters": "oligos"},
    "denature": {"keep": "text"},
    "digest": {"enzyme": "text"},
    "bisulfite": {"methylated": "text"},
    "barcode_round": {"barcode": "oligo", "end": "text", "by": "text", "splint": "oligo"},
    "split_pool": {"rounds": "oligos", "end": "text", "by": "text"},
    "capture": {"probe": "probe"},
    "cleanup": {"min": "number", "ratio": "any"},
    "size_select": {"min": "number", "max": "number"},
}  # fmt: skip
_LSB_OPERATION = {
    "reverse_transcribe": "reverse_transcription", "template_switch": "extension",
    "extend": "extension", "second_strand": "strand_synthesis", "pcr": "pcr",
    "amplify": "amplification",
    "linear_amplify": "amplification", "fragment": "fragmentation", "end_repair": "other",
    "a_tail": "other", "ligate": "ligation", "tagment": "tagmentation", "denature": "denaturation",
    "digest": "other", "bisulfite": "other", "barcode_round": "ligation", "split_pool": "ligation",
    "capture": "capture", "cleanup": "cleanup", "size_select": "size_selection",
}  # fmt: skip


# ---------------------------------------------------------------------- AST helpers


def _fields(block: ast.Block | None) -> dict[str, ast.Expr]:
    out: dict[str, ast.Expr] = {}
    if block is None:
        return out
    for member in block.members:
        if isinstance(member, ast.Field):
            out[member.key] = member.value
        elif (
            isinstance(member, ast.Entry)
            and member.name is None
            and member.type is not None
            and member.body is None
        ):
            # `strand: top` reads as an entry because `strand` is an entry keyword
            out[member.keyword] = member.type
    return out


def _args(call: ast.Call) -> dict[int | str, ast.Expr]:
    out: dict[int | str, ast.Expr] = {}
    position = 0
    for arg in call.args:
        if arg.name is None:
            out[position] = arg.value
            position += 1
        else:
            out[arg.name] = arg.value
    return out


def _word(expr: ast.Expr | None) -> str | None:
    match expr:
        case ast.Name(id=ident):
            return ident
        case ast.String(value=value):
            return value
        case ast.Attribute():
            return _dotted(expr)
        case ast.Number(text=text):
            return text
        case ast.End(prime=prime):
            return prime
    return None


def _dotted(expr: ast.Expr | ast.Assignment) -> str:
    match expr:
        case ast.Name(id=ident):
            return ident
        case ast.Attribute(value=value, name=name):
            return f"{_dotted(value)}.{name}"
        case ast.String(value=value):
            return value
    return ""


def _names(expr: ast.Expr | None) -> tuple[str, ...]:
    if isinstance(expr, ast.ListExpr):
        return tuple(_dotted(item) for item in expr.items)
    if expr is None:
        return ()
    return (_dotted(expr),)


def _func_name(node: ast.Call | ast.Name) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return _dotted(node.func)


def _modality(word: str) -> str:
    text = word.replace("_", " ").strip()
    lowered = {m.lower(): m for m in MODALITIES}
    return lowered.get(text.lower(), text)


def describe(name: str) -> str | None:
    """Documentation of a workflow operation for editors (hover), or None if unknown.

    >>> describe("pcr").splitlines()[0]
    '`pcr(molecule, primers: [oligo], cycles: number)` — molecular operation'
    """
    import inspect

    if name not in _OPERATIONS:
        return None
    function = getattr(ops, name, None) or _OPERATIONS[name][0]
    parameters = ", ".join(
        f"{key}: [oligo]" if kind == "oligos" else f"{key}: {kind}"
        for key, kind in _PARAMETERS.get(name, {}).items()
    )
    signature = f"`{name}(molecule{', ' + parameters if parameters else ''})`"
    doc = inspect.getdoc(function) or ""
    return f"{signature} — molecular operation\n\n{doc}".rstrip()
