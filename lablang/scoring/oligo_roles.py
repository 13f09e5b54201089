"""Task 2 roles: free-text oligo roles mapped to the grader's controlled
functional categories, and their similarity."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lablang.scoring.normalize import (
    normalize_text,
)
from lablang.scoring.similarity import (
    set_f1,
)

Json = dict[str, Any]
_PRIMER_ROLES = frozenset(
    {
        "primer", "reverse_transcription_primer", "second_strand_primer", "indexing_primer",
        "amplification_primer", "sequencing_primer", "index_sequencing_primer", "sgrna_primer",
        "linear_amplification_primer", "random_amplification_primer", "capture_oligo",
    }
)  # fmt: skip
_ADAPTER_ROLES = frozenset(
    {
        "adapter",
        "tagmentation_adapter",
        "ligation_adapter",
        "sequencing_adapter",
        "flowcell_adapter",
    }
)


def controlled_role_similarity(prediction: Mapping[str, Any], truth: Mapping[str, Any]) -> float:
    truth_roles = controlled_roles(str(truth.get("role", "")))
    if not truth_roles:
        return 1.0
    predicted_roles = controlled_roles(str(prediction.get("role", "")))
    # a broad truth "primer" accepts any specific primer role, never the reverse
    if truth_roles == {"primer"}:
        return float(bool(predicted_roles & _PRIMER_ROLES))
    # a broad truth "adapter" accepts an adapter role on the oligo or one of its components
    if truth_roles == {"adapter"}:
        component_roles = {
            role
            for component in prediction.get("components", [])
            for role in controlled_roles(str(component.get("role", "")))
        }
        return float(bool((set(predicted_roles) | component_roles) & _ADAPTER_ROLES))
    return set_f1(predicted_roles, truth_roles)


_ROLE_CACHE: dict[str, frozenset[str]] = {}


def controlled_roles(value: str) -> frozenset[str]:
    """Free-text role -> the grader's controlled functional categories.

    >>> sorted(controlled_roles("cDNA amplification primer annealing to partial Read 1"))
    ['amplification_primer']
    """
    cached = _ROLE_CACHE.get(value)
    if cached is None:
        cached = _ROLE_CACHE[value] = _controlled_roles(value)
    return cached


def _controlled_roles(value: str) -> frozenset[str]:
    text = normalize_text(value)
    if not text:
        return frozenset()
    # primary roles first: a bridge that mentions an RT handle is not an RT primer
    if re.search(r"\b(?:blocking|blocker|blocks|terminator|quench|quenching)\b", text):
        return frozenset({"blocking_oligo"})
    if ("linker" in text or "bridge" in text or "splint" in text) and (
        "ligat" in text or "anneal" in text
    ):
        return frozenset({"ligation_linker"})
    if (
        "ligation barcode" in text
        or "barcode ligation" in text
        or re.search(r"\b(?:second|third|round [234]) round\b.*\bbarcode strand\b", text)
        or re.search(r"\bbarcode strand ligated\b", text)
    ):
        return frozenset({"ligation_barcode"})
    if "template switch" in text and ("oligo" in text or "oligonucleotide" in text):
        return frozenset({"template_switching_oligo"})
    roles: set[str] = set()
    primer_or_oligo = "primer" in text or "oligo" in text
    sequencing = "sequencing primer" in text or bool(re.search(r"\bread [12]\b.*\bprimer\b", text))
    if sequencing and re.search(r"\b(?:index|i5|i7|sample index)\b", text):
        roles.add("index_sequencing_primer")
    elif sequencing:
        roles.add("sequencing_primer")
    amplification = (
        bool(re.search(r"\b(?:pcr|amplification|amplifies|enrichment)\b", text)) and primer_or_oligo
    )
    rt_target = bool(
        amplification
        and re.search(
            r"\b(?:at|on|against|anneals?(?:\s+to)?|complementary\s+to)\b"
            r"[^.;]*\brt[- ]*(?:handle|adapter|adaptor|end)\b",
            text,
        )
    )
    if (
        not rt_target
        and re.search(r"\b(?:reverse transcription|reverse transcriptase|rt)\b", text)
        and primer_or_oligo
    ):
        roles.add("reverse_transcription_primer")
    if "second strand" in text and primer_or_oligo:
        roles.add("second_strand_primer")
    if amplification and re.search(
        r"\b(?:indexing|indexed|sample index|i5 index|i7 index)\b", text
    ):
        roles.add("indexing_primer")
    elif amplification:
        roles.add("amplification_primer")
    if "capture" in text and primer_or_oligo:
        roles.add("capture_oligo")
    if "feature barcode" in text:
        roles.add("feature_barcode_oligo")
    if "sgrna" in text and primer_or_oligo:
        roles.add("sgrna_primer")
    tagmentation_target = bool(
        (amplification or sequencing)
        and re.search(
            r"\b(?:at|on|against|anneals?(?:\s+to)?|complementary\s+to)\b"
            r"[^.;]*\b(?:tn5|tagment\w*)[- ]*(?:adapter|adaptor)\b",
            text,
        )
    )
    if "primer entry point" in text or "primer_entry_point" in value.lower():
        roles.add("primer_entry_point")
    if (
        not tagmentation_target
        and re.search(r"\b(?:tn5|tagment|transposome|transposon)\b", text)
        and re.search(r"\b(?:adapter|adaptor|oligo|strand|binding site|transposon)\b", text)
    ):
        roles.add("tagmentation_adapter")
        if "non transferred" in text:
            roles.add("nontransferred_strand")
        elif "transferred" in text:
            roles.add("transferred_strand")
    if "ligat" in text and re.search(r"\badapt(?:er|or)\b", text):
        roles.add("ligation_adapter")
    if ("y shaped" in text or "sequencing adapter" in text) and not sequencing:
        roles.add("sequencing_adapter")
    if "flow cell" in text and re.search(r"\badapt(?:er|or)\b", text):
        roles.add("flowcell_adapter")
    if "promoter" in text:
        roles.add("promoter")
    if "probe" in text and ("hybrid" in text or "qc" in text):
        roles.add("hybridization_probe")
    if "bead synthesis" in text or "poly dt synthesis on beads" in text:
        roles.add("bead_synthesis_oligo")
    if "splint capture" in text:
        roles.add("splint_capture_oligo")
    if "linear amplification" in text and primer_or_oligo:
        roles.add("linear_amplification_primer")
    if "random" in text and amplification:
        roles.add("random_amplification_primer")
    # generic labels stay scorable, but only when nothing more specific was found
    if not roles and re.search(r"\bprimer\b", text):
        roles.add("primer")
    if not roles and re.search(r"\badapt(?:er|or)\b", text):
        roles.add("adapter")
    return frozenset(roles)
