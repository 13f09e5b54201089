"""Properties of the scorer on generated truth/prediction pairs (hypothesis)."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.scoring import score_documents
from lablang.scoring.synthetic import as_prediction, make_truth, perturb

SIZES = st.tuples(
    st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(2, 6), st.integers(1, 5)
)


def _truth(params: tuple[int, int, int, int]) -> tuple[random.Random, dict[str, Any]]:
    seed, oligos, states, transitions = params
    rng = random.Random(seed)
    return rng, make_truth(rng, oligos=oligos, states=states, transitions=transitions)


@settings(max_examples=25, deadline=None)
@given(SIZES, st.integers(0, 6))
def test_scores_lie_in_the_unit_interval(params: tuple[int, int, int, int], errors: int) -> None:
    """Every metric of a perturbed prediction lies in [0, 1]."""
    rng, truth = _truth(params)
    result = score_documents(perturb(truth, rng, errors), truth)
    assert result.metrics
    for name, value in result.metrics.items():
        assert 0.0 <= value <= 1.0 + 1e-12, name


@settings(max_examples=25, deadline=None)
@given(SIZES)
def test_identical_answers_score_one(params: tuple[int, int, int, int]) -> None:
    """The truth copied into the prediction contracts scores 1 on every metric."""
    _, truth = _truth(params)
    result = score_documents(as_prediction(truth), truth)
    assert result.prediction_valid
    for name, value in result.metrics.items():
        assert abs(value - 1.0) < 1e-9, name


@settings(max_examples=25, deadline=None)
@given(SIZES, st.integers(0, 4), st.randoms(use_true_random=False))
def test_entity_order_does_not_matter(
    params: tuple[int, int, int, int], errors: int, shuffler: random.Random
) -> None:
    """Shuffling the prediction's oligos, states, transitions and lists leaves every metric unchanged.

    (Exact duplicates would tie, and the grader, like any assignment, breaks ties by
    order; the generated predictions hold none.)
    """
    rng, truth = _truth(params)
    pred = perturb(truth, rng, errors)
    shuffled = copy.deepcopy(pred)
    shuffler.shuffle(shuffled["t2"]["oligos"])
    for workflow in shuffled["t3"]["workflows"]:
        shuffler.shuffle(workflow["states"])
        shuffler.shuffle(workflow["transitions"])
        for transition in workflow["transitions"]:
            for key in ("oligo_ids", "substrate_state_ids", "product_state_ids"):
                shuffler.shuffle(transition[key])
    before = score_documents(pred, truth).metrics
    after = score_documents(shuffled, truth).metrics
    assert before.keys() == after.keys()
    for name in before:
        assert abs(before[name] - after[name]) < 1e-9, name


def _rename(pred: dict[str, Any]) -> dict[str, Any]:
    """Every id in the prediction replaced consistently by a new name."""
    renamed = copy.deepcopy(pred)
    oligo = {o["oligo_id"]: f"oligo_{i}_x" for i, o in enumerate(renamed["t2"]["oligos"])}
    for o in renamed["t2"]["oligos"]:
        o["oligo_id"] = oligo[o["oligo_id"]]
    for workflow in renamed["t3"]["workflows"]:
        workflow["workflow_id"] = "renamed_workflow"
        state = {s["state_id"]: f"state_{i}_x" for i, s in enumerate(workflow["states"])}
        for s in workflow["states"]:
            s["state_id"] = state[s["state_id"]]
            for strand in s["strands"]:
                for segment in strand["segments"]:
                    for d in segment["oligo_derivations"]:
                        d["oligo_id"] = oligo[d["oligo_id"]]
        for t in workflow["transitions"]:
            t["transition_id"] = "tr_" + t["transition_id"][::-1]
            t["oligo_ids"] = [oligo[o] for o in t["oligo_ids"]]
            for key in ("substrate_state_ids", "product_state_ids",
                        "carried_forward_product_ids", "discarded_product_ids"):  # fmt: skip
                t[key] = [state[s] for s in t[key]]
        workflow["initial_state_ids"] = [state[s] for s in workflow["initial_state_ids"]]
        for output in workflow["final_outputs"]:
            output["state_id"] = state[output["state_id"]]
    for library in renamed["t1"]["libraries"]:
        library["library_id"] = "renamed_library"
    return renamed


@settings(max_examples=25, deadline=None)
@given(SIZES, st.integers(0, 4))
def test_renaming_ids_does_not_matter(params: tuple[int, int, int, int], errors: int) -> None:
    """Consistently renaming every prediction id leaves every metric unchanged."""
    rng, truth = _truth(params)
    pred = perturb(truth, rng, errors)
    before = score_documents(pred, truth).metrics
    after = score_documents(_rename(pred), truth).metrics
    for name in before:
        assert abs(before[name] - after[name]) < 1e-9, name
