"""Task 2 modifications: the modification claims of an oligo record (inline tags,
named modifications, by position), as the grader reads them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lablang.scoring.normalize import (
    normalize_text,
    sequence_tokens,
)

Json = dict[str, Any]
_KNOWN_TAG_CLAIMS = {
    "/5phos/": "five_prime:phosphate",
    "/5bio/": "five_prime:biotin",
    "/5biosg/": "five_prime:biotin",
    "/5acryd/": "five_prime:acrydite",
    "/6-fam/": "five_prime:fluorescein",
    "/56-fam/": "five_prime:fluorescein",
    "/nh2/": "amino",
    "/3spc3/": "three_prime:c3_spacer",
    "/3ddc/": "three_prime:dideoxycytidine",
    "/ddc/": "dideoxycytidine",
    "/ddu/": "dideoxyuridine",
    "/3invdt/": "three_prime:inverted_dt",
    "/ideoxyu/": "internal:deoxyuridine",
    "/ibiodt/": "internal:biotin_dt",
    "/isppc/": "internal:photocleavable_spacer",
    "/ithiomc6-d/": "internal:thiol",
    "/5rapp/": "five_prime:preadenylated_phosphate",
}


def modification_claims_of(item: Mapping[str, Any], allowed: frozenset[str] | None) -> set[str]:
    claims: set[str] = set()
    status = str(item.get("support_status", "explicit"))
    if allowed is None or status in allowed:
        sequence = item.get("sequence")
        if isinstance(sequence, str):
            claims.update(_inline_claims(sequence))
        for value in item.get("modifications", []):
            claims.update(_modification_text_claims(str(value)))
    components = list(item.get("components", []))
    for index, component in enumerate(components):
        if allowed is not None and str(component.get("support_status", status)) not in allowed:
            continue
        hint = (
            "five_prime"
            if index == 0
            else "three_prime"
            if index == len(components) - 1
            else "internal"
        )
        for field in ("sequence", "placeholder"):
            value = component.get(field)
            if isinstance(value, str):
                claims.update(_inline_claims(value))
        for value in component.get("modifications", []):
            claims.update(_modification_text_claims(str(value), hint))
    # a specific riboguanosine count entails the generic claims
    if any(re.fullmatch(r"riboguanosine:[1-9][0-9]*", claim) for claim in claims):
        claims.discard("riboguanosine")
        claims.discard("ribonucleotide")
    return claims


def _inline_claims(value: str) -> set[str]:
    tokens = sequence_tokens(value)
    claims: set[str] = set()
    for token, name in (("rG", "riboguanosine"), ("+G", "lna_guanosine"), ("(dU)", "deoxyuridine")):
        count = tokens.count(token)
        if count:
            claims.add(f"{name}:{count}")
    for token in tokens:
        if token.startswith("/") and token.endswith("/"):
            claims.add(_KNOWN_TAG_CLAIMS.get(token.lower()) or f"inline:{token[1:-1].lower()}")
    return claims


def _modification_text_claims(value: str, hint: str | None = None) -> set[str]:
    text = normalize_text(value)
    if not text:
        return set()
    if re.search(r"\b5 (?:prime )?(?:end )?", text) or "5prime" in text:
        where = "five_prime"
    elif re.search(r"\b3 (?:prime )?(?:end |terminal )?", text) or "3prime" in text:
        where = "three_prime"
    elif "internal" in text:
        where = "internal"
    else:
        where = hint or "unspecified"
    claims: set[str] = set()
    if "phosphorothioate" in text:
        claims.add(f"{where}:phosphorothioate")
    elif "phosphate" in text or "phosphorylation" in text or "5phos" in text:
        claims.add(f"{where}:phosphate")
    if "biotin dt" in text or "ibiodt" in text:
        claims.add(f"{where}:biotin_dt")
    elif "biotin" in text or "5biosg" in text:
        claims.add(f"{where}:biotin")
    if "acrydite" in text or "5acryd" in text:
        claims.add(f"{where}:acrydite")
    if "fluorescein" in text or "6 fam" in text:
        claims.add(f"{where}:fluorescein")
    if re.search(r"\b(?:amine|amino|nh2)\b", text):
        claims.add(f"{where}:amino")
    if "c3 spacer" in text or "3spc3" in text:
        claims.add(f"{where}:c3_spacer")
    if "photocleavable spacer" in text or "isppc" in text:
        claims.add(f"{where}:photocleavable_spacer")
    if "inverted dt" in text or "3invdt" in text:
        claims.add(f"{where}:inverted_dt")
    if "dideoxy" in text or "ddc" in text:
        claims.add(f"{where}:dideoxycytidine")
    if "deoxyuridine" in text or re.search(r"\bdu\b", text):
        claims.add("internal:deoxyuridine")
    if "methylcytosine" in text:
        claims.add("methylcytosine")
    if "locked nucleic acid" in text or re.search(r"\blna\b", text):
        count = _count_words(text)
        claims.add(f"lna_guanosine:{count}" if count else "lna_guanosine")
    if "riboguan" in text or "rgrg" in text or re.search(r"\brg\b", text):
        count = _count_words(text)
        claims.add(f"riboguanosine:{count}" if count else "riboguanosine")
    if re.search(r"\b(?:rna )?ribonucleotides?\b", text):
        claims.add("ribonucleotide")
    if "hplc" in text:
        claims.add("purification:hplc")
    if "all rna" in text or "rna oligonucleotide" in text:
        claims.add("backbone:rna")
    if "t overhang" in text:
        claims.add(f"{where}:t_overhang")
    if "degenerate" in text and ("vn" in text or "anchor" in text):
        claims.add("anchor:degenerate_vn")
    if re.search(r"\b(?:bead|gel bead|magnetic bead)\b", text) and re.search(
        r"\b(?:attach(?:ed|ment)?|conjugat(?:ed|ion)|immobili[sz](?:ed|ation)|tether(?:ed|ing)?)\b",
        text,
    ):
        claims.add(f"{where}:bead_tether")
    if "peg" in text and "linker" in text:
        claims.add(f"{where}:peg_linker")
    if "iso dc" in text or "iso dg" in text:
        claims.add(f"{where}:iso_base")
    if not claims:
        claims.add(f"text:{text}")
    return claims


def _count_words(text: str) -> int | None:
    if "three" in text or "x3" in text or "rgrgrg" in text:
        return 3
    if "two" in text or "x2" in text or "rgrg" in text:
        return 2
    return None
