"""Task 3: the molecular-state graph, scored as the LibStructBench libgen grader does.

Workflows are assigned one-to-one; inside a matched pair, states are assigned (partial
Hungarian, minimum 0.25, a small bonus for the same boundary class), then transitions
with the state map in hand (same minimum, a small bonus for the same event identity).
Matched scientific scores give soft precision/recall/F1; typed edges mapped through
both maps give an exact set F1. Truth entities that are not explicit or derivable are
neutral: they are not required, and an exact prediction of one is not an error.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from lablang.scoring.matching import (
    best_one_to_one_matching,
    soft_prf,
)
from lablang.scoring.states import state_is_scorable as state_is_scorable
from lablang.scoring.strands import segment_value as segment_value
from lablang.scoring.strands import supported as supported
from lablang.scoring.transitions import operation_similarity as operation_similarity
from lablang.scoring.workflows import EntityPair as EntityPair
from lablang.scoring.workflows import WorkflowScore, WorkflowScorer
from lablang.scoring.workflows import typed_edges as typed_edges

Json = dict[str, Any]


@frozen
class GraphScore:
    metrics: Mapping[str, float]
    workflows: tuple[WorkflowScore, ...]


class GraphScorer(WorkflowScorer):
    """The Task 3 score of a whole graph: workflows assigned one-to-one, then each pair
    scored (`WorkflowScorer`) and the counts pooled into the metrics."""

    # ---- the whole graph ------------------------------------------------------------

    def score(self, prediction: Json, truth: Json) -> GraphScore:
        predicted_workflows = list(prediction.get("workflows", []))
        truth_workflows = list(truth.get("workflows", []))
        matrix = [
            [self._workflow_assignment(p, t) for t in truth_workflows] for p in predicted_workflows
        ]
        matches = best_one_to_one_matching(matrix)
        pairs: list[tuple[int | None, int | None, float]] = list(matches)
        pairs += [
            (i, None, 0.0)
            for i in range(len(predicted_workflows))
            if i not in {m[0] for m in matches}
        ]
        pairs += [
            (None, j, 0.0) for j in range(len(truth_workflows)) if j not in {m[1] for m in matches}
        ]
        pairs.sort(
            key=lambda p: (
                p[1] is None,
                p[1] if p[1] is not None else len(truth_workflows),
                p[0] if p[0] is not None else len(predicted_workflows),
            )
        )
        totals = Counter[str]()
        sums: defaultdict[str, float] = defaultdict(float)
        boundary: list[float] = []
        reagents: list[float] = []
        workflows = []
        for p, t, match_score in pairs:
            pw = predicted_workflows[p] if p is not None else None
            tw = truth_workflows[t] if t is not None else None
            result, counts, extra = self._score_workflow(pw, tw, match_score)
            workflows.append(result)
            for key, value in counts.items():
                if key.endswith("_sum"):
                    sums[key] += value
                else:
                    totals[key] += int(value)
            boundary.extend(extra["boundary"])
            reagents.extend(extra["reagents"])
        state_p, state_r, state_f = soft_prf(
            sums["state_sum"], totals["state_pred"], totals["state_truth"]
        )
        tr_p, tr_r, tr_f = soft_prf(
            sums["transition_sum"], totals["transition_pred"], totals["transition_truth"]
        )
        matched, pe, te = totals["edge_matched"], totals["edge_pred"], totals["edge_truth"]
        edge_f1 = 1.0 if pe == te == 0 else (2.0 * matched / (pe + te) if pe + te else 0.0)
        edge_p = matched / pe if pe else (1.0 if te == 0 else 0.0)
        edge_r = matched / te if te else (1.0 if pe == 0 else 0.0)
        metrics = {
            "molecular_transition_precision": tr_p,
            "molecular_transition_recall": tr_r,
            "molecular_transition_f1": tr_f,
            "typed_edge_precision": edge_p,
            "typed_edge_recall": edge_r,
            "typed_edge_f1": edge_f1,
            "state_precision": state_p,
            "state_recall": state_r,
            "state_f1": state_f,
            "boundary_f1": sum(boundary) / len(boundary) if boundary else 0.0,
            "major_reagent_name_f1": sum(reagents) / len(reagents) if reagents else 0.0,
            "predicted_workflow_count": float(len(predicted_workflows)),
            "groundtruth_workflow_count": float(len(truth_workflows)),
            "predicted_state_count": float(totals["state_pred"]),
            "groundtruth_state_count": float(totals["state_truth"]),
            "predicted_transition_count": float(totals["transition_pred"]),
            "groundtruth_transition_count": float(totals["transition_truth"]),
            "matched_typed_edge_count": float(matched),
            "predicted_typed_edge_count": float(pe),
            "groundtruth_typed_edge_count": float(te),
            "neutralized_typed_edge_count": float(totals["edge_neutral"]),
        }
        return GraphScore(metrics=metrics, workflows=tuple(workflows))
