"""Molecules the interpreter computes with: single strands and duplexes with their ends.

A `Duplex` is stored as its paired core (top-strand sequence) and two ends. Each end
records what sticks out on each strand, so one representation covers blunt ends,
5' and 3' overhangs, and the forked ends of Y-shaped adapters:

    top    = left.five_prime + left.top + core + right.top           (5'->3')
    bottom = right.five_prime + right.bottom + rc(core) + left.bottom (5'->3')

At the left end the top strand's 5' terminus and the bottom strand's 3' terminus meet;
at the right end the top's 3' and the bottom's 5'. A complementary strand copies
sequence, not chemistry, so the core carries the top strand's modifications only; the
5' modifications of a strand whose 5' terminus the core does not begin (the bottom
strand's biotin or amine from a reverse primer) are the end's `five_prime`, and go
with the end: a cut, a break or a ligation that replaces the end replaces them. The molecule type of each strand
(DNA or RNA) decides the LibStructBench architecture (an RNA:DNA duplex is a hybrid).
"""

from __future__ import annotations

import enum
import re
from typing import assert_never

from attrs import field, frozen

from lablang.molecular.sequence import Modification, Seq, reverse_complement
from lablang.records import Compared


class MolType(enum.Enum):
    DNA = "DNA"
    RNA = "RNA"
    CHIMERA = "chimera"  # RNA and DNA joined in one strand (a DNA adapter ligated to RNA)

    @property
    def has_rna(self) -> bool:
        """RNA, or a chimera with an RNA part (a template for reverse transcriptase)."""
        return self is not MolType.DNA

    def joined(self, other: MolType) -> MolType:
        """The type of a strand made by joining a strand of this type to one of `other`."""
        return self if self is other else MolType.CHIMERA


class Architecture(enum.Enum):
    SINGLE_STRANDED = "single_stranded"
    DOUBLE_STRANDED = "double_stranded"
    PARTIALLY_DUPLEX = "partially_duplex"
    RNA_DNA_HYBRID = "rna_dna_hybrid"
    Y_SHAPED_DUPLEX = "y_shaped_duplex"
    MIXED_POPULATION = "mixed_population"
    UNKNOWN = "unknown"


@frozen(repr=False, eq=False)
class Strand(Compared):
    seq: Seq
    moltype: MolType = MolType.DNA
    name: str = ""
    phosphate_5p: bool = False


@frozen(repr=False, eq=False)
class End(Compared):
    """One end of a duplex: the unpaired sequence on each strand (empty = flush)."""

    top: Seq = field(factory=Seq)
    bottom: Seq = field(factory=Seq)
    ragged: bool = False  # left by random breakage; needs end repair before ligation
    # modifications heading the strand whose 5' terminus is at this end (the bottom's at
    # the right end): `/5Biosg/`, `/NH2/`, `/5Phos/` of the primer that made it
    five_prime: Seq = field(factory=Seq)
    # core positions next to this end over which the strand ending (3') here (the
    # bottom at a left end, the top at a right end) is a separate strand, annealed and
    # not joined: Tn5's non-transferred strand across its 9-nt gap
    annealed: int = 0

    def with_overhangs(self, top: Seq | None = None, bottom: Seq | None = None) -> End:
        """This end with new overhangs (`None` keeps one), keeping its 5' terminus's
        modifications: tailing, filling and trimming change sequence, not that group."""
        return End(
            self.top if top is None else top,
            self.bottom if bottom is None else bottom,
            self.ragged,
            self.five_prime,
            self.annealed,
        )

    def blunted(self, side: str) -> End:
        """This end once its overhangs are filled or trimmed, as end repair or gap filling
        leave it (the caller moves a filled overhang into the core). A filled bottom
        overhang's 5' group at the right end stays on the bottom strand's 5' terminus;
        at the left end the top's stays in the core."""
        moved = lead_modifications(self.bottom) if side == "right" else Seq()
        return End(five_prime=self.five_prime + moved)

    @property
    def blunt(self) -> bool:
        return not self.top and not self.bottom and not self.ragged

    @property
    def forked(self) -> bool:
        return bool(self.top) and bool(self.bottom)


@frozen(repr=False, eq=False)
class Single(Compared):
    strand: Strand


@frozen(repr=False, eq=False)
class Duplex(Compared):
    core: Seq
    left: End = field(factory=End)
    right: End = field(factory=End)
    top_type: MolType = MolType.DNA
    bottom_type: MolType = MolType.DNA
    top_name: str = "top"
    bottom_name: str = "bottom"
    top_phosphate: bool = False  # 5' phosphate of the top strand (left end)
    bottom_phosphate: bool = False  # 5' phosphate of the bottom strand (right end)
    nicks: tuple[str, ...] = ()  # junctions left unsealed, described in words
    loops: tuple[str, ...] = ()  # closed hairpin loops joining the strands, in words
    # a closed circle (a plasmid): the core is the whole top strand read from an origin,
    # the ends are flush and mean nothing (`circularize` makes one, `digest` opens it)
    circular: bool = False

    @property
    def top(self) -> Seq:
        return self.left.five_prime + self.left.top + self.core + self.right.top

    @property
    def bottom(self) -> Seq:
        return (
            self.right.five_prime
            + self.right.bottom
            + reverse_complement(self.core)
            + self.left.bottom
        )

    def flipped(self) -> Duplex:
        """The same molecule turned end over end: the bottom strand becomes the top."""
        # the top's own 5' modifications head its core (or its 5' overhang, which
        # becomes the new bottom's 5' overhang as it is); the core's reverse complement
        # drops them, so they become the new right end's
        top_5p = self.left.five_prime + (Seq() if self.left.top else lead_modifications(self.core))
        return Duplex(
            core=reverse_complement(self.core),
            left=End(
                self.right.bottom,
                self.right.top,
                self.right.ragged,
                self.right.five_prime,
                self.right.annealed,
            ),
            right=End(
                self.left.bottom, self.left.top, self.left.ragged, top_5p, self.left.annealed
            ),
            top_type=self.bottom_type,
            bottom_type=self.top_type,
            top_name=self.bottom_name,
            bottom_name=self.top_name,
            top_phosphate=self.bottom_phosphate,
            bottom_phosphate=self.top_phosphate,
            nicks=tuple(_other_strand(n) for n in self.nicks),
            loops=tuple(_other_strand(n) for n in self.loops),
            circular=self.circular,
        )


_STRAND_WORD = re.compile(r"\b(top|bottom)\b")


def _other_strand(note: str) -> str:
    """A note about a duplex as it reads once the duplex is flipped: its top strand is
    the bottom one and the reverse (so a note an operation wrote while working on the
    flipped molecule names the strand of the molecule the user sees). Names in
    backticks are left as they are; "before"/"after" an oligo are along the strand, and
    stay.

    >>> _other_strand("bottom strand at `top_adapter` (no 5' phosphate)")
    "top strand at `top_adapter` (no 5' phosphate)"
    """
    pieces = note.split("`")
    for k in range(0, len(pieces), 2):
        pieces[k] = _STRAND_WORD.sub(
            lambda m: "bottom" if m.group(1) == "top" else "top", pieces[k]
        )
    return "`".join(pieces)


def strand_of_note(note: str) -> str | None:
    """The strand a note names first (`top` or `bottom`, outside backticked names)."""
    for k, piece in enumerate(note.split("`")):
        found = _STRAND_WORD.search(piece) if k % 2 == 0 else None
        if found:
            return found.group(1)
    return None


Molecule = Single | Duplex


def lead_modifications(seq: Seq) -> Seq:
    """The modifications (no base) that head a strand: its 5' terminal group.

    >>> from lablang.molecular.sequence import parse_notation, render
    >>> render(lead_modifications(parse_notation("5'-/5Biosg/ /iSp18/ ACGT-3'")))
    "5'-/5Biosg/ /iSp18/-3'"
    """
    lead = []
    for part in seq.parts:
        if not isinstance(part, Modification) or part.base is not None:
            break
        lead.append(part)
    return Seq(tuple(lead))


def strands(molecule: Molecule) -> tuple[Strand, ...]:
    """The strands of a molecule, top first, each 5'->3'."""
    match molecule:
        case Single(strand=strand):
            return (strand,)
        case Duplex():
            return (
                Strand(molecule.top, molecule.top_type, molecule.top_name, molecule.top_phosphate),
                Strand(
                    molecule.bottom,
                    molecule.bottom_type,
                    molecule.bottom_name,
                    molecule.bottom_phosphate,
                ),
            )
        case _:
            assert_never(molecule)


def architecture(molecule: Molecule) -> Architecture:
    """The LibStructBench strand architecture of a molecule."""
    match molecule:
        case Single():
            return Architecture.SINGLE_STRANDED
        case Duplex():
            if {molecule.top_type, molecule.bottom_type} == {MolType.DNA, MolType.RNA}:
                return Architecture.RNA_DNA_HYBRID
            if molecule.left.forked or molecule.right.forked:
                return Architecture.Y_SHAPED_DUPLEX
            overhangs = [
                molecule.left.top,
                molecule.left.bottom,
                molecule.right.top,
                molecule.right.bottom,
            ]
            if any(len(o) > 3 for o in overhangs):
                return Architecture.PARTIALLY_DUPLEX
            return Architecture.DOUBLE_STRANDED
        case _:
            assert_never(molecule)


def top_strand(molecule: Molecule) -> Seq:
    match molecule:
        case Single(strand=strand):
            return strand.seq
        case Duplex():
            return molecule.top
        case _:
            assert_never(molecule)


class Disposition(enum.Enum):
    CARRIED = "carried"
    DISCARDED = "discarded"


@frozen(repr=False, eq=False)
class Product(Compared):
    """One product of an operation, with what happens to it and why."""

    molecule: Molecule
    disposition: Disposition = Disposition.CARRIED
    reason: str = ""
    name: str = ""
    fraction: float | None = None  # expected share of the mix, when known (tagmentation)


@frozen(repr=False, eq=False)
class Pool(Compared):
    """The products of one step; operations map over the carried members."""

    products: tuple[Product, ...]
    # warnings about the step, as (code, message, help): W0407 for a PCR primer with
    # several sites; the deriver reports each at the step
    cautions: tuple[tuple[str, str, str], ...] = ()

    @property
    def carried(self) -> tuple[Product, ...]:
        return tuple(p for p in self.products if p.disposition is Disposition.CARRIED)

    @property
    def discarded(self) -> tuple[Product, ...]:
        return tuple(p for p in self.products if p.disposition is Disposition.DISCARDED)

    @classmethod
    def of(cls, molecule: Molecule, name: str = "") -> Pool:
        return cls((Product(molecule, name=name),))
