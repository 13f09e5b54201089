"""Parameter ranges and requirements, and `verify --all-params` over every value
(issue 33, item 1): the centrifuge ring whose invariant holds for even N only."""

from __future__ import annotations

from lablang.contracts.every_value import parameter_space, verify_every_value
from lablang.contracts.reference import answers
from lablang.diagnostics import Report
from lablang.source import Source
from lablang.syntax import parse
from tests.contracts.loading import DATA, ROOT, compile_text
from tests.contracts.random_contracts import disagreements
from tests.contracts.test_cli import run

RING = DATA / "ring_any.lab"
EVEN = ROOT / "examples" / "contracts" / "ring.lab"


def _decl(text: str, name: str):  # type: ignore[no-untyped-def]
    source = Source(text, "ring.lab")
    module = parse(source, Report())
    return next(d for d in module.decls if d.name == name), source


def test_every_value_names_the_odd_ring_sizes_with_a_trace_each() -> None:
    """Over N in 2..8, "B's opposite is A" is violated exactly for N = 3, 5, 7, each with a
    trace, and every result of each value agrees with the reference checker."""
    decl, source = _decl(RING.read_text(), "ring_any")
    done = verify_every_value(decl, source, Report(), 2)
    assert done is not None
    _, runs = done
    assert [one.params["N"] for one in runs] == list(range(2, 9))
    failing = {}
    for one in runs:
        inv = next(r for r in one.results if r.check == "invariant")
        if inv.status == "violated":
            failing[one.params["N"]] = len(inv.traces[0].steps)
        assert disagreements(one.contract, list(one.results), answers(one.contract, 2), 2) == []
    assert failing == {3: 2, 5: 2, 7: 2}


def test_a_requirement_restricts_the_values_checked() -> None:
    """`requires N % 2 == 0` leaves N = 2, 4, 6, 8, and the space says which values they are."""
    decl, source = _decl(EVEN.read_text(), "ring")
    space = parameter_space(decl, source, Report())
    assert space is not None
    assert [v["N"] for v in space.values] == [2, 4, 6, 8]
    assert space.described == "N in 2..8 with `N % 2 == 0`"


def test_a_parameter_value_that_breaks_a_requirement_is_an_error() -> None:
    """`--param N=7` on the even ring is E0612 naming the requirement; N=9 is outside the
    declared range (E0611, with the range)."""
    text = EVEN.read_text()
    _, report = compile_text(text, params={"N": 7})
    assert [d.code for d in report.errors] == ["E0612"]
    assert "requires `N % 2 == 0`, which is false for N = 7" in report.errors[0].message
    _, report = compile_text(text, params={"N": 9})
    assert {d.code for d in report.errors} == {"E0611"}


def test_a_range_without_a_value_starts_at_its_lowest() -> None:
    """`contract c(N: 3..5)` compiles with N = 3."""
    (c,), report = compile_text(
        "contract c(N: 3..5) { var a: slot?  op put(k: slot) effect a = k }"
    )
    assert not report.has_errors and c.params == {"N": 3}


def test_all_params_needs_a_declared_range_and_few_values() -> None:
    """`--all-params` on a contract without a range is E0607; over more than 64 values E0603."""
    for text, code in (
        ("contract c(N: 4) { var a: slot? }", "E0607"),
        ("contract c(N: 1..9 = 2, M: 1..9 = 2) { var a: bool }", "E0603"),
    ):
        decl, source = _decl(text, "c")
        report = Report()
        assert parameter_space(decl, source, report) is None
        assert [d.code for d in report.errors] == [code]


def test_verify_all_params_reports_per_claim_and_exits_by_the_worst() -> None:
    """`lablang verify --all-params` proves the even ring for every value (exit 0) and
    lists the failing values of the other (exit 1)."""
    even = run("verify", str(EVEN), "--all-params", "--depth", "2")
    assert even.exit_code == 0, even.output
    assert (
        "ok   invariant: b != none -> a != none and opposite(b) == a: proved for every "
        "N in 2..8 with `N % 2 == 0` (4 values)" in even.output
    )
    odd = run("verify", str(RING), "--all-params", "--depth", "2")
    assert odd.exit_code == 1
    assert "violated for N = 3; N = 5; N = 7 (of 7 values)" in odd.output
    assert "       with N = 7:" in odd.output
