"""Task 3 workflows: one matched pair of workflows, its states assigned (partial
Hungarian, a small bonus for the same boundary class), then its transitions with the
state map in hand; the typed edges mapped through both maps."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from attrs import frozen

from lablang.scoring.matching import (
    Match,
    best_partial_one_to_one_matching,
    soft_prf,
)
from lablang.scoring.normalize import modality_key
from lablang.scoring.oligos import OligoScorer
from lablang.scoring.similarity import (
    multiset_f1,
    text_collection_f1,
)
from lablang.scoring.states import selected, state_is_scorable
from lablang.scoring.strands import supported
from lablang.scoring.transitions import TransitionScorer
from lablang.scoring.weights import Weights

Json = dict[str, Any]
TransitionMatrices = tuple[list[Json], list[Json], list[list[float]], list[Match]]
"""Predicted and truth entities, their scientific similarities, the assignment."""
StateMatrices = tuple[
    list[Json], list[Json], list[list[float]], list[Match], dict[str, set[str]], dict[str, set[str]]
]
"""The same for states, with each side's terminal modalities by state id."""


@frozen
class EntityPair:
    """One matched state or transition and why it scored what it did."""

    prediction_id: str
    truth_id: str
    score: float | None  # None when the truth entity is neutral (not scored)
    assignment_score: float
    dimensions: Mapping[str, float | None]


@frozen
class WorkflowScore:
    prediction_id: str | None
    truth_id: str | None
    match_score: float
    states: tuple[EntityPair, ...]
    transitions: tuple[EntityPair, ...]
    unmatched_truth_states: tuple[str, ...]
    unmatched_prediction_states: tuple[str, ...]
    unmatched_truth_transitions: tuple[str, ...]
    unmatched_prediction_transitions: tuple[str, ...]
    missing_edges: tuple[tuple[str, str, str], ...]
    extra_edges: tuple[tuple[str, str, str], ...]
    state_map: Mapping[str, str]
    transition_map: Mapping[str, str]


class WorkflowScorer(TransitionScorer):
    """One pair of workflows (either may be missing) scored, with its counts."""

    def __init__(
        self,
        weights: Weights,
        oligos: OligoScorer,
        predicted_oligos: Mapping[str, Json] | None,
        truth_oligos: Mapping[str, Json] | None,
    ) -> None:
        super().__init__(weights, oligos, predicted_oligos, truth_oligos)
        self._state_cache: dict[tuple[int, int], Any] = {}
        self._transition_cache: dict[tuple[int, int], Any] = {}

    def _state_matrices(self, pw: Json | None, tw: Json | None) -> StateMatrices:
        key = (id(pw), id(tw))
        if key not in self._state_cache:
            self._keep.append((pw, tw))
            self._state_cache[key] = self._compute_state_matrices(pw, tw)
        return self._state_cache[key]

    def _compute_state_matrices(self, pw: Json | None, tw: Json | None) -> StateMatrices:
        ps = list(pw.get("states", [])) if pw else []
        ts = list(tw.get("states", [])) if tw else []
        self.prefill_sequence_table(ps, ts)
        self.prefill_strand_matrix(ps, ts)
        p_modalities = _terminal_modalities(pw)
        t_modalities = _terminal_modalities(tw)
        p_positions = _boundary_classes(pw)
        t_positions = _boundary_classes(tw)
        scientific = [
            [
                self.state_similarity(
                    a, b, scorable_only=False, rc=_allows_rc(a, b, p_modalities, t_modalities)
                )
                for b in ts
            ]
            for a in ps
        ]
        tie = self.weights.state.boundary_tie_break
        assignment = [
            [
                (
                    scientific[i][j]
                    + tie
                    * float(
                        p_positions.get(str(a.get("state_id", "")), "intermediate")
                        == t_positions.get(str(b.get("state_id", "")), "intermediate")
                    )
                )
                / (1.0 + tie)
                for j, b in enumerate(ts)
            ]
            for i, a in enumerate(ps)
        ]
        matches = best_partial_one_to_one_matching(
            assignment, minimum_score=self.weights.minimum_assignment_score
        )
        return ps, ts, scientific, matches, p_modalities, t_modalities

    def _transition_matrices(
        self, pw: Json | None, tw: Json | None, state_map: Mapping[str, str]
    ) -> TransitionMatrices:
        # the state map is a function of the workflow pair, so the pair is the key
        key = (id(pw), id(tw))
        if key not in self._transition_cache:
            self._keep.append((pw, tw))
            self._transition_cache[key] = self._compute_transition_matrices(pw, tw, state_map)
        return self._transition_cache[key]

    def _compute_transition_matrices(
        self, pw: Json | None, tw: Json | None, state_map: Mapping[str, str]
    ) -> TransitionMatrices:
        pt = list(pw.get("transitions", [])) if pw else []
        tt = list(tw.get("transitions", [])) if tw else []
        dims = self.transition_dimension_matrix(pt, tt, state_map)
        scientific = [[self.weighted_transition(d) for d in row] for row in dims]
        tie = self.weights.transition.identity_tie_break
        assignment = []
        for i, row in enumerate(dims):
            assignment_row = []
            for j, d in enumerate(row):
                identity = [d["operation"]]
                if self.truth_has_scorable_oligo(tt[j]):
                    identity.append(d["oligos"])
                assignment_row.append((scientific[i][j] + tie * max(identity)) / (1.0 + tie))
            assignment.append(assignment_row)
        matches = best_partial_one_to_one_matching(
            assignment, minimum_score=self.weights.minimum_assignment_score
        )
        return pt, tt, scientific, matches

    def _workflow_assignment(self, pw: Json, tw: Json) -> float:
        ps, ts, scientific, matches, _, _ = self._state_matrices(pw, tw)
        state_map = {ps[i]["state_id"]: ts[j]["state_id"] for i, j, _ in matches}
        state_f1 = soft_prf(sum(scientific[i][j] for i, j, _ in matches), len(ps), len(ts))[2]
        pt, tt, t_scientific, t_matches = self._transition_matrices(pw, tw, state_map)
        transition_f1 = soft_prf(
            sum(t_scientific[i][j] for i, j, _ in t_matches), len(pt), len(tt)
        )[2]
        modality_f1 = multiset_f1(
            [modality_key(str(o.get("modality", ""))) for o in pw.get("final_outputs", [])],
            [modality_key(str(o.get("modality", ""))) for o in tw.get("final_outputs", [])],
        )
        w = self.weights.workflow
        return (
            w.terminal_modality * modality_f1 + w.transitions * transition_f1 + w.states * state_f1
        )

    def _score_workflow(
        self, pw: Json | None, tw: Json | None, match_score: float
    ) -> tuple[WorkflowScore, dict[str, float], dict[str, list[float]]]:
        ps, ts, scientific, matches, p_mod, t_mod = self._state_matrices(pw, tw)
        state_map = {ps[i]["state_id"]: ts[j]["state_id"] for i, j, _ in matches}
        state_counts, state_pairs, neutral_states = self._entity_counts(
            ps,
            ts,
            matches,
            scientific,
            score=lambda a, b: self.state_similarity(
                a, b, scorable_only=True, rc=_allows_rc(a, b, p_mod, t_mod)
            ),
            scorable=state_is_scorable,
            dimensions=lambda a, b: {
                k: (v if on else None)
                for k, (v, on) in self.state_dimensions(
                    a, b, scorable_only=True, rc=_allows_rc(a, b, p_mod, t_mod)
                ).items()
            },
            id_key="state_id",
        )
        pt, tt, t_scientific, t_matches = self._transition_matrices(pw, tw, state_map)
        transition_map = {pt[i]["transition_id"]: tt[j]["transition_id"] for i, j, _ in t_matches}
        transition_counts, transition_pairs, neutral_transitions = self._entity_counts(
            pt,
            tt,
            t_matches,
            t_scientific,
            score=lambda a, b: self.weighted_transition(
                self.transition_dimensions(a, b, state_map)
            ),
            scorable=supported,
            dimensions=lambda a, b: (
                dict(self.transition_dimensions(a, b, state_map)) if supported(b) else {}
            ),
            id_key="transition_id",
        )
        reagents = [
            text_collection_f1(
                [r.get("name", "") for r in pt[i].get("major_reagents", [])],
                [r.get("name", "") for r in tt[j].get("major_reagents", [])],
            )
            for i, j, _ in t_matches
            if supported(tt[j])
        ]
        edges = _typed_edge_analysis(pw, tw, state_map, transition_map)
        boundary: list[float] = []
        if pw and tw:
            truth_by_id = {s["state_id"]: s for s in ts}
            boundary = [
                _masked_boundary_f1(
                    pw["initial_state_ids"], tw["initial_state_ids"], state_map, truth_by_id
                ),
                _terminal_output_f1(pw["final_outputs"], tw["final_outputs"], state_map),
            ]
        counts = {
            "state_sum": state_counts[0],
            "state_pred": state_counts[1],
            "state_truth": state_counts[2],
            "transition_sum": transition_counts[0],
            "transition_pred": transition_counts[1],
            "transition_truth": transition_counts[2],
            "edge_matched": edges["matched"],
            "edge_pred": edges["predicted"],
            "edge_truth": edges["groundtruth"],
            "edge_neutral": edges["neutralized"],
        }
        scorable_truth_states = {j for j, s in enumerate(ts) if state_is_scorable(s)}
        scorable_truth_transitions = {j for j, s in enumerate(tt) if supported(s)}
        result = WorkflowScore(
            prediction_id=pw.get("workflow_id") if pw else None,
            truth_id=tw.get("workflow_id") if tw else None,
            match_score=match_score,
            states=state_pairs,
            transitions=transition_pairs,
            unmatched_truth_states=tuple(
                sorted(ts[j]["state_id"] for j in scorable_truth_states - {m[1] for m in matches})
            ),
            unmatched_prediction_states=tuple(
                sorted(
                    ps[i]["state_id"]
                    for i in set(range(len(ps))) - {m[0] for m in matches} - neutral_states
                )
            ),
            unmatched_truth_transitions=tuple(
                sorted(
                    tt[j]["transition_id"]
                    for j in scorable_truth_transitions - {m[1] for m in t_matches}
                )
            ),
            unmatched_prediction_transitions=tuple(
                sorted(
                    pt[i]["transition_id"]
                    for i in set(range(len(pt))) - {m[0] for m in t_matches} - neutral_transitions
                )
            ),
            missing_edges=tuple(edges["missing"]),
            extra_edges=tuple(edges["extra"]),
            state_map=state_map,
            transition_map=transition_map,
        )
        return result, counts, {"boundary": boundary, "reagents": reagents}

    def _entity_counts(
        self,
        predicted: list[Json],
        truth: list[Json],
        matches: list[Match],
        all_scores: list[list[float]],
        *,
        score: Callable[[Json, Json], float],
        scorable: Callable[[Json], bool],
        dimensions: Callable[[Json, Json], Mapping[str, float | None]],
        id_key: str,
    ) -> tuple[tuple[float, int, int], tuple[EntityPair, ...], set[int]]:
        scorable_truth = {j for j, item in enumerate(truth) if scorable(item)}
        neutral_truth = set(range(len(truth))) - scorable_truth
        total = 0.0
        neutralized: set[int] = set()
        pairs = []
        for i, j, alignment in matches:
            scored = j in scorable_truth
            value = score(predicted[i], truth[j]) if scored else None
            if value is not None:
                total += value
            if not scored and all_scores[i][j] == 1.0:
                neutralized.add(i)
            pairs.append(
                EntityPair(
                    prediction_id=str(predicted[i].get(id_key)),
                    truth_id=str(truth[j].get(id_key)),
                    score=value,
                    assignment_score=alignment,
                    dimensions=dimensions(predicted[i], truth[j]) if scored else {},
                )
            )
        for i in set(range(len(predicted))) - {m[0] for m in matches}:
            if any(all_scores[i][j] == 1.0 for j in neutral_truth):
                neutralized.add(i)
        return (
            (total, len(predicted) - len(neutralized), len(scorable_truth)),
            tuple(pairs),
            neutralized,
        )


def _terminal_modalities(workflow: Mapping[str, Any] | None) -> dict[str, set[str]]:
    result: dict[str, set[str]] = defaultdict(set)
    for output in (workflow or {}).get("final_outputs", []):
        state_id = str(output.get("state_id", ""))
        if state_id:
            result[state_id].add(modality_key(str(output.get("modality", ""))))
    return result


def _boundary_classes(workflow: Mapping[str, Any] | None) -> dict[str, str]:
    if workflow is None:
        return {}
    initial = set(workflow.get("initial_state_ids", []))
    terminal = {str(o.get("state_id", "")) for o in workflow.get("final_outputs", [])}
    result = {}
    for state in workflow.get("states", []):
        sid = str(state.get("state_id", ""))
        if sid in initial and sid in terminal:
            result[sid] = "initial_terminal"
        elif sid in initial:
            result[sid] = "initial"
        elif sid in terminal:
            result[sid] = "terminal"
        else:
            result[sid] = "intermediate"
    return result


def _allows_rc(
    prediction: Mapping[str, Any],
    truth: Mapping[str, Any],
    predicted: Mapping[str, set[str]],
    expected: Mapping[str, set[str]],
) -> bool:
    """Reverse complement counts only for terminal states that share a modality."""
    return bool(
        predicted.get(str(prediction.get("state_id", "")), set())
        & expected.get(str(truth.get("state_id", "")), set())
    )


def _masked_boundary_f1(
    predicted_ids: Iterable[str],
    truth_ids: Iterable[str],
    mapping: Mapping[str, str],
    truth_states: Mapping[str, Json],
) -> float:
    truth = set(truth_ids)
    scorable = {i for i in truth if i in truth_states and state_is_scorable(truth_states[i])}
    neutral = truth - scorable
    effective = [m for m in (mapping.get(i) for i in predicted_ids) if m not in neutral]
    return soft_prf(float(len(set(effective) & scorable)), len(effective), len(scorable))[2]


def _terminal_output_f1(
    predicted_outputs: Iterable[Mapping[str, Any]],
    truth_outputs: Iterable[Mapping[str, Any]],
    mapping: Mapping[str, str],
) -> float:
    predicted = [
        (mapping.get(str(o.get("state_id"))), modality_key(str(o.get("modality", ""))))
        for o in predicted_outputs
    ]
    truth = [
        (str(o.get("state_id")), modality_key(str(o.get("modality", "")))) for o in truth_outputs
    ]
    overlap = sum((Counter(p for p in predicted if p[0] is not None) & Counter(truth)).values())
    return soft_prf(float(overlap), len(predicted), len(truth))[2]


def typed_edges(
    workflow: Mapping[str, Any], support: str | None = None
) -> set[tuple[str, str, str]]:
    """(substrate, state, transition), (carried_product | discarded_product, transition, state)."""
    edges: set[tuple[str, str, str]] = set()
    for transition in selected(workflow.get("transitions", []), support):
        tid = transition["transition_id"]
        edges.update(("substrate", s, tid) for s in transition.get("substrate_state_ids", []))
        edges.update(
            ("carried_product", tid, s) for s in transition.get("carried_forward_product_ids", [])
        )
        edges.update(
            ("discarded_product", tid, s) for s in transition.get("discarded_product_ids", [])
        )
    return edges


def _typed_edge_analysis(
    pw: Json | None,
    tw: Json | None,
    state_map: Mapping[str, str],
    transition_map: Mapping[str, str],
) -> dict[str, Any]:
    predicted = typed_edges(pw or {})
    if tw is None:
        return {"matched": 0, "predicted": len(predicted), "groundtruth": 0, "neutralized": 0,
                "missing": [], "extra": sorted(predicted)}  # fmt: skip
    scorable = typed_edges(tw, "scorable")
    neutral = typed_edges(tw, "neutral")
    if pw is None:
        return {"matched": 0, "predicted": 0, "groundtruth": len(scorable), "neutralized": 0,
                "missing": sorted(scorable), "extra": []}  # fmt: skip
    mapped: dict[tuple[str, str, str], tuple[str, str, str] | None] = {}
    for kind, left, right in predicted:
        if kind == "substrate":
            a, b = state_map.get(left), transition_map.get(right)
        else:
            a, b = transition_map.get(left), state_map.get(right)
        mapped[(kind, left, right)] = (kind, a, b) if a is not None and b is not None else None
    mapped_set = {m for m in mapped.values() if m is not None}
    matched = mapped_set & scorable
    neutralized = len(mapped_set & neutral)
    return {
        "matched": len(matched),
        "predicted": len(predicted) - neutralized,
        "groundtruth": len(scorable),
        "neutralized": neutralized,
        "missing": sorted(scorable - matched),
        "extra": sorted(e for e, m in mapped.items() if m not in scorable and m not in neutral),
    }
