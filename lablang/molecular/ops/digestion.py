"""Restriction digestion: palindromic and type IIS enzymes, methylation dependence."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence

from attrs import evolve, frozen

from lablang.molecular.molecule import Disposition, Duplex, End, Molecule, Pool, Product
from lablang.molecular.ops.core import (
    MAX_PRODUCTS,
    NoSubstrate,
    OperationFailure,
    is_payload_token,
)
from lablang.molecular.ops.rebase import REBASE
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import (
    COMPLEMENT,
    IUPAC,
    Bases,
    Part,
    Seq,
    Symbol,
    SymbolToken,
    reverse_complement,
)
from lablang.records import Compared


@frozen(repr=False, eq=False)
class Enzyme(Compared):
    """A restriction enzyme: its site (5'->3' on the top strand) and where it cuts.

    `top` and `bottom` count bases from the site's 5' start (on the top strand's
    coordinates) to the cut on each strand; a type IIS enzyme cuts outside its site, so
    its offsets pass the site's end. `methylation` is "requires" for an enzyme that
    cuts only a Dam-methylated site (DpnI), "blocked" for one that Dam methylation stops
    (DpnII, MboI), "" when the enzyme does not care.
    """

    site: str
    top: int
    bottom: int
    methylation: str = ""

    @property
    def palindromic(self) -> bool:
        return reverse_complement(Seq.of([Bases(self.site)])).tokens() == tuple(self.site)


# the methylation dependence REBASE and NEB state for the enzymes lablang models it for
# (Dam methylation of GATC); every other enzyme is taken not to care
DAM_METHYLATION = {"DpnI": "requires", "DpnII": "blocked", "MboI": "blocked"}

ENZYMES: dict[str, Enzyme] = {
    name: Enzyme(site, top, bottom, DAM_METHYLATION.get(name, ""))
    for name, (site, top, bottom) in REBASE.items()
}


def site_enzyme(text: str) -> Enzyme:
    """An enzyme from a site written with its cuts: `CCTGCA^GG` (the top strand cut at
    `^`; the bottom strand's at `_`, else where a palindrome's mirror puts it) or, for a
    type IIS enzyme, `GGTCTC(1/5)` (cuts 1 and 5 bases past the site's 3' end).

    >>> site_enzyme("CCTGCA^GG"), site_enzyme("GGTCTC(1/5)").top
    (Enzyme(site='CCTGCAGG', top=6, bottom=2, methylation=''), 7)
    """
    iiS = re.fullmatch(r"([A-Za-z]+)\((-?\d+)/(-?\d+)\)", text.strip())
    if iiS:
        site = iiS.group(1).upper()
        top, bottom = len(site) + int(iiS.group(2)), len(site) + int(iiS.group(3))
    else:
        marked = text.strip().upper()
        site = marked.replace("^", "").replace("_", "")
        if marked.count("^") != 1 or marked.count("_") > 1:
            raise OperationFailure(
                "E0412",
                f"site `{text}` marks no cut: write `^` where the top strand is cut "
                "(`CCTGCA^GG`), or `SITE(n/m)` for a type IIS enzyme",
            )
        top = marked.replace("_", "").index("^")
        bottom = marked.replace("^", "").index("_") if "_" in marked else len(site) - top
    if len(site) < 4 or set(site) - set(IUPAC):
        raise OperationFailure(
            "E0412", f"site `{text}` must be at least 4 IUPAC bases with its cut marked"
        )
    return Enzyme(site, top, bottom)


def _cuts(toks: tuple[object, ...], enzyme: Enzyme) -> list[tuple[int, int]]:
    """(top cut, bottom cut) of each site on either strand, in top-strand positions.

    The designed bases are one string (anything else, a placeholder or a modification,
    a character no site admits) searched with the site as a pattern (`_site_pattern`),
    so the scan is the regex engine's, not a Python loop over every position."""
    site = enzyme.site
    n = len(site)
    rc_site = "".join(COMPLEMENT[code] for code in reversed(site))
    text = "".join(t if isinstance(t, str) and t in IUPAC else "\0" for t in toks)
    forward = [m.start() for m in _site_pattern(site).finditer(text)]
    cuts = [(i + enzyme.top, i + enzyme.bottom) for i in forward]
    if rc_site != site:
        # the site read on the bottom strand: the offsets mirror about the site
        found = set(forward)
        cuts += [
            (i + n - enzyme.bottom, i + n - enzyme.top)
            for i in (m.start() for m in _site_pattern(rc_site).finditer(text))
            if i not in found
        ]
    return sorted(cuts, key=min)


@functools.lru_cache(maxsize=1024)
def _site_pattern(site: str) -> re.Pattern[str]:
    """A site as a pattern of the designed bases that are certainly it: at each position
    the bases (a degenerate one by all it stands for) the site's IUPAC code admits;
    overlapping sites are all found (a lookahead)."""
    classes = ("[" + "".join(b for b in IUPAC if IUPAC[b] <= IUPAC[code]) + "]" for code in site)
    return re.compile(f"(?=({''.join(classes)}))")


def _with_payload_sites(core: Seq, site: str) -> Seq:
    """Each payload segment `[P]` written as `[P] site [P] site [P]`: a genome's sites
    fall inside it, so its fragment classes are its left end, an inner piece between two
    sites and its right end. A four-base cutter's pieces (a site every 4^4 = 256 bp on
    average) are fragments (`Symbol.fragment`); a longer site's are kilobases apart."""
    parts: list[Part] = []
    for part in core.parts:
        toks = Seq.of([part]).tokens()
        if len(toks) == 1 and isinstance(toks[0], SymbolToken) and is_payload_token(toks[0]):
            if len(site) <= 4 and isinstance(part, Symbol):
                part = evolve(part, fragment=True)
            parts += [part, Bases(site), part, Bases(site), part]
        else:
            parts.append(part)
    return Seq.of(parts)


@operation(
    "digest",
    lsb="other",
    rule="cut at each recognition site (either strand; type IIS outside it), leaving its ends",
    untouched="carried",
    circular=True,
    params=(
        Param("enzyme", "names", "a restriction enzyme of REBASE's commercial set, or several"),
        Param("site", "text", "or its site and cut: `CCTGCA^GG`, `GGTCTC(1/5)`"),
        Param(
            "methylated",
            "bool",
            "the DNA's GATC adenines are Dam-methylated (in vivo Dam, a dam+ host)",
            default="false",
        ),
        Param(
            "payload_sites",
            "bool",
            "cut inside payloads (a genome has sites): follow each payload's end and inner "
            "fragments",
            default="false",
        ),
    ),
)
def digest(
    molecule: Molecule,
    enzyme: str | Sequence[str] = "",
    methylated: bool = False,
    payload_sites: bool = False,
    site: str = "",
) -> Pool:
    """Cut a duplex at every recognition site of a restriction enzyme.

    Rule: the enzyme cuts each strand at a fixed offset from its site, leaving a 5'
    overhang, a 3' overhang or a blunt end, with 5' phosphates. A palindromic site reads
    the same on both strands; a non-palindromic (type IIS, such as BciVI's GTATCC(6/5))
    site is found on either strand and cut outside it, downstream of the site on the
    strand that carries it. Dam methylation of GATC (Gm6ATC) decides some enzymes: DpnI
    cuts only methylated sites (`methylated: true`), DpnII and MboI only unmethylated
    ones; a site the enzyme refuses is left uncut, with the reason on the product.
    Sites inside a payload are unknown and not cut unless `payload_sites: true` says
    the payload (genomic DNA) holds them: each payload then gives the fragment classes
    of its left end, an inner piece from site to site, and its right end. A single
    strand is not a substrate: alone an error, in a mix carried unchanged. The enzymes
    are REBASE's commercially available set (`rebase.py`, generated from Biopython's
    `Bio.Restriction`); `site:` gives any other by its site and cut. Several enzymes in
    one step (`enzyme: [EcoRI, BamHI]`, a double digest) cut at all their sites at once;
    one that a site's methylation refuses leaves its sites uncut, with the reason.
    """
    names = [enzyme] if isinstance(enzyme, str) else list(enzyme)
    if len(names) > 1 and (site or payload_sites):
        raise OperationFailure(
            "E0412",
            "several enzymes are named by their names only: no `site:` or `payload_sites`",
            help="digest with the named enzymes, or give one `site:` per `digest` step",
        )
    knowns = [_enzyme(name, site) for name in names or [""]]
    labels = [name or site for name in names or [""]]
    enzyme = "+".join(labels)
    if not isinstance(molecule, Duplex):
        raise NoSubstrate(
            "E0412",
            "digestion needs a double-stranded molecule (restriction enzymes cut duplex sites)",
            help="synthesise the second strand or amplify first",
        )
    duplex = molecule
    core = duplex.core
    if payload_sites:
        known = knowns[0]
        if not known.palindromic:
            raise OperationFailure(
                "E0422",
                f"{enzyme}'s site `{known.site}` is not palindromic: sites inside a payload "
                "(either orientation, cut outside the site) are not modelled",
                help="drop `payload_sites` and put the site in designed bases",
            )
        core = _with_payload_sites(core, known.site)
    circle = len(core) if duplex.circular else 0
    cuts: list[tuple[int, int]] = []
    refusals: list[str] = []
    for label, known in zip(labels, knowns, strict=True):
        found = _circle_cuts(core, known) if circle else _cuts(core.tokens(), known)
        if len(found) >= MAX_PRODUCTS:
            raise OperationFailure(
                "E0415",
                f"{label} cuts the molecule at {len(found)} sites, more than {MAX_PRODUCTS - 1}",
            )
        refused = _refusal(label, known, methylated, len(found)) if found else ""
        if refused:
            refusals.append(refused)
            continue
        if not circle and any(min(c) < 0 or max(c) > len(core) for c in found):
            raise OperationFailure(
                "E0422",
                f"{label} cuts outside the molecule: its site lies too near an end "
                f"({label} cuts {known.top}/{known.bottom} bases from the site's start)",
                help="a type IIS enzyme needs the bases it cuts beyond its site",
            )
        cuts += found
    cuts = sorted(set(cuts), key=min)
    if len(cuts) >= MAX_PRODUCTS:
        raise OperationFailure(
            "E0415",
            f"{enzyme} cuts the molecule at {len(cuts)} sites, more than {MAX_PRODUCTS - 1}",
        )
    if not cuts:
        reason = (
            "; ".join(refusals) or f"no {enzyme} site in designed sequence; payload sites unknown"
        )
        return Pool((Product(duplex, Disposition.CARRIED, reason, name="uncut"),))
    if circle:
        duplex, cuts = _opened(evolve(duplex, core=core), cuts)
        core = duplex.core
    for (t1, b1), (t2, b2) in itertools.pairwise(cuts):
        if max(t1, b1) > min(t2, b2):
            raise OperationFailure(
                "E0422", f"two {enzyme} cuts overlap: the piece between them is not a duplex"
            )
    return Pool(_pieces(evolve(duplex, core=core), cuts, enzyme))


def _circle_cuts(core: Seq, known: Enzyme) -> list[tuple[int, int]]:
    """The cuts of a circle whose top strand is `core`, each once: found on three turns
    of the circle (a site may cross the origin, a type IIS cut lie beyond it), kept where
    its first strand cut lies on the middle turn, counted from the first base."""
    turn = len(core)
    found = _cuts((core + core + core).tokens(), known)
    kept = {(t - turn, b - turn) for t, b in found if turn <= min(t, b) < 2 * turn}
    return sorted(kept, key=min)


def _opened(ring: Duplex, cuts: list[tuple[int, int]]) -> tuple[Duplex, list[tuple[int, int]]]:
    """A circle cut at its first cut: the linear molecule from that cut round to it
    again (ends as the cut leaves them, 5' phosphates), and the other cuts on it.

    Rule: one cut linearizes a circle, so n cuts give n fragments; the linear molecule
    starts where the first cut leaves the top strand's 5' end, as pydna's cut of a
    circular `Dseqrecord` does."""
    turn = len(ring.core)
    (t, b), rest = cuts[0], cuts[1:]
    lo, hi = min(t, b), max(t, b)
    three = ring.core + ring.core + ring.core
    right, left = _cut_ends(three.slice(lo, hi), t, b)
    opened = Duplex(
        core=three.slice(hi, lo + turn),
        left=left,
        right=right,
        top_type=ring.top_type,
        bottom_type=ring.bottom_type,
        top_name=ring.top_name,
        bottom_name=ring.bottom_name,
        top_phosphate=True,
        bottom_phosphate=True,
        nicks=ring.nicks,
        loops=ring.loops,
    )
    return opened, [(ct - hi, cb - hi) for ct, cb in rest]


def _cut_ends(overhang: Seq, t_cut: int, b_cut: int) -> tuple[End, End]:
    """The ends a cut leaves: the left piece's right end and the right piece's left end
    (a 5' overhang when the top strand is cut first, a 3' overhang when last)."""
    if t_cut < b_cut:  # 5' overhang
        return End(bottom=reverse_complement(overhang)), End(top=overhang)
    if t_cut > b_cut:  # 3' overhang
        return End(top=overhang), End(bottom=reverse_complement(overhang))
    return End(), End()


def _enzyme(name: str, site: str) -> Enzyme:
    """The enzyme `enzyme:` names or `site:` writes (exactly one of them)."""
    if bool(name) == bool(site):
        raise OperationFailure(
            "E0412",
            "`digest` takes one of `enzyme:` (a name) or `site:` (a site and its cut)",
            help='write `digest(x, enzyme: EcoRI)` or `digest(x, site: "CCTGCA^GG")`',
        )
    if site:
        return site_enzyme(site)
    if name not in ENZYMES:
        from lablang.check.names import did_you_mean

        guess = did_you_mean(name, ENZYMES)
        raise OperationFailure(
            "E0412",
            f"unknown restriction enzyme `{name}`: not in REBASE's commercially available set",
            help=(f"did you mean `{guess}`? " if guess else "")
            + 'or give its site and cut: `site: "CCTGCA^GG"`',
        )
    return ENZYMES[name]


def _refusal(enzyme: str, known: Enzyme, methylated: bool, sites: int) -> str:
    """Why the enzyme leaves these sites uncut ("" when it cuts them)."""
    if known.methylation == "requires" and not methylated:
        return (
            f"{enzyme} cuts only Dam-methylated {known.site} (Gm6ATC): {sites} unmethylated "
            "site(s) left uncut (`methylated: true` if the DNA was Dam-methylated)"
        )
    if known.methylation == "blocked" and methylated:
        return f"Dam methylation blocks {enzyme}: {sites} methylated {known.site} site(s) uncut"
    return ""


def _pieces(duplex: Duplex, cuts: list[tuple[int, int]], enzyme: str) -> tuple[Product, ...]:
    pieces: list[Product] = []
    current = duplex
    offset = 0  # where `current`'s core starts in the cut molecule's core
    for t_abs, b_abs in cuts:
        core = current.core
        t_cut, b_cut = t_abs - offset, b_abs - offset
        lo, hi = min(t_cut, b_cut), max(t_cut, b_cut)
        left_end, right_start = _cut_ends(core.slice(lo, hi), t_cut, b_cut)
        left_piece = evolve(current, core=core.slice(0, lo), right=left_end, bottom_phosphate=True)
        pieces.append(Product(left_piece, name=f"{enzyme} piece {len(pieces) + 1}"))
        current = evolve(current, core=core.slice(hi), left=right_start, top_phosphate=True)
        offset += hi
    pieces.append(Product(current, name=f"{enzyme} piece {len(pieces) + 1}"))
    return tuple(pieces)
