"""Task 3 transitions: operation, substrates, products, disposition and linked
oligos, with the state map of the matched workflow pair."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lablang.scoring.matching import (
    soft_prf,
)
from lablang.scoring.oligo_sequences import oligo_is_scorable
from lablang.scoring.oligos import OligoScorer
from lablang.scoring.states import StateScorer
from lablang.scoring.weights import Weights

Json = dict[str, Any]
_EQUIVALENT_OPERATIONS = (frozenset({"extension", "strand_synthesis"}),)


class TransitionScorer(StateScorer):
    """Transition similarities, by dimension; oligos are compared through Task 2."""

    def __init__(
        self,
        weights: Weights,
        oligos: OligoScorer,
        predicted_oligos: Mapping[str, Json] | None,
        truth_oligos: Mapping[str, Json] | None,
    ) -> None:
        super().__init__(weights)
        self.oligos = oligos
        # None when a side has no Task 2 document: oligos then compare by id only
        self.predicted_oligos = predicted_oligos
        self.truth_oligos = truth_oligos
        self._transition_weights = {
            "operation": weights.transition.operation,
            "substrates": weights.transition.substrates,
            "products": weights.transition.products,
            "disposition": weights.transition.disposition,
            "oligos": weights.transition.oligos,
        }
        self._linked: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}

    def transition_dimensions(
        self, prediction: Json, truth: Json, state_map: Mapping[str, str]
    ) -> dict[str, float]:
        return {
            "operation": operation_similarity(
                str(prediction.get("operation", "")), str(truth.get("operation", ""))
            ),
            "substrates": _mapped_set_f1(
                prediction.get("substrate_state_ids", []),
                truth.get("substrate_state_ids", []),
                state_map,
            ),
            "products": _mapped_set_f1(
                prediction.get("product_state_ids", []),
                truth.get("product_state_ids", []),
                state_map,
            ),
            "oligos": self.linked_oligos(
                prediction.get("oligo_ids", []), truth.get("oligo_ids", [])
            ),
            "disposition": (
                _mapped_set_f1(
                    prediction.get("carried_forward_product_ids", []),
                    truth.get("carried_forward_product_ids", []),
                    state_map,
                )
                + _mapped_set_f1(
                    prediction.get("discarded_product_ids", []),
                    truth.get("discarded_product_ids", []),
                    state_map,
                )
            )
            / 2,
        }

    def transition_dimension_matrix(
        self, predicted: list[Json], truth: list[Json], state_map: Mapping[str, str]
    ) -> list[list[dict[str, float]]]:
        """`transition_dimensions` of every pair, with each transition's id sets mapped
        once instead of once per pair (the same set operations, so the same values)."""
        fields = (
            "substrate_state_ids",
            "product_state_ids",
            "carried_forward_product_ids",
            "discarded_product_ids",
        )
        left = []
        for a in predicted:
            mapped = []
            for name in fields:
                ids = list(a.get(name, []))
                mapped.append(({state_map[i] for i in ids if i in state_map}, len(set(ids))))
            left.append((str(a.get("operation", "")), mapped, a.get("oligo_ids", [])))
        right = [
            (
                str(b.get("operation", "")),
                [set(b.get(name, [])) for name in fields],
                b.get("oligo_ids", []),
            )
            for b in truth
        ]
        rows = []
        for operation, mapped, oligo_ids in left:
            row = []
            for truth_operation, expected, truth_oligo_ids in right:
                f1 = [
                    soft_prf(float(len(m & e)), n, len(e))[2]
                    for (m, n), e in zip(mapped, expected, strict=True)
                ]
                row.append(
                    {
                        "operation": operation_similarity(operation, truth_operation),
                        "substrates": f1[0],
                        "products": f1[1],
                        "oligos": self.linked_oligos(oligo_ids, truth_oligo_ids),
                        "disposition": (f1[2] + f1[3]) / 2,
                    }
                )
            rows.append(row)
        return rows

    def weighted_transition(self, dimensions: Mapping[str, float]) -> float:
        return sum(self._transition_weights[k] * v for k, v in dimensions.items())

    def truth_has_scorable_oligo(self, truth: Json) -> bool:
        if self.truth_oligos is None:
            return bool(truth.get("oligo_ids"))
        return any(
            oid in self.truth_oligos and oligo_is_scorable(self.truth_oligos[oid])
            for oid in truth.get("oligo_ids", [])
        )

    def linked_oligos(self, predicted_ids: Iterable[str], truth_ids: Iterable[str]) -> float:
        key = (tuple(predicted_ids), tuple(truth_ids))
        cached = self._linked.get(key)
        if cached is not None:
            return cached
        if self.predicted_oligos is None or self.truth_oligos is None:
            # without both oligo lists, the best available evidence is the ids themselves
            value = soft_prf(
                float(len(set(key[0]) & set(key[1]))), len(set(key[0])), len(set(key[1]))
            )[2]
        else:
            predicted = [self.predicted_oligos[i] for i in key[0] if i in self.predicted_oligos]
            truth = [self.truth_oligos[i] for i in key[1] if i in self.truth_oligos]
            value = self.oligos.transition_oligo_f1(predicted, truth)
        self._linked[key] = value
        return value


def operation_similarity(prediction: str, truth: str) -> float:
    """1.0 for the same operation or a published equivalent (extension == strand_synthesis)."""
    if prediction == truth:
        return 1.0
    if any(prediction in group and truth in group for group in _EQUIVALENT_OPERATIONS):
        return 1.0
    return 0.0


def _mapped_set_f1(
    predicted_ids: Iterable[str], truth_ids: Iterable[str], mapping: Mapping[str, str]
) -> float:
    predicted = list(predicted_ids)
    mapped = {mapping[i] for i in predicted if i in mapping}
    truth = set(truth_ids)
    return soft_prf(float(len(mapped & truth)), len(set(predicted)), len(truth))[2]
