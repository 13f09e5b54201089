"""Task 2 sequences: an oligo's sequence claims and their support, its ordered
molecule, its family template (variable components as placeholders), its signature,
and the sequence similarity of two records."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lablang.scoring.matching import best_one_to_one_matching, edit_similarity, soft_prf
from lablang.scoring.normalize import (
    FAMILY_PLACEHOLDER_RE,
    normalize_sequence,
    normalize_text,
)
from lablang.scoring.similarity import (
    encoded_value,
    family_edit_similarity,
    nucleotide_projection,
    sequence_value,
)

Json = dict[str, Any]
SCORABLE_SUPPORT = frozenset({"explicit", "derivable"})
NEUTRAL_SUPPORT = frozenset({"externally_completed", "ambiguous", "unsupported"})
ORDERED_KINDS = frozenset({"single", "assembled", "hairpin"})
_VARIABLE_EXCLUSIONS = frozenset(
    {
        "adapter", "arm", "capture arm", "handle", "hybridization", "hybridisation", "linker",
        "mosaic end", "primer binding",
    }
)  # fmt: skip


def truth_sequence_claims(item: Mapping[str, Any]) -> list[tuple[str, str]]:
    sequence = item.get("sequence")
    if isinstance(sequence, str) and sequence:
        return [(sequence, item.get("support_status", "explicit"))]
    claims = []
    for component in item.get("components", []):
        value = component.get("sequence") or component.get("placeholder")
        if isinstance(value, str) and value:
            claims.append(
                (value, component.get("support_status", item.get("support_status", "explicit")))
            )
    return claims


def oligo_is_scorable(item: Mapping[str, Any]) -> bool:
    return any(status in SCORABLE_SUPPORT for _, status in truth_sequence_claims(item))


_FAMILY_CACHE: dict[tuple[str, bool], bool] = {}


def truth_is_family(item: Mapping[str, Any], *, scorable_only: bool) -> bool:
    claims = truth_sequence_claims(item)
    key = (repr(claims), scorable_only)
    cached = _FAMILY_CACHE.get(key)
    if cached is None:
        if len(_FAMILY_CACHE) > 100_000:
            _FAMILY_CACHE.clear()
        cached = _FAMILY_CACHE[key] = _truth_is_family(claims, scorable_only)
    return cached


def _truth_is_family(claims: list[tuple[str, str]], scorable_only: bool) -> bool:
    return any(
        FAMILY_PLACEHOLDER_RE.search(normalize_sequence(value))
        for value, status in claims
        if not scorable_only or status in SCORABLE_SUPPORT
    )


def has_family_template(item: Mapping[str, Any]) -> bool:
    values = []
    if isinstance(item.get("sequence"), str):
        values.append(item["sequence"])
    values.extend(
        c["placeholder"]
        for c in item.get("components", [])
        if isinstance(c.get("placeholder"), str)
    )
    return any(FAMILY_PLACEHOLDER_RE.search(normalize_sequence(v)) for v in values)


def canonical_signature(item: Mapping[str, Any], *, family_template: bool) -> tuple[str, ...]:
    if item.get("kind") != "double_stranded":
        molecule = ordered_molecule_sequence(item, family_template=family_template)
        if molecule:
            return (nucleotide_projection(molecule),)
    return tuple(
        nucleotide_projection(v)
        for v in prediction_sequence_claims(item, family_template=family_template)
    )


def prediction_sequence_claims(
    item: Mapping[str, Any], *, family_template: bool = False
) -> list[str]:
    sequence = item.get("sequence")
    if isinstance(sequence, str) and sequence:
        return [family_template_sequence(item) if family_template else sequence]
    result = []
    for component in item.get("components", []):
        value = _component_value(component, family_template)
        if isinstance(value, str) and value:
            result.append(value)
    return result


def _component_value(component: Mapping[str, Any], family_template: bool) -> Any:
    if family_template:
        return (
            component_family_placeholder(component)
            or component.get("sequence")
            or component.get("placeholder")
        )
    return component.get("sequence") or component.get("placeholder")


def ordered_molecule_sequence(
    item: Mapping[str, Any], *, family_template: bool = False
) -> str | None:
    sequence = item.get("sequence")
    if isinstance(sequence, str) and sequence:
        return family_template_sequence(item) if family_template else sequence
    components = item.get("components", [])
    if not components:
        return None
    values = []
    for component in components:
        value = _component_value(component, family_template)
        if not isinstance(value, str) or not value:
            return None
        values.append(value)
    return "".join(values)


def family_template_sequence(item: Mapping[str, Any]) -> str:
    sequence = item.get("sequence")
    if not isinstance(sequence, str) or not sequence:
        return ""
    result = normalize_sequence(sequence)
    components = list(item.get("components", []))
    concrete = [
        normalize_sequence(c["sequence"])
        for c in components
        if isinstance(c.get("sequence"), str) and c.get("sequence")
    ]
    if components and len(concrete) == len(components):
        molecule = "".join(concrete)
        family = "".join(
            component_family_placeholder(c) or normalize_sequence(c["sequence"]) for c in components
        )
        position = _find_unprotected(result, molecule)
        if position >= 0:
            return result[:position] + family + result[position + len(molecule) :]
    cursor = 0
    for component in components:
        replacement = component_family_placeholder(component)
        value = component.get("sequence")
        if not isinstance(value, str) or not value:
            continue
        normalized = normalize_sequence(value)
        position = _find_unprotected(result, normalized, start=cursor)
        if position < 0:
            continue
        if replacement:
            result = result[:position] + replacement + result[position + len(normalized) :]
            cursor = position + len(replacement)
        else:
            cursor = position + len(normalized)
    return result


def _find_unprotected(sequence: str, subsequence: str, *, start: int = 0) -> int:
    """Find literal bases that are not inside a placeholder or a modification tag."""
    protected: list[tuple[int, int]] = []
    cursor = 0
    while cursor < len(sequence):
        opener = sequence[cursor]
        closer = "]" if opener == "[" else "/" if opener == "/" else None
        if closer is None:
            cursor += 1
            continue
        end = sequence.find(closer, cursor + 1)
        if end < 0:
            cursor += 1
            continue
        protected.append((cursor, end + 1))
        cursor = end + 1
    position = sequence.find(subsequence, start)
    while position >= 0:
        end = position + len(subsequence)
        if all(end <= s or position >= e for s, e in protected):
            return position
        position = sequence.find(subsequence, position + 1)
    return -1


def component_family_placeholder(component: Mapping[str, Any]) -> str | None:
    placeholder = component.get("placeholder")
    if isinstance(placeholder, str) and placeholder:
        return normalize_sequence(placeholder)
    role = _variable_component_role(component)
    if role is None:
        return None
    length = component.get("length")
    if not isinstance(length, int) or length <= 0:
        sequence = component.get("sequence")
        if not isinstance(sequence, str) or not sequence:
            return None
        length = len(sequence_value(sequence))
    return f"[{role}:{length}]" if length > 0 else None


def _variable_component_role(component: Mapping[str, Any]) -> str | None:
    text = normalize_text(" ".join(str(component.get(f, "")) for f in ("name", "role")))
    if not text:
        return None
    if "unique molecular identifier" in text or re.search(r"\bumi\b", text):
        return "UMI"
    if "random" in text or "hexamer" in text or "randomer" in text:
        return "RANDOM"
    if "i5" in text:
        return "I5_INDEX"
    if "i7" in text:
        return "I7_INDEX"
    if "tn5" in text and ("index" in text or "barcode" in text):
        return "TN5_INDEX"
    if ("feature" in text or "antibody" in text or "capture" in text) and "barcode" in text:
        return "FEATURE_BARCODE"
    if "sample index" in text or "library index" in text:
        return "SAMPLE_INDEX"
    if "variable" in text or "degenerate" in text:
        return "VARIABLE"
    if "barcode" in text:
        if any(word in text for word in _VARIABLE_EXCLUSIONS):
            return None
        return "CELL_BARCODE"
    if re.search(r"\bindex\b", text):
        return "SAMPLE_INDEX"
    return None


def uncached_oligo_similarity(prediction: Json, truth: Json, scorable_only: bool) -> float:
    is_family = truth_is_family(truth, scorable_only=scorable_only)
    ordered = _ordered_similarity(prediction, truth, scorable_only, is_family)
    if ordered is not None:
        return ordered
    predicted = prediction_sequence_claims(prediction, family_template=is_family)
    with_status = truth_sequence_claims(truth)
    truth_claims = [v for v, s in with_status if not scorable_only or s in SCORABLE_SUPPORT]
    if scorable_only:
        neutral = [v for v, s in with_status if s in NEUTRAL_SUPPORT]
        predicted = _remove_exact_neutral(predicted, neutral)
    return _sequence_collection_f1(predicted, truth_claims)


def _ordered_similarity(
    prediction: Json, truth: Json, scorable_only: bool, is_family: bool
) -> float | None:
    if truth.get("kind") not in ORDERED_KINDS:
        return None
    if scorable_only and not all(s in SCORABLE_SUPPORT for _, s in truth_sequence_claims(truth)):
        return None
    raw_predicted = ordered_molecule_sequence(prediction)
    raw_truth = ordered_molecule_sequence(truth)
    if (
        raw_predicted is not None
        and raw_truth is not None
        and normalize_sequence(raw_predicted) == normalize_sequence(raw_truth)
    ):
        # exact normalized equality is decisive; templating must not degrade it
        return 1.0
    predicted = ordered_molecule_sequence(prediction, family_template=is_family)
    expected = ordered_molecule_sequence(truth, family_template=is_family)
    if predicted is None or expected is None:
        return None
    return sequence_similarity(predicted, expected, family_truth=is_family)


def sequence_similarity(prediction: str, truth: str, *, family_truth: bool) -> float:
    predicted_tokens = encoded_value(prediction)
    truth_tokens = encoded_value(truth)
    if not family_truth:
        return edit_similarity(predicted_tokens, truth_tokens)
    return family_edit_similarity(predicted_tokens, truth_tokens)


def _is_family_value(value: str) -> bool:
    return bool(FAMILY_PLACEHOLDER_RE.search(normalize_sequence(value)))


def _remove_exact_neutral(predicted: list[str], neutral: list[str]) -> list[str]:
    remaining = list(predicted)
    for value in neutral:
        for index, candidate in enumerate(remaining):
            if sequence_similarity(candidate, value, family_truth=_is_family_value(value)) == 1.0:
                remaining.pop(index)
                break
    return remaining


def _sequence_collection_f1(predicted: list[str], truth: list[str]) -> float:
    scores = [
        [sequence_similarity(p, t, family_truth=_is_family_value(t)) for t in truth]
        for p in predicted
    ]
    matches = best_one_to_one_matching(scores)
    return soft_prf(sum(m[2] for m in matches), len(predicted), len(truth))[2]
