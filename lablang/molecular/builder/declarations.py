"""Segments, oligos and sequences: from declarations to `Seq`s and `OligoDef`s."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from attrs import evolve, fields, has

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.molecular.builder.common import (
    MAX_SEGMENT_LENGTH,
    MAX_SEQUENCE_PARTS,
    MAX_SEQUENCE_TOKENS,
    OLIGO_KINDS,
    PARAMETER_DEFAULTS,
    SEGMENT_KINDS,
    Failure,
    block_fields,
    call_arguments,
    word_of,
)
from lablang.molecular.model import (
    OligoDef,
    SegmentDef,
)
from lablang.molecular.modifications import unknown_modification
from lablang.molecular.molecule import Pool
from lablang.molecular.sequence import (
    LNA,
    PAYLOAD_ROLES,
    Bases,
    Homopolymer,
    Modification,
    Part,
    Ribo,
    Seq,
    Symbol,
    Thioate,
    placeholder,
    reverse_complement,
    symbol_name,
)
from lablang.resolve import ModuleInfo
from lablang.source import Span


def _check_modification(builder: Declarations, info: ModuleInfo, code: str, span: Span) -> None:
    """E0427 for a `/code/` of this file the modification registry does not have (once
    per place), with the closest registered code and the rename as its fix."""
    guess = unknown_modification(code) if info is builder.info else None
    if guess is None or any(d.code == "E0427" and d.span == span for d in builder.report):
        return
    inner = Span(span.start + 1, span.end - 1)
    builder.error(
        "E0427",
        f"`/{code}/` is not a known modification code",
        span,
        label="not in the modification registry",
        help=(f"did you mean `/{guess}/`? " if guess else "")
        + "`lablang spec` lists the codes (IDT's spelling) and what each does",
        fix=Fix(f"use `/{guess}/`", (Edit(inner, guess),)) if guess else None,
    )


def _placeholder(
    builder: Declarations, part: ast.Placeholder, low: int | None, high: int | None
) -> Part:
    """The placeholder `part` (with the length its role has), W0409 for a homopolymer
    run given a range (`[POLYA:20-30]`): a run's length is one number or unknown, so the
    range is read as unknown length, with `[POLYA]` as the fix."""
    made = placeholder(part.role, low, high, part.revcomp, pattern=part.pattern)
    ranged = low is not None and high is not None and high != low
    if not (isinstance(made, Homopolymer) and ranged) or any(
        d.code == "W0409" and d.span == part.span for d in builder.report
    ):
        return made
    text = f"[{part.role}{chr(39) if part.revcomp else ''}]"
    builder.error(
        "W0409",
        f"a homopolymer run has one length or none: `[{part.role}:{low}-{high}]` "
        "is read as a tail of unknown length",
        part.span,
        label="a range of run lengths",
        help=f"write `{text}` for a tail of unknown length, or one length",
        fix=Fix(f"use `{text}`", (Edit(part.span, text),)),
    )
    return made


class Declarations:
    def __init__(self, info: ModuleInfo, report: Report) -> None:
        self.info = info
        self.report = report
        self.source = info.source
        self.segments: dict[tuple[int, str], SegmentDef] = {}
        self.oligos: dict[tuple[int, str], OligoDef] = {}
        self.busy: set[tuple[int, str]] = set()
        self.spans: dict[str, Span] = {}
        self.params: dict[str, Any] = dict(PARAMETER_DEFAULTS)
        # "workflow.step" -> why it is not derived (it or a step it needs failed)
        self.unknown: dict[str, str] = {}
        self._role_lengths: dict[tuple[int, str], tuple[int | None, int | None]] = {}
        self.unknown_steps: dict[str, str] = {}  # the same, in the workflow being derived
        self.step_pools: dict[str, Pool] = {}  # steps so far, a ligation partner may name

    # -- diagnostics
    def error(self, code: str, message: str, span: Span, **kw: Any) -> None:
        self.report.add(code, message, self.source, span, **kw)

    def fail(self, failure: Failure) -> None:
        self.error(
            failure.code,
            failure.message,
            failure.span,
            label=failure.label,
            notes=failure.notes,
            help=failure.help,
            fix=failure.fix,
        )

    # -- top level

    # -- names
    def lookup(self, info: ModuleInfo, path: Sequence[str]) -> tuple[ModuleInfo, ast.Decl] | None:
        symbol = info.lookup(list(path))
        return None if symbol is None else (symbol.module, symbol.decl)

    # -- segments and oligos
    def segment(self, info: ModuleInfo, decl: ast.Decl) -> SegmentDef:
        key = (id(info), decl.name)
        if key in self.segments:
            return self.segments[key]
        if key in self.busy:
            raise Failure("E0413", f"segment `{decl.name}` refers to itself", decl.name_span)
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
            fields = block_fields(decl.body)
            value = fields.get("seq")
            for key, field_value in fields.items():
                if key != "seq" and isinstance(field_value, ast.Sequence):
                    parts.append(
                        (key, self.sequence(info, field_value, label=f"{decl.name}.{key}"))
                    )
        if value is None:
            raise Failure(
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
            args = call_arguments(value)
            if kind in ("fixed", "homopolymer"):
                first = args.get(0)
                if not isinstance(first, ast.Sequence):
                    raise Failure("E0413", f"`{kind}` takes a sequence", value.span)
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
                role = word_of(first_arg) or role
            low, high = length_range(args.get(0) if kind != "payload" else args.get("length"))
            linker_seq = args.get(0)
            if kind == "linker" and isinstance(linker_seq, ast.Sequence):
                return SegmentDef(decl.name, self.sequence(info, linker_seq, label=decl.name), kind)
            if kind not in ("payload",) and low is None:
                raise Failure(
                    "E0413",
                    f"{kind} `{decl.name}` needs a length",
                    value.span,
                    help=f"write `{kind}(12)` or a range `{kind}(8..11)`",
                )
            onlist = args.get("onlist")
            if kind == "payload":
                # a payload stays symbolic even when named like a run (`POLY_T` of 1..98)
                sym: Part = Symbol(symbol_name(up := role.upper()), up, low, high, label=decl.name)
            else:
                made = placeholder(role, low, high, name=None)
                assert isinstance(made, Symbol | Homopolymer)
                sym = evolve(made, label=decl.name)
            return SegmentDef(
                decl.name,
                Seq((sym,)),
                kind,
                onlist=onlist.value if isinstance(onlist, ast.String) else None,
            )
        raise Failure(
            "E0413",
            f"segment `{decl.name}` must be a sequence or barcode(...), "
            "umi(...), index(...), payload(...), spacer(...), linker(...)",
            value.span,
        )

    def oligo(self, info: ModuleInfo, decl: ast.Decl) -> OligoDef:
        key = (id(info), decl.name)
        if key in self.oligos:
            return self.oligos[key]
        if key in self.busy:
            raise Failure("E0413", f"oligo `{decl.name}` refers to itself", decl.name_span)
        self.busy.add(key)
        try:
            fields = block_fields(decl.body) if decl.body else {}
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
                raise Failure(
                    "E0413",
                    f"oligo `{decl.name}` has no sequence",
                    decl.name_span,
                    help="add `seq: 5'-...-3'` (or two `strand` entries for an adapter)",
                )
            kind = word_of(fields.get("kind")) or (
                "double_stranded" if len(strands) > 1 else "single"
            )
            if kind not in OLIGO_KINDS:
                raise Failure(
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
                word_of(fields.get("role")) or "",
                attached=word_of(attached),
                attached_end=attached_end,
                aliases=tuple(word_of(a) or "" for a in aliases.items)
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
                        out.extend(_patterned(seq, part, role).parts)
                    else:
                        if low is not None:
                            self._role_lengths.setdefault((id(info), role), (low, high))
                        elif not is_payload_role(role):
                            # `[ROLE']` of a role written with its length elsewhere
                            # (`[UMI:12]`) has that length, on either strand
                            low, high = self.role_length(info, role)
                        made = _placeholder(self, part, low, high)
                        out.append(
                            evolve(made, label=label)
                            if label and isinstance(made, Homopolymer)
                            else made
                        )
                case ast.Homopolymer(base=base, count=count):
                    out.append(Homopolymer(base.upper().replace("U", "T"), count, label))
                case ast.SeqRef(path=path, revcomp=rc):
                    seq = self.reference(info, path, part.span)
                    out.extend((reverse_complement(seq) if rc else seq).parts)
                case ast.Modification(code=code):
                    _check_modification(self, info, code, part.span)
                    out.append(Modification.of(code))
                case ast.Ribo(base=base):
                    out.append(Ribo(base.upper().replace("U", "T"), label))
                case ast.LNA(base=base):
                    out.append(LNA(base.upper().replace("U", "T"), label))
                case ast.Thioate():
                    out.append(Thioate())
            if len(out) > MAX_SEQUENCE_PARTS:
                raise Failure(
                    "E0415",
                    f"sequence expands to more than {MAX_SEQUENCE_PARTS} parts",
                    node.span,
                    help="references nest too deeply or repeat too often",
                )
        seq = Seq.of(out)
        if len(seq) > MAX_SEQUENCE_TOKENS:
            raise Failure(
                "E0415", f"sequence expands to more than {MAX_SEQUENCE_TOKENS} positions", node.span
            )
        return seq

    def role_length(self, info: ModuleInfo, role: str) -> tuple[int | None, int | None]:
        """The length `role` is written with in the module (the module is read once)."""
        key = (id(info), role)
        if key not in self._role_lengths:
            for other, length in written_lengths(info.module).items():
                self._role_lengths.setdefault((id(info), other), length)
        return self._role_lengths.get(key, (None, None))

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
            raise Failure("E0414", f"`{'.'.join(path)}` is not a segment or oligo", span)
        module, decl = found
        holder: SegmentDef | OligoDef
        if decl.kind == "segment":
            holder = self.segment(module, decl)
        elif decl.kind == "oligo":
            holder = self.oligo(module, decl)
        else:
            raise Failure(
                "E0414", f"`{'.'.join(path)}` is a {decl.kind}, not a segment or oligo", span
            )
        if sub is None:
            return holder.seq
        named = dict(holder.parts)
        if sub not in named:
            raise Failure(
                "E0414",
                f"`{decl.name}` has no part `{sub}`",
                span,
                help="parts: " + (", ".join(f"`{n}`" for n in named) or "none"),
            )
        return named[sub]

    # -- workflows (derived)


def length_range(expr: ast.Expr | None) -> tuple[int | None, int | None]:
    """A length (`12`, `12 nt`) or range (`8..11`) as (low, high); (None, None) if absent."""
    low, high = _length(expr)
    if low is not None and high is not None and (low > high or high > MAX_SEGMENT_LENGTH):
        assert expr is not None
        raise Failure(
            "E0413",
            f"length {low}..{high} is not a range of at most {MAX_SEGMENT_LENGTH}",
            expr.span,
            help="write the shorter length first, e.g. `8..11`",
        )
    return low, high


def _length(expr: ast.Expr | None) -> tuple[int | None, int | None]:
    match expr:
        case None:
            return None, None
        case ast.Number(text=text):
            return int(Fraction(text)), int(Fraction(text))
        case ast.Quantity(number=number):
            return int(Fraction(number)), int(Fraction(number))
        case ast.Binary(op="..", left=left, right=right):
            return _length(left)[0], _length(right)[0]
    raise Failure("E0413", "a length is a number or a range `8..11`", expr.span)


def is_payload_role(role: str) -> bool:
    """A payload (`[CDNA]`, `[GDNA_2]`): its length is the sample's, never written."""
    upper = role.upper()
    return upper in PAYLOAD_ROLES or upper.startswith(tuple(PAYLOAD_ROLES))


def written_lengths(module: ast.Module) -> dict[str, tuple[int | None, int | None]]:
    """The length each placeholder role is written with in a module (the first one
    seen), so a `[ROLE']` written without it gets it."""
    found: dict[str, tuple[int | None, int | None]] = {}
    for node in _placeholders(module):
        if node.min_len is not None:
            found.setdefault(node.role, (node.min_len, node.max_len))
    return found


def _patterned(seq: Seq, node: ast.Placeholder, role: str) -> Seq:
    """A declared segment written `[CB:16 "..."]`: its pattern on the segment's one
    symbol of that length (the segment unchanged without one); E0106 when it is no such
    symbol."""
    if not node.pattern:
        return seq
    only = seq.parts[0] if len(seq.parts) == 1 else None
    pattern = node.pattern
    if isinstance(only, Symbol) and only.min_len == only.max_len == len(pattern):
        made = placeholder(only.role, only.min_len, only.max_len, only.rc, pattern=pattern)
        return Seq((evolve(only, pattern=made.pattern if isinstance(made, Symbol) else None),))
    raise Failure(
        "E0106",
        f"segment `{role}` is not one placeholder of {len(pattern)} positions: the pattern "
        "does not fit it",
        node.span,
        label="a pattern gives the positions of one fixed-length segment",
        help=f"leave the pattern out, or write the segment's placeholder `[ROLE:{len(pattern)} "
        f'"{pattern}"]` in its declaration',
    )


def _placeholders(root: object) -> Iterator[ast.Placeholder]:
    """Every placeholder in an AST (iterative walk over record nodes and tuples)."""
    todo: list[object] = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Placeholder):
            yield node
        elif isinstance(node, tuple | list):
            todo.extend(node)
        elif has(type(node)):
            cls: Any = type(node)
            todo.extend(getattr(node, f.name) for f in fields(cls))
