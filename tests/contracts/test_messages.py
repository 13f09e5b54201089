"""Messages that name their cause (issue 33, item 6): a reserved word where a name goes,
and a requirement that can never hold on its own."""

from __future__ import annotations

from lablang.contracts.checks import verify
from tests.contracts.loading import compile_text


def _errors(text: str) -> list[tuple[str, str]]:
    _, report = compile_text(text)
    return [(d.code, d.message) for d in report.errors]


def test_a_reserved_word_as_a_variable_name_is_named_once() -> None:
    """`var read: bool` is one error saying that `read` is reserved, not two about syntax."""
    assert _errors("contract c {\n  var read: bool\n}\n") == [
        ("E0604", "`read` is a reserved word and cannot name this `var`")
    ]


def test_a_reserved_word_as_an_operation_name_is_named_once() -> None:
    """`op read ...` is one error saying that `read` is reserved."""
    assert _errors("contract c {\n  var n: int[0..3]\n  op read effect n = 1\n}\n") == [
        ("E0604", "`read` is a reserved word and cannot name this `op`")
    ]


def test_assigning_a_reserved_word_says_it_is_reserved() -> None:
    """`read = read + 1` in an operation's body is a syntax error that names `read`."""
    errors = _errors("contract c {\n  var n: int[0..3]\n  op go {\n    read = read + 1\n  }\n}\n")
    assert errors == [("E0101", "unexpected `=`: `read` is a reserved word and cannot be a name")]


def test_one_impossible_requirement_is_not_said_to_clash_with_itself() -> None:
    """A single requirement no state meets "can never hold"; two that exclude each other
    "cannot hold together"."""
    (c,), _ = compile_text(
        "contract c {\n  var n: int[0..3]\n  op far requires n > 5 effect n = 0\n"
        "  op both requires n > 2 and n < 1 effect n = 0\n  op up requires n < 3 effect n = n + 1\n}\n"
    )
    vac = {r.item: r.message for r in verify(c, 2) if r.check == "vacuity"}
    assert vac["operation `far`"].endswith("(`n > 5` can never hold)")
    assert vac["operation `both`"].endswith("(`n > 2` and `n < 1` cannot hold together)")
