"""Commutation claims `commute(a, b)` (issue 33, item 3): proved, or the reachable state
where the order matters, shown with what each order does."""

from __future__ import annotations

from lablang.contracts.checks import verify
from lablang.contracts.reference import answers
from tests.contracts.loading import compile_text
from tests.contracts.random_contracts import disagreements

BENCH = """contract bench {
  var labeled: bool
  var weighed: bool
  var mass: int[0..3]
  op label requires not labeled effect labeled = true
  op weigh requires not weighed effect weighed = true
  op load requires mass < 3 effect mass = if(weighed, mass, mass + 1)
  op seal requires not weighed effect labeled = true
  commute(label, weigh)
  commute(weigh, load)
  commute(seal, weigh)
}
"""


def _results(text: str, depth: int = 3):  # type: ignore[no-untyped-def]
    (c,), report = compile_text(text)
    assert not report.has_errors, [d.message for d in report]
    results = verify(c, depth)
    assert disagreements(c, results, answers(c, depth), depth) == []
    return {r.item: r for r in results if r.check == "commute"}


def test_independent_operations_are_proved_to_commute() -> None:
    """Labelling and weighing touch different variables: proved for every depth."""
    assert _results(BENCH)["`label` and `weigh` commute"].status == "proved"


def test_the_state_where_order_matters_is_the_counterexample() -> None:
    """`load` adds mass only before `weigh`: violated in the initial state, with the mass
    each order ends with; `seal` is disabled by `weigh`, which is said too."""
    results = _results(BENCH)
    load = results["`weigh` and `load` commute"]
    assert load.status == "violated" and load.depth == 0
    assert load.details == ("`weigh` then `load`: mass=0", "`load` then `weigh`: mass=1")
    seal = results["`seal` and `weigh` commute"]
    assert seal.status == "violated"
    assert "`seal` is not legal after `weigh`" in seal.details


def test_a_commutation_broken_only_in_a_reachable_state_is_found_there() -> None:
    """`a` and `b` commute except once x == 2, two steps in: violated at depth 2, and
    `holds` at depth 1."""
    text = (
        "contract c {\n  var x: int[0..3]\n  var y: bool\n"
        "  op up requires x < 3 effect x = x + 1\n"
        "  op a requires not y effect y = true\n"
        "  op b requires x == 2 and not y effect x = 3\n  commute(a, b)\n}\n"
    )
    assert _results(text, 2)["`a` and `b` commute"].depth == 2
    assert _results(text, 1)["`a` and `b` commute"].status == "holds"


def test_a_commute_names_two_different_operations_of_the_contract() -> None:
    """`commute(a, a)` and an unknown operation are errors."""
    head = "contract c {\n  var x: bool\n  op a effect x = true\n"
    _, report = compile_text(head + "  commute(a, a)\n}\n")
    assert [d.code for d in report.errors] == ["E0604"]
    _, report = compile_text(head + "  commute(a, b)\n}\n")
    assert [(d.code, d.message) for d in report.errors] == [
        ("E0601", "`b` is not an operation of this contract")
    ]
