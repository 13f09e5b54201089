"""Scoring compares bounded documents: a Task 3 graph, Task 2 oligo list or Task 1
sequence past its limit is E0530 (a prediction scores 0), in bounded time and memory."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from lablang.scoring import score_files
from tests.hostile.bounded import ROOT, run_bounded

TRUTH_T3 = ROOT / "tests" / "scoring" / "data" / "truth_10x" / "truth_t3.json"


def chain_of_states(count: int) -> dict[str, Any]:
    """A valid Task 3 document: one workflow of `count` states in a chain."""
    document = json.loads(TRUTH_T3.read_text())
    workflow = document["workflows"][0]
    states, transitions = [], []
    for i in range(count):
        state = copy.deepcopy(workflow["states"][i % len(workflow["states"])])
        state["state_id"] = f"s{i}"
        states.append(state)
    for i in range(count - 1):
        transition = copy.deepcopy(workflow["transitions"][i % len(workflow["transitions"])])
        transition.update(
            transition_id=f"t{i}",
            substrate_state_ids=[f"s{i}"],
            product_state_ids=[f"s{i + 1}"],
            carried_forward_product_ids=[f"s{i + 1}"],
            discarded_product_ids=[],
        )
        transitions.append(transition)
    finals = [dict(workflow["final_outputs"][0], state_id=f"s{count - 1}")]
    chained = dict(
        workflow,
        states=states,
        transitions=transitions,
        initial_state_ids=["s0"],
        final_outputs=finals,
    )
    return dict(document, workflows=[chained])


def test_an_oversized_prediction_scores_zero_with_E0530(tmp_path: Path) -> None:
    """A 3,000-state prediction against the real truth is E0530 and scores 0, fast."""
    prediction = tmp_path / "pred_t3.json"
    prediction.write_text(json.dumps(chain_of_states(3000)))
    run = run_bounded(
        ["score", str(prediction), "--truth", str(TRUTH_T3)], cpu_seconds=30, memory_mb=1200
    )
    run.assert_clean()
    assert "error[E0530]: the prediction is too large to score: T3 has 3000 states" in run.output
    assert "max_scored_states" in run.output
    result = score_files(prediction, TRUTH_T3)
    assert result.metrics["t3_state_f1"] == 0.0


def test_an_oversized_truth_leaves_the_task_unscored(tmp_path: Path) -> None:
    """A truth past the bound is E0530 and T3 is not scored (no metric for it)."""
    truth = tmp_path / "truth_t3.json"
    truth.write_text(json.dumps(chain_of_states(400)))
    result = score_files(TRUTH_T3, truth)
    codes = [d.code for d in result.diagnostics]
    assert "E0530" in codes
    assert not any(key.startswith("t3_") for key in result.metrics)


def test_a_graph_within_the_bound_is_scored_as_before() -> None:
    """Forty chained states score against themselves perfectly."""
    document = chain_of_states(40)
    from lablang.scoring import score_documents

    result = score_documents({"t3": document}, {"t3": document})
    assert "E0530" not in [d.code for d in result.diagnostics]
    assert result.metrics["t3_state_f1"] == 1.0


def test_huge_library_sequences_are_not_edit_distanced(tmp_path: Path) -> None:
    """Two 5 MB library sequences (hours of edit distance) are refused by E0530."""
    sequence = "ACGT" * 1_250_000
    truth = {"protocol_id": "p", "libraries": [{"library_id": "a", "library_sequence": "ACGT"}]}
    prediction = {"protocol_id": "p", "schema_version": "libstructbench.prediction.v1",
                  "libraries": [{"library_id": "a", "library_sequence": sequence}]}  # fmt: skip
    (tmp_path / "p.json").write_text(json.dumps(prediction))
    (tmp_path / "t.json").write_text(json.dumps(truth))
    run = run_bounded(["score", str(tmp_path / "p.json"), "--truth", str(tmp_path / "t.json")],
                      cpu_seconds=30, memory_mb=1200)  # fmt: skip
    run.assert_clean()
    assert "E0530" in run.output and "max_scored_sequence_bases" in run.output


TRUTH_T2 = ROOT / "tests" / "scoring" / "data" / "truth_10x" / "truth_t2.json"


def _oligos(count: int, length: int) -> dict[str, Any]:
    """The 10x Task 2 truth with `count` oligos whose sequences are `length` bases."""
    document = json.loads(TRUTH_T2.read_text())
    base = document["oligos"]
    oligos = []
    for i in range(count):
        oligo = dict(base[i % len(base)], oligo_id=f"o{i}")
        oligo["sequence"] = ("ACGTTGCA" * (length // 8 + 1))[:length]
        oligos.append(oligo)
    return dict(document, oligos=oligos)


def test_too_many_oligos_are_E0530_in_bounds(tmp_path: Path) -> None:
    """301 oligos (the grader's family collapse is quadratic: 600 took 10 s) are E0530."""
    prediction = tmp_path / "pred_t2.json"
    prediction.write_text(json.dumps(_oligos(301, 40)))
    run = run_bounded(["score", str(prediction), "--truth", str(TRUTH_T2)], cpu_seconds=20)
    run.assert_clean()
    assert "error[E0530]: the prediction is too large to score: T2 has 301 oligos" in run.output
    assert "max_scored_oligos" in run.output


def test_long_oligo_sequences_are_E0530_in_bounds(tmp_path: Path) -> None:
    """Twelve oligos of 20,000 bases (each edit-distanced against every truth oligo) are E0530."""
    prediction = tmp_path / "pred_t2.json"
    prediction.write_text(json.dumps(_oligos(12, 20_000)))
    run = run_bounded(["score", str(prediction), "--truth", str(TRUTH_T2)], cpu_seconds=20)
    run.assert_clean()
    assert "E0530" in run.output and "max_scored_oligo_bases" in run.output


def test_oligo_lists_at_the_bound_score_in_bounds(tmp_path: Path) -> None:
    """A synthetic 300-oligo truth and its perturbed prediction (the quadratic worst seen) score."""
    import random

    from lablang.scoring.synthetic import make_truth, perturb

    rng = random.Random(0)
    truth = make_truth(rng, oligos=300, states=10, transitions=8, protocol="bound")
    prediction = perturb(truth, rng, 10)
    (tmp_path / "truth").mkdir()
    (tmp_path / "pred").mkdir()
    for task in ("t2", "t3"):
        (tmp_path / "truth" / f"truth_{task}.json").write_text(json.dumps(truth[task]))
        (tmp_path / "pred" / f"pred_{task}.json").write_text(json.dumps(prediction[task]))
    run = run_bounded(
        ["score", str(tmp_path / "pred"), "--truth", str(tmp_path / "truth")],
        cpu_seconds=40,
        memory_mb=1200,
    )
    run.assert_clean()
    assert run.returncode == 0 and "E0530" not in run.output
    assert "t2_required_family_f1              0.968750" in run.stdout  # scored, not refused


def test_a_tie_heavy_graph_at_the_state_bound_scores_in_bounds(tmp_path: Path) -> None:
    """200 chained copies of a few states against themselves: every optimum ties, so the grader's
    cubic method runs on every assignment, still in bounds."""
    document = tmp_path / "chain_t3.json"
    document.write_text(json.dumps(chain_of_states(200)))
    run = run_bounded(
        ["score", str(document), "--truth", str(document), "--json"], cpu_seconds=40, memory_mb=1200
    )
    run.assert_clean()
    assert "E0530" not in run.output
    assert json.loads(run.stdout)["metrics"]["t3_state_f1"] == 1.0
