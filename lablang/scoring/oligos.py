"""Task 2: oligo families, scored as the LibStructBench libgen grader does.

The required set is every truth oligo the truth graph (Task 3) uses; of those, the
ones whose sequence claims are explicit or derivable are scored. Predictions collapse
into families (a template with placeholders, or a flat panel of concrete members that
differ in one variable window), families are assigned one-to-one to required truth
oligos with sequence similarity as the primary key, and the matched scientific
similarities give a soft precision/recall/F1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from lablang.scoring.matching import best_one_to_one_matching, edit_similarity, soft_prf
from lablang.scoring.normalize import (
    FAMILY_PLACEHOLDER_RE,
    normalize_sequence,
    normalize_text,
    sequence_tokens,
)
from lablang.scoring.similarity import (
    encoded_value,
    family_edit_similarity,
    name_similarity,
    nucleotide_projection,
    sequence_value,
    set_f1,
    text_collection_f1,
    weighted_supported_score,
)
from lablang.scoring.weights import Weights

Json = dict[str, Any]
SCORABLE_SUPPORT = frozenset({"explicit", "derivable"})
NEUTRAL_SUPPORT = frozenset({"externally_completed", "ambiguous", "unsupported"})
ORDERED_KINDS = frozenset({"single", "assembled", "hairpin"})
_NUCLEOTIDE_TOKEN_RE = re.compile(r"^(?:[ACGTUNV]|[r+][ACGTUNV])$")
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
_VARIABLE_EXCLUSIONS = frozenset(
    {
        "adapter", "arm", "capture arm", "handle", "hybridization", "hybridisation", "linker",
        "mosaic end", "primer binding",
    }
)  # fmt: skip
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


@attrs.frozen(slots=True)
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


@attrs.frozen(slots=True)
class Family:
    """Predicted oligos that count as one family (one prediction)."""

    representative: int
    members: tuple[int, ...]
    signature: tuple[str, ...]


def required_oligo_ids(t3_truth: Mapping[str, Any]) -> set[str]:
    """Truth oligos the truth graph uses: transition `oligo_ids` and segment provenance."""
    required: set[str] = set()
    for workflow in t3_truth.get("workflows", []):
        for transition in workflow.get("transitions", []):
            required.update(transition.get("oligo_ids", []))
        for state in workflow.get("states", []):
            for strand in state.get("strands", []):
                for segment in strand.get("segments", []):
                    required.update(
                        item["oligo_id"] for item in segment.get("oligo_derivations", [])
                    )
    return required


class OligoScorer:
    """Oligo similarities with per-run caches (records are identified by object id)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._oligo: dict[tuple[int, int, bool], float] = {}
        self._scientific: dict[tuple[int, int, bool], float] = {}
        self._claims: dict[tuple[int, Any], frozenset[str]] = {}
        self._signatures: dict[tuple[int, tuple[int, ...]], tuple[str, ...]] = {}
        self._metadata: dict[int, tuple[Any, ...]] = {}
        self._full: dict[int, bool] = {}
        self._views: dict[int, _OligoView] = {}
        self._profiles: dict[tuple[int, bool], Any] = {}
        self._weights = attrs.asdict(weights.oligo)
        self._keep: list[Any] = []  # keeps cached records alive so ids stay unique

    # ---- sequence similarity ------------------------------------------------------

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
        """`_oligo_similarity` with each record's ordered molecule prepared once."""
        t = self._view(truth)
        if t.kind not in ORDERED_KINDS or (scorable_only and not t.all_scorable):
            return _oligo_similarity(prediction, truth, scorable_only)
        p = self._view(prediction)
        is_family = t.family_scorable if scorable_only else t.family_any
        if p.raw is not None and t.raw is not None and p.raw_normalized == t.raw_normalized:
            return 1.0
        predicted = p.family_encoded if is_family else p.raw_encoded
        expected = t.family_encoded if is_family else t.raw_encoded
        if predicted is None or expected is None:
            return _oligo_similarity(prediction, truth, scorable_only)
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
            cached = self._claims[key] = frozenset(_modification_claims(item, allowed))
        return cached

    # ---- families -----------------------------------------------------------------

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
                indices, key=lambda i: (not _has_family_template(predictions[i]), i)
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
        if template != raw or _has_family_template(prediction):
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
        if len(family.members) == 1:  # most families: the max of one value, without a generator
            return self.scientific_similarity(
                predictions[family.members[0]], truth, scorable_only=scorable_only
            )
        return max(
            (
                self.scientific_similarity(predictions[i], truth, scorable_only=scorable_only)
                for i in family.members
            ),
            default=0.0,
        )

    def family_sequence_similarity(
        self, family: Family, predictions: list[Json], truth: Json, *, scorable_only: bool
    ) -> float:
        if len(family.members) == 1:
            return self.oligo_similarity(
                predictions[family.members[0]], truth, scorable_only=scorable_only
            )
        return max(
            (
                self.oligo_similarity(predictions[i], truth, scorable_only=scorable_only)
                for i in family.members
            ),
            default=0.0,
        )

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


# ---- the Task 2 score ----------------------------------------------------------------


@attrs.frozen(slots=True)
class OligoMatch:
    prediction_ids: tuple[str, ...]
    prediction_id: str
    truth_id: str
    score: float
    assignment_score: float
    dimensions: Mapping[str, float | None]
    level: str  # "family" or "member"


@attrs.frozen(slots=True)
class OligoScore:
    metrics: Mapping[str, float]
    matches: tuple[OligoMatch, ...]
    unmatched_truth: tuple[str, ...]
    unmatched_predictions: tuple[str, ...]
    neutralized_predictions: tuple[str, ...]


def score_oligos(
    predictions: list[Json],
    truth: list[Json],
    *,
    required_ids: set[str],
    scorer: OligoScorer,
) -> OligoScore:
    """Required-family precision/recall/F1 and exact recall of predicted oligos."""
    used = {i for i, t in enumerate(truth) if t["oligo_id"] in required_ids}
    scorable = {i for i in used if oligo_is_scorable(truth[i])}
    optional = {i for i, t in enumerate(truth) if t["oligo_id"] not in required_ids}
    neutral = (used - scorable) | optional
    required = sorted(scorable)
    families = scorer.collapse_families(predictions, truth)

    def sim(family: Family, index: int, only: bool) -> float:
        return scorer.family_similarity(family, predictions, truth[index], scorable_only=only)

    pre_neutral = {
        f
        for f, family in enumerate(families)
        if any(sim(family, i, False) == 1.0 for i in neutral)
        and not any(sim(family, i, True) == 1.0 for i in scorable)
    }
    active = [f for f in range(len(families)) if f not in pre_neutral]
    assignment = [
        [
            scorer.family_assignment_similarity(
                families[f], predictions, truth[i], scorable_only=True
            )
            for i in required
        ]
        for f in active
    ]
    matches = [
        (active[p], required[t], sim(families[active[p]], required[t], True), s)
        for p, t, s in best_one_to_one_matching(assignment)
    ]
    details: list[OligoMatch] = []
    score_sum = 0.0
    for family_index, truth_index, score, assignment_score in matches:
        family = families[family_index]
        member = scorer.best_member(family, predictions, truth[truth_index], scorable_only=True)
        dims = scorer.dimensions(predictions[member], truth[truth_index], scorable_only=True)
        score_sum += score
        details.append(
            OligoMatch(
                prediction_ids=tuple(_oligo_id(predictions, i) for i in family.members),
                prediction_id=_oligo_id(predictions, member),
                truth_id=truth[truth_index]["oligo_id"],
                score=score,
                assignment_score=assignment_score,
                dimensions={k: (v if on else None) for k, (v, on) in dims.items()},
                level="family"
                if truth_is_family(truth[truth_index], scorable_only=True)
                else "member",
            )
        )
    matched = {m[0] for m in matches}
    unmatched = set(range(len(families))) - matched
    neutralized = set(pre_neutral)
    for f in unmatched:
        if any(sim(families[f], i, False) == 1.0 for i in neutral):
            neutralized.add(f)
    effective = len(families) - len(neutralized)
    precision, recall, f1 = soft_prf(score_sum, effective, len(scorable))
    exact = sum(score == 1.0 for _, _, score, _ in matches)
    metrics = {
        "required_family_precision": precision,
        "required_family_recall": recall,
        "required_family_f1": f1,
        "exact_required_family_recall": exact / len(scorable) if scorable else 1.0,
        "predicted_member_count": float(len(predictions)),
        "predicted_family_count": float(len(families)),
        "effective_prediction_family_count": float(effective),
        "used_groundtruth_count": float(len(used)),
        "required_family_count": float(len(scorable)),
        "optional_groundtruth_count": float(len(optional)),
        "neutralized_prediction_family_count": float(len(neutralized)),
    }
    matched_truth = {m[1] for m in matches}
    return OligoScore(
        metrics=metrics,
        matches=tuple(details),
        unmatched_truth=tuple(sorted(truth[i]["oligo_id"] for i in scorable - matched_truth)),
        unmatched_predictions=tuple(
            _oligo_id(predictions, families[f].representative)
            for f in sorted(unmatched - neutralized)
        ),
        neutralized_predictions=tuple(
            _oligo_id(predictions, families[f].representative) for f in sorted(neutralized)
        ),
    )


def _oligo_id(predictions: list[Json], index: int) -> str:
    return str(predictions[index].get("oligo_id", f"prediction_{index}"))


# ---- claims and roles ----------------------------------------------------------------


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


def _has_family_template(item: Mapping[str, Any]) -> bool:
    values = []
    if isinstance(item.get("sequence"), str):
        values.append(item["sequence"])
    values.extend(
        c["placeholder"]
        for c in item.get("components", [])
        if isinstance(c.get("placeholder"), str)
    )
    return any(FAMILY_PLACEHOLDER_RE.search(normalize_sequence(v)) for v in values)


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


def _modification_claims(item: Mapping[str, Any], allowed: frozenset[str] | None) -> set[str]:
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


# ---- molecule sequences and signatures -------------------------------------------------


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


def _oligo_similarity(prediction: Json, truth: Json, scorable_only: bool) -> float:
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


# ---- flat panels ----------------------------------------------------------------------


def _flat_panel_signatures(
    predictions: list[Json], signatures: list[tuple[str, ...]], scorer: OligoScorer
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


__all__ = [
    "Family",
    "OligoMatch",
    "OligoScore",
    "OligoScorer",
    "name_similarity",
    "required_oligo_ids",
    "score_oligos",
    "text_collection_f1",
]
