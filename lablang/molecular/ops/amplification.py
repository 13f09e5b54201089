"""PCR and linear amplification."""

from __future__ import annotations

from collections.abc import Sequence

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
    lead_modifications,
)
from lablang.molecular.ops.core import (
    MAX_PRODUCTS,
    MIN_ANNEAL,
    Oligo,
    OperationFailure,
    Site,
    anneal_sites,
    has_phosphate,
    no_site_failure,
    payload_positions,
    random_run,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.ops.synthesis import extend
from lablang.molecular.sequence import (
    PolyToken,
    Seq,
    Symbol,
    plain,
    render,
    reverse_complement,
)


@operation(
    "linear_amplify",
    lsb="amplification",
    rule="the primer copies every strand with a site for its 3' end; others are discarded",
    params=(
        Param("primer", "oligo", "the one primer", required=True),
        Param("cycles", "number", "recorded only", py=None),
    ),
    uses=("min_anneal",),
)
def linear_amplify(molecule: Molecule, primer: Oligo, *, min_match: int = MIN_ANNEAL) -> Pool:
    """Linear amplification (primer extension after denaturation) with one primer.

    Rule: the molecule is denatured and the primer anneals to every strand that has a
    site for its 3' end; each such strand is copied from the primer (as in `extend`).
    A molecule whose strands carry no site is not amplified (discarded). Used where a
    bead-bound primer copies tagmented fragments before index PCR (10x scATAC); a random
    (N-mer) primer copies every strand with a payload, priming inside it (MALBAC's
    quasi-linear cycles).
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
        # a random (N-mer) primer primes in any payload (MALBAC, DOP-style cycles)
        random = random_run(plain(primer.seq)) and payload_positions(strand.seq)
        if random or anneal_sites(plain(primer.seq), plain(strand.seq), min_match):
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
                    f"`{primer.name}` binds neither strand: not amplified ("
                    + "; ".join(_closest(primer, candidates, min_match))
                    + ")",
                    name="not amplified",
                ),
            )
        )
    return Pool(tuple(products.values()))


def _closest(primer: Oligo, strands: Sequence[Strand], min_match: int) -> tuple[str, ...]:
    """Where the primer comes closest to priming, and the minimum (`param min_anneal`)."""
    found = no_site_failure(
        primer.name,
        plain(primer.seq),
        [(s.name or "strand", plain(s.seq)) for s in strands],
        min_match,
    )
    return (*found.notes, f"`param min_anneal: {min_match}` sets the minimum")


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


def _run_base(tok: object) -> str | None:
    if isinstance(tok, str) and tok in "ACGT":
        return tok
    return tok.base if isinstance(tok, PolyToken) else None


def _homopolymer_run(toks: tuple[object, ...], position: int) -> tuple[int, int] | None:
    """The (first, last) positions of the run of one base holding `position`, or None."""
    base = _run_base(toks[position])
    if base is None:
        return None
    first = last = position
    while first > 0 and _run_base(toks[first - 1]) == base:
        first -= 1
    while last + 1 < len(toks) and _run_base(toks[last + 1]) == base:
        last += 1
    return first, last


def priming_sites(primer: Seq, template: Seq, min_match: int) -> list[Site]:
    """The distinct places a primer primes on a template, best first.

    Rule: a primer whose 3' end pairs with a homopolymer run (oligo-dT on a poly(A)
    tail) pairs at every offset along it; those slipped sites prime the same molecule
    with a run of another length, and a run's length is not a product's identity (a
    tail's length varies from molecule to molecule). So a site that pairs only inside a
    run where a better site also starts is the same priming event and is not counted
    again; a site that pairs past the run's end (into the primer's own site) is kept.

    >>> from lablang.molecular.sequence import bases
    >>> t, dt = bases("GGGGAAAAAAAAAAAAAAAAAAAA"), bases("CCCCTTTTTTTTTTTT")
    >>> len(anneal_sites(dt, t, 12)), [(s.start, s.stop) for s in priming_sites(dt, t, 12)]
    (9, [(4, 16)])
    """
    toks = template.tokens()
    runs: set[tuple[int, int]] = set()
    kept: list[Site] = []
    for site in anneal_sites(primer, template, min_match):
        run = _homopolymer_run(toks, site.start) if site.start < len(toks) else None
        if run is not None and site.stop - 1 <= run[1] and run in runs:
            continue  # slipped along a run a better site already primes
        if run is not None:
            runs.add(run)
        kept.append(site)
    return kept


def _refuse_random(primer: Oligo) -> None:
    """A random (N-mer) primer in PCR is not modelled: say so, rather than report that
    the primer does not bind (it binds everywhere in a payload, every cycle)."""
    run = random_run(plain(primer.seq))
    if run:
        raise OperationFailure(
            "E0436",
            f"primer `{primer.name}` ends in a random {run}-mer: PCR with random primers "
            "(DOP-PCR, random-primed whole-genome amplification) is not modelled yet",
            notes=[
                "each cycle a random primer primes anywhere in every payload, so the "
                "products are every piece of the sample between two priming events"
            ],
            help="prime the random end once with `extend` or `linear_amplify` (they prime "
            "inside payloads), then amplify with primers on the known sequence it carries",
        )


# Suppression PCR (Siebert et al. 1995, NAR 23:1087; Shagin et al. 1999, NAR 27:e23): a
# molecule with the same arm at both ends folds, after each melt, into a pan-handle (its
# ends pair with each other) faster than a primer finds its site. The fold competes with
# priming as a matter of how near the two ends are: Shagin et al. show the effect
# weakens as the fragment lengthens (and strengthens as the primer shortens against the
# repeat), and long molecules (6-8 kb) are not affected (Lukyanov et al. 2007). Primer
# dimers and fragments of hundreds of bases are suppressed; a full-length cDNA of 1-2 kb
# amplifies with one arm at both ends (SMART's semi-suppressive ISPCR). The interpreter
# draws the line inside that gradient at SUPPRESSION_LENGTH bases (its model choice).
SUPPRESSION_LENGTH = 1000


def _suppressible(molecule: Duplex) -> bool:
    """Whether a pan-handle is short enough to be suppressed: its designed length with
    every segment at its longest is at most SUPPRESSION_LENGTH, a fragment payload
    (`Symbol.fragment`: cut by tagmentation or shearing) counting as short and a whole
    payload of unknown length (a full-length cDNA, a genomic molecule) as long."""
    length = 0
    for part in molecule.top.parts:
        if isinstance(part, Symbol) and part.is_payload and part.max_len is None:
            if not part.fragment:
                return False
            continue
        length += Seq((part,)).max_length or 0
    return length <= SUPPRESSION_LENGTH


def _pan_handle(molecule: Duplex, primer: Oligo, suppressed: str) -> Product:
    """A product one primer of two binds at both ends: its ends pair with each other."""
    if suppressed == "keep" or (suppressed == "length" and not _suppressible(molecule)):
        why = (
            "kept: `suppressed: keep`"
            if suppressed == "keep"
            else (
                f"longer than {SUPPRESSION_LENGTH} bp, too long to fold into a pan-handle: "
                "amplified"
            )
        )
        return Product(
            molecule,
            Disposition.CARRIED,
            f"same primer `{primer.name}` at both ends: suppression PCR amplifies it "
            f"inefficiently ({why})",
            name="suppression PCR product",
        )
    why = "" if suppressed == "discard" else f", at most {SUPPRESSION_LENGTH} bp"
    return Product(
        molecule,
        Disposition.DISCARDED,
        f"same primer `{primer.name}` at both ends{why}: suppression PCR, not amplified",
        name="suppressed",
    )


@operation(
    "pcr",
    lsb="pcr",
    rule="one primer on each strand, 3' ends facing: amplicon = F + template between + R'; linear products are discarded",
    params=(
        Param("primers", "oligos", "forward and reverse (or one)", required=True),
        Param("cycles", "number", "recorded only", py=None),
        Param(
            "suppressed",
            "text",
            "a product one of two primers binds at both ends is suppressed up to 1,000 bp "
            "(`length`: a fragment payload short, a whole one long), always (`discard`) "
            "or never (`keep`)",
            default="`length`",
            choices=("length", "discard", "keep"),
        ),
    ),
    uses=("min_anneal",),
    aliases={"amplify": "amplification"},
    circular=True,
)
def pcr(
    molecule: Molecule,
    primers: Sequence[Oligo],
    *,
    min_match: int = MIN_ANNEAL,
    suppressed: str = "length",
) -> Pool:
    """Exponential amplification between two primers pointing toward each other.

    Rule: a molecule amplifies only if one primer pairs with one strand and the other
    primer with the complementary strand, 3' ends facing; the amplicon's top strand is
    the forward primer (whole, 5' tail included) + the template between the two sites +
    the reverse primer's reverse complement (whole). A molecule bound by one primer
    gives linear copies only; in a two-primer reaction, one bound at both ends by the
    same primer forms a pan-handle that suppresses it, if it is short: suppression is a
    length effect (see SUPPRESSION_LENGTH: a pan-handle of at most 1,000 bp, or with a
    payload a fragmenting step cut, is discarded; one with a whole payload, such as a
    full-length cDNA, amplifies, as SNARE-seq's one-tube cDNA and chromatin PCR relies
    on). Linear and suppressed products are reported as discarded, not amplified.
    Suppression is a matter of efficiency, not of possibility (the one primer can
    amplify that molecule on its own, as in single-primer PCR): a protocol that relies
    on short ones anyway (Drop-ChIP's pre-amplification, whose page notes they "may not
    be amplified efficiently") says `suppressed: keep`, and `suppressed: discard`
    discards them whatever their length. With a single primer (given once, or the same sequence twice, as
    Smart-seq2's ISPCR) the product flanked by it at both ends is the designed amplicon.
    A primer slipped along a homopolymer run primes once (see `priming_sites`). A random
    (N-mer) primer is not modelled in PCR (E0436; `extend` and `linear_amplify` prime it).
    """
    if len(primers) not in (1, 2):
        raise OperationFailure("E0412", f"PCR takes one or two primers, got {len(primers)}")
    for primer in primers:
        _refuse_random(primer)
    # Single-primer PCR (one primer, or the same sequence twice, as Smart-seq2's ISPCR):
    # the molecule carries the primer's site at both ends by design and amplifies.
    single = len(primers) == 1 or plain(primers[0].seq).tokens() == plain(primers[1].seq).tokens()
    if len(primers) == 1:
        primers = [primers[0], primers[0]]
    # a circle is read over two turns, so an amplicon across its origin is found as a
    # straight stretch; a stretch of a whole turn or more is not an amplicon
    turn = len(molecule.core) if isinstance(molecule, Duplex) and molecule.circular else 0
    templates = [(name, seq + seq if turn else seq) for name, seq in _dna_strands(molecule)]
    if suppressed not in ("length", "discard", "keep"):
        raise OperationFailure(
            "E0412", f"`suppressed` is `length`, `discard` or `keep`, not `{suppressed}`"
        )
    amplicons: dict[str, Product] = {}
    pan_handles: dict[str, Product] = {}
    binders: set[int] = set()
    # each primer's priming sites on each strand: more than one on a strand is not specific
    sites_on: dict[tuple[int, str], list[int]] = {}
    for strand_name, x in templates:
        xr = reverse_complement(x)
        n = len(x)
        forward: list[tuple[int, int]] = []  # (primer index, b) sites pointing right
        reverse: list[tuple[int, int]] = []  # (primer index, c) sites pointing left
        for idx, primer in enumerate(primers):
            pseq = plain(primer.seq)
            for site in priming_sites(pseq, xr, min_match):
                if site.anchored:
                    continue
                forward.append((idx, n - site.start))
                binders.add(idx)
                if isinstance(molecule, Single):  # a duplex's other strand is a template too
                    sites_on.setdefault((idx, f"{strand_name}'"), []).append(_base(xr, site, turn))
            for site in priming_sites(pseq, x, min_match):
                if site.anchored:
                    continue
                reverse.append((idx, site.start))
                binders.add(idx)
                sites_on.setdefault((idx, strand_name), []).append(_base(x, site, turn))
        if len(forward) * len(reverse) > 4 * MAX_PRODUCTS:
            raise OperationFailure(
                "E0415",
                f"PCR primers bind {len(forward)} x {len(reverse)} site pairs: too many products",
            )
        for f_index, b_pos in forward:
            for r_index, c_pos in reverse:
                if b_pos > c_pos or (turn and c_pos - b_pos >= turn):
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
                    # the reverse primer's 5' group (biotin, amine) heads the bottom strand
                    right=End(five_prime=lead_modifications(primers[ri].seq)),
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
                    pan_handles.setdefault(key, _pan_handle(molecule_out, primers[fi], suppressed))
        if len(amplicons) + len(pan_handles) > MAX_PRODUCTS:
            raise OperationFailure("E0415", f"PCR gives more than {MAX_PRODUCTS} products")
    products = list(amplicons.values()) + list(pan_handles.values())
    if not binders:
        first = primers[0]
        raise no_site_failure(
            first.name,
            plain(first.seq),
            [(n, s) for n, s in templates]
            + [(f"{n}'", reverse_complement(s)) for n, s in templates],
            min_match,
        )
    if not amplicons and not pan_handles:
        names = ", ".join(f"`{primers[i].name}`" for i in sorted(binders))
        missing = [p for i, p in enumerate(primers) if i not in binders]
        reason = (
            f"only {names} binds: linear copies, not amplified"
            if missing
            else f"{names} bind but never face each other: not amplified"
        )
        if missing:
            strands = [(n, s) for n, s in templates]
            strands += [(f"{n}'", reverse_complement(s)) for n, s in templates]
            best = no_site_failure(missing[0].name, plain(missing[0].seq), strands, min_match)
            reason += f"; `{missing[0].name}`'s " + "; ".join(best.notes)
        products.append(Product(molecule, Disposition.DISCARDED, reason, name="not amplified"))
    # several sites matter when they make several amplicons (not suppressed pan-handles)
    return Pool(tuple(products), _not_specific(primers, sites_on) if len(amplicons) > 1 else ())


def _base(template: Seq, site: Site, turn: int = 0) -> int:
    """The 1-based base of `template` where a primer's site starts (on a circle of
    `turn` positions read over two turns, counted on the circle)."""
    start = site.start % turn if turn else site.start
    return template.slice(0, start).min_length + 1


def _not_specific(
    primers: Sequence[Oligo], sites_on: dict[tuple[int, str], list[int]]
) -> tuple[tuple[str, str, str], ...]:
    """W0407 for each primer that primes at more than one place on one strand (pydna's
    "not specific"), given when those sites make more than one amplicon: PCR then makes
    every product the sites allow (a second site that only forms a suppressed
    pan-handle, as Nextera's shared mosaic end does, is not warned about)."""
    out: list[tuple[str, str, str]] = []
    warned: set[str] = set()
    for (idx, strand), found in sites_on.items():
        bases = sorted(set(found))
        if len(bases) > 1 and primers[idx].name not in warned:
            warned.add(primers[idx].name)
            where = ", ".join(str(b) for b in bases)
            out.append(
                (
                    "W0407",
                    f"primer `{primers[idx].name}` is not specific: it primes at "
                    f"{len(bases)} sites of strand `{strand}` (bases {where})",
                    "each site gives its own product; shorten the shared sequence or "
                    "raise `param min_anneal` if only one site is meant",
                )
            )
    return tuple(out)
