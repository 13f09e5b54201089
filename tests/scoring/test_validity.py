"""The grader's semantic validity rules: each broken rule scores 0, its intact twin scores as before."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lablang.scoring import score_documents
from lablang.scoring.validity import NOT_APPLIED, NOT_RULES, RULES

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


def region_id_twice(docs: Docs) -> None:
    regions = _state(docs, "st_frag_p4")["paired_regions"]
    regions[1]["paired_region_id"] = regions[0]["paired_region_id"]


def segment_paired_twice(docs: Docs) -> None:
    state = _state(docs, "st_frag_p4")
    state["paired_regions"][1]["side_1"] = dict(state["paired_regions"][0]["side_2"])
    state["paired_regions"][1]["side_1"]["segment_ids"] = ["p4_c_p4_k_a_cdna"]


def sides_not_complementary(docs: Docs) -> None:
    strand = _state(docs, "st_frag_p4")["strands"][2]
    strand["segments"][0]["sequence"] = "CTGTCTCTTATACACATCA"


def non_contiguous_side(docs: Docs) -> None:
    side = _state(docs, "st_cdna_amp")["paired_regions"][0]["side_1"]
    del side["segment_ids"][1]


def _first_derivations(docs: Docs) -> list[dict[str, Any]]:
    """The `oligo_derivations` of the cDNA state's first derived segment."""
    segments = (
        seg for strand in _state(docs, "st_cdna_amp")["strands"] for seg in strand["segments"]
    )
    derivations: list[dict[str, Any]] = next(s for s in segments if s.get("oligo_derivations"))[
        "oligo_derivations"
    ]
    return derivations


def derivation_of_unknown_oligo(docs: Docs) -> None:
    _first_derivations(docs)[0]["oligo_id"] = "no_such_oligo"


def three_strand_double(docs: Docs) -> None:
    _state(docs, "st_frag_p4")["strand_architecture"] = "double_stranded"


def duplex_with_overhang(docs: Docs) -> None:
    state = _state(docs, "st_frag_p4")
    state["strands"].pop()
    state["paired_regions"].pop()
    state["strand_architecture"] = "double_stranded"


def partial_fully_paired(docs: Docs) -> None:
    _state(docs, "st_cdna_amp")["strand_architecture"] = "partially_duplex"


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
    derivations = _first_derivations(docs)
    derivations.append(dict(derivations[0]))


def bad_orientation_word(docs: Docs) -> None:
    _first_derivations(docs)[0]["orientation_to_source"] = "sideways"


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
    ("paired region id twice", region_id_twice, "is declared twice"),
    ("segment paired twice", segment_paired_twice, "already paired"),
    ("sides not reverse-complementary", sides_not_complementary, "not reverse-complementary"),
    ("paired side not contiguous", non_contiguous_side, "contiguous"),
    ("derivation of an oligo not in T2", derivation_of_unknown_oligo, "not in the Task 2"),
    ("double_stranded with three strands", three_strand_double, "exactly two strands"),
    ("double_stranded with an overhang", duplex_with_overhang, "cannot have unpaired"),
    ("partially_duplex fully paired", partial_fully_paired, "needs an unpaired region"),
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


# What the grader accepts although its ground-truth validator would not (`NOT_RULES`):
# the prediction is scored, and the state it mislabels scores lower.


def y_shaped_fully_paired(docs: Docs) -> None:
    _state(docs, "st_cdna_amp")["strand_architecture"] = "y_shaped_duplex"


def overhang_in_pair(docs: Docs) -> None:
    state = _state(docs, "st_rt_hybrid")
    region = state["paired_regions"][0]
    strand = next(s for s in state["strands"] if s["strand_id"] == region["side_1"]["strand_id"])
    region["side_1"]["segment_ids"] = [seg["segment_id"] for seg in strand["segments"]]


def paired_but_unpaired(docs: Docs) -> None:
    _state(docs, "st_mrna")["strands"][0]["segments"][0]["structural_role"] = "paired_region"


def derivation_disagrees(docs: Docs) -> None:
    segment = _state(docs, "st_final")["strands"][0]["segments"][0]
    segment["sequence"] = "AATGATACGGCGACCACCGAGATCTACAA"  # P5 with its last base changed
    segment["oligo_derivations"] = [{"oligo_id": "p5", "orientation_to_source": "same_orientation"}]


def mixed_pairs_twice(docs: Docs) -> None:
    state = _state(docs, "st_frag_p4")
    state["strand_architecture"] = "mixed_population"
    segment_paired_twice(docs)


ACCEPTED: list[tuple[str, Callable[[Docs], None]]] = [
    ("y_shaped_duplex on fully paired strands", y_shaped_fully_paired),
    ("overhang inside a paired region", overhang_in_pair),
    ("segment marked paired_region in no region", paired_but_unpaired),
    ("segment disagreeing with its oligo", derivation_disagrees),
    ("a mixed population pairs a segment twice", mixed_pairs_twice),
]


@pytest.mark.parametrize("mutate", [a[1] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_a_prediction_the_grader_accepts_is_scored_not_rejected(
    intact: tuple[Docs, Docs, dict[str, float]], mutate: Callable[[Docs], None]
) -> None:
    """A rule only the grader's ground-truth validator has leaves the prediction valid and scored, with no E0504."""
    prediction, truth, _ = intact
    changed = copy.deepcopy(prediction)
    mutate(changed)
    result = score_documents(changed, truth)
    assert result.prediction_valid, [d.message for d in result.diagnostics]
    assert not any(d.code == "E0504" for d in result.diagnostics)
    assert result.metrics["reward"] > 0.9 and result.metrics["t3_state_f1"] > 0.9


def test_a_mislabelled_y_shaped_duplex_scores_as_the_graders_architecture_mismatch() -> None:
    """Drop-seq's fully paired cDNA labelled `y_shaped_duplex` loses what the official `wrong_strand_architecture` case loses.

    One state of nine differs in `strand_architecture` only, so its architecture
    dimension is 3/4 and its similarity 1 - 0.15/4 = 0.9625: state F1 (8 + 0.9625)/9, the
    grader's 0.995833 for the official case, which mislabels another state the same way.
    """
    prediction, truth = _load("drop_seq", "pred_identical"), _load("drop_seq", "truth")
    y_shaped_fully_paired(prediction)
    result = score_documents(prediction, truth)
    official = json.loads(
        (CASES / "drop_seq" / "expected_wrong_strand_architecture.json").read_text()
    )
    graders = official["libgen"]["reward"]
    assert result.prediction_valid
    assert result.metrics["t3_state_f1"] == pytest.approx((8 + 0.9625) / 9, abs=1e-9)
    for name in ("reward", "t2_required_family_f1", "t3_state_f1", "t3_molecular_transition_f1"):
        assert result.metrics[name] == pytest.approx(graders[name], abs=1e-6), name
    state = next(m for m in result.matches if m.truth_id == "st_cdna_amp")
    assert state.prediction_id == "st_cdna_amp" and state.score == pytest.approx(0.9625)


def test_the_rules_only_the_ground_truth_validator_has_are_documented() -> None:
    """docs/scoring.md lists each rule the grader applies to its truth but not to predictions."""
    text = (Path(__file__).parents[2] / "docs" / "scoring.md").read_text()
    for item in NOT_RULES:
        assert item in text, item
