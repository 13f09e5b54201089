"""Primer extension, reverse transcription, template switching, second strands."""

from __future__ import annotations

from attrs import evolve

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    MolType,
    Strand,
    lead_modifications,
)
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    MIN_SWITCH,
    NoSubstrate,
    Oligo,
    OperationFailure,
    anneal_sites,
    as_fragments,
    has_phosphate,
    need_duplex,
    no_site_failure,
    payload_positions,
    random_run,
    template_strand,
    three_prime_blocked,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    bases,
    plain,
    render,
    reverse_complement,
    transcript_roles,
)

# ------------------------------------------------------------------ extension, RT, TSO


@operation(
    "extend",
    lsb="extension",
    rule="the primer's 3' end pairs over >= 12 bases; new strand = whole primer + copy to the template's 5' end; N-mers prime in payloads; a blocked 3' end is E0421",
    params=(Param("primer", "oligo", "the extended primer", required=True),),
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
    non-templated bases. The result is a duplex with the new strand on top. A primer
    ending in six or more `N` (a random hexamer, 8-mer, 9-mer) or in a patterned
    degenerate end (`NNNGGNNNB`, see `random_run`) primes at random, so only inside payloads (see `random_primed`); a primer with a blocked 3' end is E0421.

    >>> from lablang.molecular.molecule import Single, Strand
    >>> from lablang.molecular.ops.core import oligo
    >>> from lablang.molecular.sequence import render
    >>> d = extend(Single(Strand(bases("AAAACCCCGGGGTTTTACGTACGTAC"))), oligo("p", "GGTTGTACGTACGTAAAACCCC"))
    >>> render(d.top)
    "5'-GGTTGTACGTACGTAAAACCCCGGGGTTTT-3'"
    """
    strand = template_strand(template)
    blocked = three_prime_blocked(primer.seq)
    if blocked:
        raise OperationFailure(
            "E0421",
            f"primer `{primer.name}` cannot be extended: its 3' end is blocked (/{blocked}/)",
            help="a polymerase extends only a free 3'-OH; use an unblocked primer",
        )
    if random_run(plain(primer.seq)):
        return random_primed(strand, primer, polymerase_type, nontemplated)
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
    return _primed_duplex(
        primer, strand, paired + copy, tail, t.slice(site.stop), polymerase_type, nontemplated
    )


def _primed_duplex(
    primer: Oligo,
    strand: Strand,
    core: Seq,
    overhang: Seq,
    template_rest: Seq,
    polymerase_type: MolType,
    nontemplated: Seq | None,
) -> Duplex:
    """The duplex a primed extension leaves: the new strand (the primer, its 5' `overhang`
    unpaired, then the copy) on top, paired over `core` with the template, whose 3' part
    beyond the primer (`template_rest`) stays single-stranded; non-templated bases at the
    new strand's 3' end."""
    return Duplex(
        core=core,
        left=End(top=overhang, bottom=template_rest),
        # the template's 5' group (a bead oligo's, a primer's) stays on its 5' end
        right=End(top=nontemplated or Seq(), five_prime=lead_modifications(strand.seq)),
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
    rule="extension on RNA, an RNA:DNA hybrid; MMLV adds `CCC`; `VN` anchors pair in the payload; N-mer primers prime in payloads",
    params=(
        Param("primer", "oligo", "the RT primer", required=True),
        Param(
            "switch",
            "oligo",
            "a TSO, switched in the same step",
        ),
        Param(
            "nontemplated",
            "text",
            "bases added at the 3' end",
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
    if not strand.moltype.has_rna:
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
    # the copy of the mRNA's body is cDNA (one identity: it still pairs with `[MRNA]`)
    hybrid = evolve(hybrid, core=transcript_roles(hybrid.core, rna=False))
    return template_switch(hybrid, switch) if switch is not None else hybrid


@operation(
    "template_switch",
    lsb="extension",
    rule="the TSO's rGrGrG pairs with the CCC; the cDNA gains the TSO's complement",
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
    return evolve(hybrid, right=hybrid.right.with_overhangs(top=overhang + extension))


@operation(
    "second_strand",
    lsb="strand_synthesis",
    rule="on a hybrid without a primer: RNase H + Pol I give a blunt DNA duplex; with one, `extend`",
    params=(
        Param(
            "primer",
            "oligo",
            "a second-strand primer",
        ),
    ),
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


def random_primed(
    strand: Strand, primer: Oligo, polymerase_type: MolType, nontemplated: Seq | None
) -> Duplex:
    """Random priming: an N-mer primer anneals inside a payload and is extended.

    Rule: a random hexamer (or longer N-mer) pairs with any bases, so where it primes is
    decided by what is there in bulk: the sample's sequence (cDNA, gDNA, aRNA), never the
    few known bases of adapters, poly(T) or barcodes, which a random primer hits no more
    often than any other stretch. The new strand is the whole primer (its N-mer now
    reading a piece of the payload) followed by the copy of the template from inside the
    payload to the template's 5' end (that payload a fragment, `Symbol.fragment`); with several payloads, the product primed in the
    3'-most one is followed (it carries every segment upstream). No payload is E0420.
    """
    payloads = payload_positions(strand.seq)
    if not payloads:
        raise OperationFailure(
            "E0420",
            f"random primer `{primer.name}` has nothing to prime: the template has no payload "
            "(such as `[CDNA]` or `[GDNA]`)",
            notes=[f"template: {render(strand.seq)}"],
            help="random primers prime in the sample's own sequence; prime known sequence "
            "with a specific primer",
        )
    p = payloads[-1]
    # the copy covers the primed payload from a random point: a piece of it (a fragment)
    seq = (
        strand.seq.slice(0, p) + as_fragments(strand.seq.slice(p, p + 1)) + strand.seq.slice(p + 1)
    )
    strand = evolve(strand, seq=seq)
    copy = reverse_complement(strand.seq.slice(0, p + 1)).with_label(
        f"copy of {strand.name or 'template'}"
    )
    return _primed_duplex(
        primer, strand, copy, primer.seq, strand.seq.slice(p + 1), polymerase_type, nontemplated
    )


@operation(
    "gap_fill",
    lsb="extension",
    rule="recessed 3' ends are extended to blunt ends, displacing annealed strands (Tn5's ME')",
    untouched="carried",
    params=(
        Param(
            "uracil",
            "text",
            "a template dU is `read` (Taq, Q5U) or `stalls` (Q5, NPM)",
            default="read",
            choices=("read", "stalls"),
        ),
    ),
)
def gap_fill(molecule: Molecule, *, uracil: str = "read") -> Duplex:
    """Gap filling and strand displacement.

    Rule: a DNA polymerase extends each free, paired 3' end along the opposite strand to
    that strand's 5' end. A strand-displacing polymerase (Bst, Klenow exo-, Q5 at 72 C
    after tagmentation) pushes any strand annealed downstream (the non-transferred ME'
    of Tn5) off the template, so recessed ends become blunt and recorded gaps close.
    Unlike `end_repair` it removes no 3' overhang and adds no phosphate. A blocked 3'
    end is not extended. A uracil-intolerant polymerase (`uracil: stalls`) stops before
    a template uracil, leaving the overhang beyond it single-stranded (s3-ATAC). A
    molecule with nothing to fill is an error alone and unchanged in a mix.
    """
    from lablang.molecular.ops.uracil import copyable

    duplex = need_duplex(molecule, "gap filling")
    core, left, right = duplex.core, duplex.left, duplex.right
    gaps = tuple(n for n in duplex.nicks if "gap" in n)
    filled = False
    if left.top and not left.bottom and not left.ragged and not three_prime_blocked(duplex.bottom):
        keep = len(left.top) - copyable(left.top, uracil)
        filled = keep < len(left.top)
        rest = left.top.slice(0, keep)
        core = left.top.slice(keep) + core
        left = left.with_overhangs(top=rest) if keep else left.blunted("left")
    if right.bottom and not right.top and not right.ragged and not three_prime_blocked(duplex.top):
        keep = len(right.bottom) - copyable(right.bottom, uracil)
        core = core + reverse_complement(right.bottom.slice(keep))
        filled = filled or keep < len(right.bottom)
        rest = right.bottom.slice(0, keep)
        right = right.with_overhangs(bottom=rest) if keep else right.blunted("right")
    if not filled and not gaps:
        raise NoSubstrate(
            "E0412",
            "nothing to fill: no recessed 3' end and no gap",
            help="gap filling extends a 3' end recessed under a 5' overhang",
        )
    return evolve(
        duplex,
        core=core,
        left=left,
        right=right,
        nicks=tuple(n for n in duplex.nicks if n not in gaps),
    )
