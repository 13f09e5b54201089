"""Random edits of the kinds agents make to `.lab` text, for fuzzing (tests and benchmarks/fuzz.py)."""

from __future__ import annotations

import random


def mutate(text: str, rng: random.Random) -> str:
    """One random edit of the kinds agents make: cut, duplicate, delete, insert, truncate."""
    if not text:
        return rng.choice(["{", "5'-", '"', "(", "oligo"])
    i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
    pieces = [
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ":",
        ";",
        ",",
        "5'-",
        "-3'",
        '"',
        "#",
        "\n",
        "..",
        "->",
        "|>",
        "±",
        "98 C",
        "(T)5000",
        "[X:9-1]",
        "{ref'}",
        "rG",
        "/5Phos/",
        "step",
        "oligo",
        "use",
        "in",
        "not",
        "?",
        "=",
        "==",
        "0",
        "-1e999",
        "\x00",
        "\ud800",
        "é",
    ]
    match rng.randrange(6):
        case 0:
            return text[:i]
        case 1:
            return text[:i] + text[j:]
        case 2:
            return text[:i] + rng.choice(pieces) + text[i:]
        case 3:
            return text[:i] + text[i:j] * 2 + text[j:]
        case 4:
            return text[:i] + text[j:i:-1] + text[j:]
        case _:
            return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
