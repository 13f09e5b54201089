"""The fields each declaration kind accepts: one registry for the checker and `lablang spec`.

A kind whose fields are a closed set is checked here (E0070, with "did you mean" over
that kind's fields only). Kinds whose field keys are names the author chooses (a scene's
entities, a contract's named conditions) or that their backend checks member by member
(protocol steps, rubric items, task steps) are listed with `open=True` or their backend's
own check, and documented from the same table.
"""

from __future__ import annotations

from attrs import frozen

from lablang import ast
from lablang.check.names import did_you_mean
from lablang.diagnostics import Edit, Fix, Report
from lablang.records import Compared
from lablang.source import Source

__all__ = ["DECL_FIELDS", "ENTRY_FIELDS", "PROVENANCE_FIELDS", "FieldSet", "check_field_names"]

# Any declaration or entry may say where it comes from and how it is supported.
PROVENANCE_FIELDS = ("source", "support")


@frozen(repr=False, eq=False)
class FieldSet(Compared):
    """The fields of one declaration kind (or entry keyword), each with a one-line doc."""

    fields: dict[str, str]
    # sequence-valued fields with any name are named parts (`partial: 5'-...-3'`)
    named_parts: bool = False
    # field keys are the author's names (scene entities, contract conditions)
    open: bool = False
    # the kind's backend reports unknown members itself
    backend_checked: bool = False
    note: str = ""

    def accepts(self, member: ast.Field) -> bool:
        if self.open or member.key in self.fields or member.key in PROVENANCE_FIELDS:
            return True
        return self.named_parts and isinstance(member.value, ast.Sequence)


DECL_FIELDS: dict[str, FieldSet] = {
    "segment": FieldSet(
        {
            "seq": "the sequence, `5'-...-3'`",
            "role": 'the placeholder role it stands for (`"CELL_BARCODE"`)',
        },
        named_parts=True,
        note="or `segment X = barcode(16)`, `umi(12)`, `payload(\"CDNA\")`, `5'-...-3'`; "
        "any other sequence-valued field is a named part, `{X.part}`",
    ),
    "oligo": FieldSet(
        {
            "seq": "the sequence, 5' to 3'",
            "role": "free text: `capture_primer`, `template_switch`, `adapter`, ...",
            "kind": "`single` (default), `double_stranded`, `hairpin`, `assembled`",
            "attached": "`bead at 5'`: the end fixed to a bead",
            "aliases": "other names, a list of strings",
            "pairs_with": "the oligo it anneals to (adapters)",
            "revcomp_of": "the oligo whose reverse complement it is",
        },
        named_parts=True,
        note="`strand a: 5'-...-3'` entries give a double-stranded oligo's strands",
    ),
    "state": FieldSet(
        {
            "final": "the modality, for a final state (`gene_expression`)",
            "derived": "the workflow step it realizes (`gex.rt`)",
            "realizes": "the same as the `realizes` clause",
            "partial": 'why the interpreter cannot derive it (`"the second RT is not modelled"`)',
        },
        note="entries: `strand NAME: DNA|RNA 5'-...-3' from OLIGO`, `pair a ~ b`, "
        "`nick|gap|break { strand: s  after: x  before: y }`",
    ),
    "transition": FieldSet(
        {
            "substrates": "states consumed, `[s1, s2]`",
            "products": "states made",
            "carried": "products carried forward",
            "discarded": "products discarded",
            "oligos": "oligos the step uses",
            "reagents": "major reagents, strings",
            "detail": "free text",
            "realizes": "the workflow step it realizes",
        }
    ),
    "workflow": FieldSet(
        {},
        note="members: `input NAME: DNA|RNA 5'-...-3'`, `name = operation(...)`, "
        "`param NAME: value`, `output NAME as MODALITY`, `expect NAME.top == 5'-...-3'`",
    ),
    "library": FieldSet(
        {
            "from": "the workflow step that makes it (`gex.lib`)",
            "modality": 'the modality, a string (`"gene expression"`)',
            "seq": "the final library's top strand, 5' to 3'",
            "partial": "why the interpreter cannot derive it: shown as partial, not verified",
        },
        note="entries: `read NAME { primer: OLIGO  strand: top|bottom  length: 28 nt }`",
    ),
    "protocol": FieldSet(
        {
            "materials": 'reagents, `[a, b]` or `{a: "description"}` or '
            '`{buffer: { is: "..."  components: {methanol: 20 %}  solvent: tbst  dilution: 1000 x }}`',
            "equipment": "a list of names (documentation only)",
            "consumables": "membranes, gels, columns: `{membrane: { material: pvdf  pore_size: "
            "0.45 um }}`",
            "containers": "`[tube1]` or `{tube1: 20 uL of lysate, tube2: 0 uL}`",
            "realizes": "the workflow step it carries out",
        },
        backend_checked=True,
        note="entries: `step NAME { ACTION: ... }`, one action per step",
    ),
    "task": FieldSet(
        {
            "instruction": "the instruction given to the agent, a string",
            "follows": "the contract the task follows, with its parameters "
            "(`feedback_weighing(target: 30)`)",
            "operations": "which contract operation each transfer is: "
            "`{ put_on_scale(w20, scale) as add(20) ... }`",
            # the trace to the protocol of `task T in S realizes P` (lablang/trace)
            "bind": "the protocol's containers and materials as scene entities and "
            "substances, `{tube1: tube, buffer: buffer}`",
            "defer": 'protocol steps no robot does, with why: `{spin: "done by the centrifuge"}`',
            "tolerance": "how far the task's quantities may be from the protocol's, one per "
            "dimension: `0.5 uL` or `[0.5 uL, 1 C]`",
            "family": 'the operation family: "liquid handling", "mixing", "solid handling", '
            '"thermal" or "apparatus"',
        },
        backend_checked=True,
        note="entries: `step NAME { do { skill(...); ... }  success: PREDICATE }`",
    ),
    "rubric": FieldSet(
        {"question": "the task's question, a string"},
        backend_checked=True,
        note='entries: `item NAME "text" weight W { levels { 2: "..." 1: "..." 0: "..." }  '
        "check: EXPR }`",
    ),
    "scene": FieldSet(
        {},
        open=True,
        note="each field is an entity: `NAME: ASSET(params) on|in|at PLACE`; "
        "entries: `randomize`, `event`",
    ),
    "contract": FieldSet(
        {},
        open=True,
        note="each field is a named condition (`balanced: a != none and ...`); entries: "
        "`var`, `op`, `goal`, `invariant`, `terminal`, `pair`, `evidence`, `outcome`",
    ),
    "skill": FieldSet({}, open=True, note="a skill program reused by tasks"),
    "material": FieldSet({}, open=True, note="a reagent declared once for every protocol"),
    "benchmark": FieldSet(
        {"domains": "the benchmark's domains, a list of names"},
        backend_checked=True,
        note="entries: `item TASK { rubric: RUBRIC  published: PROTOCOL_ID  domain: NAME }`",
    ),
}

# Entry keywords whose fields are a closed set, checked the same way.
ENTRY_FIELDS: dict[str, FieldSet] = {
    "read": FieldSet(
        {
            "primer": "the sequencing primer (an oligo)",
            "strand": "the template strand its primer anneals to: `top` or `bottom`",
            "length": "the read length (`28 nt`)",
        }
    ),
}


def check_field_names(source: Source, decl: ast.Decl, report: Report) -> None:
    """E0070 for a field the declaration's kind (or a `read` entry) does not have."""
    fieldset = DECL_FIELDS.get(decl.kind)
    if fieldset is None or decl.body is None:
        return
    if not (fieldset.open or fieldset.backend_checked):
        _check_block(source, decl.body.members, fieldset, _article(decl.kind), report)
    for member in decl.body.members:
        if isinstance(member, ast.Entry) and member.body is not None:
            entry_fields = ENTRY_FIELDS.get(member.keyword)
            if entry_fields is not None and decl.kind == "library":
                where = f"a `{member.keyword}` of a library"
                _check_block(source, member.body.members, entry_fields, where, report)


def _check_block(
    source: Source,
    members: tuple[ast.Member, ...],
    fieldset: FieldSet,
    where: str,
    report: Report,
) -> None:
    known = [*fieldset.fields, *PROVENANCE_FIELDS]
    for member in members:
        if not isinstance(member, ast.Field) or fieldset.accepts(member):
            continue
        guess = did_you_mean(member.key, known)
        listed = ", ".join(f"`{k}`" for k in known)
        report.add(
            "E0070",
            f"`{member.key}` is not a field of {where}",
            source,
            member.key_span,
            label="not a field here",
            help=f"did you mean `{guess}`?" if guess else f"the fields are {listed}",
            notes=(f"the fields are {listed}",) if guess else (),
            fix=Fix(f"use `{guess}`", (Edit(member.key_span, guess),)) if guess else None,
        )


def _article(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} `{kind}`"
