"""Libraries and their reads."""

from __future__ import annotations

from lablang import ast
from lablang.molecular import operations as ops
from lablang.molecular.builder.common import (
    Failure,
    block_fields,
    dotted,
    grader_roles,
    modality_of,
    word_of,
)
from lablang.molecular.builder.compare import (
    sequence_difference,
)
from lablang.molecular.builder.declarations import length_range
from lablang.molecular.builder.declared import (
    DeclaredChecks,
)
from lablang.molecular.model import (
    LibraryDef,
    OligoDef,
    ReadDef,
)
from lablang.molecular.molecule import (
    Duplex,
    Pool,
    top_strand,
)
from lablang.molecular.sequence import (
    Seq,
    Symbol,
    plain,
    render,
    reverse_complement,
)
from lablang.resolve import ModuleInfo
from lablang.source import Span


class Libraries(DeclaredChecks):
    def named_oligo(self, info: ModuleInfo, name: str, span: Span) -> OligoDef:
        found = self.lookup(info, name.split("."))
        if found is None or found[1].kind != "oligo":
            raise Failure(
                "E0412",
                f"`{name}` is not an oligo",
                span,
                label="an oligo is expected here",
                help="declare it with `oligo`",
            )
        return self.oligo(*found)

    def library(self, decl: ast.Decl, derived: dict[str, Pool]) -> LibraryDef:
        fields = block_fields(decl.body) if decl.body else {}
        source_name = None
        circular = False
        derived_seq: Seq | None = None
        pool: Pool | None = None
        src = fields.get("from")
        for clause in decl.clauses:
            if clause.keyword == "from" and not isinstance(clause.value, ast.Assignment):
                src = clause.value
        partial_node = fields.get("partial")
        partial = partial_node.value if isinstance(partial_node, ast.String) else None
        status, status_reason = ("partial", partial) if partial is not None else ("declared", "")
        if src is not None:
            source_name = dotted(src)
            why = self.not_derived(source_name)
            pool = derived.get(source_name) if why is None else None
            if why is not None:
                # the step failed (reported there): the library is unknown, not wrong
                pool = None
                if status != "partial":
                    status, status_reason = "unknown", f"`{source_name}` not derived: {why}"
            elif pool is None or not pool.carried:
                raise Failure(
                    "E0405", f"`{source_name}` is not a derived workflow output", src.span
                )
            else:
                derived_seq = top_strand(pool.carried[0].molecule)
                circular = any(
                    isinstance(p.molecule, Duplex) and p.molecule.circular for p in pool.carried
                )
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
                if status == "partial":
                    self.error(
                        "W0405",
                        f"library `{decl.name}` is marked partial but is derived from "
                        f"`{source_name}` and equals it",
                        partial_node.span,  # type: ignore[union-attr]
                        help="remove `partial:`: the interpreter verifies this library",
                    )
                else:
                    status, status_reason = "derived", f"equals derived `{source_name}`"
            elif status == "partial":
                pass  # marked partial: the derivation is known not to reach it
            elif diff is not None:
                others = (
                    [f"`{source_name}` carries {len(candidates)} products; none matches"]
                    if len(candidates) > 1
                    else []
                )
                status_reason = f"differs from derived `{source_name}` at segment `{diff}`"
                self.error(
                    "E0405",
                    f"library `{decl.name}` differs from derived `{source_name}` at "
                    f"segment `{diff}`",
                    seq_node.span,  # type: ignore[union-attr]
                    notes=[f"declared: {render(seq)}", f"derived:  {render(derived_seq)}", *others],
                    help="correct the declared structure or the workflow",
                )
        if seq is None and derived_seq is not None and status == "declared":
            status, status_reason = "derived", f"derived from `{source_name}`"
        final = seq if seq is not None else derived_seq
        if final is None and status == "unknown":
            # only `from:` a step that was not derived (its failure reported there): the
            # library is unknown, with no sequence to check reads or roles against
            modality = modality_of(word_of(fields.get("modality")) or "gene expression")
            return LibraryDef(
                decl.name, Seq(), modality, decl.title or "", (), source_name, status, status_reason
            )
        if final is None:
            raise Failure(
                "E0413", f"library `{decl.name}` has neither `seq` nor `from`", decl.name_span
            )
        self.check_grader_roles(decl, final, seq_node)
        reads: list[ReadDef] = []
        for member in decl.body.members if decl.body else ():
            if isinstance(member, ast.Entry) and member.keyword == "read":
                rf = block_fields(member.body) if member.body else {}
                primer = dotted(rf["primer"]) if "primer" in rf else ""
                low, high = length_range(rf.get("length")) if "length" in rf else (None, None)
                read = ReadDef(
                    member.name or f"R{len(reads) + 1}",
                    primer,
                    word_of(rf.get("strand")) or "bottom",
                    high,
                    low,
                )
                reads.append(read)
                self.check_read(read, final, member)
        modality = modality_of(word_of(fields.get("modality")) or "gene expression")
        return LibraryDef(
            decl.name,
            final,
            modality,
            decl.title or "",
            tuple(reads),
            source_name,
            status,
            status_reason,
            circular,
        )

    def check_grader_roles(self, decl: ast.Decl, final: Seq, seq_node: ast.Expr | None) -> None:
        """W0406 for each placeholder role LibStructBench's Task 1 grader does not expand
        (it would be scored as literal text): the known names are listed."""
        known = grader_roles()
        unknown = sorted(
            {
                part.role
                for part in final.parts
                if isinstance(part, Symbol)
                and part.min_len is not None
                and not part.is_payload
                and part.role.upper() not in known
            }
        )
        if unknown:
            names = ", ".join(f"`[{r}:LEN]`" for r in unknown)
            self.error(
                "W0406",
                f"library `{decl.name}`: LibStructBench's Task 1 grader does not expand {names}; "
                "it is scored as literal text",
                seq_node.span if seq_node is not None else decl.name_span,
                notes=["roles the grader expands: " + ", ".join(sorted(known))],
                help="use a role the grader knows (a round barcode is `[CELL_BARCODE:8]` or "
                "`[LIGATION_BARCODE:8]`, an RT barcode `[RT_BARCODE:10]`)",
            )

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
        except Failure as failure:
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


def _strand_for(library: Seq, strand: str) -> Seq:
    return library if strand == "top" else reverse_complement(library)
