"""Task 3 states: reference strand, architecture, segments and pairing, each a
dimension of the state similarity; neutral truth (not explicit or derivable) is not
required."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from lablang.scoring.normalize import normalize_sequence, normalize_text
from lablang.scoring.similarity import (
    count_similarity,
    encoded_value,
    fill_edit_similarities,
    has_state_wildcard,
    multiset_f1,
    name_similarity,
    reverse_complement_encoded,
    state_sequence_similarity,
    text_collection_f1,
    weighted_supported_score,
)
from lablang.scoring.strands import StrandScorer, hashable, segment_value, supported
from lablang.scoring.weights import Weights

Json = dict[str, Any]


def state_is_scorable(state: Mapping[str, Any]) -> bool:
    return (
        supported(state)
        or any(supported(s) for s in state.get("strands", []))
        or any(supported(p) for p in state.get("paired_regions", []))
        or any(supported(d) for d in state.get("discontinuities", []))
    )


class StateScorer(StrandScorer):
    """State similarities, by dimension, on top of the strand similarities."""

    def __init__(self, weights: Weights) -> None:
        super().__init__(weights)
        self._state_weights = {
            "reference_strand": weights.state.reference_strand,
            "architecture": weights.state.architecture,
            "segments": weights.state.segments,
            "pairing": weights.state.pairing,
        }
        self._state_denominator = sum(self._state_weights.values())
        self._states: dict[tuple[int, int, bool, bool], float] = {}
        self._references: dict[int, tuple[str, ...] | None] = {}
        self._architecture_keys: dict[int, tuple[Any, ...]] = {}
        self._descriptors: dict[tuple[int, str | None, str], list[str]] = {}
        self._interned: dict[tuple[str, ...], list[str]] = {}
        self._pairings: dict[tuple[int, int, int, int], float] = {}

    def state_similarity(
        self, prediction: Json, truth: Json, *, scorable_only: bool, rc: bool
    ) -> float:
        key = (id(prediction), id(truth), scorable_only, rc)
        cached = self._states.get(key)
        if cached is None:
            self._keep.append((prediction, truth))
            if scorable_only:
                cached = weighted_supported_score(
                    self.state_dimensions(prediction, truth, scorable_only=True, rc=rc),
                    self._state_weights,
                )
            elif self._state_denominator == 0:
                cached = 0.0
            else:
                # every dimension is enabled: `weighted_supported_score`'s sums, in its
                # order, without building the dimension table
                w = self.weights.state
                cached = (
                    sum(
                        (
                            w.reference_strand * self.reference_similarity(prediction, truth, rc),
                            w.architecture * self.architecture_similarity(prediction, truth),
                            w.segments
                            * self.strand_collection_similarity(prediction, truth, False, rc),
                            w.pairing * self.pairing_similarity(prediction, truth, False),
                        )
                    )
                    / self._state_denominator
                )
            self._states[key] = cached
        return cached

    def state_dimensions(
        self, prediction: Json, truth: Json, *, scorable_only: bool, rc: bool
    ) -> dict[str, tuple[float, bool]]:
        return {
            "reference_strand": (
                self.reference_similarity(prediction, truth, rc),
                not scorable_only or supported(_reference_strand(truth)),
            ),
            "architecture": (
                self.architecture_similarity(prediction, truth),
                not scorable_only or supported(truth),
            ),
            "segments": (
                self.strand_collection_similarity(prediction, truth, scorable_only, rc),
                not scorable_only or any(supported(s) for s in truth.get("strands", [])),
            ),
            "pairing": (
                self.pairing_similarity(prediction, truth, scorable_only),
                not scorable_only
                or supported(truth)
                or any(supported(p) for p in truth.get("paired_regions", []))
                or any(supported(d) for d in truth.get("discontinuities", [])),
            ),
        }

    def descriptors(self, state: Json, support: str | None, kind: str) -> list[str]:
        """A state's pairing or break descriptors; equal lists are one object (interned),
        so `pairing_similarity` can cache by identity what depends only on content."""
        key = (id(state), support, kind)
        cached = self._descriptors.get(key)
        if cached is None:
            self._keep.append(state)
            make = _pairing_descriptors if kind == "pairing" else _discontinuity_descriptors
            made = make(state, support)
            cached = self._descriptors[key] = self._interned.setdefault(tuple(made), made)
        return cached

    def architecture_similarity(self, prediction: Json, truth: Json) -> float:
        """Controlled structural fields only, each state's key taken once."""
        left, right = self._architecture_key(prediction), self._architecture_key(truth)
        try:
            return _architecture_from_keys(left, right)
        except TypeError:  # an unhashable field: compute without the cache
            return _architecture_from_keys.__wrapped__(left, right)

    def _architecture_key(self, state: Json) -> tuple[Any, ...]:
        key = self._architecture_keys.get(id(state))
        if key is None:
            self._keep.append(state)
            key = self._architecture_keys[id(state)] = _architecture_key(state)
        return key

    def pairing_similarity(self, prediction: Json, truth: Json, scorable_only: bool) -> float:
        support = "scorable" if scorable_only else None
        predicted_pairs = self.descriptors(prediction, None, "pairing")
        truth_pairs = self.descriptors(truth, support, "pairing")
        predicted_breaks = self.descriptors(prediction, None, "breaks")
        truth_breaks = self.descriptors(truth, support, "breaks")
        if not scorable_only:
            # a function of the four (interned) lists: states of a workflow share a few
            # descriptor lists, so an all-pairs matrix computes each combination once
            key = (id(predicted_pairs), id(truth_pairs), id(predicted_breaks), id(truth_breaks))
            cached = self._pairings.get(key)
            if cached is None:
                cached = self._pairings[key] = (
                    _text_f1(predicted_pairs, truth_pairs)
                    + _text_f1(predicted_breaks, truth_breaks)
                ) / 2
            return cached
        predicted_pairs = _remove_exact_text(
            predicted_pairs, self.descriptors(truth, "neutral", "pairing")
        )
        predicted_breaks = _remove_exact_text(
            predicted_breaks, self.descriptors(truth, "neutral", "breaks")
        )
        return (
            _text_f1(predicted_pairs, truth_pairs) + _text_f1(predicted_breaks, truth_breaks)
        ) / 2

    def reference_similarity(self, prediction: Json, truth: Json, rc: bool) -> float:
        predicted_values = self.reference_values(prediction)
        expected_values = self.reference_values(truth)
        if predicted_values is None or expected_values is None:
            return 0.0
        table = self._table
        scores = []
        for predicted_tokens in predicted_values:
            for expected_tokens in expected_values:
                score = table.get((predicted_tokens, expected_tokens))
                if score is None:
                    score = state_sequence_similarity(predicted_tokens, expected_tokens)
                scores.append(score)
                if rc:
                    flipped = reverse_complement_encoded(expected_tokens)
                    if flipped is not None:
                        scores.append(state_sequence_similarity(predicted_tokens, flipped))
        return max(scores, default=0.0)

    def reference_values(self, state: Json) -> tuple[str, ...] | None:
        """Encoded sequences of the reference strand (None when there is none)."""
        key = id(state)
        if key not in self._references:
            self._keep.append(state)
            strand = _reference_strand(state)
            self._references[key] = (
                tuple(encoded_value(v) for v in _architecture_values(strand)) if strand else None
            )
        return self._references[key]

    def prefill_sequence_table(self, predicted: list[Json], truth: list[Json]) -> None:
        """Plain edit similarities of every reference-strand pair a state matrix will
        compare, in one rapidfuzz `cdist` call (aligned segments are compared in whole
        matrices by `prefill_strand_matrix`). Pairs with a truth wildcard are left to
        the exact route."""
        queries: set[str] = set()
        choices: set[str] = set()
        for side, states in ((queries, predicted), (choices, truth)):
            for state in states:
                if isinstance(state, dict):
                    side.update(self.reference_values(state) or ())
        choices_plain = [c for c in choices if not has_state_wildcard(c)]
        if len(queries) * len(choices_plain) >= 16:  # fewer are not worth a batch call
            fill_edit_similarities(list(queries), choices_plain, self._table)


def _reference_strand(state: Mapping[str, Any]) -> Json:
    reference = state.get("reference_strand_id")
    return next((s for s in state.get("strands", []) if s.get("strand_id") == reference), {})


def _architecture_values(strand: Mapping[str, Any]) -> list[str]:
    architecture = strand.get("sequence_architecture")
    segments = strand.get("segments", [])
    key = (architecture if isinstance(architecture, str) else None,
           tuple(segment_value(s) for s in segments))  # fmt: skip
    cached = _ARCHITECTURE_CACHE.get(key)
    if cached is None:
        if len(_ARCHITECTURE_CACHE) > 100_000:
            _ARCHITECTURE_CACHE.clear()
        cached = _ARCHITECTURE_CACHE[key] = _compute_architecture_values(strand)
    return cached


_ARCHITECTURE_CACHE: dict[tuple[str | None, tuple[str, ...]], list[str]] = {}


def _compute_architecture_values(strand: Mapping[str, Any]) -> list[str]:
    values = []
    architecture = strand.get("sequence_architecture")
    if isinstance(architecture, str) and architecture:
        values.append(architecture)
    segments = strand.get("segments", [])
    if segments:
        values.append("".join(segment_value(s) for s in segments))
    result, seen = [], set()
    for value in values:
        key = encoded_value(value)
        if key not in seen:
            seen.add(key)
            result.append(value)
    return result


def _architecture_key(state: Json) -> tuple[Any, ...]:
    strands = state.get("strands", [])
    return (
        hashable(state.get("strand_architecture")),
        state.get("molecule_type", ""),
        len(strands),
        tuple(s.get("molecule_type", "") for s in strands),
    )


@lru_cache(maxsize=65536)
def _architecture_from_keys(prediction: tuple[Any, ...], truth: tuple[Any, ...]) -> float:
    # only controlled structural fields count; prose (physical_state) does not
    scores = [
        float(prediction[0] == truth[0]),
        name_similarity(prediction[1], truth[1]),
        count_similarity(prediction[2], truth[2]),
        multiset_f1(prediction[3], truth[3]),
    ]
    return sum(scores) / len(scores)


def _text_f1(predicted: list[str], truth: list[str]) -> float:
    # identical descriptor lists (the common case) need no assignment
    if predicted == truth:
        return 1.0
    return text_collection_f1(predicted, truth)


def selected(items: Iterable[Json], support: str | None) -> list[Json]:
    if support == "scorable":
        return [i for i in items if supported(i)]
    if support == "neutral":
        return [i for i in items if not supported(i)]
    return list(items)


def _segment_descriptors(state: Json) -> dict[str, str]:
    return {
        segment["segment_id"]: f"{segment.get('structural_role', '')}:"
        + normalize_sequence(segment_value(segment))
        for strand in state.get("strands", [])
        for segment in strand.get("segments", [])
    }


def _pairing_descriptors(state: Json, support: str | None) -> list[str]:
    strands = {s["strand_id"]: s for s in state.get("strands", [])}
    values = _segment_descriptors(state)
    regions = selected(state.get("paired_regions", []), support)
    # several records covering one continuous duplex compare as one coverage claim
    grouped: dict[tuple[str, tuple[str, ...]], list[Json]] = defaultdict(list)
    for region in regions:
        pair = tuple(sorted((region["side_1"]["strand_id"], region["side_2"]["strand_id"])))
        grouped[(str(region.get("relationship", "")), pair)].append(region)
    complete: set[tuple[str, tuple[str, ...]]] = set()
    result = []
    for key, members in grouped.items():
        relationship, pair = key
        covered: dict[str, set[str]] = {sid: set() for sid in pair}
        for region in members:
            for side in ("side_1", "side_2"):
                covered.setdefault(region[side]["strand_id"], set()).update(
                    region[side]["segment_ids"]
                )
        expected = {
            sid: {
                seg["segment_id"]
                for seg in strands.get(sid, {}).get("segments", [])
                if seg.get("structural_role") == "paired_region"
            }
            for sid in pair
        }
        if all(expected[sid] and covered[sid] == expected[sid] for sid in pair):
            complete.add(key)
            types = sorted(str(strands.get(sid, {}).get("molecule_type", "")) for sid in pair)
            result.append(f"complete_paired_coverage:{relationship}:" + "<>".join(types))
    for region in regions:
        pair = tuple(sorted((region["side_1"]["strand_id"], region["side_2"]["strand_id"])))
        if (str(region.get("relationship", "")), pair) in complete:
            continue
        sides = []
        for side_key in ("side_1", "side_2"):
            side = region[side_key]
            molecule = strands.get(side["strand_id"], {}).get("molecule_type", "")
            sides.append(f"{molecule}:{'|'.join(values.get(s, '') for s in side['segment_ids'])}")
        result.append(region.get("relationship", "") + ":" + "<>".join(sorted(sides)))
    return result


def _discontinuity_descriptors(state: Json, support: str | None) -> list[str]:
    values = _segment_descriptors(state)
    return [
        f"{item.get('kind', '')}:{values.get(str(item.get('after_segment_id')), '')}>"
        f"{values.get(str(item.get('before_segment_id')), '')}"
        for item in selected(state.get("discontinuities", []), support)
    ]


def _remove_exact_text(predicted: list[str], neutral: list[str]) -> list[str]:
    remaining = list(predicted)
    for value in neutral:
        normalized = normalize_text(value)
        for index, candidate in enumerate(remaining):
            if normalize_text(candidate) == normalized:
                remaining.pop(index)
                break
    return remaining
