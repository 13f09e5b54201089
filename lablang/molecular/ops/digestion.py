"""Restriction digestion: palindromic and type IIS enzymes, methylation dependence."""

from __future__ import annotations

import itertools

from attrs import evolve, frozen

from lablang.molecular.molecule import Disposition, Duplex, End, Molecule, Pool, Product
from lablang.molecular.ops.core import (
    MAX_PRODUCTS,
    NoSubstrate,
    OperationFailure,
    is_payload_token,
)
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import Bases, Part, Seq, Symbol, SymbolToken, reverse_complement


@frozen
class Enzyme:
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


ENZYMES: dict[str, Enzyme] = {
    "EcoRI": Enzyme("GAATTC", 1, 5), "BamHI": Enzyme("GGATCC", 1, 5),
    "HindIII": Enzyme("AAGCTT", 1, 5), "NotI": Enzyme("GCGGCCGC", 2, 6),
    "XhoI": Enzyme("CTCGAG", 1, 5), "NlaIII": Enzyme("CATG", 4, 0),
    "DpnII": Enzyme("GATC", 0, 4, "blocked"), "MboI": Enzyme("GATC", 0, 4, "blocked"),
    "Sau3AI": Enzyme("GATC", 0, 4), "DpnI": Enzyme("GATC", 2, 2, "requires"),
    "MseI": Enzyme("TTAA", 1, 3), "AluI": Enzyme("AGCT", 2, 2),
    "EcoRV": Enzyme("GATATC", 3, 3), "MluCI": Enzyme("AATT", 0, 4),
    "Csp6I": Enzyme("GTAC", 1, 3), "HaeIII": Enzyme("GGCC", 2, 2),
    "MspI": Enzyme("CCGG", 1, 3), "HpaII": Enzyme("CCGG", 1, 3),
    "BfaI": Enzyme("CTAG", 1, 3), "CviAII": Enzyme("CATG", 1, 3),
    "FatI": Enzyme("CATG", 0, 4), "SalI": Enzyme("GTCGAC", 1, 5),
    "PvuI": Enzyme("CGATCG", 4, 2), "PacI": Enzyme("TTAATTAA", 5, 3),
    "BciVI": Enzyme("GTATCC", 12, 11),  # type IIS: GTATCC(6/5)
}  # fmt: skip


def _cuts(toks: tuple[object, ...], enzyme: Enzyme) -> list[tuple[int, int]]:
    """(top cut, bottom cut) of each site on either strand, in top-strand positions."""
    site = enzyme.site
    n = len(site)
    rc_site = "".join(str(t) for t in reverse_complement(Seq.of([Bases(site)])).tokens())
    cuts = []
    for i in range(len(toks) - n + 1):
        window = toks[i : i + n]
        if all(window[k] == site[k] for k in range(n)):
            cuts.append((i + enzyme.top, i + enzyme.bottom))
        elif not enzyme.palindromic and all(window[k] == rc_site[k] for k in range(n)):
            # the site read on the bottom strand: the offsets mirror about the site
            cuts.append((i + n - enzyme.bottom, i + n - enzyme.top))
    return sorted(cuts, key=min)


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
    params=(
        Param("enzyme", "text", "the restriction enzyme", required=True),
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
    molecule: Molecule, enzyme: str, methylated: bool = False, payload_sites: bool = False
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
    strand is not a substrate: alone an error, in a mix carried unchanged.
    """
    if enzyme not in ENZYMES:
        raise OperationFailure(
            "E0412",
            f"unknown restriction enzyme `{enzyme}`",
            help="known enzymes: " + ", ".join(sorted(ENZYMES)),
        )
    known = ENZYMES[enzyme]
    if not isinstance(molecule, Duplex):
        raise NoSubstrate(
            "E0412",
            "digestion needs a double-stranded molecule (restriction enzymes cut duplex sites)",
            help="synthesise the second strand or amplify first",
        )
    duplex = molecule
    core = duplex.core
    if payload_sites:
        if not known.palindromic:
            raise OperationFailure(
                "E0422",
                f"{enzyme}'s site `{known.site}` is not palindromic: sites inside a payload "
                "(either orientation, cut outside the site) are not modelled",
                help="drop `payload_sites` and put the site in designed bases",
            )
        core = _with_payload_sites(core, known.site)
    cuts = _cuts(core.tokens(), known)
    if len(cuts) >= MAX_PRODUCTS:
        raise OperationFailure(
            "E0415",
            f"{enzyme} cuts the molecule at {len(cuts)} sites, more than {MAX_PRODUCTS - 1}",
        )
    if not cuts:
        reason = f"no {enzyme} site in designed sequence; payload sites unknown"
        return Pool((Product(duplex, Disposition.CARRIED, reason, name="uncut"),))
    refused = _refusal(enzyme, known, methylated, len(cuts))
    if refused:
        return Pool((Product(duplex, Disposition.CARRIED, refused, name="uncut"),))
    if any(min(c) < 0 or max(c) > len(core) for c in cuts):
        raise OperationFailure(
            "E0422",
            f"{enzyme} cuts outside the molecule: its site lies too near an end "
            f"({enzyme} cuts {known.top}/{known.bottom} bases from the site's start)",
            help="a type IIS enzyme needs the bases it cuts beyond its site",
        )
    for (t1, b1), (t2, b2) in itertools.pairwise(cuts):
        if max(t1, b1) > min(t2, b2):
            raise OperationFailure(
                "E0422", f"two {enzyme} cuts overlap: the piece between them is not a duplex"
            )
    return Pool(_pieces(evolve(duplex, core=core), cuts, enzyme))


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
        overhang = core.slice(lo, hi)
        if t_cut < b_cut:  # 5' overhang
            left_end, right_start = End(bottom=reverse_complement(overhang)), End(top=overhang)
        elif t_cut > b_cut:  # 3' overhang
            left_end, right_start = End(top=overhang), End(bottom=reverse_complement(overhang))
        else:
            left_end, right_start = End(), End()
        left_piece = evolve(current, core=core.slice(0, lo), right=left_end, bottom_phosphate=True)
        pieces.append(Product(left_piece, name=f"{enzyme} piece {len(pieces) + 1}"))
        current = evolve(current, core=core.slice(hi), left=right_start, top_phosphate=True)
        offset += hi
    pieces.append(Product(current, name=f"{enzyme} piece {len(pieces) + 1}"))
    return tuple(pieces)
