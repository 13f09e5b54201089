"""Task 2 families: predictions collapsed into families (a shared template, the same
truth family, or a flat panel of members differing in one variable window), and the
similarity of a family to a truth oligo."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from attrs import frozen

from lablang.scoring.matching import best_one_to_one_matching, soft_prf
from lablang.scoring.normalize import (
    normalize_text,
)
from lablang.scoring.oligo_roles import controlled_role_similarity, controlled_roles
from lablang.scoring.oligo_sequences import (
    canonical_signature,
    has_family_template,
    oligo_is_scorable,
    truth_is_family,
)
from lablang.scoring.oligo_similarity import OligoSimilarity
from lablang.scoring.similarity import (
    sequence_value,
    set_f1,
)
from lablang.scoring.weights import Weights

Json = dict[str, Any]
_NUCLEOTIDE_TOKEN_RE = re.compile(r"^(?:[ACGTUNV]|[r+][ACGTUNV])$")


@frozen
class Family:
    """Predicted oligos that count as one family (one prediction)."""

    representative: int
    members: tuple[int, ...]
    signature: tuple[str, ...]


class FamilyScorer(OligoSimilarity):
    """Family collapse and family similarities, on top of the member similarities."""

    def __init__(self, weights: Weights) -> None:
        super().__init__(weights)
        self._signatures: dict[tuple[int, tuple[int, ...]], tuple[str, ...]] = {}
        self._metadata: dict[int, tuple[Any, ...]] = {}

    def collapse_families(self, predictions: list[Json], truth: list[Json]) -> list[Family]:
        truth_key = tuple(id(t) for t in truth)
        signatures = []
        for prediction in predictions:
            key = (id(prediction), truth_key)
            signature = self._signatures.get(key)
            if signature is None:
                self._keep.append((prediction, truth))
                signature = self._signatures[key] = self._family_signature(prediction, truth)
            signatures.append(signature)
        panels = _flat_panel_signatures(predictions, signatures, self)
        grouped: dict[tuple[tuple[str, ...], tuple[Any, ...]], list[int]] = {}
        for index, prediction in enumerate(predictions):
            signature = panels.get(index, signatures[index])
            grouped.setdefault((signature, self.metadata_key(prediction)), []).append(index)
        families = []
        for (signature, _), indices in sorted(grouped.items(), key=lambda item: min(item[1])):
            representative = min(
                indices, key=lambda i: (not has_family_template(predictions[i]), i)
            )
            families.append(Family(representative, tuple(sorted(indices)), signature))
        return families

    def _family_signature(self, prediction: Json, truth: list[Json]) -> tuple[str, ...]:
        raw = canonical_signature(prediction, family_template=False)
        if any(
            not truth_is_family(t, scorable_only=False)
            and self.oligo_similarity(prediction, t, scorable_only=False) == 1.0
            for t in truth
        ):
            return ("groundtruth-member", *raw)
        family_matches = [
            t
            for t in truth
            if truth_is_family(t, scorable_only=False)
            and self.oligo_similarity(prediction, t, scorable_only=False) == 1.0
        ]
        if family_matches:
            best = max(
                family_matches,
                key=lambda t: (
                    self.family_metadata_similarity(prediction, t),
                    t.get("oligo_id", ""),
                ),
            )
            return ("groundtruth-family", *canonical_signature(best, family_template=True))
        template = canonical_signature(prediction, family_template=True)
        if template != raw or has_family_template(prediction):
            return ("predicted-family", *template)
        return ("predicted-member", *raw)

    def metadata_key(self, item: Json) -> tuple[Any, ...]:
        cached = self._metadata.get(id(item))
        if cached is None:
            self._keep.append(item)
            cached = self._metadata[id(item)] = self._metadata_key(item)
        return cached

    def _metadata_key(self, item: Json) -> tuple[Any, ...]:
        orientations = {
            c["orientation"]
            for c in item.get("components", [])
            if isinstance(c.get("orientation"), str)
            and c.get("orientation") != item.get("orientation")
        }
        roles = tuple(sorted(controlled_roles(str(item.get("role", "")))))
        if not roles:
            roles = (f"unclassified:{normalize_text(str(item.get('role', '')))}",)
        return (
            item.get("kind", "unknown"),
            roles,
            item.get("orientation", "unknown"),
            tuple(sorted(self.modification_claims(item))),
            tuple(sorted(orientations)),
        )

    def family_metadata_similarity(self, prediction: Json, truth: Json) -> float:
        w = self.weights.family_metadata
        role = controlled_role_similarity(prediction, truth)
        orientation = float(
            truth.get("orientation") == "unknown"
            or prediction.get("orientation") == truth.get("orientation")
        )
        truth_mods = self.modification_claims(truth)
        mods = set_f1(self.modification_claims(prediction), truth_mods) if truth_mods else 1.0
        kind = float(truth.get("kind") == "unknown" or prediction.get("kind") == truth.get("kind"))
        return w.role * role + w.orientation * orientation + w.modifications * mods + w.kind * kind

    def family_similarity(
        self, family: Family, predictions: list[Json], truth: Json, *, scorable_only: bool
    ) -> float:
        return _best_member_value(
            self.scientific_similarity, family, predictions, truth, scorable_only
        )

    def family_sequence_similarity(
        self, family: Family, predictions: list[Json], truth: Json, *, scorable_only: bool
    ) -> float:
        return _best_member_value(self.oligo_similarity, family, predictions, truth, scorable_only)

    def family_assignment_similarity(
        self, family: Family, predictions: list[Json], truth: Json, *, scorable_only: bool
    ) -> float:
        tie = self.weights.oligo.assignment_tie_break
        if len(family.members) == 1:
            member = predictions[family.members[0]]
            return self.oligo_similarity(
                member, truth, scorable_only=scorable_only
            ) + tie * self.scientific_similarity(member, truth, scorable_only=scorable_only)
        return max(
            (
                self.oligo_similarity(predictions[i], truth, scorable_only=scorable_only)
                + tie
                * self.scientific_similarity(predictions[i], truth, scorable_only=scorable_only)
                for i in family.members
            ),
            default=0.0,
        )

    def best_member(
        self, family: Family, predictions: list[Json], truth: Json, *, scorable_only: bool
    ) -> int:
        return max(
            family.members,
            key=lambda i: (
                self.scientific_similarity(predictions[i], truth, scorable_only=scorable_only),
                self.oligo_similarity(predictions[i], truth, scorable_only=scorable_only),
                -i,
            ),
        )

    # ---- linked oligos of one transition (Task 3) -----------------------------------

    def transition_oligo_f1(self, predicted: list[Json], truth: list[Json]) -> float:
        """Family-collapsed sequence F1 of two transitions' oligo multisets."""
        keys = [self.metadata_key(p) for p in predicted]
        if len(set(keys)) == len(keys):
            # members of one family share their metadata key, so distinct keys mean
            # singleton families; their signatures would change nothing here
            families = [Family(i, (i,), ()) for i in range(len(predicted))]
        else:
            families = self.collapse_families(predicted, truth)
        scorable = {i for i, item in enumerate(truth) if oligo_is_scorable(item)}
        neutral = set(range(len(truth))) - scorable
        scorable_indices = sorted(scorable)

        def sim(family: Family, index: int, only: bool) -> float:
            return self.family_sequence_similarity(
                family, predicted, truth[index], scorable_only=only
            )

        pre_neutral = {
            f
            for f, family in enumerate(families)
            if any(sim(family, i, False) == 1.0 for i in neutral)
            and not any(sim(family, i, True) == 1.0 for i in scorable)
        }
        active = [f for f in range(len(families)) if f not in pre_neutral]
        scores = [[sim(families[f], i, True) for i in scorable_indices] for f in active]
        matches = [
            (active[p], scorable_indices[t], s) for p, t, s in best_one_to_one_matching(scores)
        ]
        matched = {m[0] for m in matches}
        neutralized = set(pre_neutral)
        for f in set(range(len(families))) - matched:
            if any(sim(families[f], i, False) == 1.0 for i in neutral):
                neutralized.add(f)
        return soft_prf(
            sum(m[2] for m in matches), len(families) - len(neutralized), len(scorable)
        )[2]


def _best_member_value(
    similarity: Callable[..., float],
    family: Family,
    predictions: list[Json],
    truth: Json,
    scorable_only: bool,
) -> float:
    """The best `similarity` of a family's members to `truth`."""
    if len(family.members) == 1:  # most families: the max of one value, without a generator
        return similarity(predictions[family.members[0]], truth, scorable_only=scorable_only)
    return max(
        (similarity(predictions[i], truth, scorable_only=scorable_only) for i in family.members),
        default=0.0,
    )


def _flat_panel_signatures(
    predictions: list[Json], signatures: list[tuple[str, ...]], scorer: FamilyScorer
) -> dict[int, tuple[str, ...]]:
    """Conservatively cluster untemplated concrete members that differ in one window."""
    buckets: dict[tuple[tuple[Any, ...], int], list[int]] = {}
    tokens_of: dict[int, tuple[str, ...]] = {}
    for index, (prediction, signature) in enumerate(zip(predictions, signatures, strict=True)):
        if not signature or signature[0] != "predicted-member" or len(signature) != 2:
            continue
        tokens = sequence_value(signature[1])
        if not tokens or not all(
            _NUCLEOTIDE_TOKEN_RE.fullmatch(t) or t.startswith("/") for t in tokens
        ):
            continue
        tokens_of[index] = tokens
        buckets.setdefault((scorer.metadata_key(prediction), len(tokens)), []).append(index)
    result: dict[int, tuple[str, ...]] = {}
    for (_, count), indices in buckets.items():
        if len(indices) < 2:
            continue
        adjacency: dict[int, set[int]] = {i: set() for i in indices}
        for position, left in enumerate(indices):
            for right in indices[position + 1 :]:
                window = _variable_window(tokens_of[left], tokens_of[right])
                if window and _valid_window([tokens_of[left], tokens_of[right]], *window):
                    adjacency[left].add(right)
                    adjacency[right].add(left)
        remaining = set(indices)
        while remaining:
            stack = [min(remaining)]
            component: set[int] = set()
            while stack:
                current = stack.pop()
                if current in component:
                    continue
                component.add(current)
                stack.extend(adjacency[current] - component)
            remaining -= component
            if len(component) < 2:
                continue
            ordered = sorted(component)
            sequences = [tokens_of[i] for i in ordered]
            differing = [p for p in range(count) if len({s[p] for s in sequences}) > 1]
            if not differing:
                continue
            start, end = min(differing), max(differing) + 1
            if not _valid_window(sequences, start, end):
                continue
            signature = (
                "inferred-panel-family",
                *sequences[0][:start],
                f"[VARIABLE:{end - start}]",
                *sequences[0][end:],
            )
            for i in ordered:
                result[i] = signature
    return result


def _variable_window(left: Iterable[str], right: Iterable[str]) -> tuple[int, int] | None:
    differing = [i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b]
    return (min(differing), max(differing) + 1) if differing else None


def _valid_window(sequences: list[tuple[str, ...]], start: int, end: int) -> bool:
    variable = end - start
    total = len(sequences[0])
    fixed = total - variable
    if not 1 <= variable <= 32:
        return False
    if fixed < max(8, variable) or fixed / total < 0.5:
        return False
    return all(_NUCLEOTIDE_TOKEN_RE.fullmatch(t) for s in sequences for t in s[start:end])
