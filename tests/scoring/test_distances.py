"""The grader's wildcard-aware distances: bit-parallel and dynamic-program routes agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from lablang.scoring.matching import bit_parallel_distance, wildcard_distance
from lablang.scoring.similarity import (
    _family_tokens_match,
    _state_tokens_compatible,
    encode,
    family_edit_similarity,
    state_sequence_similarity,
)

FAMILY_TOKENS = st.lists(
    st.sampled_from(["A", "C", "G", "T", "rG", "<UMI>", "<CELL_BARCODE>", "[CDNA]"]), max_size=40
)
STATE_TOKENS = st.lists(
    st.sampled_from(["A", "C", "V", "N", "<UMI>", "<VARIABLE>", "[VARIABLE]", "[CDNA]"]),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(FAMILY_TOKENS, FAMILY_TOKENS)
def test_family_similarity_equals_the_dynamic_program(left: list[str], right: list[str]) -> None:
    """Myers' bit-vector distance with family wildcards equals the grader's DP."""
    denominator = max(len(left), len(right))
    expected = (
        1.0
        if denominator == 0
        else max(0.0, 1.0 - wildcard_distance(left, right, _family_tokens_match) / denominator)
    )
    assert family_edit_similarity(encode(left), encode(right)) == expected


@settings(max_examples=300, deadline=None)
@given(STATE_TOKENS, STATE_TOKENS)
def test_state_similarity_equals_the_dynamic_program(
    predicted: list[str], expected: list[str]
) -> None:
    """Directional `[VARIABLE]` matching gives the same value by either route."""
    denominator = max(len(predicted), len(expected))
    distance = wildcard_distance(predicted, expected, _state_tokens_compatible)
    value = 1.0 if denominator == 0 else max(0.0, 1.0 - distance / denominator)
    assert state_sequence_similarity(encode(predicted), encode(expected)) == value


@settings(max_examples=300, deadline=None)
@given(st.text("ACGT", max_size=80), st.text("ACGT", max_size=80))
def test_bit_parallel_distance_is_levenshtein_under_equality(left: str, right: str) -> None:
    """With plain equality as the match relation, the bit-vector distance is rapidfuzz's."""
    masks = {c: sum(1 << i for i, p in enumerate(left) if p == c) for c in set(right)}
    assert bit_parallel_distance(len(left), masks, right) == Levenshtein.distance(left, right)


def test_anchor_shorthand_matches_a_two_token_anchor_only_as_a_pair() -> None:
    """`VN` satisfies a truth `[ANCHOR:2]`, but a lone `V` does not satisfy one anchor token."""
    anchor = ["<ANCHOR>", "<ANCHOR>"]
    assert state_sequence_similarity(encode(["A", "V", "N"]), encode(["A", *anchor])) == 1.0
    # "AV" vs "A <ANCHOR>": V is not an anchor wildcard on its own -> one substitution of 2
    assert state_sequence_similarity(encode(["A", "V"]), encode(["A", "<ANCHOR>"])) == 0.5
