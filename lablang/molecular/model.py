"""The molecular model of a program: segments, oligos, states, transitions, libraries.

Declared (`state`/`transition` blocks) and derived (a workflow's operations) graphs are
both stored here as `StateDef`s and `TransitionDef`s, so checks, graphs and exports
treat them alike. Interchange formats (LibStructBench JSON, seqspec YAML) read into and
write from this model.
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from lablang.molecular.molecule import Architecture, Duplex, Molecule, MolType, Single
from lablang.molecular.operations import Oligo
from lablang.molecular.sequence import Seq
from lablang.records import Compared

OPERATIONS = (
    "reverse_transcription", "ligation", "tagmentation", "extension", "pcr", "amplification",
    "fragmentation", "denaturation", "strand_synthesis", "cleanup", "size_selection",
    "affinity_selection", "sample_split", "pooling", "indexing", "circularization", "capture",
    "other",
)  # fmt: skip
MODALITIES = (
    "gene expression",
    "genomic DNA",
    "feature barcode",
    "sgRNA",
    "chromatin accessibility",
)


@frozen(repr=False, eq=False)
class SegmentDef(Compared):
    name: str
    seq: Seq
    kind: str = "fixed"  # fixed barcode umi index payload homopolymer spacer linker anchor
    onlist: str | None = None
    parts: tuple[tuple[str, Seq], ...] = ()  # named sub-sequences: `{TruSeq_R1.partial}`


@frozen(repr=False, eq=False)
class OligoDef(Compared):
    name: str
    strands: tuple[Seq, ...]
    title: str = ""
    kind: str = "single"  # single assembled double_stranded hairpin unknown
    role: str = ""
    orientation: str = "5_to_3"
    attached: str | None = None
    attached_end: str | None = None
    aliases: tuple[str, ...] = ()
    parts: tuple[tuple[str, Seq], ...] = ()
    support_status: str = "explicit"

    @property
    def seq(self) -> Seq:
        return self.strands[0]

    def as_oligo(self) -> Oligo:
        return Oligo(self.name, self.strands, self.kind)


@frozen(repr=False, eq=False)
class StrandDef(Compared):
    name: str
    seq: Seq
    moltype: MolType = MolType.DNA
    derived_from: tuple[tuple[str, str], ...] = ()  # (oligo, same_orientation|reverse_complement)


@frozen(repr=False, eq=False)
class Discontinuity(Compared):
    kind: str  # nick gap break
    strand: str
    after: str = ""
    before: str = ""


@frozen(repr=False, eq=False)
class StateDef(Compared):
    name: str
    strands: tuple[StrandDef, ...]
    architecture: Architecture = Architecture.UNKNOWN
    title: str = ""
    pairs: tuple[tuple[str, str], ...] = ()
    discontinuities: tuple[Discontinuity, ...] = ()
    realizes: str | None = None  # `workflow.binding` whose derived state this declares
    molecule: Molecule | None = None  # set for derived states
    disposition_reason: str = ""
    support_status: str = "explicit"
    # what the interpreter verified: "derived" (computed, or declared and equal to the
    # derived step it realizes), "declared" (as written, not computed), "unknown" (it
    # realizes a step that could not be derived because an earlier step failed),
    # "partial" (the file marks it `partial: "reason"`); `status_reason` says why
    status: str = "declared"
    status_reason: str = ""

    @property
    def reference(self) -> StrandDef | None:
        return self.strands[0] if self.strands else None

    @property
    def circular(self) -> bool:
        """Whether the derived molecule is a closed circle (a declared state is linear)."""
        return isinstance(self.molecule, Duplex) and self.molecule.circular


@frozen(repr=False, eq=False)
class TransitionDef(Compared):
    name: str
    operation: str
    substrates: tuple[str, ...] = ()
    products: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()
    discarded: tuple[str, ...] = ()
    oligos: tuple[str, ...] = ()
    reagents: tuple[tuple[str, str], ...] = ()  # (name, role)
    detail: str = ""
    support_status: str = "explicit"
    # the interpreter's parameters in force at a derived step (`param min_anneal: 15`),
    # which its primers' sites and melting temperatures are computed with
    params: tuple[tuple[str, Any], ...] = field(default=(), eq=False)


@frozen(repr=False, eq=False)
class ReadDef(Compared):
    name: str
    primer: str
    strand: str = "bottom"  # the template strand the primer anneals to
    length: int | None = None
    min_length: int | None = None


@frozen(repr=False, eq=False)
class LibraryDef(Compared):
    name: str
    seq: Seq
    modality: str = "gene expression"
    title: str = ""
    reads: tuple[ReadDef, ...] = ()
    source: str | None = None  # `workflow.output` it comes from, when derived
    status: str = "declared"  # derived, declared, unknown or partial, as for `StateDef`
    status_reason: str = ""
    circular: bool = False  # derived from a circular molecule (a plasmid)


@frozen(repr=False, eq=False)
class Graph(Compared):
    """One workflow's molecular graph: states, transitions, initial and final states."""

    name: str
    states: tuple[StateDef, ...]
    transitions: tuple[TransitionDef, ...]
    initial: tuple[str, ...] = ()
    finals: tuple[tuple[str, str], ...] = ()  # (state, modality)
    derived: bool = False
    outputs: tuple[tuple[str, str], ...] = ()  # (state, the workflow output it is)
    # steps not derived because a step they depend on failed (one error, no cascade)
    unknown: tuple[str, ...] = ()

    def state(self, name: str) -> StateDef | None:
        return next((s for s in self.states if s.name == name), None)


@frozen(repr=False, eq=False)
class MolecularModel(Compared):
    name: str = ""
    title: str = ""
    segments: tuple[SegmentDef, ...] = ()
    oligos: tuple[OligoDef, ...] = ()
    graphs: tuple[Graph, ...] = ()
    libraries: tuple[LibraryDef, ...] = ()

    def oligo(self, name: str) -> OligoDef | None:
        return next((o for o in self.oligos if o.name == name), None)


def state_from_molecule(name: str, molecule: Molecule, title: str = "") -> StateDef:
    """A state description of a derived molecule (strands 5'->3', pairing, nicks)."""
    from lablang.molecular.molecule import architecture, strand_of_note

    match molecule:
        case Single(strand=strand):
            strands: tuple[StrandDef, ...] = (
                StrandDef(strand.name or "strand", strand.seq, strand.moltype),
            )
            pairs: tuple[tuple[str, str], ...] = ()
            nicks: tuple[Discontinuity, ...] = ()
        case Duplex():
            top_name = molecule.top_name or "top"
            bottom_name = molecule.bottom_name or "bottom"
            if bottom_name == top_name:
                bottom_name += "'"
            strands = (
                StrandDef(top_name, molecule.top, molecule.top_type),
                StrandDef(bottom_name, molecule.bottom, molecule.bottom_type),
            )
            pairs = ((top_name, bottom_name),)
            nicks = tuple(
                Discontinuity(
                    "nick", top_name if strand_of_note(n) == "top" else bottom_name, after=n
                )
                for n in molecule.nicks
            )
    return StateDef(
        name,
        strands,
        architecture(molecule),
        title,
        pairs,
        nicks,
        molecule=molecule,
        status="derived",
    )
