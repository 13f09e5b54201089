"""Concrete molecules for comparing the molecular interpreter with pydna: seeded random
templates with primers at unique sites (a PCR) or one site of each chosen enzyme (a
digest), and the `.lab` workflow text of each. Used by the pydna differential test and
`benchmarks/molecular.py --pydna`."""

from __future__ import annotations

import random

from Bio.Restriction import AllEnzymes

CASES = 12
LIGATION_CASES = 3  # of each kind of ligation
CIRCLE_CASES = 4  # of each circular case (digest, PCR, circularize)
# palindromic sites cut by one enzyme each, blunt and both overhangs, none methylation-blocked
# by Dam or Dcm, which lablang models for DpnI, DpnII and MboI only
ENZYMES = ("EcoRI", "BamHI", "HindIII", "SmaI", "KpnI", "PstI", "NotI", "SacI", "XhoI", "NdeI")


def rc(text: str) -> str:
    return text[::-1].translate(str.maketrans("ACGT", "TGCA"))


def random_bases(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("ACGT") for _ in range(n))


def clean_bases(rng: random.Random, n: int, avoid: tuple[str, ...]) -> str:
    """`n` random bases holding none of the `avoid` sites on either strand."""
    while True:
        text = random_bases(rng, n)
        if not any(site in text or site in rc(text) for site in avoid):
            return text


def pcr_case(rng: random.Random) -> tuple[str, str, str]:
    while True:
        template = random_bases(rng, rng.randint(120, 260))
        a = rng.randint(0, 30)
        b = rng.randint(a + 60, len(template))
        forward = random_bases(rng, rng.randint(0, 10)) + template[a : a + 20]
        reverse = random_bases(rng, rng.randint(0, 10)) + rc(template[b - 20 : b])
        unique = all(
            (template + "|" + rc(template)).count(site) == 1
            for site in (template[a + 8 : a + 20], rc(template[b - 20 : b - 8]))
        )
        if unique:
            return template, forward, reverse


def digest_case(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """A duplex with one site of each of one to three enzymes and no other site of any
    enzyme in ENZYMES (a junction that made one by chance is drawn again)."""
    sites = {name: AllEnzymes.get(name).site for name in ENZYMES}
    while True:
        chosen = tuple(rng.sample(ENZYMES, rng.randint(1, 3)))
        pieces = [clean_bases(rng, rng.randint(20, 60), tuple(sites.values()))]
        for name in chosen:
            pieces += [sites[name], clean_bases(rng, rng.randint(20, 60), tuple(sites.values()))]
        template = "".join(pieces)
        if all(template.count(site) == (name in chosen) for name, site in sites.items()):
            return template, chosen


def pcr_program(template: str, forward: str, reverse: str) -> str:
    return (
        f"oligo f {{ seq: 5'-{forward}-3' }}\noligo r {{ seq: 5'-{reverse}-3' }}\n"
        f"workflow w {{\n  input t: DNA 5'-{template}-3' as duplex\n"
        "  p = pcr(t, primers: [f, r])\n}\n"
    )


def digest_program(template: str, chosen: tuple[str, ...]) -> str:
    argument = chosen[0] if len(chosen) == 1 else "[" + ", ".join(chosen) + "]"
    return (
        f"workflow w {{\n  input t: DNA 5'-{template}-3' as duplex\n"
        f"  d = digest(t, enzyme: {argument})\n}}\n"
    )


# ligations of digest products: sticky enzymes that cut one site each, and blunt ones
STICKY = ("EcoRI", "BamHI", "HindIII", "KpnI", "PstI", "XhoI", "SacI", "NdeI")
BLUNT = ("SmaI", "EcoRV", "PvuII")
LIGATION_KINDS = ("sticky", "incompatible", "blunt", "blunt_unphosphorylated")
ALL_SITES = tuple(AllEnzymes.get(n).site for n in ENZYMES + BLUNT)


def _one_site(rng: random.Random, site: str) -> str:
    """A random duplex with one `site` and no site of any enzyme used here elsewhere."""
    while True:
        text = clean_bases(rng, rng.randint(20, 60), ALL_SITES)
        text += site + clean_bases(rng, rng.randint(20, 60), ALL_SITES)
        if all(
            text.count(s) + (rc(text).count(s) if rc(s) != s else 0) == (s == site)
            for s in ALL_SITES
        ):
            return text


def ligation_case(rng: random.Random, kind: str) -> tuple[str, str, str, str]:
    """Two templates and the enzyme cutting each: the left piece of the first is joined to
    the right piece of the second (pydna's `a + b`). `incompatible` cuts them with two
    sticky enzymes whose overhangs differ; `blunt_unphosphorylated` joins the uncut
    templates, which carry no 5' phosphate."""
    if kind == "incompatible":
        first, second = rng.sample(STICKY, 2)
    else:
        first = second = rng.choice(BLUNT if kind.startswith("blunt") else STICKY)
    return (
        _one_site(rng, AllEnzymes.get(first).site),
        _one_site(rng, AllEnzymes.get(second).site),
        first,
        second,
    )


def ligation_program(a: str, b: str, first: str, second: str, kind: str) -> str:
    if kind == "blunt_unphosphorylated":
        step = "  lig = ligate(a, adapter: b, ends: right)\n"
    else:
        step = (
            f"  da = digest(a, enzyme: {first})\n  db = digest(b, enzyme: {second})\n"
            "  lig = ligate(da_1, adapter: db_2, ends: right)\n"
        )
    return (
        f"workflow w {{\n  input a: DNA 5'-{a}-3' as duplex\n  input b: DNA 5'-{b}-3' as duplex\n"
        f"{step}  output lig\n}}\n"
    )


def circle_case(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """A circle (given from an origin turned to a random place) with one or two enzyme
    sites, one of them sometimes across the origin."""
    template, chosen = digest_case(rng)
    while len(chosen) > 2:
        template, chosen = digest_case(rng)
    turn = rng.randrange(len(template))
    return template[turn:] + template[:turn], chosen


def circle_digest_program(template: str, chosen: tuple[str, ...]) -> str:
    argument = chosen[0] if len(chosen) == 1 else "[" + ", ".join(chosen) + "]"
    return (
        f"workflow w {{\n  input t: DNA 5'-{template}-3' as circular\n"
        f"  d = digest(t, enzyme: {argument})\n  output d\n}}\n"
    )


def circle_pcr_case(rng: random.Random) -> tuple[str, str, str]:
    """A PCR case on a circle whose origin lies between the primers' sites."""
    template, forward, reverse = pcr_case(rng)
    a = template.find(forward[-20:])
    cut = rng.randint(a + 20, a + 40)  # the origin falls inside the amplicon
    return template[cut:] + template[:cut], forward, reverse


def circle_pcr_program(template: str, forward: str, reverse: str) -> str:
    return pcr_program(template, forward, reverse).replace("as duplex", "as circular")


def looped_program(template: str, enzyme: str) -> str:
    return (
        f"workflow w {{\n  input t: DNA 5'-{template}-3' as duplex\n"
        f"  d = digest(t, enzyme: {enzyme})\n  ring = circularize(d_2)\n  output ring\n}}\n"
    )


def looped_case(rng: random.Random) -> tuple[str, str]:
    """A duplex with two sites of one sticky enzyme: its middle piece closes on itself."""
    enzyme = rng.choice(STICKY)
    site = AllEnzymes.get(enzyme).site
    while True:
        parts = [clean_bases(rng, rng.randint(10, 40), ALL_SITES) for _ in range(3)]
        text = parts[0] + site + parts[1] + site + parts[2]
        if text.count(site) == 2 and all(text.count(s) == 0 for s in ALL_SITES if s != site):
            return text, enzyme
