"""The molecular interpreter's operations: each computes its products from its inputs.

Every operation is a plain function over `Molecule`s (or a `Pool`) and returns a
`Pool`: each product is carried or discarded, with the reason. A failure that makes
the operation meaningless (a primer with no site, ligation ends that cannot join) is
raised as `OperationFailure` carrying a registered diagnostic code; the workflow
deriver turns it into a diagnostic at the step that asked for it.

Each function's docstring gives the rule it implements and, in a sentence, why that
rule is the chemistry (`../notes/molecular_operations.md` is the long form).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs

from lablang.molecular.molecule import (
    Disposition,
    Duplex,
    End,
    Molecule,
    MolType,
    Pool,
    Product,
    Single,
    Strand,
    top_strand,
)
from lablang.molecular.sequence import (
    DEGENERATE,
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Part,
    Ribo,
    Seq,
    Symbol,
    SymbolToken,
    Token,
    bases,
    plain,
    render,
    reverse_complement,
    token_width,
    tokens_pair,
)

MIN_ANNEAL = 12  # bases paired at a primer's 3' end (a common working default)
MIN_SWITCH = 3  # the rGrGrG of a TSO pairs with the non-templated CCC
MIN_STEM = 6  # paired bases that hold two adapter strands together
MAX_SITES = 64  # sites per primer and template considered (bounded work on any input)
MAX_PRODUCTS = 256
# bounded work on untrusted input: primer x template positions one annealing search may
# examine, and the longest strands an adapter may have (its stem search is cubic)
ANNEAL_BUDGET = 20_000_000
MAX_ADAPTER_STRAND = 300
PHOSPHATE_CODES = frozenset({"5Phos", "5phos", "Phos", "5PHOS"})


class OperationFailure(Exception):
    """An operation cannot run on these inputs; `code` is a registered diagnostic."""

    def __init__(
        self, code: str, message: str, *, notes: Sequence[str] = (), help: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.notes = tuple(notes)
        self.help = help


# ------------------------------------------------------------------ oligos as strands


@attrs.frozen(slots=True)
class Oligo:
    """An oligo as the interpreter sees it: a name and one or more strands (5'->3')."""

    name: str
    strands: tuple[Seq, ...]
    kind: str = "single"

    @property
    def seq(self) -> Seq:
        return self.strands[0]


def oligo(name: str, seq: Seq | str, kind: str = "single") -> Oligo:
    """A single-stranded oligo whose unlabelled parts are labelled with its name."""
    from lablang.molecular.sequence import parse_notation

    value = parse_notation(seq) if isinstance(seq, str) else seq
    return Oligo(name, (_label_unlabelled(value, name),), kind)


def _label_unlabelled(seq: Seq, label: str) -> Seq:
    out: list[Part] = []
    for part in seq.parts:
        if isinstance(part, Bases | Homopolymer | Symbol | Ribo | LNA) and part.label is None:
            out.append(attrs.evolve(part, label=label))
        else:
            out.append(part)
    return Seq(tuple(out))


def has_phosphate(seq: Seq) -> bool:
    return (
        bool(seq.parts)
        and isinstance(seq.parts[0], Modification)
        and seq.parts[0].code in PHOSPHATE_CODES
    )


# ------------------------------------------------------------------ annealing


@attrs.frozen(slots=True)
class Site:
    """Where a primer's 3' end pairs on a template.

    `start` is the template token paired with the primer's 3'-terminal base; the paired
    region is `template[start:stop]`. `template` is the template as annealed (refined
    when an anchor reads into a payload, see `anneal_sites`).
    """

    template: Seq
    start: int
    stop: int
    primer_paired: int  # primer tokens paired, counted from the 3' end
    bases: int
    anchored: bool = False


def _run(p: tuple[Token, ...], t: tuple[Token, ...], s: int) -> tuple[int, int, int, int]:
    """Pair primer tokens `p` (3' end last) against template `t` from position `s`.

    Returns (anchor tokens absorbed, primer tokens paired, template stop, paired bases).
    """
    m = len(p)
    anchor = 0
    while (
        anchor < min(3, m)
        and isinstance(p[m - 1 - anchor], str)
        and p[m - 1 - anchor] in DEGENERATE
    ):
        anchor += 1
    i, j, count, absorbed = m - 1, s, 0, 0
    first = t[s]
    if anchor and isinstance(first, SymbolToken) and _is_payload_token(first):
        # An anchored primer's degenerate 3' bases pair inside the payload: its last
        # bases are unknown, so any base can sit there.
        i, j, count, absorbed = m - 1 - anchor, s + 1, anchor, anchor
    while i >= 0 and j < len(t) and tokens_pair(p[i], t[j]):
        count += token_width(p[i])
        i -= 1
        j += 1
    return absorbed, m - 1 - i, j, count


def _is_payload_token(tok: SymbolToken) -> bool:
    from lablang.molecular.sequence import PAYLOAD_ROLES

    return tok.name.upper() in PAYLOAD_ROLES or tok.name.upper().startswith(tuple(PAYLOAD_ROLES))


def anneal_sites(primer: Seq, template: Seq, min_match: int = MIN_ANNEAL) -> list[Site]:
    """All sites where the primer's 3' end pairs over at least `min_match` bases, best first.

    Rule: pairing is contiguous from the primer's 3'-terminal base, because a
    polymerase extends only a paired 3'-OH; mismatches further 5' end the paired
    region and what is left is a 5' tail carried into the product. Concrete bases
    pair by IUPAC complementarity, symbolic segments only with their own reverse
    complement. Up to three degenerate 3' bases (`VN`) may pair inside a payload.

    >>> t = bases("GGGGAAAACCCCTTTTGGGGAAAA")
    >>> [(s.start, s.stop) for s in anneal_sites(bases("TTTTCCCCAAAAGGGG"), t)]
    [(8, 24)]
    """
    p, t = primer.tokens(), template.tokens()
    if len(p) * len(t) > ANNEAL_BUDGET:
        raise OperationFailure(
            "E0415",
            f"annealing a {len(p)}-position primer to a {len(t)}-position strand exceeds the "
            f"search limit ({ANNEAL_BUDGET} position pairs)",
        )
    sites: list[Site] = []
    for s in range(len(t)):
        absorbed, paired, stop, count = _run(p, t, s)
        if count >= min_match and paired > 0:
            refined = template
            start = s
            if absorbed:
                anchor_rc = reverse_complement(primer.slice(len(p) - absorbed))
                refined = (
                    template.slice(0, s + 1)
                    + anchor_rc.with_label("anchor site")
                    + template.slice(s + 1)
                )
                start, stop = s + 1, stop + absorbed
            sites.append(Site(refined, start, stop, paired, count, bool(absorbed)))
            if len(sites) >= MAX_SITES:
                break
    sites.sort(key=lambda site: (-site.bases, site.start))
    return sites


@attrs.frozen(slots=True)
class ClosestMatch:
    position: int  # template token where the primer's 3' end would sit
    paired: int  # bases paired contiguously from the 3' end
    best_total: int  # bases paired in the best ungapped alignment, 3' end paired or not
    total_position: int
    segment: str  # label of the template part at `position`


def closest_match(primer: Seq, template: Seq) -> ClosestMatch:
    """The best near-site for a primer that does not anneal, for the diagnostic."""
    p, t = primer.tokens(), template.tokens()
    best = (0, 0)
    for s in range(len(t)):
        count = _run(p, t, s)[3]
        if count > best[0]:
            best = (count, s)
    total = (0, 0)
    m = len(p)
    if m * len(t) > ANNEAL_BUDGET // 10:  # the ungapped scan is a note, not worth the time
        return ClosestMatch(best[1], best[0], 0, 0, _label_at(template, best[1]))
    for s in range(-m + 1, len(t)):
        # primer token m-1-k against template token s+k
        hits = sum(
            token_width(p[m - 1 - k])
            for k in range(m)
            if 0 <= s + k < len(t) and tokens_pair(p[m - 1 - k], t[s + k])
        )
        if hits > total[0]:
            total = (hits, max(s, 0))
    return ClosestMatch(best[1], best[0], total[0], total[1], _label_at(template, best[1]))


def _label_at(seq: Seq, position: int) -> str:
    pos = 0
    for part in seq.parts:
        width = len(Seq((part,)))
        if pos <= position < pos + width:
            label = getattr(part, "label", None)
            if label:
                return str(label)
            if isinstance(part, Bases):
                window = part.text[position - pos : position - pos + 12]
                return window + ("..." if position - pos + 12 < len(part.text) else "")
            return render(Seq((part,)))[3:-3]
        pos += width
    return "end"


def no_site_failure(
    primer_name: str, primer: Seq, templates: Sequence[tuple[str, Seq]], min_match: int
) -> OperationFailure:
    best: tuple[int, str, ClosestMatch] | None = None
    for name, template in templates:
        cm = closest_match(primer, template)
        if best is None or (cm.paired, cm.best_total) > (best[2].paired, best[2].best_total):
            best = (0, name, cm)
    notes = []
    if best is not None:
        _, name, cm = best
        base_pos = Seq(best_template(templates, name).parts).slice(0, cm.position).min_length + 1
        notes.append(
            f"closest site: strand `{name}` at base {base_pos} (in `{cm.segment}`), "
            f"{cm.paired} base{'s' if cm.paired != 1 else ''} pair from the primer's 3' end "
            f"(needs {min_match})"
        )
        if cm.best_total > cm.paired:
            notes.append(
                f"the best ungapped alignment pairs {cm.best_total} bases, but not "
                f"contiguously from the 3' end, so it cannot prime"
            )
    return OperationFailure(
        "E0401",
        f"primer `{primer_name}` has no site: its 3' end does not pair with any strand over "
        f"{min_match} bases",
        notes=notes,
        help="check the primer's orientation (it is written 5'->3') and that the template "
        "carries its binding site",
    )


def best_template(templates: Sequence[tuple[str, Seq]], name: str) -> Seq:
    return next(seq for n, seq in templates if n == name)


# ------------------------------------------------------------------ extension, RT, TSO


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

    >>> d = extend(Single(Strand(bases("AAAACCCCGGGGTTTTACGTACGTAC"))), oligo("p", "GGTTGTACGTACGTAAAACCCC"))
    >>> render(d.top)
    "5'-GGTTGTACGTACGTAAAACCCCGGGGTTTT-3'"
    """
    strand = _template_strand(template)
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


def _template_strand(molecule: Molecule) -> Strand:
    match molecule:
        case Single(strand=strand):
            return strand
        case Duplex():
            raise OperationFailure(
                "E0412",
                "a primer cannot anneal to a duplex: its strands are paired",
                help="denature the duplex first, or use `pcr`",
            )
    raise AssertionError(molecule)


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
    strand = _template_strand(rna)
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


def linear_amplify(molecule: Molecule, primer: Oligo, *, min_match: int = MIN_ANNEAL) -> Pool:
    """Linear amplification (primer extension after denaturation) with one primer.

    Rule: the molecule is denatured and the primer anneals to every strand that has a
    site for its 3' end; each such strand is copied from the primer (as in `extend`).
    A molecule whose strands carry no site is not amplified (discarded). Used where a
    bead-bound primer copies tagmented fragments before index PCR (10x scATAC).
    """
    match molecule:
        case Single(strand=strand):
            candidates = [strand]
        case Duplex():
            candidates = [
                Strand(molecule.top, molecule.top_type, molecule.top_name),
                Strand(molecule.bottom, molecule.bottom_type, molecule.bottom_name),
            ]
    products: dict[str, Product] = {}
    for strand in candidates:
        if strand.moltype is not MolType.DNA:
            continue
        if anneal_sites(plain(primer.seq), plain(strand.seq), min_match):
            copy = extend(Single(strand), primer, min_match=min_match)
            products.setdefault(
                render(plain(copy.top)),
                Product(copy, reason=f"copied from `{primer.name}`", name="linear copy"),
            )
    if not products:
        return Pool(
            (
                Product(
                    molecule,
                    Disposition.DISCARDED,
                    f"`{primer.name}` binds neither strand: not amplified",
                    name="not amplified",
                ),
            )
        )
    return Pool(tuple(products.values()))


# ------------------------------------------------------------------ PCR


def _dna_strands(molecule: Molecule) -> list[tuple[str, Seq]]:
    match molecule:
        case Single(strand=strand):
            if strand.moltype is MolType.RNA:
                raise OperationFailure(
                    "E0412",
                    "PCR needs a DNA template; this strand is RNA",
                    help="reverse-transcribe the RNA first",
                )
            return [(strand.name or "strand", plain(strand.seq))]
        case Duplex():
            out = []
            if molecule.top_type is MolType.DNA:
                out.append((molecule.top_name, plain(molecule.top)))
            if molecule.bottom_type is MolType.DNA:
                out.append((molecule.bottom_name, plain(molecule.bottom)))
            return out
    raise AssertionError(molecule)


@attrs.frozen(slots=True)
class _Hit:
    primer: int  # index into primers
    strand: int
    b_or_c: int  # F: end of site in X coords (b); R: start of site in X coords (c)


def pcr(molecule: Molecule, primers: Sequence[Oligo], *, min_match: int = MIN_ANNEAL) -> Pool:
    """Exponential amplification between two primers pointing toward each other.

    Rule: a molecule amplifies only if one primer pairs with one strand and the other
    primer with the complementary strand, 3' ends facing; the amplicon's top strand is
    the forward primer (whole, 5' tail included) + the template between the two sites +
    the reverse primer's reverse complement (whole). A molecule bound by one primer
    gives linear copies only; in a two-primer reaction, one bound at both ends by the
    same primer forms a pan-handle that suppresses it. Both are reported as discarded,
    not amplified. With a single primer (given once, or the same sequence twice, as
    Smart-seq2's ISPCR) the product flanked by it at both ends is the designed amplicon.
    """
    if len(primers) not in (1, 2):
        raise OperationFailure("E0412", f"PCR takes one or two primers, got {len(primers)}")
    # Single-primer PCR (one primer, or the same sequence twice, as Smart-seq2's ISPCR):
    # the molecule carries the primer's site at both ends by design and amplifies.
    single = len(primers) == 1 or plain(primers[0].seq).tokens() == plain(primers[1].seq).tokens()
    if len(primers) == 1:
        primers = [primers[0], primers[0]]
    templates = _dna_strands(molecule)
    amplicons: dict[str, Product] = {}
    suppressed: dict[str, Product] = {}
    binders: set[int] = set()
    for _strand_name, x in templates:
        xr = reverse_complement(x)
        n = len(x)
        forward: list[tuple[int, int]] = []  # (primer index, b) sites pointing right
        reverse: list[tuple[int, int]] = []  # (primer index, c) sites pointing left
        for idx, primer in enumerate(primers):
            pseq = plain(primer.seq)
            for site in anneal_sites(pseq, xr, min_match):
                if site.anchored:
                    continue
                forward.append((idx, n - site.start))
                binders.add(idx)
            for site in anneal_sites(pseq, x, min_match):
                if site.anchored:
                    continue
                reverse.append((idx, site.start))
                binders.add(idx)
        if len(forward) * len(reverse) > 4 * MAX_PRODUCTS:
            raise OperationFailure(
                "E0415",
                f"PCR primers bind {len(forward)} x {len(reverse)} site pairs: too many products",
            )
        for f_index, b_pos in forward:
            for r_index, c_pos in reverse:
                if b_pos > c_pos:
                    continue
                fi, ri, b, c, x_used = f_index, r_index, b_pos, c_pos, x
                if fi > ri:
                    # the same molecule as the (ri, fi) amplicon read from the other
                    # strand: write it with the first listed primer on top
                    fi, ri, b, c, x_used = ri, fi, n - c, n - b, xr
                top = primers[fi].seq + x_used.slice(b, c) + reverse_complement(primers[ri].seq)
                key = min(render(plain(top)), render(reverse_complement(plain(top))))
                molecule_out = Duplex(
                    core=top,
                    top_name=f"{primers[fi].name} strand",
                    bottom_name=f"{primers[ri].name} strand",
                    top_phosphate=has_phosphate(primers[fi].seq),
                    bottom_phosphate=has_phosphate(primers[ri].seq),
                )
                if single and fi != ri:
                    continue  # the same molecule as the (0, 0) or (1, 1) product
                if fi != ri or single:
                    amplicons.setdefault(
                        key,
                        Product(
                            molecule_out,
                            Disposition.CARRIED,
                            f"amplicon `{primers[fi].name}`…`{primers[ri].name}'`",
                            name="amplicon",
                        ),
                    )
                else:
                    suppressed.setdefault(
                        key,
                        Product(
                            molecule_out,
                            Disposition.DISCARDED,
                            f"same primer `{primers[fi].name}` at both ends: suppression PCR, "
                            "not amplified",
                            name="suppressed",
                        ),
                    )
        if len(amplicons) + len(suppressed) > MAX_PRODUCTS:
            raise OperationFailure("E0415", f"PCR gives more than {MAX_PRODUCTS} products")
    products = list(amplicons.values()) + list(suppressed.values())
    if not binders:
        first = primers[0]
        raise no_site_failure(
            first.name,
            plain(first.seq),
            [(n, s) for n, s in templates]
            + [(f"{n}'", reverse_complement(s)) for n, s in templates],
            min_match,
        )
    if not amplicons and not suppressed:
        names = ", ".join(f"`{primers[i].name}`" for i in sorted(binders))
        missing = [p.name for i, p in enumerate(primers) if i not in binders]
        reason = (
            f"only {names} binds: linear copies, not amplified"
            if missing
            else f"{names} bind but never face each other: not amplified"
        )
        products.append(Product(molecule, Disposition.DISCARDED, reason, name="not amplified"))
    return Pool(tuple(products))


# ------------------------------------------------------------------ fragmentation, ends


def _payload_positions(seq: Seq) -> list[int]:
    return [
        i
        for i, tok in enumerate(seq.tokens())
        if isinstance(tok, SymbolToken) and _is_payload_token(tok)
    ]


def fragment(molecule: Molecule) -> Pool:
    """Random double-strand breaks inside the payload.

    Rule: breaks fall anywhere, so every payload segment is cut; the fragment classes
    are the molecule's left end up to a break, the internal pieces of payload, and the
    right end from a break. New ends are ragged (mixed overhangs, no phosphate) until
    end repair. Designed (fixed) sequence is short beside the payload, so breaks
    inside it are not modelled.
    """
    match molecule:
        case Duplex():
            core = molecule.core
            cuts = _payload_positions(core)
            if not cuts:
                raise OperationFailure(
                    "E0412",
                    "nothing to fragment: the molecule has no payload segment (such as `[CDNA]`)",
                )
            ragged = End(ragged=True)
            products = [
                Product(
                    attrs.evolve(
                        molecule,
                        core=core.slice(0, cuts[0] + 1),
                        right=ragged,
                        bottom_phosphate=False,
                        nicks=(),
                    ),
                    name="left end fragment",
                )
            ]
            for a, b in itertools.pairwise(cuts):
                products.append(
                    Product(
                        Duplex(core=core.slice(a, b + 1), left=ragged, right=ragged),
                        name="internal fragment",
                    )
                )
            for c in cuts:
                products.append(
                    Product(
                        Duplex(core=core.slice(c, c + 1), left=ragged, right=ragged),
                        name="internal payload fragment",
                    )
                )
            products.append(
                Product(
                    attrs.evolve(
                        molecule,
                        core=core.slice(cuts[-1]),
                        left=ragged,
                        top_phosphate=False,
                        nicks=(),
                    ),
                    name="right end fragment",
                )
            )
            return Pool(tuple(products))
        case Single(strand=strand):
            cuts = _payload_positions(strand.seq)
            if not cuts:
                raise OperationFailure(
                    "E0412", "nothing to fragment: the strand has no payload segment"
                )
            pieces = [(strand.seq.slice(0, cuts[0] + 1), "5' end fragment")]
            pieces += [(strand.seq.slice(c, c + 1), "internal fragment") for c in cuts]
            pieces.append((strand.seq.slice(cuts[-1]), "3' end fragment"))
            return Pool(
                tuple(
                    Product(Single(attrs.evolve(strand, seq=s, phosphate_5p=False)), name=n)
                    for s, n in pieces
                )
            )
    raise AssertionError(molecule)


def end_repair(molecule: Molecule) -> Duplex:
    """Blunt and 5'-phosphorylate both ends.

    Rule: T4 DNA polymerase fills 5' overhangs (the recessed 3' end is extended) and
    removes 3' overhangs (3'->5' exonuclease); T4 polynucleotide kinase adds 5'
    phosphates. Forked ends (unpaired arms on both strands) are left as they are.
    """
    duplex = _duplex(molecule, "end repair")
    core = duplex.core
    left, right = duplex.left, duplex.right
    if left.top and not left.bottom:
        core = left.top + core
    if right.bottom and not right.top:
        core = core + reverse_complement(right.bottom)
    new_left = left if left.forked else End()
    new_right = right if right.forked else End()
    return attrs.evolve(
        duplex, core=core, left=new_left, right=new_right, top_phosphate=True, bottom_phosphate=True
    )


def a_tail(molecule: Molecule) -> Duplex:
    """Add one non-templated A to each 3' end of a blunt duplex.

    Rule: a polymerase without proofreading (Klenow exo-, Taq) adds a single dA to
    blunt 3' ends, giving the overhang that pairs with a T-overhang adapter.
    """
    duplex = _duplex(molecule, "A-tailing")
    if not (duplex.left.blunt and duplex.right.blunt):
        raise OperationFailure(
            "E0412",
            "A-tailing needs blunt ends",
            notes=[
                f"ends are: left {describe_end(duplex, 'left')}, right "
                f"{describe_end(duplex, 'right')}"
            ],
            help="run `end_repair` before `a_tail`",
        )
    a = bases("A", "A-tail")
    return attrs.evolve(duplex, left=End(bottom=a), right=End(top=a))


def _duplex(molecule: Molecule, what: str) -> Duplex:
    if isinstance(molecule, Duplex):
        return molecule
    raise OperationFailure(
        "E0412",
        f"{what} needs a double-stranded molecule",
        help="synthesise the second strand or amplify first",
    )


def describe_end(duplex: Duplex, side: str) -> str:
    """A short description of one end: blunt, 5'/3' overhang with its bases, forked, ragged."""
    end = duplex.left if side == "left" else duplex.right
    if end.ragged:
        return "ragged (not repaired)"
    if end.forked:
        return "forked (unpaired arms on both strands)"
    if not end.top and not end.bottom:
        return "blunt"
    if side == "left":
        return (
            f"5' overhang `{_short(end.top)}` on the top strand"
            if end.top
            else f"3' overhang `{_short(end.bottom)}` on the bottom strand"
        )
    return (
        f"3' overhang `{_short(end.top)}` on the top strand"
        if end.top
        else f"5' overhang `{_short(end.bottom)}` on the bottom strand"
    )


def _short(seq: Seq) -> str:
    body = render(seq)[3:-3]
    return body if len(body) <= 30 else body[:27] + "..."


# ------------------------------------------------------------------ ligation


def adapter_duplex(adapter: Oligo) -> Duplex:
    """Anneal the strands of a double-stranded oligo (adapter) into a duplex.

    Rule: the two strands pair over their longest complementary stretch (the stem);
    what lies beyond the stem on either strand is an overhang or an unpaired arm.
    """
    if len(adapter.strands) == 1:
        raise OperationFailure(
            "E0412",
            f"`{adapter.name}` has one strand; a ligation adapter needs two",
            help="declare the adapter with `kind: double_stranded` and both strands",
        )
    a, b = adapter.strands[0], adapter.strands[1]
    pa, pb = plain(a).tokens(), plain(b).tokens()
    if max(len(pa), len(pb)) > MAX_ADAPTER_STRAND:
        raise OperationFailure(
            "E0415",
            f"adapter `{adapter.name}` has a strand longer than {MAX_ADAPTER_STRAND} positions",
        )
    best = (0, 0, 0, 0)  # bases, i (start in a), j (end in b, inclusive), length
    for i in range(len(pa)):
        for j in range(len(pb)):
            k, count = 0, 0
            while i + k < len(pa) and j - k >= 0 and tokens_pair(pa[i + k], pb[j - k]):
                count += token_width(pa[i + k])
                k += 1
            if count > best[0]:
                best = (count, i, j, k)
    count, i, j, k = best
    if count < MIN_STEM:
        raise OperationFailure(
            "E0402",
            f"the strands of `{adapter.name}` do not pair "
            f"(longest stem {count} bases, needs {MIN_STEM})",
        )
    a_plain, b_plain = plain(a), plain(b)
    return Duplex(
        core=a_plain.slice(i, i + k),
        left=End(top=a_plain.slice(0, i), bottom=b_plain.slice(j + 1)),
        right=End(top=a_plain.slice(i + k), bottom=b_plain.slice(0, j - k + 1)),
        top_name=f"{adapter.name} strand 1",
        bottom_name=f"{adapter.name} strand 2",
        top_phosphate=has_phosphate(a),
        bottom_phosphate=has_phosphate(b),
    )


def ends_compatible(left_mol: Duplex, right_mol: Duplex) -> tuple[bool, Seq]:
    """Whether `left_mol`'s right end can join `right_mol`'s left end; the joined bases.

    Rule: the two single-stranded extensions across the junction must form a perfect
    duplex: blunt with blunt, a 3' A with a 3' T (TA ligation), or complementary sticky
    overhangs of equal length. Ragged or forked ends never ligate.
    """
    e1, e2 = left_mol.right, right_mol.left
    if e1.ragged or e2.ragged or e1.forked or e2.forked:
        return False, Seq()
    x = e1.top + e2.top
    y = e2.bottom + e1.bottom
    tx, ty = x.tokens(), y.tokens()
    if len(tx) != len(ty):
        return False, Seq()
    ok = all(tokens_pair(tx[i], ty[len(ty) - 1 - i]) for i in range(len(tx)))
    return ok, x


def _ligate_right(insert: Duplex, adapter: Duplex, adapter_name: str) -> Duplex:
    ok, joined = ends_compatible(insert, adapter)
    if not ok:
        raise OperationFailure(
            "E0402",
            f"ends cannot be ligated: fragment's end is {describe_end(insert, 'right')}, "
            f"`{adapter_name}`'s end is {describe_end(adapter, 'left')}",
            help="blunt ends join blunt ends, a 3' A joins a 3' T, sticky overhangs must be "
            "complementary; repair and A-tail fragments before TA ligation",
        )
    top_join = adapter.top_phosphate
    bottom_join = insert.bottom_phosphate
    if not top_join and not bottom_join:
        raise OperationFailure(
            "E0403",
            f"neither strand at the junction with `{adapter_name}` has a 5' phosphate",
            help="ligase joins a 3'-OH to a 5'-phosphate: run `end_repair` or use an adapter "
            "with /5Phos/",
        )
    nicks = list(insert.nicks) + list(adapter.nicks)
    if not top_join:
        nicks.append(f"top strand before `{adapter_name}` (no 5' phosphate)")
    if not bottom_join:
        nicks.append(f"bottom strand at `{adapter_name}` (fragment has no 5' phosphate)")
    return Duplex(
        core=insert.core + joined + adapter.core,
        left=insert.left,
        right=adapter.right,
        top_type=MolType.DNA,
        bottom_type=MolType.DNA,
        top_name=insert.top_name,
        bottom_name=insert.bottom_name,
        top_phosphate=insert.top_phosphate,
        bottom_phosphate=adapter.bottom_phosphate,
        nicks=tuple(nicks),
    )


def ligate(insert: Molecule, adapter: Oligo, *, ends: str = "both") -> Duplex:
    """Ligate a double-stranded adapter to one or both ends of a duplex.

    Rule: ligase joins a 3'-OH to a 5'-phosphate across compatible ends (see
    `ends_compatible`); at least one strand of each junction needs a 5' phosphate, and
    a junction whose 5' end lacks one stays nicked. The adapter is used in whichever
    orientation presents a compatible end.
    """
    duplex = _duplex(insert, "ligation")
    ad = adapter_duplex(adapter)
    result = duplex
    sides = {"both": ("right", "left"), "right": ("right",), "left": ("left",)}.get(ends)
    if sides is None:
        raise OperationFailure("E0412", f"`ends` must be both, left or right, not `{ends}`")
    for side in sides:
        target = result if side == "right" else result.flipped()
        errors: list[OperationFailure] = []
        joined: Duplex | None = None
        for candidate in (ad, ad.flipped()):
            try:
                joined = _ligate_right(target, candidate, adapter.name)
                break
            except OperationFailure as failure:
                errors.append(failure)
        if joined is None:
            raise next((e for e in errors if e.code == "E0403"), errors[0])
        result = joined if side == "right" else joined.flipped()
    return result


# ------------------------------------------------------------------ tagmentation


def tagment(molecule: Molecule, adapters: Sequence[Oligo]) -> Pool:
    """Tn5 tagmentation with transposomes loaded with adapter A and adapter B.

    Rule: each cut inserts a transferred strand (the adapter's s5-ME or s7-ME) on the
    5' end of each new fragment; the 9-bp gap is filled at 72 C, copying the adapter
    onto the other strand. Internal fragments carry A-A, A-B or B-B (about 1:2:1);
    the molecule's own ends keep their sequence and get one adapter. Only A-B
    fragments can later receive P5 and P7 in index PCR.
    """
    if len(adapters) != 2:
        raise OperationFailure(
            "E0412", f"tagmentation takes two adapters (A and B), got {len(adapters)}"
        )
    duplex = _duplex(molecule, "tagmentation")
    if MolType.RNA in (duplex.top_type, duplex.bottom_type):
        # Nextera gap filling copies the transferred adapter with a DNA polymerase across
        # the other strand; on an RNA:DNA hybrid that strand is RNA
        raise OperationFailure(
            "E0412",
            "tagmentation of an RNA:DNA hybrid is not modelled",
            notes=[
                "Nextera workflows tagment double-stranded DNA; tagmenting hybrids directly "
                "(as SHERRY does) needs a reverse transcriptase for the gap fill-in"
            ],
            help="make the second strand first, e.g. `ds = second_strand(rt)`",
        )
    a, b = adapters
    a_seq, b_seq = plain(a.seq), plain(b.seq)
    cuts = _payload_positions(duplex.core)
    if not cuts:
        raise OperationFailure("E0412", "nothing to tagment: the molecule has no payload segment")
    products: list[Product] = []
    insert = duplex.core.slice(cuts[0], cuts[0] + 1)
    for (x, xs), (y, ys), share in (
        ((a, a_seq), (a, a_seq), 0.25),
        ((a, a_seq), (b, b_seq), 0.5),
        ((b, b_seq), (b, b_seq), 0.25),
    ):
        top = xs + insert + reverse_complement(ys)
        products.append(
            Product(
                Duplex(core=top, top_name=f"{x.name} strand", bottom_name=f"{y.name} strand"),
                name=f"{x.name}-insert-{y.name}",
                fraction=share,
            )
        )
    if duplex.left.top or duplex.left.bottom or len(duplex.core.slice(0, cuts[0])) > 0:
        for x, xs in ((a, a_seq), (b, b_seq)):
            top = duplex.left.top + duplex.core.slice(0, cuts[0] + 1) + reverse_complement(xs)
            products.append(Product(Duplex(core=top), name=f"left end-{x.name}", fraction=None))
    if len(duplex.core.slice(cuts[-1] + 1)) > 0 or duplex.right.top:
        for x, xs in ((a, a_seq), (b, b_seq)):
            top = xs + duplex.core.slice(cuts[-1]) + duplex.right.top
            products.append(Product(Duplex(core=top), name=f"{x.name}-right end", fraction=None))
    return Pool(tuple(products))


# ------------------------------------------------------------------ strands, digestion, bisulfite


def denature(molecule: Molecule, keep: str | None = None) -> Pool:
    """Separate paired strands; each becomes its own single-stranded product.

    Rule: heat (or alkali) breaks base pairing; nothing covalent changes. `keep`
    ("top", "bottom", "DNA" or "RNA") carries one strand and discards the other.
    """
    if keep not in (None, "top", "bottom", "DNA", "RNA"):
        raise OperationFailure("E0412", f"`keep` must be top, bottom, DNA or RNA, not `{keep}`")
    match molecule:
        case Single():
            return Pool.of(molecule)
        case Duplex():
            top = Strand(molecule.top, molecule.top_type, molecule.top_name, molecule.top_phosphate)
            bottom = Strand(
                molecule.bottom,
                molecule.bottom_type,
                molecule.bottom_name,
                molecule.bottom_phosphate,
            )
            out = []
            for label, strand in (("top", top), ("bottom", bottom)):
                chosen = keep is None or keep == label or keep == strand.moltype.value
                out.append(
                    Product(
                        Single(strand),
                        Disposition.CARRIED if chosen else Disposition.DISCARDED,
                        "" if chosen else f"not kept (keep: {keep})",
                        name=f"{label} strand",
                    )
                )
            return Pool(tuple(out))
    raise AssertionError(molecule)


# (recognition site, top-strand cut, bottom-strand cut), cut offsets within the site
ENZYMES: dict[str, tuple[str, int, int]] = {
    "EcoRI": ("GAATTC", 1, 5), "BamHI": ("GGATCC", 1, 5), "HindIII": ("AAGCTT", 1, 5),
    "NotI": ("GCGGCCGC", 2, 6), "XhoI": ("CTCGAG", 1, 5), "NlaIII": ("CATG", 4, 0),
    "DpnII": ("GATC", 0, 4), "MboI": ("GATC", 0, 4), "MseI": ("TTAA", 1, 3),
    "AluI": ("AGCT", 2, 2), "EcoRV": ("GATATC", 3, 3), "MluCI": ("AATT", 0, 4),
    "Csp6I": ("GTAC", 1, 3), "HaeIII": ("GGCC", 2, 2), "MspI": ("CCGG", 1, 3),
}  # fmt: skip


def digest(molecule: Molecule, enzyme: str) -> Pool:
    """Cut a duplex at every recognition site of a restriction enzyme in its designed bases.

    Rule: the enzyme cuts each strand at a fixed offset in its palindromic site,
    leaving a 5' overhang, a 3' overhang or a blunt end, with 5' phosphates. Sites
    that may occur inside a payload are unknown and not cut (noted on the product).
    """
    if enzyme not in ENZYMES:
        raise OperationFailure(
            "E0412",
            f"unknown restriction enzyme `{enzyme}`",
            help="known enzymes: " + ", ".join(sorted(ENZYMES)),
        )
    site, tc, bc = ENZYMES[enzyme]
    duplex = _duplex(molecule, "digestion")
    toks = duplex.core.tokens()
    starts = [
        i
        for i in range(len(toks) - len(site) + 1)
        if all(toks[i + k] == site[k] for k in range(len(site)))
    ]
    if len(starts) >= MAX_PRODUCTS:
        raise OperationFailure(
            "E0415",
            f"{enzyme} cuts the molecule at {len(starts)} sites, more than {MAX_PRODUCTS - 1}",
        )
    if not starts:
        return Pool(
            (
                Product(
                    duplex,
                    Disposition.CARRIED,
                    f"no {enzyme} site in designed sequence; payload sites unknown",
                    name="uncut",
                ),
            )
        )
    pieces: list[Product] = []
    current = duplex
    offset = 0
    for s in starts:
        p = s - offset
        core = current.core
        t_cut, b_cut = p + tc, p + bc
        lo, hi = min(t_cut, b_cut), max(t_cut, b_cut)
        overhang = core.slice(lo, hi)
        if t_cut < b_cut:  # 5' overhang
            left_piece = attrs.evolve(
                current,
                core=core.slice(0, lo),
                right=End(bottom=reverse_complement(overhang)),
                bottom_phosphate=True,
            )
            right_rest = attrs.evolve(
                current, core=core.slice(hi), left=End(top=overhang), top_phosphate=True
            )
        elif t_cut > b_cut:  # 3' overhang
            left_piece = attrs.evolve(
                current, core=core.slice(0, lo), right=End(top=overhang), bottom_phosphate=True
            )
            right_rest = attrs.evolve(
                current,
                core=core.slice(hi),
                left=End(bottom=reverse_complement(overhang)),
                top_phosphate=True,
            )
        else:
            left_piece = attrs.evolve(
                current, core=core.slice(0, lo), right=End(), bottom_phosphate=True
            )
            right_rest = attrs.evolve(current, core=core.slice(hi), left=End(), top_phosphate=True)
        pieces.append(Product(left_piece, name=f"{enzyme} piece {len(pieces) + 1}"))
        current = right_rest
        offset = s + hi - p
    pieces.append(Product(current, name=f"{enzyme} piece {len(pieces) + 1}"))
    return Pool(tuple(pieces))


def bisulfite(molecule: Molecule, methylated: str = "none") -> Pool:
    """Bisulfite conversion: unmethylated C becomes U (read as T after PCR).

    Rule: sodium bisulfite deaminates cytosine on single strands; 5-methylcytosine is
    protected. `methylated` is "none", "cpg" (C before G kept) or "all". The two
    strands of a duplex are no longer complementary afterwards, so each is its own
    product; payload segments become converted payloads (a new identity).
    """
    if methylated not in ("none", "cpg", "all"):
        raise OperationFailure(
            "E0412", f"`methylated` must be none, cpg or all, not `{methylated}`"
        )
    pool = denature(molecule)
    out = []
    for idx, product in enumerate(pool.products):
        assert isinstance(product.molecule, Single)
        strand = product.molecule.strand
        out.append(
            Product(
                Single(attrs.evolve(strand, seq=_convert(strand.seq, methylated, idx))),
                name=f"converted {product.name}",
            )
        )
    return Pool(tuple(out))


def _convert(seq: Seq, methylated: str, which: int) -> Seq:
    if methylated == "all":
        return seq
    flat = plain(seq)
    toks = flat.tokens()
    parts: list[Part] = []
    for i, part in enumerate(_explode(flat)):
        if isinstance(part, Bases) and part.text == "C":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            keep = methylated == "cpg" and nxt == "G"
            parts.append(part if keep else Bases("T", part.label))
        elif isinstance(part, Symbol):
            parts.append(attrs.evolve(part, name=f"{part.name}_BS{which + 1}"))
        else:
            parts.append(part)
    return Seq.of(parts)


def _explode(seq: Seq) -> list[Part]:
    out: list[Part] = []
    for part in seq.parts:
        if isinstance(part, Bases):
            out.extend(Bases(ch, part.label) for ch in part.text)
        elif isinstance(part, Homopolymer) and part.count is not None:
            out.extend(Bases(part.base, part.label) for _ in range(part.count))
        else:
            out.append(part)
    return out


# ------------------------------------------------------------------ combinatorial barcoding


def barcode_round(
    molecule: Molecule,
    barcode: Oligo,
    *,
    end: str = "5'",
    by: str = "ligation",
    splint: Oligo | None = None,
    min_match: int = MIN_ANNEAL,
) -> Molecule:
    """One split-pool round: a well-specific barcode oligo is joined to every molecule.

    Rule: by `ligation`, the oligo is joined end to end to the chosen end of the
    molecule's top strand; the 5' end being joined must carry a phosphate, and a
    `splint` (linker), when given, must pair over its whole length across the junction
    with at least 6 bases on each side, as it holds the two ends together for ligase.
    By `extension`, the molecule's 3' end anneals to the oligo and is extended across
    it, copying the barcode. Pooling afterwards leaves the sequence as it is: the round
    order is the order of barcodes along the molecule.
    """
    if by not in ("ligation", "extension"):
        raise OperationFailure("E0412", f"`by` must be ligation or extension, not `{by}`")
    if end not in ("5'", "3'"):
        raise OperationFailure("E0412", f"`end` must be 5' or 3', not `{end}`")
    top = top_strand(molecule)
    if by == "extension":
        if end != "3'":
            raise OperationFailure("E0412", "extension adds sequence at a 3' end only")
        strand = Strand(plain(barcode.seq), MolType.DNA, barcode.name)
        sites = anneal_sites(plain(top), strand.seq, min_match)
        if not sites:
            raise no_site_failure(
                "3' end of the molecule", plain(top), [(barcode.name, strand.seq)], min_match
            )
        site = sites[0]
        added = reverse_complement(strand.seq.slice(0, site.start)).with_label(f"{barcode.name}'")
        return _append(molecule, added, "3'")
    if end == "3'" and not has_phosphate(barcode.seq):
        raise OperationFailure(
            "E0403",
            f"barcode oligo `{barcode.name}` has no 5' phosphate to "
            "ligate to the molecule's 3' end",
            help="add /5Phos/ to the oligo",
        )
    if end == "5'" and not _five_prime_phosphate(molecule):
        raise OperationFailure(
            "E0403",
            "the molecule's 5' end has no phosphate for the barcode to ligate to",
            help="phosphorylate (PNK) or use a /5Phos/ primer",
        )
    # a 5'-added oligo keeps its own 5' chemistry (a biotin stays at the new 5' end);
    # a 3'-added oligo's 5' phosphate goes into the new bond
    seq = barcode.seq if end == "5'" else _strip_leading_modifications(barcode.seq)
    if splint is not None:
        _check_splint(splint, plain(seq), plain(top), end)
    result = _append(molecule, seq, end)
    if end == "5'" and isinstance(result, Single):
        result = Single(attrs.evolve(result.strand, phosphate_5p=has_phosphate(barcode.seq)))
    if end == "5'" and isinstance(result, Duplex):
        result = attrs.evolve(result, top_phosphate=has_phosphate(barcode.seq))
    return result


def _check_splint(splint: Oligo, added: Seq, top: Seq, end: str) -> None:
    junction = added + top if end == "5'" else top + added
    joint = len(added) if end == "5'" else len(top)
    whole = plain(splint.seq).min_length
    sites = anneal_sites(plain(splint.seq), junction, whole)
    if not any(site.start <= joint - 6 and site.stop >= joint + 6 for site in sites):
        failure = no_site_failure(
            splint.name, plain(splint.seq), [("joined ends", junction)], whole
        )
        raise OperationFailure(
            "E0402",
            f"splint `{splint.name}` does not bridge the junction: it must pair over its whole "
            "length with at least 6 bases on each side",
            notes=failure.notes,
            help="check the linker's two halves against the molecule's end and the barcode oligo",
        )


def _five_prime_phosphate(molecule: Molecule) -> bool:
    match molecule:
        case Single(strand=strand):
            return strand.phosphate_5p or has_phosphate(strand.seq)
        case Duplex():
            return molecule.top_phosphate or has_phosphate(molecule.top)
    raise AssertionError(molecule)


def _append(molecule: Molecule, added: Seq, end: str) -> Molecule:
    match molecule:
        case Single(strand=strand):
            if end == "5'":
                return Single(
                    attrs.evolve(strand, seq=added + _strip_leading_modifications(strand.seq))
                )
            return Single(attrs.evolve(strand, seq=strand.seq + added))
        case Duplex():
            if end == "5'":
                # the old 5' end is now internal: its phosphate went into the new bond
                if molecule.left.top:
                    left_top, core = _strip_leading_modifications(molecule.left.top), molecule.core
                else:
                    left_top, core = molecule.left.top, _strip_leading_modifications(molecule.core)
                return attrs.evolve(
                    molecule, core=core, left=attrs.evolve(molecule.left, top=added + left_top)
                )
            return attrs.evolve(
                molecule, right=attrs.evolve(molecule.right, top=molecule.right.top + added)
            )
    raise AssertionError(molecule)


def _strip_leading_modifications(seq: Seq) -> Seq:
    parts = list(seq.parts)
    while parts and isinstance(parts[0], Modification):
        parts.pop(0)
    return Seq(tuple(parts))


def split_pool(
    molecule: Molecule, rounds: Sequence[Oligo], *, end: str = "5'", by: str = "ligation"
) -> Molecule:
    """Several split-pool rounds in order (see `barcode_round`)."""
    if len(rounds) > 64:
        raise OperationFailure("E0415", f"{len(rounds)} split-pool rounds exceed the limit of 64")
    for barcode in rounds:
        molecule = barcode_round(molecule, barcode, end=end, by=by)
    return molecule


# ------------------------------------------------------------------ selection


def capture(pool: Pool, probe: Oligo | str, *, min_match: int = MIN_ANNEAL) -> Pool:
    """Keep the products a capture probe binds, or that carry a named segment or
    modification (`"5Biosg"` for streptavidin capture of a biotinylated strand).

    Rule: capture (beads with a probe, streptavidin on biotin) changes which molecules
    go on, not their sequence: products with a site for the probe (or carrying the
    segment or modification) are carried, the rest discarded.
    """
    out = []
    for product in pool.carried:
        strands = [top_strand(product.molecule)]
        if isinstance(product.molecule, Duplex):
            strands.append(product.molecule.bottom)
        if isinstance(probe, str):
            hit = any(
                (isinstance(p, Symbol) and (p.name == probe or p.role == probe))
                or (isinstance(p, Modification) and p.code == probe)
                or getattr(p, "label", None) == probe
                for s in strands
                for p in s.parts
            )
            why = f"does not carry `{probe}`"
        else:
            hit = any(anneal_sites(plain(probe.seq), plain(s), min_match) for s in strands)
            why = f"no site for probe `{probe.name}`"
        out.append(
            attrs.evolve(
                product,
                disposition=Disposition.CARRIED if hit else Disposition.DISCARDED,
                reason="captured" if hit else why,
            )
        )
    return Pool(tuple(out) + pool.discarded)


def size_select(
    pool: Pool,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    payload_length: tuple[int, int] | None = None,
) -> Pool:
    """Keep products whose length can fall in `[minimum, maximum]` bases.

    Rule: bead ratios and gels select by length only. A product whose payload length
    is unknown is kept (its payload is assumed to fill the window) unless its designed
    part alone already exceeds the maximum; `payload_length` sets the payload's range.
    """
    if minimum is not None and maximum is not None and minimum > maximum:
        raise OperationFailure("E0412", f"size window {minimum}..{maximum} is empty")
    out = []
    for product in pool.carried:
        lo, hi = _length_window(top_strand(product.molecule), payload_length)
        reason = ""
        if maximum is not None and lo > maximum:
            reason = f"at least {lo} bases: longer than {maximum}"
        elif minimum is not None and hi is not None and hi < minimum:
            reason = f"at most {hi} bases: shorter than {minimum}"
        out.append(
            attrs.evolve(
                product,
                disposition=Disposition.DISCARDED if reason else Disposition.CARRIED,
                reason=reason or product.reason,
            )
        )
    return Pool(tuple(out) + pool.discarded)


def _length_window(seq: Seq, payload_length: tuple[int, int] | None) -> tuple[int, int | None]:
    """Shortest and longest length of a strand; a payload of unknown length takes
    `payload_length` when given, otherwise leaves the longest unbounded."""
    low, high = 0, 0
    bounded = True
    for part in seq.parts:
        if isinstance(part, Symbol) and part.min_len is None and payload_length is not None:
            low, high = low + payload_length[0], high + payload_length[1]
            continue
        piece = Seq((part,))
        low += piece.min_length
        top = piece.max_length
        if top is None:
            bounded = False
        else:
            high += top
    return low, high if bounded else None


def cleanup(pool: Pool, *, minimum: int = 100) -> Pool:
    """Bead cleanup: removes primers, adapter dimers and anything shorter than `minimum`.

    Rule: SPRI beads at a given ratio bind DNA above a size cutoff; free oligos and
    short dimers stay in the supernatant. Sequence does not change.
    """
    return size_select(pool, minimum=minimum)
