"""Task 2: oligo families, scored as the LibStructBench libgen grader does.

The required set is every truth oligo the truth graph (Task 3) uses; of those, the
ones whose sequence claims are explicit or derivable are scored. Predictions collapse
into families (a template with placeholders, or a flat panel of concrete members that
differ in one variable window), families are assigned one-to-one to required truth
oligos with sequence similarity as the primary key, and the matched scientific
similarities give a soft precision/recall/F1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import frozen

from lablang.scoring.matching import best_one_to_one_matching, soft_prf
from lablang.scoring.oligo_families import Family, FamilyScorer
from lablang.scoring.oligo_roles import controlled_role_similarity as controlled_role_similarity
from lablang.scoring.oligo_roles import controlled_roles as controlled_roles
from lablang.scoring.oligo_sequences import NEUTRAL_SUPPORT as NEUTRAL_SUPPORT
from lablang.scoring.oligo_sequences import ORDERED_KINDS as ORDERED_KINDS
from lablang.scoring.oligo_sequences import SCORABLE_SUPPORT as SCORABLE_SUPPORT
from lablang.scoring.oligo_sequences import canonical_signature as canonical_signature
from lablang.scoring.oligo_sequences import oligo_is_scorable, truth_is_family
from lablang.scoring.oligo_sequences import sequence_similarity as sequence_similarity
from lablang.scoring.oligo_sequences import truth_sequence_claims as truth_sequence_claims
from lablang.scoring.similarity import (
    name_similarity,
    text_collection_f1,
)

Json = dict[str, Any]


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


class OligoScorer(FamilyScorer):
    """The Task 2 scorer: member similarities (`OligoSimilarity`) and families
    (`FamilyScorer`), with per-run caches (records are identified by object id)."""


# ---- the Task 2 score ----------------------------------------------------------------


@frozen
class OligoMatch:
    prediction_ids: tuple[str, ...]
    prediction_id: str
    truth_id: str
    score: float
    assignment_score: float
    dimensions: Mapping[str, float | None]
    level: str  # "family" or "member"


@frozen
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
