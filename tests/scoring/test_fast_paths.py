"""The batched routes (rapidfuzz cdist tables, numpy strand matrices) give bit-identical values."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.scoring import Weights
from lablang.scoring.graph import GraphScorer
from lablang.scoring.matching import edit_similarity
from lablang.scoring.oligos import OligoScorer
from lablang.scoring.similarity import fill_edit_similarities
from lablang.scoring.synthetic import make_truth, perturb


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_strand_matrix_equals_the_scalar_route(seed: int) -> None:
    """Every prefilled strand similarity equals `strand_in_orientation`, exactly."""
    rng = random.Random(seed)
    truth = make_truth(rng, oligos=6, states=8, transitions=5)
    pred = perturb(truth, rng, 4)
    # a missing and an odd structural role exercise the role comparison
    pred["t3"]["workflows"][0]["states"][0]["strands"][0]["segments"][0].pop("structural_role")
    scorer = GraphScorer(Weights(), OligoScorer(Weights()), None, None)
    predicted = pred["t3"]["workflows"][0]["states"]
    expected = truth["t3"]["workflows"][0]["states"]
    scorer.prefill_sequence_table(predicted, expected)
    scorer.prefill_strand_matrix(predicted, expected)
    reference = GraphScorer(Weights(), OligoScorer(Weights()), None, None)
    checked = 0
    for state in predicted:
        for strand in state["strands"]:
            for other_state in expected:
                for other in other_state["strands"]:
                    fast = scorer._strands[(id(strand), id(other), False)]
                    assert fast == reference.strand_in_orientation(strand, other, False)
                    checked += 1
    assert checked >= 16


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("ACGTN", max_size=30), min_size=1, max_size=6),
       st.lists(st.text("ACGTN", max_size=30), min_size=1, max_size=6))  # fmt: skip
def test_cdist_table_equals_edit_similarity(queries: list[str], choices: list[str]) -> None:
    """The batched edit similarities equal `edit_similarity` bit for bit, empty strings included."""
    table: dict[tuple[str, str], float] = {}
    fill_edit_similarities(list(dict.fromkeys(queries)), list(dict.fromkeys(choices)), table)
    for q in queries:
        for c in choices:
            assert table[(q, c)] == edit_similarity(q, c)


@settings(max_examples=300, deadline=None)
@given(st.text("ACGTNUVacgtnu0123456789 -_.[]/:xyz", max_size=40))
def test_plain_segment_fast_path_equals_the_character_loop(text: str) -> None:
    """Without chemistry characters, normalizing a plain segment is upper-casing it."""
    from lablang.scoring.normalize import (
        _expand_homopolymers,
        _normalize_chemistry,
        _normalize_plain,
    )

    assert _normalize_plain(text) == _normalize_chemistry(_expand_homopolymers(text))
