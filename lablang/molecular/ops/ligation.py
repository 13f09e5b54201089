"""Adapter ligation and split-pool barcoding rounds."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from lablang.molecular.molecule import (
    Duplex,
    End,
    Molecule,
    MolType,
    Single,
    Strand,
    top_strand,
)
from lablang.molecular.ops.core import (
    MAX_ADAPTER_STRAND,
    MIN_ANNEAL,
    MIN_STEM,
    Oligo,
    OperationFailure,
    anneal_sites,
    describe_end,
    has_phosphate,
    need_duplex,
    no_site_failure,
    strip_leading_modifications,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    Seq,
    plain,
    reverse_complement,
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


@operation(
    "ligate",
    lsb="ligation",
    rule="ends must form a perfect duplex across the junction (blunt/blunt, A/T, complementary "
    "sticky); each junction needs a 5' phosphate on at least one strand, the other stays a nick",
    params=(
        Param("adapter", "oligo", "the double-stranded adapter", required=True),
        Param("ends", "text", "which ends", default="both", choices=("both", "left", "right")),
    ),
)
def ligate(insert: Molecule, adapter: Oligo, *, ends: str = "both") -> Duplex:
    """Ligate a double-stranded adapter to one or both ends of a duplex.

    Rule: ligase joins a 3'-OH to a 5'-phosphate across compatible ends (see
    `ends_compatible`); at least one strand of each junction needs a 5' phosphate, and
    a junction whose 5' end lacks one stays nicked. The adapter is used in whichever
    orientation presents a compatible end.
    """
    duplex = need_duplex(insert, "ligation")
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


# ------------------------------------------------------------------ combinatorial barcoding


@operation(
    "barcode_round",
    lsb="ligation",
    rule="ligate the barcode oligo to the chosen end (the joined 5' end needs a phosphate; a "
    "`splint` must pair over its whole length across the junction, >= 6 bases each side) or "
    "extend the 3' end across it",
    params=(
        Param("barcode", "oligo", "the round's barcode oligo", required=True),
        Param("end", "end", "the end of the top strand it joins", default="5'"),
        Param("by", "text", "how", default="ligation", choices=("ligation", "extension")),
        Param("splint", "oligo", "a linker that bridges the junction"),
    ),
)
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
    seq = barcode.seq if end == "5'" else strip_leading_modifications(barcode.seq)
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
                    attrs.evolve(strand, seq=added + strip_leading_modifications(strand.seq))
                )
            return Single(attrs.evolve(strand, seq=strand.seq + added))
        case Duplex():
            if end == "5'":
                # the old 5' end is now internal: its phosphate went into the new bond
                if molecule.left.top:
                    left_top, core = strip_leading_modifications(molecule.left.top), molecule.core
                else:
                    left_top, core = molecule.left.top, strip_leading_modifications(molecule.core)
                return attrs.evolve(
                    molecule, core=core, left=attrs.evolve(molecule.left, top=added + left_top)
                )
            return attrs.evolve(
                molecule, right=attrs.evolve(molecule.right, top=molecule.right.top + added)
            )
    raise AssertionError(molecule)


@operation(
    "split_pool",
    lsb="ligation",
    rule="several `barcode_round`s in order",
    params=(
        Param("rounds", "oligos", "the barcode oligos, first round first", required=True),
        Param("end", "end", "the end of the top strand they join", default="5'"),
        Param("by", "text", "how", default="ligation", choices=("ligation", "extension")),
    ),
)
def split_pool(
    molecule: Molecule, rounds: Sequence[Oligo], *, end: str = "5'", by: str = "ligation"
) -> Molecule:
    """Several split-pool rounds in order.

    Rule: each oligo is joined as one `barcode_round`, first round first; the rounds
    are the same chemistry repeated, so the molecule carries one barcode per round in
    round order.
    """
    if len(rounds) > 64:
        raise OperationFailure("E0415", f"{len(rounds)} split-pool rounds exceed the limit of 64")
    for barcode in rounds:
        molecule = barcode_round(molecule, barcode, end=end, by=by)
    return molecule
