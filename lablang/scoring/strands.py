"""Task 3 strands: the similarity of two strands (segment by segment, in either
orientation), cached by content, with whole-matrix prefills in the grader's exact order
of floating-point operations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lablang.scoring.matching import (
    best_one_to_one_matching,
    soft_prf,
)
from lablang.scoring.oligo_sequences import SCORABLE_SUPPORT
from lablang.scoring.similarity import (
    edit_similarity_matrix,
    encoded_value,
    has_state_wildcard,
    reverse_complement_encoded,
    state_sequence_similarity,
)
from lablang.scoring.weights import Weights

Json = dict[str, Any]
_FLIPPED_OVERHANG = {
    "five_prime_overhang": "three_prime_overhang",
    "three_prime_overhang": "five_prime_overhang",
}


def supported(item: Mapping[str, Any]) -> bool:
    return item.get("support_status", "explicit") in SCORABLE_SUPPORT


class StrandScorer:
    """Strand similarities and the caches they share (by object identity; `_keep` holds
    the objects alive so that identities stay unique)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._strands: dict[tuple[int, int, bool], float] = {}
        self._strand_content: dict[tuple[Any, ...], float] = {}
        self._table: dict[tuple[str, str], float] = {}
        self._columns: dict[int, tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]] = {}
        self._strand_keys: dict[int, tuple[Any, ...]] = {}
        self._segments: dict[int, tuple[tuple[str, Any, str], ...]] = {}
        self._keep: list[Any] = []

    def strand_collection_similarity(
        self, prediction: Json, truth: Json, scorable_only: bool, rc: bool
    ) -> float:
        predicted = list(prediction.get("strands", []))
        expected = [s for s in truth.get("strands", []) if not scorable_only or supported(s)]
        if scorable_only:
            for neutral in (s for s in truth.get("strands", []) if not supported(s)):
                for index, candidate in enumerate(predicted):
                    if self.strand_similarity(candidate, neutral, False) == 1.0:
                        predicted.pop(index)
                        break
        scores = [[self.strand_similarity(a, b, rc) for b in expected] for a in predicted]
        matches = best_one_to_one_matching(scores)
        return soft_prf(sum(m[2] for m in matches), len(predicted), len(expected))[2]

    def strand_similarity(self, prediction: Json, truth: Json, rc: bool) -> float:
        key = (id(prediction), id(truth), rc)
        cached = self._strands.get(key)
        if cached is None:
            self._keep.append((prediction, truth))
            content = (self._strand_key(prediction), self._strand_key(truth), rc)
            cached = self._strand_content.get(content)
            if cached is None:
                cached = self._strand_content[content] = self._strand_uncached(
                    prediction, truth, rc
                )
            self._strands[key] = cached
        return cached

    def _strand_key(self, strand: Json) -> tuple[Any, ...]:
        key = self._strand_keys.get(id(strand))
        if key is None:
            self._keep.append(strand)
            features = self._segment_features(strand)
            key = (
                features,
                hashable(strand.get("molecule_type")),
                hashable(strand.get("orientation")),
            )
            self._strand_keys[id(strand)] = key
        return key

    def _strand_uncached(self, prediction: Json, truth: Json, rc: bool) -> float:
        if not rc:
            return self.strand_in_orientation(prediction, truth, False)
        direct = self.strand_similarity(prediction, truth, False)
        return max(direct, self.strand_in_orientation(prediction, truth, True))

    def prefill_strand_matrix(self, predicted: list[Json], truth: list[Json]) -> None:
        """Direct-orientation similarity of every predicted strand with every truth strand,
        computed with whole-matrix numpy operations in the grader's exact order of
        floating-point operations (`strand_in_orientation` is the scalar reference)."""
        left = _distinct_strands(predicted)
        right = _distinct_strands(truth)
        if len(left) * len(right) < 16:
            return
        w = self.weights.strand
        left_columns = [self._strand_columns(s) for s in left]
        right_columns = [self._strand_columns(s) for s in right]
        left_lengths = np.array([len(c[0]) for c in left_columns], dtype=float)
        right_lengths = np.array([len(c[0]) for c in right_columns], dtype=float)
        total = np.zeros((len(left), len(right)))
        codes: dict[Any, int] = {}
        for k in range(int(max(left_lengths.max(), right_lengths.max(), 0))):
            rows = [i for i, c in enumerate(left_columns) if len(c[0]) > k]
            cols = [j for j, c in enumerate(right_columns) if len(c[0]) > k]
            if not rows or not cols:
                continue
            queries = [left_columns[i][0][k] for i in rows]
            choices = [right_columns[j][0][k] for j in cols]
            sequence = _sequence_similarity_matrix(queries, choices)
            left_roles = np.array(
                [codes.setdefault(left_columns[i][1][k], len(codes)) for i in rows]
            )
            right_roles = np.array(
                [codes.setdefault(right_columns[j][2][k], len(codes)) for j in cols]
            )
            same_role = (left_roles[:, None] == right_roles[None, :]).astype(float)
            block = np.ix_(rows, cols)
            total[block] = total[block] + (
                w.position_sequence * sequence + w.position_structural_role * same_role
            )
        p_count, t_count = left_lengths[:, None], right_lengths[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(p_count > 0, total / np.maximum(p_count, 1), 0.0)
            recall = np.where(t_count > 0, total / np.maximum(t_count, 1), 0.0)
            both_empty = (p_count == 0) & (t_count == 0)
            precision = np.where(both_empty, 1.0, precision)
            recall = np.where(both_empty, 1.0, recall)
            denominator = precision + recall
            f1 = np.where(
                denominator != 0,
                2 * precision * recall / np.where(denominator != 0, denominator, 1),
                0.0,
            )
        molecule = np.array(
            [[float(a.get("molecule_type") == b.get("molecule_type")) for b in right] for a in left]
        )
        orientation = np.array(
            [[float(a.get("orientation") == b.get("orientation")) for b in right] for a in left]
        )
        values = (
            w.segments * f1 + w.molecule_type * molecule + w.orientation * orientation
        ).tolist()
        for i, a in enumerate(left):
            self._keep.append(a)
            for j, b in enumerate(right):
                self._strands[(id(a), id(b), False)] = values[i][j]
        self._keep.extend(right)

    def strand_in_orientation(self, prediction: Json, truth: Json, reverse: bool) -> float:
        w = self.weights.strand
        predicted_tokens, predicted_roles, _ = self._strand_columns(prediction)
        truth_tokens, _, truth_roles = self._strand_columns(truth)
        if reverse:
            truth_tokens = tuple(reverse_complement_encoded(t) for t in reversed(truth_tokens))
            truth_roles = tuple(_FLIPPED_OVERHANG.get(r, r) for r in reversed(truth_roles))
        weight_sequence, weight_role = w.position_sequence, w.position_structural_role
        table = self._table
        total = 0.0  # the same left-to-right sum as the grader's sum(position_scores)
        for left, left_role, right, right_role in zip(
            predicted_tokens, predicted_roles, truth_tokens, truth_roles, strict=False
        ):
            if right is None:  # a modification tag blocks the reverse complement
                sequence_score = 0.0
            else:
                known = table.get((left, right))
                sequence_score = (
                    known if known is not None else state_sequence_similarity(left, right)
                )
            total += weight_sequence * sequence_score + weight_role * float(left_role == right_role)
        segment_score = soft_prf(total, len(predicted_tokens), len(truth_tokens))[2]
        return (
            w.segments * segment_score
            + w.molecule_type * float(prediction.get("molecule_type") == truth.get("molecule_type"))
            + w.orientation * float(prediction.get("orientation") == truth.get("orientation"))
        )

    def _strand_columns(
        self, strand: Json
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
        """Segment tokens, raw structural roles and role texts, as three parallel tuples."""
        columns = self._columns.get(id(strand))
        if columns is None:
            features = self._segment_features(strand)
            columns = self._columns[id(strand)] = (
                tuple(f[0] for f in features),
                tuple(f[1] for f in features),
                tuple(f[2] for f in features),
            )
        return columns

    def _segment_features(self, strand: Json) -> tuple[tuple[str, Any, str], ...]:
        """Per segment: tokens, raw structural role (as predicted), role text (as truth)."""
        cached = self._segments.get(id(strand))
        if cached is None:
            self._keep.append(strand)
            cached = self._segments[id(strand)] = tuple(
                (
                    encoded_value(segment_value(seg)),
                    hashable(seg.get("structural_role")),
                    str(seg.get("structural_role", "")),
                )
                for seg in strand.get("segments", [])
            )
        return cached


def segment_value(segment: Mapping[str, Any]) -> str:
    if isinstance(segment.get("sequence"), str):
        return segment["sequence"]
    if isinstance(segment.get("placeholder"), str):
        return segment["placeholder"]
    if isinstance(segment.get("length"), int):
        return f"[VARIABLE:{segment['length']}]"
    return "[UNKNOWN]"


def _sequence_similarity_matrix(queries: list[str], choices: list[str]) -> np.ndarray:
    """`state_sequence_similarity(q, c)` for every pair: plain edit similarities of the
    distinct sequences in one `cdist` call, wildcard choices by the exact route."""
    distinct_queries = list(dict.fromkeys(queries))
    distinct_choices = list(dict.fromkeys(choices))
    values = np.empty((len(distinct_queries), len(distinct_choices)))
    plain = [n for n, c in enumerate(distinct_choices) if not has_state_wildcard(c)]
    if plain:
        values[:, plain] = edit_similarity_matrix(
            distinct_queries, [distinct_choices[n] for n in plain]
        )
    for n, choice in enumerate(distinct_choices):
        if has_state_wildcard(choice):
            values[:, n] = [state_sequence_similarity(q, choice) for q in distinct_queries]
    query_index = {q: n for n, q in enumerate(distinct_queries)}
    choice_index = {c: n for n, c in enumerate(distinct_choices)}
    return values[np.ix_([query_index[q] for q in queries], [choice_index[c] for c in choices])]


def _distinct_strands(states: list[Json]) -> list[Json]:
    strands: dict[int, Json] = {}
    for state in states:
        if isinstance(state, dict):
            for strand in state.get("strands", []):
                if isinstance(strand, dict):
                    strands.setdefault(id(strand), strand)
    return list(strands.values())


def hashable(value: Any) -> Any:
    """The value itself when hashable (so equal values stay equal), else a stand-in
    that equals no string."""
    if value is None or isinstance(value, str | int | float):
        return value
    return ("<unhashable>", repr(value))
