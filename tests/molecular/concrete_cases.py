"""Concrete molecules for comparing the molecular interpreter with pydna: seeded random
templates with primers at unique sites (a PCR) or one site of each chosen enzyme (a
digest), and the `.lab` workflow text of each. Used by the pydna differential test and
`benchmarks/molecular.py --pydna`."""

from __future__ import annotations

import random

from Bio.Restriction import AllEnzymes

CASES = 12
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
