"""Primer extension, reverse transcription, template switching, second strands."""

from __future__ import annotations

import attrs

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    MolType,
)
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    MIN_SWITCH,
    Oligo,
    OperationFailure,
    anneal_sites,
    has_phosphate,
    no_site_failure,
    template_strand,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    bases,
    plain,
    reverse_complement,
)

# ------------------------------------------------------------------ extension, RT, TSO


@operation(
    "extend",
    lsb="extension",
    rule="the primer's 3' end must pair over >= `min_anneal` (12) contiguous bases; new strand "
    "= whole primer (5' tail included) + copy of the template to its 5' end",
    params=(Param("primer", "oligo", "the primer that anneals and is extended", required=True),),
    uses=("min_anneal",),
    subject="template",
)
def extend(
    template: Molecule,
    primer: Oligo,
    *,
    min_match: int = MIN_ANNEAL,
    polymerase_type: MolType = MolType.DNA,
    nontemplated: Seq | None = None,
) -> Duplex:
    """Anneal `primer` to the template strand and extend it to the template's 5' end.

    Rule: the new strand is the whole primer (5' tail included) followed by the reverse
    complement of the template upstream of the site (run-off synthesis), then any
    non-templated bases. The result is a duplex with the new strand on top.

    >>> from lablang.molecular.molecule import Single, Strand
    >>> from lablang.molecular.ops.core import oligo
    >>> from lablang.molecular.sequence import render
    >>> d = extend(Single(Strand(bases("AAAACCCCGGGGTTTTACGTACGTAC"))), oligo("p", "GGTTGTACGTACGTAAAACCCC"))
    >>> render(d.top)
    "5'-GGTTGTACGTACGTAAAACCCCGGGGTTTT-3'"
    """
    strand = template_strand(template)
    sites = anneal_sites(primer.seq, strand.seq, min_match)
    if not sites:
        raise no_site_failure(
            primer.name, primer.seq, [(strand.name or "template", strand.seq)], min_match
        )
    site = sites[0]
    t = site.template
    copy = reverse_complement(t.slice(0, site.start)).with_label(
        f"copy of {strand.name or 'template'}"
    )
    p_len = len(primer.seq)
    tail = primer.seq.slice(0, p_len - site.primer_paired)
    paired = primer.seq.slice(p_len - site.primer_paired)
    core = paired + copy
    return Duplex(
        core=core,
        left=End(top=tail, bottom=t.slice(site.stop)),
        right=End(top=nontemplated or Seq(), bottom=Seq()),
        top_type=polymerase_type,
        bottom_type=strand.moltype,
        top_name=primer.name,
        bottom_name=strand.name or "template",
        top_phosphate=has_phosphate(primer.seq),
        bottom_phosphate=strand.phosphate_5p,
    )


@operation(
    "reverse_transcribe",
    lsb="reverse_transcription",
    rule="extension on RNA giving an RNA:DNA hybrid; MMLV adds non-templated `CCC` at the RNA's "
    "5' end; up to three degenerate 3' primer bases (`VN`) may pair inside a payload",
    params=(
        Param("primer", "oligo", "the RT primer (oligo-dT, gene-specific...)", required=True),
        Param("switch", "oligo", "a template-switching oligo: switch in the same step"),
        Param(
            "nontemplated",
            "text",
            "bases added at the cDNA's 3' end",
            default='"CCC" (`param nontemplated`)',
        ),
    ),
    uses=("min_anneal", "nontemplated"),
    subject="rna",
)
def reverse_transcribe(
    rna: Molecule,
    primer: Oligo,
    *,
    switch: Oligo | None = None,
    nontemplated: str = "CCC",
    min_match: int = MIN_ANNEAL,
) -> Duplex:
    """First-strand synthesis on an RNA template, with optional template switching.

    Rule: extension as in `extend`, on RNA, giving an RNA:DNA hybrid; MMLV-type reverse
    transcriptases add a few non-templated nucleotides, mostly C (modelled `CCC`), on
    reaching the RNA's 5' end. With `switch`, the TSO's 3' riboguanosines pair with
    that CCC and the enzyme copies the TSO (see `template_switch`).
    """
    strand = template_strand(rna)
    if strand.moltype is not MolType.RNA:
        raise OperationFailure(
            "E0412",
            "reverse transcription needs an RNA template",
            help="use `extend` for a DNA template",
        )
    hybrid = extend(
        rna,
        primer,
        min_match=min_match,
        nontemplated=bases(nontemplated, "non-templated C") if nontemplated else Seq(),
    )
    return template_switch(hybrid, switch) if switch is not None else hybrid


@operation(
    "template_switch",
    lsb="extension",
    rule="the TSO's 3' rGrGrG must pair with the CCC; the cDNA is extended by the TSO's "
    "complement; the TSO is a reagent, not a third strand",
    params=(Param("tso", "oligo", "the template-switching oligo", required=True),),
    subject="hybrid",
)
def template_switch(hybrid: Duplex, tso: Oligo) -> Duplex:
    """Template switching: the cDNA's 3' end is extended by the TSO's complement.

    Rule: the TSO's 3'-terminal bases (rGrGrG) must pair with the non-templated bases
    at the cDNA's 3' end; the reverse transcriptase then switches template and copies
    the TSO to its 5' end, so the cDNA ends `... CCC TSO'`. By LibStructBench's
    convention the TSO is a reagent of the transition, not a third strand.
    """
    overhang = hybrid.right.top
    if not overhang:
        raise OperationFailure(
            "E0412",
            "template switching needs non-templated bases at the cDNA's 3' end",
            help='reverse-transcribe with `nontemplated: "CCC"`',
        )
    tso_seq = plain(tso.seq)
    sites = anneal_sites(tso_seq, overhang, MIN_SWITCH)
    sites = [s for s in sites if s.stop == len(overhang)] or sites
    if not sites:
        raise no_site_failure(tso.name, tso_seq, [("cDNA 3' overhang", overhang)], MIN_SWITCH)
    site = sites[0]
    tail = tso.seq.slice(0, len(tso.seq) - site.primer_paired)
    extension = reverse_complement(tail).with_label(f"{tso.name}'")
    return attrs.evolve(hybrid, right=End(top=overhang + extension, bottom=hybrid.right.bottom))


@operation(
    "second_strand",
    lsb="strand_synthesis",
    rule="without a primer, on an RNA:DNA hybrid: RNase H + Pol I nick translation gives a blunt "
    "DNA duplex (Gubler-Hoffman); with a primer, `extend`",
    params=(Param("primer", "oligo", "a second-strand primer; none: RNase H / Pol I"),),
)
def second_strand(molecule: Molecule, primer: Oligo | None = None) -> Molecule:
    """Second-strand synthesis.

    Rule: with a primer, the primer anneals to the single strand and is extended
    (`extend`). Without one, on an RNA:DNA hybrid, RNase H nicks the RNA and DNA
    polymerase I replaces it by nick translation, extending to the end of the first
    strand: the result is a blunt DNA duplex whose top is the first strand (Gubler and
    Hoffman 1983).
    """
    if primer is not None:
        return extend(molecule, primer)
    if not isinstance(molecule, Duplex) or MolType.RNA not in (
        molecule.top_type,
        molecule.bottom_type,
    ):
        raise OperationFailure(
            "E0412",
            "second-strand synthesis without a primer needs an RNA:DNA hybrid",
            help="give `primer:` to synthesise a second strand on a single DNA strand",
        )
    duplex = molecule if molecule.top_type is MolType.DNA else molecule.flipped()
    first = duplex.top
    return Duplex(
        core=first,
        top_name=duplex.top_name,
        bottom_name="second strand",
        top_phosphate=duplex.top_phosphate,
    )
