"""Fragmentation, end repair, A-tailing, denaturation, digestion, bisulfite."""

from __future__ import annotations

import itertools

import attrs

from lablang.molecular.molecule import (
    Disposition,
    Duplex,
    End,
    Molecule,
    Pool,
    Product,
    Single,
    Strand,
)
from lablang.molecular.ops.core import (
    MAX_PRODUCTS,
    OperationFailure,
    describe_end,
    explode,
    need_duplex,
    payload_positions,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Bases,
    Part,
    Seq,
    Symbol,
    bases,
    plain,
    reverse_complement,
)

# ------------------------------------------------------------------ fragmentation, ends


@operation(
    "fragment",
    lsb="fragmentation",
    rule="breaks in every payload: left end, internal and right end classes; new ends ragged",
)
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
            cuts = payload_positions(core)
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
            cuts = payload_positions(strand.seq)
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


@operation(
    "end_repair",
    lsb="other",
    rule="fill 5' overhangs, remove 3' overhangs, 5'-phosphorylate (fold into fragmentation)",
)
def end_repair(molecule: Molecule) -> Duplex:
    """Blunt and 5'-phosphorylate both ends.

    Rule: T4 DNA polymerase fills 5' overhangs (the recessed 3' end is extended) and
    removes 3' overhangs (3'->5' exonuclease); T4 polynucleotide kinase adds 5'
    phosphates. Forked ends (unpaired arms on both strands) are left as they are.
    """
    duplex = need_duplex(molecule, "end repair")
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


@operation(
    "a_tail", lsb="other", rule="one non-templated 3' A on each blunt end (Klenow exo-, Taq)"
)
def a_tail(molecule: Molecule) -> Duplex:
    """Add one non-templated A to each 3' end of a blunt duplex.

    Rule: a polymerase without proofreading (Klenow exo-, Taq) adds a single dA to
    blunt 3' ends, giving the overhang that pairs with a T-overhang adapter.
    """
    duplex = need_duplex(molecule, "A-tailing")
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


# ------------------------------------------------------------------ strands, digestion, bisulfite


@operation(
    "denature",
    lsb="denaturation",
    rule="strands separate; `keep` carries one and discards the other",
    params=(
        Param(
            "keep",
            "text",
            "the strand carried on (default: both)",
            choices=("top", "bottom", "DNA", "RNA"),
        ),
    ),
)
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
    "HpaII": ("CCGG", 1, 3), "Sau3AI": ("GATC", 0, 4), "BfaI": ("CTAG", 1, 3),
    "CviAII": ("CATG", 1, 3), "FatI": ("CATG", 0, 4),
}  # fmt: skip


@operation(
    "digest",
    lsb="other",
    rule="cut at each recognition site in designed bases, leaving the enzyme's ends",
    params=(Param("enzyme", "text", "the restriction enzyme", required=True),),
)
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
    duplex = need_duplex(molecule, "digestion")
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


@operation(
    "bisulfite",
    lsb="other",
    rule="unmethylated C -> T on each strand; converted payloads get new identities",
    params=(
        Param(
            "methylated",
            "text",
            "which C are protected",
            default="none",
            choices=("none", "cpg", "all"),
        ),
    ),
)
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
    for i, part in enumerate(explode(flat)):
        if isinstance(part, Bases) and part.text == "C":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            keep = methylated == "cpg" and nxt == "G"
            parts.append(part if keep else Bases("T", part.label))
        elif isinstance(part, Symbol):
            parts.append(attrs.evolve(part, name=f"{part.name}_BS{which + 1}"))
        else:
            parts.append(part)
    return Seq.of(parts)
