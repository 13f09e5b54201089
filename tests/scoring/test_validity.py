"""The grader's semantic validity rules: each broken rule scores 0, its intact twin scores as before."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lablang.scoring import score_documents
from lablang.scoring.validity import NOT_APPLIED, RULES

CASES = Path(__file__).parent / "data" / "official_cases"
TASKS = ("t1", "t2", "t3")
Docs = dict[str, Any]


def _load(protocol: str, prefix: str) -> Docs:
    return {t: json.loads((CASES / protocol / f"{prefix}_{t}.json").read_text()) for t in TASKS}


def _wf(docs: Docs) -> dict[str, Any]:
    workflow: dict[str, Any] = docs["t3"]["workflows"][0]
    return workflow


def _transition(docs: Docs, tid: str) -> dict[str, Any]:
    return next(t for t in _wf(docs)["transitions"] if t["transition_id"] == tid)


def _state(docs: Docs, sid: str) -> dict[str, Any]:
    return next(s for s in _wf(docs)["states"] if s["state_id"] == sid)


def swap_dispositions(docs: Docs) -> None:
    """Drop-seq's tagmentation marks the product the PCR uses as discarded (issue 19's case)."""
    t = _transition(docs, "t_tagment")
    t["carried_forward_product_ids"], t["discarded_product_ids"] = (
        t["discarded_product_ids"],
        t["carried_forward_product_ids"],
    )


def carry_and_discard(docs: Docs) -> None:
    _transition(docs, "t_tagment")["discarded_product_ids"].append("st_frag_p4")


def uncarried_substrate(docs: Docs) -> None:
    t = _transition(docs, "t_tagment")
    t["product_state_ids"].remove("st_frag_p3")
    t["discarded_product_ids"].remove("st_frag_p3")
    _transition(docs, "t_pcr")["substrate_state_ids"].append("st_frag_p3")


def unused_carried(docs: Docs) -> None:
    t = _transition(docs, "t_tagment")
    t["discarded_product_ids"].remove("st_frag_p3")
    t["carried_forward_product_ids"].append("st_frag_p3")


def disconnected(docs: Docs) -> None:
    state = copy.deepcopy(_state(docs, "st_mrna"))
    state["state_id"] = "st_orphan"
    _wf(docs)["states"].append(state)


def unreachable_final(docs: Docs) -> None:
    _wf(docs)["initial_state_ids"] = []


def final_twice(docs: Docs) -> None:
    outputs = _wf(docs)["final_outputs"]
    outputs.append(dict(outputs[0]))


def workflow_twice(docs: Docs) -> None:
    docs["t3"]["workflows"].append(copy.deepcopy(_wf(docs)))


def bad_reference_strand(docs: Docs) -> None:
    _state(docs, "st_cdna_amp")["reference_strand_id"] = "nowhere"


def strand_3_to_5(docs: Docs) -> None:
    _state(docs, "st_mrna")["strands"][0]["orientation"] = "3_to_5"


def overhang_in_pair(docs: Docs) -> None:
    state = _state(docs, "st_rt_hybrid")
    region = state["paired_regions"][0]
    strand = next(s for s in state["strands"] if s["strand_id"] == region["side_1"]["strand_id"])
    region["side_1"]["segment_ids"] = [seg["segment_id"] for seg in strand["segments"]]


def paired_but_unpaired(docs: Docs) -> None:
    _state(docs, "st_mrna")["strands"][0]["segments"][0]["structural_role"] = "paired_region"


def hybrid_of_two_dna(docs: Docs) -> None:
    for strand in _state(docs, "st_rt_hybrid")["strands"]:
        strand["molecule_type"] = "DNA"


def single_with_two(docs: Docs) -> None:
    _state(docs, "st_cdna_amp")["strand_architecture"] = "single_stranded"


def unknown_architecture(docs: Docs) -> None:
    _state(docs, "st_cdna_amp")["strand_architecture"] = "triple_helix"


def gap_not_between_neighbours(docs: Docs) -> None:
    state = _state(docs, "st_cdna_amp")
    strand = state["strands"][0]
    state["discontinuities"].append(
        {
            "discontinuity_id": "d_far",
            "strand_id": strand["strand_id"],
            "after_segment_id": strand["segments"][0]["segment_id"],
            "before_segment_id": strand["segments"][3]["segment_id"],
            "kind": "nick",
        }
    )


def derivation_twice(docs: Docs) -> None:
    for strand in _state(docs, "st_cdna_amp")["strands"]:
        for segment in strand["segments"]:
            if segment.get("oligo_derivations"):
                segment["oligo_derivations"].append(dict(segment["oligo_derivations"][0]))
                return


def bad_orientation_word(docs: Docs) -> None:
    for strand in _state(docs, "st_cdna_amp")["strands"]:
        for segment in strand["segments"]:
            if segment.get("oligo_derivations"):
                segment["oligo_derivations"][0]["orientation_to_source"] = "sideways"
                return


# (what the prediction breaks, the mutation, words the reason contains)
BROKEN: list[tuple[str, Callable[[Docs], None], str]] = [
    ("discarded product used downstream", swap_dispositions, "discarded by `t_tagment`"),
    ("product carried and discarded", carry_and_discard, "both carried forward and discarded"),
    ("substrate never carried", uncarried_substrate, "neither an initial state nor carried"),
    ("carried product never used", unused_carried, "neither a downstream substrate"),
    ("state outside the process", disconnected, "not one connected process"),
    ("final state unreachable", unreachable_final, "not reached from an initial state"),
    ("terminal state listed twice", final_twice, "listed twice"),
    ("workflow id twice", workflow_twice, "declared twice"),
    ("reference strand missing", bad_reference_strand, "reference_strand_id"),
    ("strand recorded 3'->5'", strand_3_to_5, "recorded 5_to_3"),
    ("overhang inside a paired region", overhang_in_pair, "structural_role is"),
    ("paired segment in no region", paired_but_unpaired, "in no paired region"),
    ("hybrid of two DNA strands", hybrid_of_two_dna, "one DNA and one RNA"),
    ("single-stranded state with two strands", single_with_two, "single_stranded needs"),
    ("unknown architecture", unknown_architecture, "is not a strand architecture"),
    ("nick between distant segments", gap_not_between_neighbours, "adjacent segments"),
    ("segment derived twice from one oligo", derivation_twice, "more than once"),
    ("unknown orientation_to_source", bad_orientation_word, "orientation_to_source"),
]


@pytest.fixture(scope="module")
def intact() -> tuple[Docs, Docs, dict[str, float]]:
    prediction, truth = _load("drop_seq", "pred_identical"), _load("drop_seq", "truth")
    return prediction, truth, dict(score_documents(prediction, truth).metrics)


@pytest.mark.parametrize(("rule", "mutate", "reason"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_prediction_breaking_a_rule_scores_zero_and_its_twin_scores_as_before(
    intact: tuple[Docs, Docs, dict[str, float]],
    rule: str,
    mutate: Callable[[Docs], None],
    reason: str,
) -> None:
    """The broken prediction is invalid (every libgen metric 0, the reason given); the intact twin keeps its scores."""
    prediction, truth, before = intact
    broken = copy.deepcopy(prediction)
    mutate(broken)
    result = score_documents(broken, truth)
    assert not result.prediction_valid
    libgen = ("reward", "t2_required_family_f1", "t3_molecular_transition_f1", "t3_state_f1")
    assert all(result.metrics[name] == 0 for name in libgen)
    assert any(reason in d.message for d in result.diagnostics), [
        d.message for d in result.diagnostics
    ]
    again = score_documents(copy.deepcopy(prediction), truth)
    assert again.prediction_valid and dict(again.metrics) == before
    assert before["reward"] > 0.99


def test_swapped_dispositions_without_rewiring_is_invalid_as_the_grader_rules() -> None:
    """Issue 19's case: the tagmentation's dispositions swapped, the graph not rewired, scores 0 not 0.99."""
    prediction, truth = _load("drop_seq", "pred_identical"), _load("drop_seq", "truth")
    swap_dispositions(prediction)
    assert score_documents(prediction, truth).metrics["reward"] == 0


def test_every_rule_is_documented_in_the_scoring_docs() -> None:
    """docs/scoring.md lists each semantic rule lablang applies and each it does not."""
    text = (Path(__file__).parents[2] / "docs" / "scoring.md").read_text()
    for rule in RULES:
        assert f"`{rule.__name__}`" in text, rule.__name__
    for item in NOT_APPLIED:
        assert item in text, item
