"""Adapter ligation: double-stranded, Y-shaped and hairpin adapters to duplex ends, and
single-stranded adapters (RNA ligase, splinted DNA ligase) to one strand end."""

from __future__ import annotations

from attrs import evolve, frozen

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    Pool,
    Product,
    Single,
)
from lablang.molecular.ops.core import (
    CIRCLE_HAS_NO_ENDS,
    CIRCLE_HELP,
    MAX_ADAPTER_STRAND,
    MIN_STEM,
    Oligo,
    OperationFailure,
    describe_end,
    has_phosphate,
    kinase_accepts,
    need_duplex,
)
from lablang.molecular.ops.joining import (
    MIN_SPLINT_ARM,
    check_donor_acceptor,
    join,
    strand_seq,
    target_end,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.pairing import token_width, tokens_pair
from lablang.molecular.sequence import (
    MAX_SEQUENCE_TOKENS,
    Seq,
    Symbol,
    plain,
    render,
    reverse_complement,
)
from lablang.records import Compared

# ------------------------------------------------------------------ ligation


def stem_widths(seq: Seq) -> tuple[int, ...]:
    """The bases each token of `seq` stands for when counting a stem.

    Rule: a symbolic segment of known length (a barcode `[X:10]`) pairs with its reverse
    complement (`[X:10']`) over all its bases, so it counts its (minimum) length, as the
    concrete bases it stands for would; a payload or a segment of unknown length counts
    one, and a run of unspecified length twelve (as `token_width`).

    >>> from lablang.molecular.sequence import parse_notation
    >>> stem_widths(parse_notation("AC [BC:10'] (T)3"))
    (1, 1, 10, 1, 1, 1)
    """
    widths: list[int] = []
    for part in seq.parts:
        tokens = Seq((part,)).tokens()
        if isinstance(part, Symbol) and not part.is_payload and part.min_len:
            widths.append(part.min_len)
        else:
            widths.extend(token_width(t) for t in tokens)
    return tuple(widths)


def adapter_duplex(adapter: Oligo) -> Duplex:
    """Anneal the strands of a double-stranded oligo (adapter) into a duplex.

    Rule: the two strands pair over their longest complementary stretch (the stem);
    what lies beyond the stem on either strand is an overhang or an unpaired arm. Where
    one stretch pairs in several registers (an oligo-dT on a longer run of A), the
    register leaving the fewest unpaired 3' bases is taken.
    """
    if len(adapter.strands) == 1:
        if adapter.kind == "hairpin":
            return hairpin_duplex(adapter)
        raise OperationFailure(
            "E0412",
            f"`{adapter.name}` has one strand; a double-stranded adapter needs two",
            help="declare both strands (`kind: double_stranded`), `kind: hairpin` for one "
            "strand that folds on itself, or ligate it to one strand end with `end:`",
        )
    a, b = adapter.strands[0], adapter.strands[1]
    pa, pb = plain(a).tokens(), plain(b).tokens()
    wa = stem_widths(plain(a))
    if max(len(pa), len(pb)) > MAX_ADAPTER_STRAND:
        raise OperationFailure(
            "E0415",
            f"adapter `{adapter.name}` has a strand longer than {MAX_ADAPTER_STRAND} positions",
        )
    best = (0, 0, 0, 0)  # bases, i (start in a), j (end in b, inclusive), length
    best_tails = 0
    for i in range(len(pa)):
        for j in range(len(pb)):
            k, count = 0, 0
            while i + k < len(pa) and j - k >= 0 and tokens_pair(pa[i + k], pb[j - k]):
                count += wa[i + k]
                k += 1
            # the same stretch of `a` pairing in several registers of `b` (oligo-dT on a
            # poly(A) run): the register leaving the fewest unpaired 3' bases forms
            tails = (len(pa) - i - k) + (len(pb) - 1 - j)
            shifted = count == best[0] and (i, k) == (best[1], best[3]) and tails < best_tails
            if count > best[0] or (count and shifted):
                best, best_tails = (count, i, j, k), tails
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


MAX_JUNCTION_GAP = 64  # bases a gapped junction may leave on one strand (bounded search)


@frozen(repr=False, eq=False)
class Junction(Compared):
    """Two duplex ends held together by the pairing of their single-stranded parts.

    `joined` is the junction's top strand as a polymerase fills it (the bases the top
    strand lacks copied from the bottom); `top_gap` and `bottom_gap` are the bases each
    strand lacks until then (0 for ends that fit exactly).
    """

    joined: Seq
    top_gap: int
    bottom_gap: int
    paired: int  # bases paired across the junction


def gapped_junction(left_mol: Duplex, right_mol: Duplex) -> Junction | None:
    """How `left_mol`'s right end anneals to `right_mol`'s left end leaving gaps to fill.

    Rule: each single-stranded extension stays flush against the duplex it belongs to,
    so when the extensions are of unequal length, or pair only with an offset (CH-ATAC's
    HY oligo overhang pairing the Tn5 oligo's 5' end, each barcode facing a gap), the
    ends meet across a junction wider than one strand's extensions: the strand that
    falls short has a gap there, opposite bases of the other strand. The ends anneal
    when every position both strands cover pairs, no position is missing on both, and
    at least 6 bases pair (`MIN_SPLINT_ARM`: what holds a nick in place); the narrowest
    such junction is the one that forms. Ragged or forked ends never anneal.
    """
    e1, e2 = left_mol.right, right_mol.left
    if e1.ragged or e2.ragged or e1.forked or e2.forked:
        return None
    t1, t2, b1, b2 = e1.top, e2.top, e1.bottom, e2.bottom
    n_top, n_bottom = len(t1) + len(t2), len(b1) + len(b2)
    for width in range(max(n_top, n_bottom), n_top + n_bottom):
        junction = _junction_at(t1, t2, b1, b2, width)
        if junction is not None:
            return junction
    return None


def _junction_at(t1: Seq, t2: Seq, b1: Seq, b2: Seq, width: int) -> Junction | None:
    """The junction `width` positions wide, or None when it does not pair."""
    top: list[Seq | None] = [None] * width
    bottom: list[Seq | None] = [None] * width  # position p: the bottom base under top p
    for p in range(len(t1)):
        top[p] = t1.slice(p, p + 1)
    for q in range(len(t2)):
        top[width - len(t2) + q] = t2.slice(q, q + 1)
    for q in range(len(b1)):  # b1 ends (3') against the left duplex
        bottom[len(b1) - 1 - q] = b1.slice(q, q + 1)
    for q in range(len(b2)):  # b2 starts (5') against the right duplex
        bottom[width - 1 - q] = b2.slice(q, q + 1)
    joined, paired, top_gap, bottom_gap = Seq(), 0, 0, 0
    for t, b in zip(top, bottom, strict=True):
        if t is None and b is None:
            return None
        if t is not None and b is not None:
            ta, tb = plain(t).tokens(), plain(b).tokens()
            if not tokens_pair(ta[0], tb[0]):
                return None
            paired += sum(stem_widths(plain(t)))
            joined += t
        elif t is not None:
            bottom_gap += sum(stem_widths(plain(t)))
            joined += t
        elif b is not None:
            top_gap += sum(stem_widths(plain(b)))
            joined += reverse_complement(b).with_label("gap fill")
    if (top_gap or bottom_gap) and paired < MIN_SPLINT_ARM:
        return None
    if max(top_gap, bottom_gap) > MAX_JUNCTION_GAP:
        return None
    return Junction(joined, top_gap, bottom_gap, paired)


def _ligate_right(insert: Duplex, adapter: Duplex, adapter_name: str) -> Duplex:
    joined, nicks = junction(insert, adapter, adapter_name)
    return Duplex(
        core=insert.core + joined + adapter.core,
        left=insert.left,
        right=adapter.right,
        # an RNA strand joined to a DNA adapter strand is a chimera
        top_type=insert.top_type.joined(adapter.top_type),
        bottom_type=insert.bottom_type.joined(adapter.bottom_type),
        top_name=insert.top_name,
        bottom_name=insert.bottom_name,
        top_phosphate=insert.top_phosphate,
        bottom_phosphate=adapter.bottom_phosphate,
        nicks=tuple(nicks),
        loops=insert.loops + adapter.loops,
    )


def junction(insert: Duplex, adapter: Duplex, adapter_name: str) -> tuple[Seq, list[str]]:
    """The junction of `insert`'s right end with `adapter`'s left end: its top strand's
    bases (a gap's fill included) and the nicks and gaps the molecules then carry (E0402
    when the ends do not fit, E0403 when neither strand has a 5' phosphate there)."""
    ok, joined = ends_compatible(insert, adapter)
    gapped = None if ok else gapped_junction(insert, adapter)
    if not ok and gapped is None:
        raise OperationFailure(
            "E0402",
            f"ends cannot be ligated: fragment's end is {describe_end(insert, 'right')}, "
            f"`{adapter_name}`'s end is {describe_end(adapter, 'left')}",
            help="blunt ends join blunt ends, a 3' A joins a 3' T, sticky overhangs must be "
            "complementary (or pair over 6+ bases, leaving a gap to fill); repair and "
            "A-tail fragments before TA ligation",
        )
    top_join = adapter.top_phosphate
    bottom_join = insert.bottom_phosphate
    if not top_join and not bottom_join:
        raise OperationFailure(
            "E0403",
            f"neither strand at the junction with `{adapter_name}` has a 5' phosphate",
            help="ligase joins a 3'-OH to a 5'-phosphate: `phosphorylate` the molecule (T4 "
            "PNK) or run `end_repair` first, or use an adapter with /5Phos/",
        )
    nicks = list(insert.nicks) + list(adapter.nicks)
    if gapped is not None:
        joined = gapped.joined
        for strand, gap in (("top", gapped.top_gap), ("bottom", gapped.bottom_gap)):
            if gap:
                nicks.append(
                    f"{gap}-base gap on the {strand} strand at `{adapter_name}` (ends annealed "
                    f"over {gapped.paired} bases; a polymerase fills it: `gap_fill`)"
                )
    if not top_join:
        nicks.append(f"top strand before `{adapter_name}` (no 5' phosphate)")
    if not bottom_join:
        nicks.append(f"bottom strand at `{adapter_name}` (fragment has no 5' phosphate)")
    return joined, nicks


@frozen(repr=False, eq=False)
class Fold(Compared):
    """How a hairpin strand pairs with itself: tokens `[i, i + k)` with `(j - k, j]`."""

    bases: int  # bases paired in the stem
    i: int  # first token of the 5' arm of the stem
    j: int  # last token of the 3' arm of the stem
    k: int  # tokens in each arm of the stem


def fold(adapter: Oligo) -> Fold:
    """The hairpin's longest stem that leaves a loop of at least 3 bases (E0402 below
    `MIN_STEM` bases); a barcode paired with its reverse complement is a stem of its
    length (`stem_widths`)."""
    toks = plain(adapter.seq).tokens()
    if len(toks) > MAX_ADAPTER_STRAND:
        raise OperationFailure(
            "E0415", f"hairpin `{adapter.name}` is longer than {MAX_ADAPTER_STRAND} positions"
        )
    widths = stem_widths(plain(adapter.seq))
    best = Fold(0, 0, 0, 0)
    for i in range(len(toks)):
        for j in range(len(toks) - 1, i, -1):
            k, count = 0, 0
            while j - k - (i + k) - 1 >= 3 and tokens_pair(toks[i + k], toks[j - k]):
                count += widths[i + k]
                k += 1
            if count > best.bases:
                best = Fold(count, i, j, k)
    if best.bases < MIN_STEM:
        raise OperationFailure(
            "E0402",
            f"hairpin `{adapter.name}` does not fold: longest stem {best.bases} bases, "
            f"needs {MIN_STEM}",
        )
    return best


def hairpin_duplex(adapter: Oligo) -> Duplex:
    """A hairpin adapter (one strand folding on itself) as the duplex it ligates as.

    Rule: the strand pairs with itself over its longest stem that leaves a loop of at
    least 3 bases (`fold`); the loop is where the two arms meet. The duplex has the arms
    as its two strands, split at the loop's deoxyuridine (NEBNext adapters carry one for
    USER to open) or else at the loop's middle, and records the closed loop (`loops`):
    `user` opens it into a Y-shaped end. Without a stem it is E0402.
    """
    from lablang.molecular.ops.nucleases import URACIL_CODES
    from lablang.molecular.sequence import Modification

    seq = adapter.seq
    folded = fold(adapter)
    loop_lo, loop_hi = folded.i + folded.k, folded.j - folded.k + 1  # token range of the loop
    position, cut = 0, (loop_lo + loop_hi) // 2
    split_on_uracil = False
    for part in seq.parts:
        width = len(Seq((part,)))
        uracil = isinstance(part, Modification) and part.code in URACIL_CODES
        if uracil and loop_lo <= position < loop_hi:
            cut, split_on_uracil = position, True
            break
        position += width
    first = seq.slice(0, cut)
    second = seq.slice(cut + 1 if split_on_uracil else cut)
    arms = Oligo(adapter.name, (first, second), "double_stranded")
    duplex = adapter_duplex(arms)
    where = "at its deoxyuridine" if split_on_uracil else "in its loop"
    return evolve(duplex, loops=(f"hairpin `{adapter.name}` closed {where}",))


def unpaired_end(molecule: Molecule, strand: str, prime: str) -> Seq | None:
    """The single-stranded stretch at one strand end (the whole strand of a single
    strand), or None when that end is paired."""
    if not isinstance(molecule, Duplex):
        return strand_seq(molecule, strand)[0]
    top_end = {"5'": molecule.left.top, "3'": molecule.right.top}
    bottom_end = {"5'": molecule.right.bottom, "3'": molecule.left.bottom}
    stretch = (top_end if strand == "top" else bottom_end)[prime]
    return stretch or None


def join_hairpin(molecule: Molecule, adapter: Oligo, strand: str, prime: str) -> Molecule:
    """A hairpin joined to a single-stranded strand end, splinted by its own overhang.

    Rule: DNA ligase seals a nick held in a duplex. A hairpin whose stem reaches one of
    its termini and whose other terminus overhangs (sci-RNA-seq3's barcoded hairpin:
    5' overhang, then its barcode's reverse complement, a loop, the barcode) holds a
    junction by itself: the terminus in the stem is paired, and the overhang pairs with
    the strand's terminal bases on the other side, so a hairpin with a 5' overhang
    joins a strand's 5' end (its 3'-OH to the strand's 5' phosphate) and one with a 3'
    overhang a strand's 3' end. The overhang must pair over its whole length, at least
    6 bases (E0402 otherwise, or when the strand end is paired). The strand end may
    overhang further than the hairpin's: the other strand is then not joined to the
    hairpin (a gap opposite the rest of the strand's overhang, closed when a polymerase
    copies the strand: `second_strand`, `gap_fill`). The hairpin becomes the strand's
    new end (folded, recorded in `loops`); donor and acceptor as for any strand-end join.
    """
    folded = fold(adapter)
    seq = plain(adapter.seq)
    toks = seq.tokens()
    if prime == "5'":
        overhang, other_end = seq.slice(0, folded.i), len(toks) - 1 - folded.j
    else:
        overhang, other_end = seq.slice(folded.j + 1), folded.i
    end_name = f"{strand} strand's {prime} end"
    if other_end or not overhang:
        joined_end = "3'" if prime == "5'" else "5'"
        raise OperationFailure(
            "E0402",
            f"hairpin `{adapter.name}` cannot hold a junction with the {end_name}: it needs "
            f"its stem to reach its {joined_end} end and a {prime} overhang to pair with "
            "the strand",
            help="a hairpin with a 5' overhang joins a 5' end, one with a 3' overhang a 3' end",
        )
    stretch = unpaired_end(molecule, strand, prime)
    width = len(overhang)
    if stretch is None or len(stretch) < width:
        raise OperationFailure(
            "E0402",
            f"the {end_name} is not single-stranded over the {width} positions hairpin "
            f"`{adapter.name}`'s overhang must pair with",
            help="a hairpin joins a duplex end as a closed loop when its folded end fits "
            "(`ends:`); it joins one strand end only where that end overhangs",
        )
    site = stretch.slice(0, width) if prime == "5'" else stretch.slice(len(stretch) - width)
    paired = reversed_pairing(overhang, site)
    if paired < MIN_SPLINT_ARM:
        raise OperationFailure(
            "E0402",
            f"hairpin `{adapter.name}`'s overhang does not pair with the {end_name}: it "
            f"must pair over its whole length ({sum(stem_widths(overhang))} bases, at least "
            f"{MIN_SPLINT_ARM}) with the strand's terminal bases",
            notes=[f"overhang: {render(overhang)}", f"strand end: {render(site)}"],
        )
    check_donor_acceptor(molecule, adapter, strand, prime)
    joined = join(molecule, adapter, strand, prime, check=False)
    gap = sum(stem_widths(plain(stretch))) - paired
    note = (
        f"hairpin `{adapter.name}` folded on the {end_name} (stem {folded.bases} bases, "
        f"overhang paired with the strand's {paired} terminal bases)"
        + (f"; the other strand stops {gap} bases short of it (a gap)" if gap else "")
    )
    if isinstance(joined, Duplex):
        return evolve(joined, loops=(*joined.loops, note))
    return joined


def reversed_pairing(a: Seq, b: Seq) -> int:
    """Bases `a` pairs with `b` antiparallel over their whole lengths (0 if any position
    fails or the lengths differ)."""
    ta, tb = a.tokens(), plain(b).tokens()
    if len(ta) != len(tb):
        return 0
    if not all(tokens_pair(ta[i], tb[len(tb) - 1 - i]) for i in range(len(ta))):
        return 0
    return sum(stem_widths(a))


@operation(
    "ligate",
    lsb="ligation",
    rule="a duplex, Y or hairpin adapter, or an earlier step's duplexes, join fitting duplex "
    "ends (blunt, A/T, sticky, or annealed over 6+ bases leaving a gap; a 5' phosphate per "
    "junction); a one-strand adapter joins a strand end by RNA ligase or over a splint (5' "
    "donor phosphorylated or adenylated, free 3' acceptor); a hairpin joins a longer "
    "single-stranded end by its own overhang",
    params=(
        Param(
            "adapter",
            "partner",
            "two strands, a hairpin, one strand, or an earlier step (its duplexes)",
            required=True,
        ),
        Param(
            "ends",
            "text",
            "duplex ends joined",
            default="both",
            choices=("both", "left", "right"),
        ),
        Param(
            "end",
            "end",
            "strand end joined: `3'`, `\"bottom 5'\"`",
            default="3' (one-strand adapter)",
        ),
        Param(
            "ligase",
            "text",
            "T4 DNA ligase (duplex junctions) or RNA ligase (single strands)",
            default="dna",
            choices=("dna", "rna"),
        ),
        Param(
            "splint",
            "oligo",
            "bridges a single-stranded junction",
        ),
    ),
)
def ligate(
    insert: Molecule,
    adapter: Oligo | Fragments,
    *,
    ends: str = "both",
    end: str | None = None,
    ligase: str = "dna",
    splint: Oligo | None = None,
) -> Molecule | Pool:
    """Ligate an adapter to a molecule.

    Rule: ligase joins a 3'-OH to a 5'-phosphate. A double-stranded (or Y, or hairpin)
    adapter joins a duplex end whose single-stranded extensions form a perfect duplex
    with its own (see `ends_compatible`); at least one strand of each junction needs a
    5' phosphate, and a junction whose 5' end lacks one stays nicked; the adapter is
    used in each orientation that presents a compatible end (an adapter blunt at both
    ends joins either way round, and both molecules form), and `end:` picks the duplex
    end (`top 3'` and `bottom 5'` are the right end). A single-stranded adapter joins
    one strand end: T4 RNA ligase joins single strands (RNA or DNA); T4 DNA ligase needs
    the junction held in a duplex by a `splint`. The 5' donor must carry a phosphate
    (or, for pre-adenylated adapters, an adenylate: E0403) and the 3' acceptor must be
    free (`/3ddC/`, `/3SpC3/`... block it: E0421), which is why a 3'-blocked adapter has
    only one way to ligate. An RNA strand joined to a DNA adapter becomes a chimera.
    A hairpin aimed (`end:`) at a strand end that overhangs further than the hairpin's
    folded end, or at a single strand, joins that strand alone, held by its own
    overhang (`join_hairpin`). An earlier step's products join as `join_products` says.
    """
    if isinstance(adapter, Fragments):
        return join_products(insert, adapter, ends=ends, end=end)
    if adapter.kind == "hairpin" and len(adapter.strands) == 1:
        hairpin_end = _hairpin_strand_end(insert, adapter, end)
        if hairpin_end is not None:
            return join_hairpin(insert, adapter, *hairpin_end)
    if len(adapter.strands) == 1 and adapter.kind != "hairpin":
        strand, prime = target_end(insert, end or "3'")
        return join(insert, adapter, strand, prime, splint=splint, ligase=ligase)
    duplex = need_duplex(insert, "ligation of a double-stranded adapter")
    ad = adapter_duplex(adapter)
    sides = _sides(duplex, ends, end)
    results = [duplex]
    for side in sides:
        try:
            results = [joined for r in results for joined in _join_side(r, ad, side, adapter.name)]
        except OperationFailure as failure:
            if len(sides) == 1 or failure.code != "E0403" or not _blocked_5p(duplex, side):
                raise
            # a 5' amine or biotin (a bead-bound end) takes no adapter; the other end does
    if results == [duplex]:
        raise OperationFailure(
            "E0403", f"no end of the molecule can take `{adapter.name}`: both 5' ends are blocked"
        )
    if len(results) == 1:
        return results[0]
    return Pool(
        tuple(Product(r, name=f"{adapter.name} orientation {k + 1}") for k, r in enumerate(results))
    )


def _sides(duplex: Duplex, ends: str, end: str | None) -> tuple[str, ...]:
    """The duplex ends `ends:` (both, left, right) or `end:` (a strand end) names."""
    if end is not None:
        strand, prime = target_end(duplex, end)
        return ("right",) if (strand == "top") == (prime == "3'") else ("left",)
    found = {"both": ("right", "left"), "right": ("right",), "left": ("left",)}.get(ends)
    if found is None:
        raise OperationFailure("E0412", f"`ends` must be both, left or right, not `{ends}`")
    return found


@frozen(repr=False, eq=False)
class Fragments(Compared):
    """An earlier step's carried products, named by the step, as a ligation partner."""

    name: str
    molecules: tuple[Molecule, ...]


def join_products(
    insert: Molecule, partner: Fragments, *, ends: str = "both", end: str | None = None
) -> Molecule | Pool:
    """Two molecules of earlier steps joined end to end, whatever their lengths.

    Rule: the junction obeys the rules an adapter's does (`_ligate_right`: the ends'
    single-stranded extensions form a perfect duplex, or anneal over 6+ bases leaving a
    gap; at least one 5' phosphate, a junction without one stays nicked), and each
    partner molecule joins by one junction, in each orientation and at each end of the
    first molecule that fits (`ends:` or `end:` picks the end; blunt ends join every way,
    so a blunt fragment gives four molecules, a directional pair of sticky ends one). A
    partner is a duplex (a single strand joins as an oligo), linear (a circle has no
    ends). The joined molecule is bounded by the longest sequence the interpreter holds
    (E0415); concatemers and self-ligation are not formed (`circularize` closes a
    molecule on itself).
    """
    duplex = need_duplex(insert, "ligation of two products")
    if not partner.molecules:
        raise OperationFailure("E0412", f"`{partner.name}` carries no product to join")
    if duplex.circular:
        raise OperationFailure("E0428", CIRCLE_HAS_NO_ENDS, help=CIRCLE_HELP)
    sides = _sides(duplex, ends, end)
    out: list[Duplex] = []
    errors: list[OperationFailure] = []
    for molecule in partner.molecules:
        if not isinstance(molecule, Duplex):
            raise OperationFailure(
                "E0412",
                f"`{partner.name}` is single-stranded: a product ligated to another joins "
                "as a duplex",
                help="make it double-stranded first (`second_strand`, `pcr`), or declare it "
                "as an oligo to join one strand end",
            )
        if molecule.circular:
            raise OperationFailure("E0428", CIRCLE_HAS_NO_ENDS, help=CIRCLE_HELP)
        for side in sides:
            try:
                joined = _join_side(duplex, molecule, side, partner.name)
            except OperationFailure as failure:
                errors.append(failure)
                continue
            out.extend(j for j in joined if not any(_same_molecule(j, o) for o in out))
    if not out:
        raise next((e for e in errors if e.code == "E0403"), errors[0])
    for each in out:
        if len(each.top) > MAX_SEQUENCE_TOKENS:
            raise OperationFailure(
                "E0415",
                f"joining `{partner.name}` makes a molecule longer than {MAX_SEQUENCE_TOKENS} "
                "positions (the limit `MAX_SEQUENCE_TOKENS`)",
            )
    if len(out) == 1:
        return out[0]
    return Pool(
        tuple(Product(j, name=f"joined to `{partner.name}` ({k + 1})") for k, j in enumerate(out))
    )


def _same_molecule(a: Duplex, b: Duplex) -> bool:
    """Whether two duplexes are one molecule, read from either end."""
    return a == b or a == b.flipped()


def _blocked_5p(duplex: Duplex, side: str) -> bool:
    """Whether the strand whose 5' end is at `side` carries a group that blocks ligation
    there (not a phosphate, and no kinase can make one)."""
    return not kinase_accepts(duplex.top if side == "left" else duplex.bottom)


def released(duplex: Duplex) -> Duplex:
    """The duplex with the annealed, unjoined strand at its right end melted off.

    Rule: a strand held only by base pairing (Tn5's non-transferred ME', 19 bp, once
    Tn5 is released) leaves; the other strand's bases it covered become single-stranded.
    """
    end, width = duplex.right, duplex.right.annealed
    cut = len(duplex.core) - width
    freed = reverse_complement(duplex.core.slice(cut))
    return evolve(
        duplex,
        core=duplex.core.slice(0, cut),
        right=End(bottom=end.bottom + freed, five_prime=end.five_prime),
    )


def _displacing(target: Duplex, adapter: Duplex, name: str) -> Duplex | None:
    """`adapter` joined to `target`'s right end by displacing the strand annealed there.

    Rule: an adapter whose single-stranded extension pairs with the target's arm and on
    over the stretch where the target's other strand is only annealed, not joined
    (SNARE-seq's splint over the s5 arm and the mosaic end, where Tn5 left its ME'),
    takes that strand's place: its longer pairing wins (strand displacement), and the
    junction is then an exact one (`ends_compatible`). None when the end has no annealed
    strand or the freed end does not fit exactly.
    """
    if not target.right.annealed:
        return None
    freed = released(target)
    if not ends_compatible(freed, adapter)[0]:
        return None
    joined = _ligate_right(freed, adapter, name)
    note = (
        f"`{name}` displaced the strand annealed over {target.right.annealed} positions "
        "(not joined) at the junction"
    )
    return evolve(joined, nicks=(*joined.nicks, note))


def _hairpin_strand_end(
    insert: Molecule, adapter: Oligo, end: str | None
) -> tuple[str, str] | None:
    """The strand end a hairpin joins alone, or None when it joins a duplex end: a
    single strand (at `end`, default 3'), or a duplex strand end named by `end:` whose
    single-stranded stretch is longer than the hairpin's folded end can match."""
    if isinstance(insert, Single):
        return target_end(insert, end or "3'")
    if end is None:
        return None
    strand, prime = target_end(insert, end)
    stretch = unpaired_end(insert, strand, prime)
    if stretch is None:
        return None
    folded = fold(adapter)
    toks = len(plain(adapter.seq).tokens())
    own = folded.i if prime == "5'" else toks - 1 - folded.j  # the hairpin's own overhang
    return (strand, prime) if len(stretch) > own else None


def _join_side(duplex: Duplex, ad: Duplex, side: str, name: str) -> list[Duplex]:
    """The adapter joined to one side of the duplex in each orientation that ligates:
    an adapter whose two ends both fit (a blunt adapter on a blunt end) joins either
    way round, so both molecules form; the first failure is raised when none fits."""
    target = duplex if side == "right" else duplex.flipped()
    errors: list[OperationFailure] = []
    out: list[Duplex] = []
    for candidate in (ad, ad.flipped()):
        try:
            joined = _ligate_right(target, candidate, name)
        except OperationFailure as failure:
            displaced = _displacing(target, candidate, name)
            if displaced is None:
                errors.append(failure)
                continue
            joined = displaced
        joined = joined if side == "right" else joined.flipped()
        if joined not in out:
            out.append(joined)
    if not out:
        raise next((e for e in errors if e.code == "E0403"), errors[0])
    return out
