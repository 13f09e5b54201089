"""Untrusted contract text never crashes the front end, the runtime or the verifier."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lablang.contracts.checks import verify
from lablang.contracts.semantics import initial_state, legal_operations
from tests.contracts.loading import STDLIB, compile_text

TEXTS = [p.read_text("utf-8") for p in sorted(STDLIB.glob("*.lab"))]
TOKENS = [
    "",
    " ",
    "none",
    "true",
    "0",
    "7",
    "-1",
    "N",
    "a",
    "+",
    "%",
    "/ 0",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "and",
    "->",
    "not",
    "==",
    "slot?",
    "int",
    "one_of(x)",
    "set(bool)",
    "if(",
    "sum(pan)",
    "forall x in slot:",
    "=",
    ",",
    "op z",
    "var q: bool",
    "pair",
]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 12))
        text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at + cut :]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated())
def test_mutated_contracts_give_diagnostics_not_tracebacks(text: str) -> None:
    """A mutated stdlib contract either compiles or yields located diagnostics; the runtime
    then evaluates its initial state without raising."""
    contracts, report = compile_text(text)
    for d in report:
        assert d.code.startswith("E0") and d.message
    for contract in contracts:
        legal_operations(contract, initial_state(contract, {}))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated())
def test_mutated_contracts_verify_without_crashing(text: str) -> None:
    """Whatever compiles can be verified (at a small depth and budget) without an exception."""
    contracts, _ = compile_text(text)
    for contract in contracts:
        for result in verify(contract, 2, 2_000_000):
            assert result.status in ("holds", "proved", "violated", "unknown", "bounded")
