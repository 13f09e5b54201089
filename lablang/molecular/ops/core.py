"""What every operation shares: failures, oligos, annealing, end descriptions."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve, frozen

from lablang.molecular.modifications import codes_of
from lablang.molecular.molecule import (
    Duplex,
    Molecule,
    MolType,
    Single,
    Strand,
)
from lablang.molecular.pairing import BASES_PAIR, PAIRS_PLACEHOLDER, token_width, tokens_pair
from lablang.molecular.sequence import (
    COMPLEMENT,
    DEGENERATE,
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Part,
    PolyToken,
    Ribo,
    Seq,
    Symbol,
    SymbolToken,
    Token,
    render,
    reverse_complement,
)
from lablang.records import Compared

MIN_ANNEAL = 12  # bases paired at a primer's 3' end (a common working default)
MIN_SWITCH = 3  # the rGrGrG of a TSO pairs with the non-templated CCC
MIN_STEM = 6  # paired bases that hold two adapter strands together
MAX_SITES = 64  # sites per primer and template considered (bounded work on any input)
MAX_PRODUCTS = 256
# bounded work on untrusted input: primer x template positions one annealing search may
# examine, and the longest strands an adapter may have (its stem search is cubic)
ANNEAL_BUDGET = 20_000_000
MAX_ADAPTER_STRAND = 300
CIRCLE_HAS_NO_ENDS = "a circular molecule has no ends to join"
CIRCLE_HELP = "open it first: `digest` it at a site (one site linearizes it)"
PHOSPHATE_CODES = codes_of("phosphate")  # every spelling pages use (the registry)


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


class NoSubstrate(OperationFailure):
    """The molecule holds nothing the enzyme acts on (no deoxyuridine for USER, no RNA:DNA
    hybrid for RNase H, no recessed 3' end to fill). Alone it is the error it says; in a
    mix, an operation registered `untouched="carried"` leaves such a molecule in the
    tube unchanged (an enzyme does nothing to what is not its substrate)."""


# ------------------------------------------------------------------ oligos as strands


@frozen(repr=False, eq=False)
class Oligo(Compared):
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
            out.append(evolve(part, label=label))
        else:
            out.append(part)
    return Seq(tuple(out))


def has_phosphate(seq: Seq) -> bool:
    return (
        bool(seq.parts)
        and isinstance(seq.parts[0], Modification)
        and seq.parts[0].code in PHOSPHATE_CODES
    )


def kinase_accepts(seq: Seq) -> bool:
    """Whether a strand's 5' end is, or T4 PNK can make it, a 5' phosphate.

    Rule: the kinase phosphorylates a free 5'-OH; a 5' group that is not a phosphate
    (an amine such as `/NH2/` or `/5AmMC6/`, biotin, a dye) blocks it, and with it every
    ligation to that end (Tang 2009's amine-blocked primers keep the cDNA's ends from
    joining adaptors).

    >>> from lablang.molecular.sequence import parse_notation
    >>> [kinase_accepts(parse_notation(s)) for s in ("ACGT", "/5Phos/ACGT", "/NH2/ACGT")]
    [True, True, False]
    """
    first = seq.parts[0] if seq.parts else None
    if not isinstance(first, Modification) or first.base is not None:
        return True
    return first.code in PHOSPHATE_CODES


# ------------------------------------------------------------------ annealing


@frozen(repr=False, eq=False)
class Site(Compared):
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


def _anchor(p: tuple[Token, ...]) -> int:
    """How many of the primer's 3'-terminal tokens are degenerate codes (at most three)."""
    m = len(p)
    anchor = 0
    while (
        anchor < min(3, m)
        and isinstance(p[m - 1 - anchor], str)
        and p[m - 1 - anchor] in DEGENERATE
    ):
        anchor += 1
    return anchor


def _run(
    p: tuple[Token, ...],
    t: tuple[Token, ...],
    s: int,
    anchor: int | None = None,
    inside: int = 0,
) -> tuple[int, int, int, int]:
    """Pair primer tokens `p` (3' end last) against template `t` from position `s`
    (`anchor`: `_anchor(p)`, computed once by a caller that tries every position).
    `inside`: the primer's last `inside` bases pair with the ends of the placeholder
    at `s` (`edge_sites`), and pairing goes on after it.

    Returns (anchor tokens absorbed, primer tokens paired, template stop, paired bases).
    """
    m = len(p)
    if anchor is None:
        anchor = _anchor(p)
    i, j, count, absorbed = m - 1, s, 0, 0
    first = t[s]
    if inside:
        i, j, count = m - 1 - inside, s + 1, inside
    elif anchor and isinstance(first, SymbolToken) and is_payload_token(first):
        # An anchored primer's degenerate 3' bases pair inside the payload: its last
        # bases are unknown, so any base can sit there.
        i, j, count, absorbed = m - 1 - anchor, s + 1, anchor, anchor
    n = len(t)
    while i >= 0 and j < n:
        tok, base = t[j], p[i]
        if isinstance(tok, str) and isinstance(base, str):  # two bases: most positions
            if not BASES_PAIR[base, tok]:
                break
            count += 1
            i -= 1
            j += 1
            continue
        if isinstance(tok, PolyToken) and isinstance(base, str) and _pairs_run(base, tok):
            # a run written out in the primer (oligo-dT: 24 T) pairs with a tail of
            # unknown length (TdT's or poly(A) polymerase's poly(A)) as one position
            while i >= 0 and p[i] == base:
                count += 1
                i -= 1
            j += 1
            continue
        if isinstance(tok, SymbolToken) and tok.bases and isinstance(base, str):
            k = _into_placeholder(p, i, tok.bases)
            if not k:
                break
            count += k
            i -= k
            j += 1
            continue
        if isinstance(base, SymbolToken) and base.bases and isinstance(tok, str):
            width = len(base.bases)
            if not _placeholder_over(base.bases, t, j):
                break
            count += width
            i -= 1
            j += width
            continue
        if not tokens_pair(base, tok):
            break
        count += token_width(p[i])
        i -= 1
        j += 1
    return absorbed, m - 1 - i, j, count


def _into_placeholder(p: tuple[Token, ...], i: int, codes: str) -> int:
    """Primer bases `p[i], p[i-1], ...` paired with a template placeholder whose positions
    admit `codes` (5'->3'): its whole length, or, when the primer's 5' end lies inside it,
    the primer's remaining bases; 0 when a position does not pair (`PAIRS_PLACEHOLDER`)."""
    width = min(len(codes), i + 1)
    for q in range(width):
        base = p[i - q]
        if not (isinstance(base, str) and PAIRS_PLACEHOLDER[base, codes[q]]):
            return 0
    return width


def _placeholder_over(codes: str, t: tuple[Token, ...], j: int) -> bool:
    """Whether a primer placeholder admitting `codes` (5'->3') pairs with the template's
    bases from `j` on, over its whole length (its 3'-most code faces `t[j]`)."""
    width = len(codes)
    if j + width > len(t):
        return False
    return all(
        isinstance(t[j + q], str) and PAIRS_PLACEHOLDER[t[j + q], codes[width - 1 - q]]  # type: ignore[index]
        for q in range(width)
    )


def _pairs_run(base: str, run: PolyToken) -> bool:
    return base in COMPLEMENT and COMPLEMENT[base] == run.base


def is_payload_token(tok: SymbolToken) -> bool:
    from lablang.molecular.sequence import PAYLOAD_ROLES

    return tok.name.upper() in PAYLOAD_ROLES or tok.name.upper().startswith(tuple(PAYLOAD_ROLES))


def anneal_sites(primer: Seq, template: Seq, min_match: int = MIN_ANNEAL) -> list[Site]:
    """All sites where the primer's 3' end pairs over at least `min_match` bases, best first.

    Rule: pairing is contiguous from the primer's 3'-terminal base, because a
    polymerase extends only a paired 3'-OH; mismatches further 5' end the paired
    region and what is left is a 5' tail carried into the product. Concrete bases
    pair by IUPAC complementarity (two degenerate codes when they share a pairing:
    a degenerate primer is a mix, some of which pairs), symbolic segments with their own
    reverse complement, and a base with a fixed-length placeholder's position when it
    pairs every base the position admits (`PAIRS_PLACEHOLDER`: a barcode is a set of
    molecules, each of which must pair): over the whole placeholder, or where the
    primer's 5' end lies inside it. Up to three degenerate 3' bases (`VN`) may pair
    inside a payload.

    >>> from lablang.molecular.sequence import bases
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
    anchor = _anchor(p)
    last = p[-1] if p else None
    for s in range(len(t)):
        tok = t[s]
        if isinstance(last, str) and isinstance(tok, str) and not BASES_PAIR[last, tok]:
            continue  # the 3'-terminal base does not pair here: nothing pairs (as `_run` finds)
        absorbed, paired, stop, count = _run(p, t, s, anchor)
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


def pairing_sites(primer: Seq, template: Seq, min_match: int = MIN_ANNEAL) -> list[Site]:
    """`anneal_sites` and the sites whose 3' end lies inside a placeholder, for rules that
    read pairing only (a splint holding two ends), not extension.

    Rule: an oligo's 3'-terminal bases may pair with a placeholder's last positions when
    its pattern admits them (a linker ending in S across a barcode the page gives as
    `...S`); no polymerase may extend from there, since the copy would start inside the
    barcode, so only pairing rules ask for these sites. `start` is the placeholder's token.
    """
    sites = anneal_sites(primer, template, min_match)
    p, t = primer.tokens(), template.tokens()
    if not p or not isinstance(p[-1], str):
        return sites
    for s, tok in enumerate(t):
        if not (isinstance(tok, SymbolToken) and tok.bases):
            continue
        width = len(tok.bases)
        for inside in range(min(width - 1, len(p)), 0, -1):
            tail = tok.bases[width - inside :]
            if _into_placeholder(p, len(p) - 1, tail) != inside:
                continue
            _, paired, stop, count = _run(p, t, s, inside=inside)
            if count >= min_match:
                sites.append(Site(template, s, stop, paired, count))
                break
    sites.sort(key=lambda site: (-site.bases, site.start))
    return sites


@frozen(repr=False, eq=False)
class ClosestMatch(Compared):
    position: int  # template token where the primer's 3' end would sit
    paired: int  # bases paired contiguously from the 3' end
    best_total: int  # bases paired in the best ungapped alignment, 3' end paired or not
    total_position: int
    segment: str  # label of the template part at `position`


def closest_match(primer: Seq, template: Seq) -> ClosestMatch:
    """The best near-site for a primer that does not anneal, for the diagnostic."""
    p, t = primer.tokens(), template.tokens()
    best = (0, 0)
    anchor = _anchor(p)
    for s in range(len(t)):
        count = _run(p, t, s, anchor)[3]
        if count > best[0]:
            best = (count, s)
    total = (0, 0)
    m = len(p)
    if m * len(t) > ANNEAL_BUDGET // 10:  # the ungapped scan is a note, not worth the time
        return ClosestMatch(best[1], best[0], 0, 0, _label_at(template, best[1]))
    reversed_primer = p[::-1]  # primer token m-1-k is reversed_primer[k]
    for s in range(-m + 1, len(t)):
        # primer token m-1-k against template token s+k, for the k inside the template (the
        # shorter of the two runs out first: zip stops there)
        hits = 0
        for a, b in zip(reversed_primer[max(0, -s) :], t[max(s, 0) :], strict=False):
            if a.__class__ is str and b.__class__ is str:  # two bases: the table, inline
                hits += BASES_PAIR[a, b]
            elif tokens_pair(a, b):
                hits += token_width(a)
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


def template_strand(molecule: Molecule) -> Strand:
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


def payload_positions(seq: Seq) -> list[int]:
    return [
        i
        for i, tok in enumerate(seq.tokens())
        if isinstance(tok, SymbolToken) and is_payload_token(tok)
    ]


def as_fragments(seq: Seq) -> Seq:
    """`seq` with each payload segment marked as a fragment (`Symbol.fragment`): what a
    fragmenting step (tagmentation, shearing) leaves of a payload it cuts."""
    return Seq.of(
        evolve(p, fragment=True) if isinstance(p, Symbol) and p.is_payload else p for p in seq.parts
    )


def need_duplex(molecule: Molecule, what: str) -> Duplex:
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


def strip_leading_modifications(seq: Seq) -> Seq:
    parts = list(seq.parts)
    while parts and isinstance(parts[0], Modification):
        parts.pop(0)
    return Seq(tuple(parts))


def explode(seq: Seq) -> list[Part]:
    out: list[Part] = []
    for part in seq.parts:
        if isinstance(part, Bases):
            out.extend(Bases(ch, part.label) for ch in part.text)
        elif isinstance(part, Homopolymer) and part.count is not None:
            out.extend(Bases(part.base, part.label) for _ in range(part.count))
        else:
            out.append(part)
    return out


def parse_end(text: str) -> tuple[str, str] | None:
    """An end as written in an `end:` argument: `5'`, `3'`, `top 3'`, `bottom 5'`.

    Returns (strand, prime) with strand `top` when not named; None when malformed.

    >>> parse_end("bottom 5'"), parse_end("3'"), parse_end("left")
    (('bottom', "5'"), ('top', "3'"), None)
    """
    words = text.replace("_", " ").split()
    if len(words) == 1:
        words = ["top", words[0]]
    if len(words) != 2 or words[0] not in ("top", "bottom") or words[1] not in ("5'", "3'"):
        return None
    return words[0], words[1]


# ------------------------------------------------------------------ end chemistry

# 3' modifications that leave no 3'-OH: a polymerase cannot extend and a ligase cannot
# join that end (adapters are blocked so they do not concatemerise).
BLOCKING_3P = codes_of("3' block")
# 5' adenylation (pre-adenylated adapters): the activated 5' end that truncated RNA
# ligase 2 (and ligases without ATP) joins to a 3'-OH.
ADENYLATED_5P = codes_of("adenylate")
RANDOM_MIN = 6  # a 3' run of this many N primes at random (random hexamers and longer)
RANDOM_FIXED_RUN = 2  # fixed bases a patterned random end may hold in a row (NNNGGNNNB)


def three_prime_blocked(seq: Seq) -> str | None:
    """The blocking modification at the 3' end of `seq`, or None for a free 3'-OH."""
    last = seq.parts[-1] if seq.parts else None
    if isinstance(last, Modification) and last.base is None and last.code in BLOCKING_3P:
        return last.code
    return None


def adenylated(seq: Seq) -> bool:
    first = seq.parts[0] if seq.parts else None
    return isinstance(first, Modification) and first.code in ADENYLATED_5P


def oligo_moltype(seq: Seq) -> MolType:
    """DNA, RNA (every base a ribonucleotide, `rA rC ...`) or a chimera (some of each)."""
    ribo = sum(1 for p in seq.parts if isinstance(p, Ribo))
    other = sum(1 for p in seq.parts if isinstance(p, Bases | Homopolymer | Symbol | LNA))
    if not ribo:
        return MolType.DNA
    return MolType.RNA if not other else MolType.CHIMERA


def random_run(seq: Seq) -> int:
    """How many degenerate positions make the primer's 3' end random, or 0.

    The random end is the longest 3' stretch that starts (at the 3' end) with a
    degenerate base (`N`, `B`, `D`, `H`, `V`) and holds no run of more than
    `RANDOM_FIXED_RUN` fixed bases: a random hexamer's `NNNNNN`, or a patterned
    randomer such as Seq-Well S3's `NNNGGNNNB`, whose two fixed `G` bias it without
    making it specific. It primes at random when it holds at least `RANDOM_MIN`
    degenerate positions; shorter degenerate ends are anchors (`VN` after oligo-dT).

    >>> from lablang.molecular.sequence import parse_notation
    >>> [random_run(parse_notation(s)) for s in ("ACGTNNNNNN", "ACGTNNNGGNNNB", "TTTTTTVN", "ACGTNNNACGNNN")]
    [6, 7, 0, 0]
    """
    toks = seq.without_modifications().tokens()
    degenerate = fixed = 0
    for tok in reversed(toks):
        if isinstance(tok, str) and tok in DEGENERATE:
            degenerate += 1
            fixed = 0
        elif isinstance(tok, str) and tok in "ACGT" and degenerate:
            fixed += 1
            if fixed > RANDOM_FIXED_RUN:
                break
        else:
            break
    return degenerate if degenerate >= RANDOM_MIN else 0
