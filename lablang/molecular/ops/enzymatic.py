"""Fragmentation, end repair, A-tailing, denaturation, bisulfite (digestion: `digestion`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from attrs import evolve

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
    Oligo,
    OperationFailure,
    as_fragments,
    describe_end,
    explode,
    kinase_accepts,
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

# which cytosines of the sample `bisulfite(methylated:)` treats as methylated (spared)
METHYLATION_CONTEXTS = ("none", "cpg", "gpc", "cpg_gpc", "all")

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
            core = as_fragments(molecule.core)
            cuts = payload_positions(core)
            if not cuts:
                raise OperationFailure(
                    "E0412",
                    "nothing to fragment: the molecule has no payload segment (such as `[CDNA]`)",
                )
            ragged = End(ragged=True)
            products = [
                Product(
                    evolve(
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
                    evolve(
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
            strand = evolve(strand, seq=as_fragments(strand.seq))
            pieces = [(strand.seq.slice(0, cuts[0] + 1), "5' end fragment")]
            pieces += [(strand.seq.slice(c, c + 1), "internal fragment") for c in cuts]
            pieces.append((strand.seq.slice(cuts[-1]), "3' end fragment"))
            return Pool(
                tuple(
                    Product(Single(evolve(strand, seq=s, phosphate_5p=False)), name=n)
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
    new_left = left if left.forked else left.blunted("left")
    new_right = right if right.forked else right.blunted("right")
    repaired = evolve(duplex, core=core, left=new_left, right=new_right)
    # T4 PNK phosphorylates a 5'-OH; a 5' amine, biotin or dye blocks it (and ligation)
    return evolve(
        repaired,
        top_phosphate=kinase_accepts(repaired.top),
        bottom_phosphate=kinase_accepts(repaired.bottom),
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
    return evolve(
        duplex, left=duplex.left.with_overhangs(bottom=a), right=duplex.right.with_overhangs(top=a)
    )


# ------------------------------------------------------------------ strands, bisulfite


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


@operation(
    "bisulfite",
    lsb="other",
    rule="unmethylated C -> T on each strand (spared oligos' 5mC kept); converted payloads renamed",
    params=(
        Param(
            "methylated",
            "text",
            "which C are methylated (`gpc`: M.CviPI's GpC)",
            default="none",
            choices=METHYLATION_CONTEXTS,
        ),
        Param(
            "spare",
            "oligos",
            "oligos made with 5-methylcytosine: their C stay C",
            default="none",
        ),
    ),
)
def bisulfite(molecule: Molecule, methylated: str = "none", spare: Sequence[Oligo] = ()) -> Pool:
    """Bisulfite conversion: unmethylated C becomes U (read as T after PCR).

    Rule: sodium bisulfite deaminates cytosine on single strands; 5-methylcytosine is
    protected. `methylated` says which C of the sample are methylated: "none", "cpg"
    (C before G kept: the genome's own CpG methylation), "gpc" (C after G kept: GpC
    methylated in vitro by M.CviPI to mark accessible chromatin, NOMe-seq, scNMT-seq),
    "cpg_gpc" (both kept: endogenous CpG plus M.CviPI's GpC) or "all". Adaptors for bisulfite libraries (RRBS, scBS) are
    synthesized with 5-methylcytosine so that they survive conversion and their primers
    still bind: the bases that came from an oligo named in `spare` (or from an oligo it
    splices in, `{truseq_universal_adapter}`) keep their C. A
    spared oligo that is not part of the molecule is E0423 (it must be ligated before
    conversion). The two strands of a duplex are no longer complementary afterwards, so
    each is its own product; payload segments become converted payloads (a new identity).
    """
    if methylated not in METHYLATION_CONTEXTS:
        raise OperationFailure(
            "E0412",
            f"`methylated` must be {', '.join(METHYLATION_CONTEXTS[:-1])} or all, "
            f"not `{methylated}`",
        )
    pool = denature(molecule)
    # an oligo's bases carry its name, or the name of the oligo it splices in (`{...}`)
    spared = {o.name for o in spare}.union(*(_labels(o) for o in spare))
    present = {
        _origin(getattr(part, "label", None))
        for product in pool.products
        if isinstance(product.molecule, Single)
        for part in product.molecule.strand.seq.parts
    }
    missing = sorted(o.name for o in spare if not ({o.name} | _labels(o)) & present)
    if missing:
        names = ", ".join(f"`{n}`" for n in missing)
        raise OperationFailure(
            "E0423",
            f"spared oligo {names} is not part of the molecule: its methylated cytosines "
            "protect nothing",
            help="ligate the methylated adaptor before bisulfite conversion, or drop it from "
            "`spare`",
        )
    out = []
    for idx, product in enumerate(pool.products):
        assert isinstance(product.molecule, Single)
        strand = product.molecule.strand
        out.append(
            Product(
                Single(evolve(strand, seq=_convert(strand.seq, methylated, idx, spared))),
                name=f"converted {product.name}",
            )
        )
    return Pool(tuple(out))


def _labels(oligo: Oligo) -> set[str]:
    return {
        label
        for s in oligo.strands
        for p in s.parts
        if (label := _origin(getattr(p, "label", None)))
    }


def _origin(label: str | None) -> str | None:
    """The oligo a part came from: its label without the `'` of a copied strand."""
    return label.rstrip("'") if label else None


def _convert(seq: Seq, methylated: str, which: int, spared: frozenset[str] | set[str]) -> Seq:
    flat = plain(seq)
    toks = flat.tokens()
    parts: list[Part] = []
    for i, part in enumerate(explode(flat)):
        if isinstance(part, Bases) and part.text == "C":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            before = toks[i - 1] if i > 0 else None
            keep = (
                methylated == "all"
                or (methylated in ("cpg", "cpg_gpc") and nxt == "G")
                or (methylated in ("gpc", "cpg_gpc") and before == "G")
                or _origin(part.label) in spared
            )
            parts.append(part if keep else Bases("T", part.label))
        elif isinstance(part, Symbol) and methylated != "all":
            parts.append(evolve(part, name=f"{part.name}_BS{which + 1}"))
        else:
            parts.append(part)
    return Seq.of(parts)
