"""`verify` agrees with the reference explicit-state checker on random small contracts.

Every verdict (goal, deadlock, ranges, invariants, vacuity, goal liveness, pairs and
non-interference) is compared with the first witness the breadth-first enumerator
finds. `LABLANG_REFERENCE_EXAMPLES` raises the number of examples (the benchmark
mode of `benchmarks/contracts.py --reference` runs thousands).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from lablang.contracts.checks import verify
from lablang.contracts.reference import ReferenceTooLarge, answers
from tests.contracts.loading import compile_text
from tests.contracts.random_contracts import contracts, disagreements

EXAMPLES = int(os.environ.get("LABLANG_REFERENCE_EXAMPLES", "200"))
DEPTH = 4


def check_one(text: str, depth: int = DEPTH) -> list[str]:
    """The disagreements between `verify` and the reference on one contract's text."""
    compiled, report = compile_text(text)
    assert not report.has_errors, [d.message for d in report]
    (contract,) = compiled
    try:
        ref = answers(contract, depth)
    except ReferenceTooLarge:
        return []
    return disagreements(contract, verify(contract, depth), ref, depth)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=contracts())
def test_verify_agrees_with_the_reference_checker(text: str) -> None:
    """On a random small contract, every verdict of `verify` matches the first witness
    depth of the explicit-state enumeration (unknown claims nothing)."""
    assert check_one(text) == [], text
