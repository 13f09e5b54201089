"""Hand-worked scores: each expected value is computed by hand in the comment beside it."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from statistics import mean

import pytest

from lablang.scoring import Weights, WeightsError, score_documents
from lablang.scoring.aggregate import expected_best_of_k, summarize
from lablang.scoring.library import library_entries, score_libraries
from lablang.scoring.oligos import OligoScorer, score_oligos

V0 = "libstruct.library_structure.v0"


def _t1(*libraries: dict[str, str]) -> dict[str, object]:
    return {"schema_version": V0, "protocol_id": "p", "libraries": list(libraries)}


def test_one_substitution_in_a_library() -> None:
    """One substituted base in a 10-character projected library costs exactly 1/10."""
    # truth ACGTACGT[UMI:2] -> "ACGTACGT~~" (10 chars); prediction differs in one base
    # similarity = 1 - 1/10 = 0.9
    truth = {
        "protocol_id": "p",
        "libraries": [{"modality": "rna", "library_sequence": "ACGTACGT[UMI:2]"}],
    }
    pred = _t1({"library_id": "rna", "modality": "rna", "library_sequence": "ACGTACGA[UMI:2]"})
    result = score_documents({"t1": pred}, {"t1": truth})
    assert result.metrics["sequence_similarity"] == pytest.approx(0.9)


def test_payload_marker_counts_literally() -> None:
    """A truth `[CDNA]` stays six literal characters, so omitting it costs 6/14."""
    # truth "ACGT[CDNA]ACGT" keeps [CDNA] (14 chars); prediction "ACGTACGT" needs 6
    # insertions: similarity = 1 - 6/14 = 0.571428...
    truth = {
        "protocol_id": "p",
        "libraries": [{"modality": "rna", "library_sequence": "ACGT[CDNA]ACGT"}],
    }
    pred = _t1({"library_id": "rna", "modality": "rna", "library_sequence": "ACGTACGT"})
    result = score_documents({"t1": pred}, {"t1": truth})
    assert result.metrics["sequence_similarity"] == pytest.approx(1 - 6 / 14)


def test_greedy_library_matching_lets_the_first_truth_take_the_only_prediction() -> None:
    """With RNA and ATAC truths and only an ATAC prediction, RNA consumes it and both score 0."""
    # truth 1 (RNA, no id) finds no id or modality match, falls back to "any unused" and
    # takes the ATAC prediction: sim("CCCC", "AAAA") = 0; truth 2 has nothing left: 0.
    # sequence_similarity = (0 + 0) / 2 = 0; recall = 1/2; precision = 1/1
    truth = [
        {"modality": "gene expression", "library_sequence": "AAAA"},
        {"modality": "chromatin accessibility", "library_sequence": "CCCC"},
    ]
    predicted = [
        {"library_id": "atac", "modality": "chromatin accessibility", "library_sequence": "CCCC"}
    ]
    score = score_libraries(
        library_entries(_t1(*predicted), prediction=True),
        library_entries({"libraries": truth}, prediction=False),
    )
    assert score.metrics["sequence_similarity"] == 0.0
    assert score.metrics["library_recall"] == 0.5
    assert score.metrics["library_precision"] == 1.0


def _oligo(oligo_id: str, sequence: str, role: str = "PCR primer") -> dict[str, object]:
    return {"oligo_id": oligo_id, "name": oligo_id, "aliases": [], "role": role, "kind": "single",
            "sequence": sequence, "orientation": "5_to_3", "components": [], "modifications": []}  # fmt: skip


def test_one_base_oligo_error_and_a_missing_oligo() -> None:
    """A 1-in-10 base error scores 0.935; a second required oligo left out halves recall."""
    # dims: sequence 0.9, modifications 1 (truth has none), kind 1, orientation 1,
    # role 1 ("PCR primer" -> amplification_primer on both sides)
    # score = 0.65*0.9 + 0.15 + 0.10 + 0.05 + 0.05 = 0.935
    # P = 0.935/1, R = 0.935/2 = 0.4675, F1 = 2PR/(P+R) = 0.623333...; exact recall 0/2
    truth = [_oligo("a", "ACGTACGTAC"), _oligo("b", "TTTTGGGGCCCCAAAA")]
    predicted = [_oligo("x", "ACGTACGTAA")]
    score = score_oligos(predicted, truth, required_ids={"a", "b"}, scorer=OligoScorer(Weights()))
    assert score.matches[0].score == pytest.approx(0.935)
    assert score.metrics["required_family_precision"] == pytest.approx(0.935)
    assert score.metrics["required_family_recall"] == pytest.approx(0.4675)
    assert score.metrics["required_family_f1"] == pytest.approx(
        2 * 0.935 * 0.4675 / (0.935 + 0.4675)
    )
    assert score.metrics["exact_required_family_recall"] == 0.0
    assert score.unmatched_truth == ("b",)


def _graph() -> dict[str, dict[str, object]]:
    def state(sid: str, seq: str) -> dict[str, object]:
        strand = {"strand_id": f"{sid}_s", "name": "s", "molecule_type": "DNA", "orientation": "5_to_3",
                  "sequence_architecture": seq,
                  "segments": [{"segment_id": f"{sid}_g", "role": "r", "structural_role": "unpaired", "sequence": seq}]}  # fmt: skip
        return {"state_id": sid, "name": sid, "molecule_type": "DNA", "strand_architecture": "single_stranded",
                "reference_strand_id": f"{sid}_s", "physical_state": "", "strands": [strand],
                "paired_regions": [], "discontinuities": [], "properties": []}  # fmt: skip

    def transition(tid: str, op: str, a: str, b: str) -> dict[str, object]:
        return {"transition_id": tid, "substrate_state_ids": [a], "operation": op, "operation_detail": "",
                "oligo_ids": [], "major_reagents": [], "product_state_ids": [b],
                "carried_forward_product_ids": [b], "discarded_product_ids": []}  # fmt: skip

    t3 = {"protocol_id": "p", "workflows": [{
        "workflow_id": "w",
        "states": [state("s0", "AAAACCCC"), state("s1", "GGGGTTTT"), state("s2", "ACACGTGT")],
        "transitions": [transition("t0", "pcr", "s0", "s1"), transition("t1", "ligation", "s1", "s2")],
        "initial_state_ids": ["s0"], "final_outputs": [{"state_id": "s2", "modality": "gene expression"}],
    }]}  # fmt: skip
    return {"t2": {"protocol_id": "p", "oligos": []}, "t3": t3}


def test_wrong_operation_costs_its_weight() -> None:
    """A wrong operation on one of two transitions loses 0.30 there: F1 0.85, reward 0.895."""
    # states identical -> state map identical; transition t1: operation 0, the rest 1
    # -> 1 - 0.30 = 0.70; sum = 1.70 over 2 and 2: P = R = F1 = 0.85
    # T2 has nothing required: F1 = 1; reward = 0.30*1 + 0.70*0.85 = 0.895
    truth = _graph()
    pred = copy.deepcopy(truth)
    pred["t3"]["workflows"][0]["transitions"][1]["operation"] = "pcr"  # type: ignore[index]
    result = score_documents(pred, truth)
    assert result.metrics["t3_molecular_transition_f1"] == pytest.approx(0.85)
    assert result.metrics["t3_state_f1"] == pytest.approx(1.0)
    assert result.metrics["t3_typed_edge_f1"] == pytest.approx(1.0)
    assert result.metrics["reward"] == pytest.approx(0.895)


def test_reward_weights_are_overridable() -> None:
    """With reward weights 0.5/0.5 the same answer earns 0.5*1 + 0.5*0.85 = 0.925."""
    truth = _graph()
    pred = copy.deepcopy(truth)
    pred["t3"]["workflows"][0]["transitions"][1]["operation"] = "pcr"  # type: ignore[index]
    weights = Weights().with_overrides({"reward": {"t2": 0.5, "t3": 0.5}})
    assert score_documents(pred, truth, weights).metrics["reward"] == pytest.approx(0.925)


def test_weights_file_merges_into_defaults(tmp_path: Path) -> None:
    """A TOML file with one table overrides that table only; unknown keys are refused."""
    path = tmp_path / "w.toml"
    path.write_text("[transition]\noperation = 0.5\n")
    weights = Weights.from_file(path)
    assert weights.transition.operation == 0.5
    assert weights.transition.products == 0.20
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"reward": {"t4": 1}}))
    with pytest.raises(WeightsError, match="t4"):
        Weights.from_file(bad)


def test_best_of_k_equals_brute_force_over_subsets() -> None:
    """The closed form equals the mean maximum over all k-subsets of n = 10 attempts."""
    scores = [0.1, 0.9, 0.4, 0.4, 0.7, 0.0, 1.0, 0.35, 0.6, 0.2]
    for k in range(1, 11):
        brute = mean(max(c) for c in itertools.combinations(scores, k))
        assert expected_best_of_k(scores, k) == pytest.approx(brute)


def test_bootstrap_is_reproducible_for_a_seed() -> None:
    """The same seed gives the same CI; the CI brackets the mean of protocol means."""
    data = {"a": [0.1, 0.3], "b": [0.9, 0.7], "c": [0.5, 0.5]}
    first, second = summarize(data, seed=7), summarize(data, seed=7)
    assert (first.ci_low, first.ci_high) == (second.ci_low, second.ci_high)
    assert first.mean == pytest.approx(0.5)
    assert first.ci_low <= first.mean <= first.ci_high
