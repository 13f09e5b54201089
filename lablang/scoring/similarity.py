"""Similarities shared by Tasks 2 and 3: token projections, wildcard edit similarity, set F1s."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from lablang.scoring.matching import (
    best_one_to_one_matching,
    bit_parallel_distance,
    edit_similarity,
    soft_prf,
    wildcard_distance,
)
from lablang.scoring.normalize import (
    PLAIN_BASES,
    normalize_sequence,
    normalize_text,
    sequence_tokens,
)

COMPLEMENT = {
    "A": "T", "C": "G", "G": "C", "T": "A", "U": "A", "R": "Y", "Y": "R", "S": "S", "W": "W",
    "K": "M", "M": "K", "B": "V", "D": "H", "H": "D", "V": "B", "N": "N",
}  # fmt: skip
_FAMILY_TOKEN_RE = re.compile(r"^<([A-Z0-9_]+)>$")
_NUCLEOTIDE_TOKEN_RE = re.compile(r"^(?:[ACGTUNV]|[r+][ACGTUNV])$")
_MODIFIED_BASES = {
    "/ideoxyu/": "U", "/ibiodt/": "T", "/ddc/": "C", "/3ddc/": "C", "/ddu/": "U", "/3invdt/": "T",
}  # fmt: skip
_ANCHOR_SHORTHANDS = frozenset({("V", "N"), ("N", "B")})


@lru_cache(maxsize=65536)
def nucleotide_projection(value: str) -> str:
    """The molecule without its chemistry spelling: `rG`->G, `+G`->G, `(dU)`->U, tags dropped.

    >>> nucleotide_projection("/5Phos/ACrGrG/3ddC/")
    'ACGGC'
    """
    normalized = normalize_sequence(value)
    if PLAIN_BASES.fullmatch(normalized):
        return normalized
    out: list[str] = []
    cursor = 0
    n = len(normalized)
    while cursor < n:
        char = normalized[cursor]
        if char == "[":
            end = normalized.find("]", cursor + 1)
            if end >= 0:
                out.append(normalized[cursor : end + 1])
                cursor = end + 1
                continue
        if char == "/":
            end = normalized.find("/", cursor + 1)
            if end >= 0:
                base = _MODIFIED_BASES.get(normalized[cursor : end + 1].lower())
                if base is not None:
                    out.append(base)
                cursor = end + 1
                continue
        if normalized[cursor : cursor + 4].lower() == "(du)":
            out.append("U")
            cursor += 4
            continue
        if char in "r+" and cursor + 1 < n and normalized[cursor + 1] in COMPLEMENT:
            out.append(normalized[cursor + 1])
            cursor += 2
            continue
        out.append(char)
        cursor += 1
    return "".join(out)


@lru_cache(maxsize=65536)
def sequence_value(value: str) -> tuple[str, ...]:
    """Tokens of the nucleotide projection (placeholders expanded to `<ROLE>` tokens)."""
    return sequence_tokens(nucleotide_projection(value), already_normalized=True)


# Token sequences are also kept as strings with one private character per distinct
# token: rapidfuzz is fastest on str, and a str caches its hash for the lru caches.
_CHAR_OF: dict[str, str] = {}
_TOKEN_OF: dict[str, str] = {}


# per character: (family role or None, is a nucleotide token, is <..>, is [..])
_CLASS_OF: dict[str, tuple[str | None, bool, bool, bool]] = {}


def _char(token: str) -> str:
    char = _CHAR_OF.get(token)
    if char is None:
        index = len(_CHAR_OF)
        code = 0x100 + index
        if code >= 0xD800:  # skip the surrogate block
            code += 0x800
        char = chr(code)
        _CHAR_OF[token] = char
        _TOKEN_OF[char] = token
        family = _FAMILY_TOKEN_RE.fullmatch(token)
        _CLASS_OF[char] = (
            family.group(1) if family else None,
            bool(_NUCLEOTIDE_TOKEN_RE.fullmatch(token)),
            token.startswith("<") and token.endswith(">"),
            token.startswith("[") and token.endswith("]"),
        )
    return char


def encode(tokens: Sequence[str]) -> str:
    """One character per token (stable within a process)."""
    return "".join([_char(token) for token in tokens])


def decode(encoded: str) -> tuple[str, ...]:
    return tuple(_TOKEN_OF[char] for char in encoded)


@lru_cache(maxsize=65536)
def encoded_value(value: str) -> str:
    """`sequence_value` as an encoded string."""
    return encode(sequence_value(value))


_WILD_STATE = ("<VARIABLE>", "[VARIABLE]", "<ANCHOR>")


def _family_tokens_match(left: str, right: str) -> bool:
    if left == right:
        return True
    left_family = _FAMILY_TOKEN_RE.fullmatch(left)
    right_family = _FAMILY_TOKEN_RE.fullmatch(right)
    if left_family and right_family:
        return left_family.group(1) == right_family.group(1)
    if left_family:
        return bool(_NUCLEOTIDE_TOKEN_RE.fullmatch(right))
    if right_family:
        return bool(_NUCLEOTIDE_TOKEN_RE.fullmatch(left))
    return False


@lru_cache(maxsize=65536)
def _has_family_token(encoded: str) -> bool:
    return any(_TOKEN_OF[c].startswith("<") for c in set(encoded))


def _equal_masks(pattern: str) -> dict[str, int]:
    masks: dict[str, int] = {}
    for index, char in enumerate(pattern):
        masks[char] = masks.get(char, 0) | (1 << index)
    return masks


@lru_cache(maxsize=16384)
def _family_pattern(pattern: str) -> tuple[dict[str, int], int, int, dict[str, int]]:
    """Bit masks of a pattern: per symbol, nucleotide positions, family positions, per role."""
    equal = _equal_masks(pattern)
    nucleotides = families = 0
    roles: dict[str, int] = {}
    for char, mask in equal.items():
        role, is_nucleotide, _, _ = _CLASS_OF[char]
        if role is not None:
            families |= mask
            roles[role] = roles.get(role, 0) | mask
        elif is_nucleotide:
            nucleotides |= mask
    return equal, nucleotides, families, roles


@lru_cache(maxsize=65536)
def family_edit_similarity(left: str, right: str) -> float:
    """Edit similarity in which a `<ROLE>` token matches any nucleotide (or the same role).

    Both sides are `encode`d token sequences.

    >>> family_edit_similarity(encode(["A", "<UMI>", "<UMI>"]), encode(["A", "C", "G"]))
    1.0
    """
    denominator = max(len(left), len(right))
    if denominator == 0:
        return 1.0
    if not _has_family_token(left) and not _has_family_token(right):
        return edit_similarity(left, right)
    equal, nucleotides, families, roles = _family_pattern(left)
    masks = {}
    for symbol in set(right):
        role, is_nucleotide, _, _ = _CLASS_OF[symbol]
        mask = equal.get(symbol, 0)
        if role is not None:
            mask |= nucleotides | roles.get(role, 0)
        elif is_nucleotide:
            mask |= families
        masks[symbol] = mask
    distance = bit_parallel_distance(len(left), masks, right)
    return max(0.0, 1.0 - distance / denominator)


def _state_tokens_compatible(predicted: str, expected: str) -> bool:
    if predicted == expected:
        return True
    if expected == "<VARIABLE>":
        return predicted.startswith("<") and predicted.endswith(">")
    if expected == "[VARIABLE]":
        return predicted.startswith("[") and predicted.endswith("]")
    return False


def _anchor_cells(predicted: Sequence[str], expected: Sequence[str]) -> np.ndarray:
    cells = np.zeros((len(predicted) + 1, len(expected) + 1), dtype=bool)
    rows = [
        i for i in range(2, len(predicted) + 1) if tuple(predicted[i - 2 : i]) in _ANCHOR_SHORTHANDS
    ]
    cols = [
        j
        for j in range(2, len(expected) + 1)
        if expected[j - 2] == "<ANCHOR>" and expected[j - 1] == "<ANCHOR>"
    ]
    if rows and cols:
        cells[np.ix_(rows, cols)] = True
    return cells


@lru_cache(maxsize=65536)
def state_sequence_similarity(predicted: str, expected: str) -> float:
    """Directional edit similarity of state sequences (both `encode`d).

    A truth `[VARIABLE]` matches any placeholder; a predicted `VN` or `NB` matches a truth
    `[ANCHOR:2]` span as a whole (never one base alone).

    >>> state_sequence_similarity(encode("AVN"), encode(["A", "<ANCHOR>", "<ANCHOR>"]))
    1.0
    """
    denominator = max(len(predicted), len(expected))
    if denominator == 0:
        return 1.0
    wild = [_CHAR_OF[w] for w in _WILD_STATE if w in _CHAR_OF]
    if not any(w in expected for w in wild):
        return edit_similarity(predicted, expected)
    anchor = _CHAR_OF.get("<ANCHOR>")
    if anchor is not None and anchor in expected:
        # the two-token anchor rule needs the full dynamic program
        distance = wildcard_distance(
            decode(predicted), decode(expected), _state_tokens_compatible, _anchor_cells
        )
    else:
        equal = _equal_masks(expected)
        angle = equal.get(_CHAR_OF["<VARIABLE>"], 0) if "<VARIABLE>" in _CHAR_OF else 0
        square = equal.get(_CHAR_OF["[VARIABLE]"], 0) if "[VARIABLE]" in _CHAR_OF else 0
        masks = {}
        for symbol in set(predicted):
            _, _, is_angle, is_square = _CLASS_OF[symbol]
            masks[symbol] = (
                equal.get(symbol, 0) | (angle if is_angle else 0) | (square if is_square else 0)
            )
        distance = bit_parallel_distance(len(expected), masks, predicted)
    return max(0.0, 1.0 - distance / denominator)


def has_state_wildcard(encoded: str) -> bool:
    """Whether a truth sequence holds a token the state distance treats as a wildcard."""
    return any(_CHAR_OF[w] in encoded for w in _WILD_STATE if w in _CHAR_OF)


def edit_similarity_matrix(queries: Sequence[str], choices: Sequence[str]) -> np.ndarray:
    """`edit_similarity(q, c)` for every pair as a float matrix, in one rapidfuzz `cdist` call.

    The division is the same IEEE operation as `edit_similarity`'s, so values are identical.

    >>> edit_similarity_matrix(["ACGT", ""], ["ACCT"]).tolist()
    [[0.75], [0.0]]
    """
    distances = cdist(queries, choices, scorer=Levenshtein.distance, dtype=np.int64)
    lengths_q = np.array([len(q) for q in queries], dtype=np.int64)
    lengths_c = np.array([len(c) for c in choices], dtype=np.int64)
    denominators = np.maximum(lengths_q[:, None], lengths_c[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            denominators == 0, 1.0, np.maximum(0.0, 1.0 - distances / np.maximum(denominators, 1))
        )


def fill_edit_similarities(
    queries: list[str], choices: list[str], table: dict[tuple[str, str], float]
) -> None:
    """`table[(q, c)] = edit_similarity(q, c)` for all pairs (`edit_similarity_matrix`)."""
    if not queries or not choices:
        return
    for query, row in zip(queries, edit_similarity_matrix(queries, choices).tolist(), strict=True):
        for choice, value in zip(choices, row, strict=True):
            table[(query, choice)] = value


@lru_cache(maxsize=65536)
def reverse_complement_encoded(encoded: str) -> str | None:
    """`reverse_complement_tokens` of an encoded sequence, encoded."""
    flipped = reverse_complement_tokens(decode(encoded))
    return None if flipped is None else encode(flipped)


def reverse_complement_tokens(tokens: Sequence[str]) -> tuple[str, ...] | None:
    """Token-aware reverse complement; None when a modification tag blocks it."""
    out: list[str] = []
    for token in reversed(tokens):
        if token in COMPLEMENT:
            out.append(COMPLEMENT[token])
        elif (token.startswith("<") and token.endswith(">")) or (
            token.startswith("[") and token.endswith("]")
        ):
            out.append(token)  # placeholder roles are orientation-free
        elif len(token) == 2 and token[0] in "r+":
            complement = COMPLEMENT.get(token[1])
            if complement is None:
                return None
            out.append(token[0] + complement)
        else:
            return None
    return tuple(out)


def weighted_supported_score(
    dimensions: Mapping[str, tuple[float, bool]], weights: Mapping[str, float]
) -> float:
    """Weighted mean over the enabled dimensions (weights renormalized)."""
    denominator = sum(weights[k] for k, (_, enabled) in dimensions.items() if enabled)
    if denominator == 0:
        return 0.0
    return sum(weights[k] * v for k, (v, enabled) in dimensions.items() if enabled) / denominator


def set_f1(prediction: Iterable[str], truth: Iterable[str]) -> float:
    predicted, expected = set(prediction), set(truth)
    return soft_prf(float(len(predicted & expected)), len(predicted), len(expected))[2]


def multiset_f1(prediction: Iterable[str], truth: Iterable[str]) -> float:
    predicted = Counter(normalize_text(item) for item in prediction)
    expected = Counter(normalize_text(item) for item in truth)
    overlap = sum((predicted & expected).values())
    return soft_prf(float(overlap), sum(predicted.values()), sum(expected.values()))[2]


@lru_cache(maxsize=65536)
def name_similarity(left: str, right: str) -> float:
    return edit_similarity(normalize_text(left), normalize_text(right))


def text_collection_f1(predicted: Sequence[str], truth: Sequence[str]) -> float:
    scores = [[name_similarity(left, right) for right in truth] for left in predicted]
    matches = best_one_to_one_matching(scores)
    return soft_prf(sum(m[2] for m in matches), len(predicted), len(truth))[2]


def count_similarity(left: int, right: int) -> float:
    if left == right == 0:
        return 1.0
    return min(left, right) / max(left, right) if max(left, right) else 0.0
