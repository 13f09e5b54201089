"""Self-priming: a single strand whose 3' end folds back on itself primes its own copy."""

from __future__ import annotations

from lablang.molecular.molecule import Duplex, End, Molecule, MolType, Single
from lablang.molecular.ops.core import (
    MIN_ANNEAL,
    OperationFailure,
    three_prime_blocked,
)
from lablang.molecular.ops.registry import operation
from lablang.molecular.pairing import tokens_pair
from lablang.molecular.sequence import Seq, plain, render

MIN_LOOP = 3  # unpaired bases a hairpin's loop needs to turn
MAX_FOLD = 4000  # positions of a strand searched for a fold (the search is quadratic)


def hairpin_site(seq: Seq, min_stem: int = MIN_ANNEAL) -> tuple[int, int] | None:
    """Where the strand's 3' end pairs back on itself: (start of the internal stretch it
    pairs with, stem length), or None.

    Rule: the 3'-terminal base and those before it pair contiguously, antiparallel,
    with an internal stretch upstream, at least `min_stem` bases, leaving a loop of at
    least 3 between them. Of several sites the longest stem wins, then the one nearest
    the 3' end (the smaller loop forms faster).

    >>> from lablang.molecular.sequence import bases
    >>> hairpin_site(bases("ACGTACGT" + "CTGTCTCTTATACACATCT" + "GGGAAATTT" + "AGATGTGTATAAGAGACAG"))
    (8, 19)
    """
    toks = plain(seq).tokens()
    n = len(toks)
    if n > MAX_FOLD:
        raise OperationFailure(
            "E0415", f"a {n}-position strand exceeds the fold search limit ({MAX_FOLD})"
        )
    best: tuple[int, int] | None = None
    for j in range(n):
        stem = 0
        # toks[n - 1 - k] pairs with toks[j + k]; the loop lies between them
        while (n - 1 - stem) - (j + stem) - 1 >= MIN_LOOP and tokens_pair(
            toks[n - 1 - stem], toks[j + stem]
        ):
            stem += 1
        if stem >= min_stem and (best is None or stem >= best[1]):
            best = (j, stem)
    return best


@operation(
    "self_prime",
    lsb="extension",
    rule="a 3' end that folds back on the strand (>= 12 bases, loop >= 3) is extended "
    "to the strand's 5' end: RT on RNA (LIANTI aRNA), polymerase on DNA",
    subject="strand",
)
def self_prime(molecule: Molecule) -> Duplex:
    """Self-primed synthesis: the strand's 3' end folds into a hairpin and is extended.

    Rule: a single strand whose 3'-terminal bases are complementary to a stretch
    upstream folds back on itself (a stem of at least 12 bases, as a primer needs,
    closed by a loop of at least 3); the paired 3'-OH is a primer, so reverse
    transcriptase (on RNA) or a DNA polymerase (on DNA) extends it across the rest of
    the strand to its 5' end. LIANTI's aRNA ends in the ME and carries ME' 30 bases
    upstream (the T7 loop between), so it primes its own first-strand cDNA; older
    cDNA methods primed the second strand the same way from the cDNA's 3' hairpin. The
    copy is DNA and carries the complement of everything upstream of the stem; it is
    joined to the strand's own 3' end (recorded as a hairpin loop), which the molecule
    keeps as a single-stranded tail: after RNase the copy goes on alone. A strand with
    no 3' hairpin is E0425; a blocked 3' end is E0421.
    """
    if not isinstance(molecule, Single):
        raise OperationFailure(
            "E0412",
            "self-priming folds a single strand; this molecule is a duplex",
            help="denature it first, or prime it with `extend`",
        )
    strand = molecule.strand
    blocked = three_prime_blocked(strand.seq)
    if blocked:
        raise OperationFailure(
            "E0421",
            f"the strand's 3' end is blocked (/{blocked}/): it cannot prime its own copy",
            help="a polymerase extends only a free 3'-OH",
        )
    site = hairpin_site(strand.seq)
    if site is None:
        raise OperationFailure(
            "E0425",
            f"the strand's 3' end does not fold back on it: no stem of {MIN_ANNEAL}+ bases "
            "pairs its 3' end with a stretch upstream",
            notes=[f"strand: {render(strand.seq)}"],
            help="self-priming needs the 3' end's complement upstream (LIANTI's ME and "
            "ME'); prime the strand with `extend` or `reverse_transcribe` otherwise",
        )
    start, stem = site
    upstream = strand.seq.slice(0, start)
    if not upstream:
        raise OperationFailure(
            "E0425",
            "the strand's 3' end folds back on its very 5' end: there is nothing to copy",
            notes=[f"strand: {render(strand.seq)}"],
        )
    return Duplex(
        core=upstream,
        right=End(top=strand.seq.slice(start)),
        top_type=strand.moltype,
        bottom_type=MolType.DNA,
        top_name=strand.name or "top",
        bottom_name=f"self-primed copy of {strand.name or 'the strand'}",
        top_phosphate=strand.phosphate_5p,
        loops=(
            f"the copy continues the strand's own 3' end (a {stem}-base stem, loop of "
            f"{len(strand.seq) - start - 2 * stem})",
        ),
    )
