"""Adapter ligation: double-stranded, Y-shaped and hairpin adapters to duplex ends, and
single-stranded adapters (RNA ligase, splinted DNA ligase) to one strand end."""

from __future__ import annotations

import attrs

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    Pool,
    Product,
)
from lablang.molecular.ops.core import (
    MAX_ADAPTER_STRAND,
    MIN_STEM,
    Oligo,
    OperationFailure,
    describe_end,
    has_phosphate,
    kinase_accepts,
    need_duplex,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    plain,
    token_width,
    tokens_pair,
)

# ------------------------------------------------------------------ ligation


def adapter_duplex(adapter: Oligo) -> Duplex:
    """Anneal the strands of a double-stranded oligo (adapter) into a duplex.

    Rule: the two strands pair over their longest complementary stretch (the stem);
    what lies beyond the stem on either strand is an overhang or an unpaired arm.
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


def hairpin_duplex(adapter: Oligo) -> Duplex:
    """A hairpin adapter (one strand folding on itself) as the duplex it ligates as.

    Rule: the strand pairs with itself over its longest stem that leaves a loop of at
    least 3 bases; the loop is where the two arms meet. The duplex has the arms as its
    two strands, split at the loop's deoxyuridine (NEBNext adapters carry one for USER
    to open) or else at the loop's middle, and records the closed loop (`loops`):
    `user` opens it into a Y-shaped end. Without a stem it is E0402.
    """
    from lablang.molecular.ops.nucleases import URACIL_CODES
    from lablang.molecular.sequence import Modification

    seq = adapter.seq
    toks = plain(seq).tokens()
    if len(toks) > MAX_ADAPTER_STRAND:
        raise OperationFailure(
            "E0415", f"hairpin `{adapter.name}` is longer than {MAX_ADAPTER_STRAND} positions"
        )
    best = (0, 0, 0, 0)  # bases, i (stem start), j (stem end on the way back), stem length
    for i in range(len(toks)):
        for j in range(len(toks) - 1, i, -1):
            k, count = 0, 0
            while j - k - (i + k) - 1 >= 3 and tokens_pair(toks[i + k], toks[j - k]):
                count += token_width(toks[i + k])
                k += 1
            if count > best[0]:
                best = (count, i, j, k)
    count, i, j, k = best
    if count < MIN_STEM:
        raise OperationFailure(
            "E0402",
            f"hairpin `{adapter.name}` does not fold: longest stem {count} bases, needs {MIN_STEM}",
        )
    loop_lo, loop_hi = i + k, j - k + 1  # token range of the loop
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
    return attrs.evolve(duplex, loops=(f"hairpin `{adapter.name}` closed {where}",))


@operation(
    "ligate",
    lsb="ligation",
    rule="duplex, Y or hairpin adapters join compatible duplex ends (blunt, A/T, sticky; a 5' "
    "phosphate per junction); a one-strand adapter joins a strand end by RNA ligase or over a "
    "splint (5' donor phosphorylated or adenylated, 3' acceptor free)",
    params=(
        Param("adapter", "oligo", "two strands, a hairpin or one strand", required=True),
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
    adapter: Oligo,
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
    """
    from lablang.molecular.ops.joining import join, target_end

    if len(adapter.strands) == 1 and adapter.kind != "hairpin":
        strand, prime = target_end(insert, end or "3'")
        if ligase == "dna" and splint is None:
            raise OperationFailure(
                "E0402",
                f"DNA ligase cannot join single-stranded `{adapter.name}` without a splint: it "
                "seals nicks in a duplex",
                help="give `splint:` (a bridging oligo) or use `ligase: rna` (T4 RNA ligase)",
            )
        return join(insert, adapter, strand, prime, splint=splint)
    duplex = need_duplex(insert, "ligation of a double-stranded adapter")
    ad = adapter_duplex(adapter)
    if end is not None:
        strand, prime = target_end(duplex, end)
        sides: tuple[str, ...] = ("right",) if (strand == "top") == (prime == "3'") else ("left",)
    else:
        found = {"both": ("right", "left"), "right": ("right",), "left": ("left",)}.get(ends)
        if found is None:
            raise OperationFailure("E0412", f"`ends` must be both, left or right, not `{ends}`")
        sides = found
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


def _blocked_5p(duplex: Duplex, side: str) -> bool:
    """Whether the strand whose 5' end is at `side` carries a group that blocks ligation
    there (not a phosphate, and no kinase can make one)."""
    return not kinase_accepts(duplex.top if side == "left" else duplex.bottom)


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
            errors.append(failure)
            continue
        joined = joined if side == "right" else joined.flipped()
        if joined not in out:
            out.append(joined)
    if not out:
        raise next((e for e in errors if e.code == "E0403"), errors[0])
    return out
