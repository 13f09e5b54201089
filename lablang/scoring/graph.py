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
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

import attrs
import numpy as np

from lablang.scoring.matching import (
    Match,
    best_one_to_one_matching,
    best_partial_one_to_one_matching,
    soft_prf,
)
from lablang.scoring.normalize import modality_key, normalize_sequence, normalize_text
from lablang.scoring.oligos import SCORABLE_SUPPORT, OligoScorer, oligo_is_scorable
from lablang.scoring.similarity import (
    count_similarity,
    edit_similarity_matrix,
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
from lablang.scoring.weights import Weights

Json = dict[str, Any]
_EQUIVALENT_OPERATIONS = (frozenset({"extension", "strand_synthesis"}),)
_FLIPPED_OVERHANG = {
    "five_prime_overhang": "three_prime_overhang",
    "three_prime_overhang": "five_prime_overhang",
}


@attrs.frozen(slots=True)
class EntityPair:
    """One matched state or transition and why it scored what it did."""

    prediction_id: str
    truth_id: str
    score: float | None  # None when the truth entity is neutral (not scored)
    assignment_score: float
    dimensions: Mapping[str, float | None]


@attrs.frozen(slots=True)
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


@attrs.frozen(slots=True)
class GraphScore:
    metrics: Mapping[str, float]
    workflows: tuple[WorkflowScore, ...]


def supported(item: Mapping[str, Any]) -> bool:
    return item.get("support_status", "explicit") in SCORABLE_SUPPORT


def state_is_scorable(state: Mapping[str, Any]) -> bool:
    return (
        supported(state)
        or any(supported(s) for s in state.get("strands", []))
        or any(supported(p) for p in state.get("paired_regions", []))
        or any(supported(d) for d in state.get("discontinuities", []))
    )


class GraphScorer:
    def __init__(
        self,
        weights: Weights,
        oligos: OligoScorer,
        predicted_oligos: Mapping[str, Json] | None,
        truth_oligos: Mapping[str, Json] | None,
    ) -> None:
        self.weights = weights
        self.oligos = oligos
        # None when a side has no Task 2 document: oligos then compare by id only
        self.predicted_oligos = predicted_oligos
        self.truth_oligos = truth_oligos
        self._state_weights = {
            "reference_strand": weights.state.reference_strand,
            "architecture": weights.state.architecture,
            "segments": weights.state.segments,
            "pairing": weights.state.pairing,
        }
        self._state_denominator = sum(self._state_weights.values())
        self._transition_weights = {
            "operation": weights.transition.operation,
            "substrates": weights.transition.substrates,
            "products": weights.transition.products,
            "disposition": weights.transition.disposition,
            "oligos": weights.transition.oligos,
        }
        self._states: dict[tuple[int, int, bool, bool], float] = {}
        self._strands: dict[tuple[int, int, bool], float] = {}
        self._strand_content: dict[tuple[Any, ...], float] = {}
        self._table: dict[tuple[str, str], float] = {}
        self._columns: dict[int, tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]] = {}
        self._references: dict[int, tuple[str, ...] | None] = {}
        self._strand_keys: dict[int, tuple[Any, ...]] = {}
        self._architecture_keys: dict[int, tuple[Any, ...]] = {}
        self._linked: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}
        self._segments: dict[int, tuple[tuple[str, Any, str], ...]] = {}
        self._descriptors: dict[tuple[int, str | None, str], list[str]] = {}
        self._interned: dict[tuple[str, ...], list[str]] = {}
        self._pairings: dict[tuple[int, int, int, int], float] = {}
        self._state_cache: dict[tuple[int, int], Any] = {}
        self._transition_cache: dict[tuple[int, int], Any] = {}
        self._keep: list[Any] = []

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

    def _state_matrices(
        self, pw: Json | None, tw: Json | None
    ) -> tuple[
        list[Json],
        list[Json],
        list[list[float]],
        list[Match],
        dict[str, set[str]],
        dict[str, set[str]],
    ]:
        key = (id(pw), id(tw))
        if key not in self._state_cache:
            self._keep.append((pw, tw))
            self._state_cache[key] = self._compute_state_matrices(pw, tw)
        return self._state_cache[key]

    def _compute_state_matrices(
        self, pw: Json | None, tw: Json | None
    ) -> tuple[
        list[Json],
        list[Json],
        list[list[float]],
        list[Match],
        dict[str, set[str]],
        dict[str, set[str]],
    ]:
        ps = list(pw.get("states", [])) if pw else []
        ts = list(tw.get("states", [])) if tw else []
        self._prefill_sequence_table(ps, ts)
        self._prefill_strand_matrix(ps, ts)
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
    ) -> tuple[list[Json], list[Json], list[list[float]], list[Match]]:
        # the state map is a function of the workflow pair, so the pair is the key
        key = (id(pw), id(tw))
        if key not in self._transition_cache:
            self._keep.append((pw, tw))
            self._transition_cache[key] = self._compute_transition_matrices(pw, tw, state_map)
        return self._transition_cache[key]

    def _compute_transition_matrices(
        self, pw: Json | None, tw: Json | None, state_map: Mapping[str, str]
    ) -> tuple[list[Json], list[Json], list[list[float]], list[Match]]:
        pt = list(pw.get("transitions", [])) if pw else []
        tt = list(tw.get("transitions", [])) if tw else []
        dims = self.transition_dimension_matrix(pt, tt, state_map)
        scientific = [[self._weighted_transition(d) for d in row] for row in dims]
        tie = self.weights.transition.identity_tie_break
        assignment = []
        for i, row in enumerate(dims):
            assignment_row = []
            for j, d in enumerate(row):
                identity = [d["operation"]]
                if self._truth_has_scorable_oligo(tt[j]):
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
            score=lambda a, b: self._weighted_transition(
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

    # ---- states -------------------------------------------------------------------

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
                            w.reference_strand * self._reference_similarity(prediction, truth, rc),
                            w.architecture * self._architecture_similarity(prediction, truth),
                            w.segments
                            * self._strand_collection_similarity(prediction, truth, False, rc),
                            w.pairing * self._pairing_similarity(prediction, truth, False),
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
                self._reference_similarity(prediction, truth, rc),
                not scorable_only or supported(_reference_strand(truth)),
            ),
            "architecture": (
                self._architecture_similarity(prediction, truth),
                not scorable_only or supported(truth),
            ),
            "segments": (
                self._strand_collection_similarity(prediction, truth, scorable_only, rc),
                not scorable_only or any(supported(s) for s in truth.get("strands", [])),
            ),
            "pairing": (
                self._pairing_similarity(prediction, truth, scorable_only),
                not scorable_only
                or supported(truth)
                or any(supported(p) for p in truth.get("paired_regions", []))
                or any(supported(d) for d in truth.get("discontinuities", [])),
            ),
        }

    def _strand_collection_similarity(
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
                _hashable(strand.get("molecule_type")),
                _hashable(strand.get("orientation")),
            )
            self._strand_keys[id(strand)] = key
        return key

    def _strand_uncached(self, prediction: Json, truth: Json, rc: bool) -> float:
        if not rc:
            return self._strand_in_orientation(prediction, truth, False)
        direct = self.strand_similarity(prediction, truth, False)
        return max(direct, self._strand_in_orientation(prediction, truth, True))

    def _prefill_strand_matrix(self, predicted: list[Json], truth: list[Json]) -> None:
        """Direct-orientation similarity of every predicted strand with every truth strand,
        computed with whole-matrix numpy operations in the grader's exact order of
        floating-point operations (`_strand_in_orientation` is the scalar reference)."""
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

    def _strand_in_orientation(self, prediction: Json, truth: Json, reverse: bool) -> float:
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
                    _hashable(seg.get("structural_role")),
                    str(seg.get("structural_role", "")),
                )
                for seg in strand.get("segments", [])
            )
        return cached

    def descriptors(self, state: Json, support: str | None, kind: str) -> list[str]:
        """A state's pairing or break descriptors; equal lists are one object (interned),
        so `_pairing_similarity` can cache by identity what depends only on content."""
        key = (id(state), support, kind)
        cached = self._descriptors.get(key)
        if cached is None:
            self._keep.append(state)
            make = _pairing_descriptors if kind == "pairing" else _discontinuity_descriptors
            made = make(state, support)
            cached = self._descriptors[key] = self._interned.setdefault(tuple(made), made)
        return cached

    def _architecture_similarity(self, prediction: Json, truth: Json) -> float:
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

    def _pairing_similarity(self, prediction: Json, truth: Json, scorable_only: bool) -> float:
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

    def _reference_similarity(self, prediction: Json, truth: Json, rc: bool) -> float:
        predicted_values = self._reference_values(prediction)
        expected_values = self._reference_values(truth)
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

    def _reference_values(self, state: Json) -> tuple[str, ...] | None:
        """Encoded sequences of the reference strand (None when there is none)."""
        key = id(state)
        if key not in self._references:
            self._keep.append(state)
            strand = _reference_strand(state)
            self._references[key] = (
                tuple(encoded_value(v) for v in _architecture_values(strand)) if strand else None
            )
        return self._references[key]

    def _prefill_sequence_table(self, predicted: list[Json], truth: list[Json]) -> None:
        """Plain edit similarities of every reference-strand pair a state matrix will
        compare, in one rapidfuzz `cdist` call (aligned segments are compared in whole
        matrices by `_prefill_strand_matrix`). Pairs with a truth wildcard are left to
        the exact route."""
        queries: set[str] = set()
        choices: set[str] = set()
        for side, states in ((queries, predicted), (choices, truth)):
            for state in states:
                if isinstance(state, dict):
                    side.update(self._reference_values(state) or ())
        choices_plain = [c for c in choices if not has_state_wildcard(c)]
        if len(queries) * len(choices_plain) >= 16:  # fewer are not worth a batch call
            fill_edit_similarities(list(queries), choices_plain, self._table)

    # ---- transitions --------------------------------------------------------------

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
            "oligos": self._linked_oligos(
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
                        "oligos": self._linked_oligos(oligo_ids, truth_oligo_ids),
                        "disposition": (f1[2] + f1[3]) / 2,
                    }
                )
            rows.append(row)
        return rows

    def _weighted_transition(self, dimensions: Mapping[str, float]) -> float:
        return sum(self._transition_weights[k] * v for k, v in dimensions.items())

    def _truth_has_scorable_oligo(self, truth: Json) -> bool:
        if self.truth_oligos is None:
            return bool(truth.get("oligo_ids"))
        return any(
            oid in self.truth_oligos and oligo_is_scorable(self.truth_oligos[oid])
            for oid in truth.get("oligo_ids", [])
        )

    def _linked_oligos(self, predicted_ids: Iterable[str], truth_ids: Iterable[str]) -> float:
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


def segment_value(segment: Mapping[str, Any]) -> str:
    if isinstance(segment.get("sequence"), str):
        return segment["sequence"]
    if isinstance(segment.get("placeholder"), str):
        return segment["placeholder"]
    if isinstance(segment.get("length"), int):
        return f"[VARIABLE:{segment['length']}]"
    return "[UNKNOWN]"


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


def _hashable(value: Any) -> Any:
    """The value itself when hashable (so equal values stay equal), else a stand-in
    that equals no string."""
    if value is None or isinstance(value, str | int | float):
        return value
    return ("<unhashable>", repr(value))


def _architecture_key(state: Json) -> tuple[Any, ...]:
    strands = state.get("strands", [])
    return (
        _hashable(state.get("strand_architecture")),
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


def _selected(items: Iterable[Json], support: str | None) -> list[Json]:
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
    regions = _selected(state.get("paired_regions", []), support)
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
        for item in _selected(state.get("discontinuities", []), support)
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


def _mapped_set_f1(
    predicted_ids: Iterable[str], truth_ids: Iterable[str], mapping: Mapping[str, str]
) -> float:
    predicted = list(predicted_ids)
    mapped = {mapping[i] for i in predicted if i in mapping}
    truth = set(truth_ids)
    return soft_prf(float(len(mapped & truth)), len(set(predicted)), len(truth))[2]


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
    for transition in _selected(workflow.get("transitions", []), support):
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
