"""Derived expressions with arguments (issue 33, item 4): `opposite: (k + N / 2) % N for k
in slot`, used as `opposite(a)`, means the same as the expression written out."""

from __future__ import annotations

from lablang.contracts.checks import verify
from lablang.contracts.reference import answers
from tests.contracts.loading import compile_text
from tests.contracts.random_contracts import disagreements

RING = """contract ring(N: 6) {
  var a: slot?
  var b: slot?
  opposite: (k + N / 2) % N for k in slot
  op place_a(k: slot) requires a == none effect a = k
  op place_b(k: slot) requires a != none and b == none and k == OPP(a) effect b = k
  goal b != none
  terminal b != none
  invariant b != none -> a != none and OPP(b) == a
  invariant forall i in slot: OPP(OPP(i)) == i
}
"""


def _errors(text: str) -> list[tuple[str, str]]:
    _, report = compile_text(text)
    return [(d.code, d.message) for d in report.errors]


def test_a_use_means_the_body_with_the_argument_in_place() -> None:
    """Every verdict with `opposite(x)` equals the one with `(x + N / 2) % N` written out,
    and agrees with the reference checker."""
    (with_args,), report = compile_text(RING.replace("OPP(", "opposite("))
    assert not report.has_errors, [d.message for d in report]
    (written,), _ = compile_text(
        RING.replace("OPP(OPP(i))", "(((i + N / 2) % N) + N / 2) % N")
        .replace("OPP(a)", "(a + N / 2) % N")
        .replace("OPP(b)", "(b + N / 2) % N")
    )
    one, other = verify(with_args, 3), verify(written, 3)
    assert [(r.check, r.status, r.depth) for r in one] == [
        (r.check, r.status, r.depth) for r in other
    ]
    assert {r.status for r in one if r.check == "invariant"} == {"proved"}
    assert disagreements(with_args, one, answers(with_args, 3), 3) == []


def test_a_derived_expression_cannot_use_itself() -> None:
    """A body that calls its own name is E0601 (only those above it may be used), so every
    expansion terminates."""
    errors = _errors("contract c {\n  var a: int[0..3]\n  f: f(k) + 1 for k in 0..3\n}\n")
    assert errors == [("E0601", "`f` is used before it is defined")]


def test_wrong_uses_name_the_expected_arguments() -> None:
    """A use with too many arguments, or with none, or of the wrong kind, is E0602 naming
    the parameters."""
    head = "contract c {\n  var a: int[0..3]\n  var p: bool\n  f: k + 1 for k in 0..3\n"
    assert _errors(head + "  invariant f(a, a) > 0\n}\n") == [
        ("E0602", "`f` takes 1 argument (k), given 2")
    ]
    assert _errors(head + "  invariant f > 0\n}\n") == [
        ("E0602", "`f` takes arguments: write `f(k)`")
    ]
    assert _errors(head + "  invariant f(p) > 0\n}\n") == [
        ("E0602", "argument `k` of `f` is a int[0..3], given `p`")
    ]
