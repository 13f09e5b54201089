"""Task 2 similarity of one predicted oligo to one truth oligo: sequence first, then
modifications, kind, orientation and role, with per-run caches."""

from __future__ import annotations

from typing import Any

from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import frozen

from lablang.scoring.matching import edit_similarity
from lablang.scoring.normalize import (
    normalize_sequence,
)
from lablang.scoring.oligo_modifications import modification_claims_of
from lablang.scoring.oligo_roles import controlled_role_similarity, controlled_roles
from lablang.scoring.oligo_sequences import (
    NEUTRAL_SUPPORT,
    ORDERED_KINDS,
    SCORABLE_SUPPORT,
    ordered_molecule_sequence,
    truth_is_family,
    truth_sequence_claims,
    uncached_oligo_similarity,
)
from lablang.scoring.similarity import (
    encoded_value,
    family_edit_similarity,
    set_f1,
    weighted_supported_score,
)
from lablang.scoring.weights import Weights

Json = dict[str, Any]


@frozen
class _OligoView:
    """What the ordered-molecule comparison needs from one record, computed once."""

    kind: Any
    raw: str | None
    raw_normalized: str | None
    raw_encoded: str | None
    family_encoded: str | None
    all_scorable: bool
    family_any: bool
    family_scorable: bool

    @classmethod
    def of(cls, item: Json) -> _OligoView:
        raw = ordered_molecule_sequence(item)
        family = ordered_molecule_sequence(item, family_template=True)
        return cls(
            kind=item.get("kind"),
            raw=raw,
            raw_normalized=normalize_sequence(raw) if raw is not None else None,
            raw_encoded=encoded_value(raw) if raw is not None else None,
            family_encoded=encoded_value(family) if family is not None else None,
            all_scorable=all(s in SCORABLE_SUPPORT for _, s in truth_sequence_claims(item)),
            family_any=truth_is_family(item, scorable_only=False),
            family_scorable=truth_is_family(item, scorable_only=True),
        )


class OligoSimilarity:
    """Oligo similarities with per-run caches (records are identified by object id)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._oligo: dict[tuple[int, int, bool], float] = {}
        self._scientific: dict[tuple[int, int, bool], float] = {}
        self._claims: dict[tuple[int, Any], frozenset[str]] = {}
        self._full: dict[int, bool] = {}
        self._views: dict[int, _OligoView] = {}
        self._profiles: dict[tuple[int, bool], Any] = {}
        self._weights = asdict(weights.oligo)
        self._keep: list[Any] = []  # keeps cached records alive so ids stay unique

    def _fully_scorable(self, truth: Json) -> bool:
        """Every claim of the record is explicit or derivable: then the scorable-only and
        the full comparison are the same computation."""
        cached = self._full.get(id(truth))
        if cached is None:
            self._keep.append(truth)
            status = truth.get("support_status", "explicit")
            cached = self._full[id(truth)] = status in SCORABLE_SUPPORT and all(
                c.get("support_status", status) in SCORABLE_SUPPORT
                for c in truth.get("components", [])
            )
        return cached

    def oligo_similarity(self, prediction: Json, truth: Json, *, scorable_only: bool) -> float:
        if scorable_only and self._fully_scorable(truth):
            scorable_only = False
        key = (id(prediction), id(truth), scorable_only)
        cached = self._oligo.get(key)
        if cached is None:
            self._keep.append((prediction, truth))
            cached = self._oligo[key] = self._compute_oligo_similarity(
                prediction, truth, scorable_only
            )
        return cached

    def _view(self, item: Json) -> _OligoView:
        view = self._views.get(id(item))
        if view is None:
            self._keep.append(item)
            view = self._views[id(item)] = _OligoView.of(item)
        return view

    def _compute_oligo_similarity(
        self, prediction: Json, truth: Json, scorable_only: bool
    ) -> float:
        """`uncached_oligo_similarity` with each record's ordered molecule prepared once."""
        t = self._view(truth)
        if t.kind not in ORDERED_KINDS or (scorable_only and not t.all_scorable):
            return uncached_oligo_similarity(prediction, truth, scorable_only)
        p = self._view(prediction)
        is_family = t.family_scorable if scorable_only else t.family_any
        if p.raw is not None and t.raw is not None and p.raw_normalized == t.raw_normalized:
            return 1.0
        predicted = p.family_encoded if is_family else p.raw_encoded
        expected = t.family_encoded if is_family else t.raw_encoded
        if predicted is None or expected is None:
            return uncached_oligo_similarity(prediction, truth, scorable_only)
        if is_family:
            return family_edit_similarity(predicted, expected)
        return edit_similarity(predicted, expected)

    def scientific_similarity(self, prediction: Json, truth: Json, *, scorable_only: bool) -> float:
        if scorable_only and self._fully_scorable(truth):
            scorable_only = False
        key = (id(prediction), id(truth), scorable_only)
        cached = self._scientific.get(key)
        if cached is None:
            self._keep.append((prediction, truth))
            cached = self._scientific[key] = weighted_supported_score(
                self.dimensions(prediction, truth, scorable_only=scorable_only), self._weights
            )
        return cached

    def dimensions(
        self, prediction: Json, truth: Json, *, scorable_only: bool
    ) -> dict[str, tuple[float, bool]]:
        truth_mods, neutral_mods, kind, orientation, kind_on, orientation_on, role_on = (
            self._truth_profile(truth, scorable_only)
        )
        predicted_mods = self.modification_claims(prediction)
        if scorable_only and neutral_mods:
            predicted_mods = predicted_mods - neutral_mods
        return {
            "sequence": (
                self.oligo_similarity(prediction, truth, scorable_only=scorable_only),
                True,
            ),
            "modifications": (set_f1(predicted_mods, truth_mods) if truth_mods else 1.0, True),
            "kind": (float(prediction.get("kind") == kind), kind_on),
            "orientation": (float(prediction.get("orientation") == orientation), orientation_on),
            "role": (controlled_role_similarity(prediction, truth), role_on),
        }

    def _truth_profile(
        self, truth: Json, scorable_only: bool
    ) -> tuple[frozenset[str], frozenset[str], str, str, bool, bool, bool]:
        """What `dimensions` reads from a truth record, prepared once per record."""
        key = (id(truth), scorable_only)
        cached = self._profiles.get(key)
        if cached is None:
            self._keep.append(truth)
            supported = (
                not scorable_only or truth.get("support_status", "explicit") in SCORABLE_SUPPORT
            )
            kind = str(truth.get("kind", "unknown"))
            orientation = str(truth.get("orientation", "unknown"))
            cached = self._profiles[key] = (
                self.modification_claims(
                    truth, allowed=SCORABLE_SUPPORT if scorable_only else None
                ),
                self.modification_claims(truth, allowed=NEUTRAL_SUPPORT)
                if scorable_only
                else frozenset(),
                kind,
                orientation,
                supported and kind != "unknown",
                supported and orientation != "unknown",
                supported and bool(controlled_roles(str(truth.get("role", "")))),
            )
        return cached

    def modification_claims(
        self, item: Json, *, allowed: frozenset[str] | None = None
    ) -> frozenset[str]:
        key = (id(item), allowed)
        cached = self._claims.get(key)
        if cached is None:
            self._keep.append(item)
            cached = self._claims[key] = frozenset(modification_claims_of(item, allowed))
        return cached
