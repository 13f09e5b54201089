"""Task 1: final library sequences, scored as the LibStructBench `library_structure` grader.

Each truth library, in order, takes the unused prediction with the same `library_id`
(or modality when it has no id), else the same modality, else any unused prediction,
choosing the most similar (ties: smaller distance, then larger index, as the grader's
tuple comparison does). Similarity is normalized Levenshtein over the Task 1
projection (`normalize_library_sequence`). The reward is the mean over truth libraries;
a truth library left without a prediction scores 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import frozen
from rapidfuzz.distance import Levenshtein

from lablang.scoring.normalize import normalize_library_sequence

PREDICTION_SCHEMA_VERSION = "libstruct.library_structure.v0"


class LibraryInputError(ValueError):
    """The document cannot be read as a Task 1 document (the grader scores it 0)."""


@frozen
class LibraryEntry:
    library_id: str
    modality: str
    library_sequence: str


@frozen
class LibraryMatch:
    truth_index: int
    truth_id: str
    modality: str
    prediction_index: int | None
    prediction_id: str | None
    truth_sequence: str
    predicted_sequence: str
    edit_distance: int
    similarity: float


@frozen
class LibraryScore:
    metrics: Mapping[str, float]
    matches: tuple[LibraryMatch, ...]
    unmatched_predictions: tuple[str, ...]


def library_entries(document: Any, *, prediction: bool) -> list[LibraryEntry]:
    """The libraries of a Task 1 document (raises `LibraryInputError` as the grader does)."""
    if not isinstance(document, dict):
        raise LibraryInputError("document must be a JSON object")
    protocol_id = document.get("protocol_id")
    if protocol_id is not None and not isinstance(protocol_id, str):
        raise LibraryInputError("document.protocol_id must be a string when present")
    if prediction and document.get("schema_version") != PREDICTION_SCHEMA_VERSION:
        raise LibraryInputError(f"prediction.schema_version must be {PREDICTION_SCHEMA_VERSION!r}")
    raw = document.get("libraries")
    if raw is None:
        sequence = document.get("library_sequence")
        if not isinstance(sequence, str) or not sequence.strip():
            raise LibraryInputError("document.library_sequence must be a non-empty string")
        return [
            LibraryEntry(
                str(document.get("library_id") or document.get("modality") or "library_1"),
                str(document.get("modality") or "library"),
                sequence,
            )
        ]
    if not isinstance(raw, list) or not raw:
        raise LibraryInputError("document.libraries must be a non-empty array when present")
    entries = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise LibraryInputError(f"document.libraries[{index}] must be an object")
        sequence = item.get("library_sequence")
        if not isinstance(sequence, str) or not sequence.strip():
            raise LibraryInputError(
                f"document.libraries[{index}].library_sequence must be a non-empty string"
            )
        fallback = f"library_{index + 1}"
        library_id = item.get("library_id") or item.get("modality") or fallback
        modality = item.get("modality") or library_id
        entries.append(
            LibraryEntry(
                str(library_id).strip() or fallback,
                str(modality).strip() or str(library_id).strip() or fallback,
                sequence,
            )
        )
    return entries


def score_libraries(predicted: list[LibraryEntry], truth: list[LibraryEntry]) -> LibraryScore:
    """Greedy per-truth matching and the grader's Task 1 metrics."""
    unused = set(range(len(predicted)))
    matches: list[LibraryMatch] = []
    for truth_index, expected in enumerate(truth):
        key = expected.library_id or expected.modality
        candidates = [
            i for i in unused if (predicted[i].library_id or predicted[i].modality) == key
        ]
        if not candidates:
            candidates = [i for i in unused if predicted[i].modality == expected.modality]
        if not candidates:
            candidates = list(unused)
        truth_sequence = normalize_library_sequence(expected.library_sequence)
        best: tuple[float, int, int, str] | None = None
        for index in candidates:
            sequence = normalize_library_sequence(predicted[index].library_sequence)
            distance = Levenshtein.distance(sequence, truth_sequence)
            denominator = max(len(sequence), len(truth_sequence))
            similarity = 1.0 if denominator == 0 else max(0.0, 1.0 - distance / denominator)
            candidate = (similarity, -distance, index, sequence)
            if best is None or candidate > best:
                best = candidate
        if best is None:
            matches.append(
                LibraryMatch(
                    truth_index,
                    expected.library_id,
                    expected.modality,
                    None,
                    None,
                    truth_sequence,
                    "",
                    len(truth_sequence),
                    1.0 if not truth_sequence else 0.0,
                )
            )
            continue
        similarity, negative_distance, index, sequence = best
        unused.discard(index)
        matches.append(
            LibraryMatch(
                truth_index,
                expected.library_id,
                expected.modality,
                index,
                predicted[index].library_id,
                truth_sequence,
                sequence,
                -negative_distance,
                similarity,
            )
        )
    similarities = [m.similarity for m in matches]
    matched = [m.similarity for m in matches if m.prediction_index is not None]
    recall = len(matched) / len(truth) if truth else 0.0
    precision = len(matched) / len(predicted) if predicted else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    metrics = {
        "sequence_similarity": sum(similarities) / len(similarities) if similarities else 0.0,
        "matched_sequence_similarity": sum(matched) / len(matched) if matched else 0.0,
        "library_recall": recall,
        "library_precision": precision,
        "library_f1": f1,
        "edit_distance": float(sum(m.edit_distance for m in matches)),
        "prediction_parse_valid": 1.0,
        "predicted_length": float(sum(len(m.predicted_sequence) for m in matches)),
        "ground_truth_length": float(sum(len(m.truth_sequence) for m in matches)),
        "library_count": float(len(truth)),
        "ground_truth_library_count": float(len(truth)),
        "predicted_library_count": float(len(predicted)),
        "matched_library_count": float(len(matched)),
    }
    return LibraryScore(
        metrics=metrics,
        matches=tuple(matches),
        unmatched_predictions=tuple(predicted[i].library_id for i in sorted(unused)),
    )


def zero_library_metrics() -> dict[str, float]:
    """What the grader reports for a Task 1 prediction it cannot read."""
    names = (
        "sequence_similarity", "matched_sequence_similarity", "library_recall",
        "library_precision", "library_f1", "edit_distance", "prediction_parse_valid",
        "predicted_length", "ground_truth_length", "library_count",
        "ground_truth_library_count", "predicted_library_count", "matched_library_count",
    )  # fmt: skip
    return dict.fromkeys(names, 0.0)
