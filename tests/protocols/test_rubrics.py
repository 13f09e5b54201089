"""Rubric front end and machine checks."""

from __future__ import annotations

from fractions import Fraction

from lablang.protocols.model import answer_view
from lablang.protocols.quantities import Amount
from lablang.rubrics.evaluate import evaluate_check

from .helpers import codes, protocol, rubric

TOUR_RUBRIC = """
rubric gc_rich "Adapt the PCR to a GC-rich template" {
  item denat "raises denaturation to 98 C" weight 3 {
    levels { 2: "98 C for at least 10 s"  1: "above 95 C"  0: "unchanged" }
    check: answer.step(cycle).denaturation >= 98 C
    tags: [intent, domain]
  }
  item wrong "lowers extension below 60 C" weight -2
  item cleanup "cleans up" weight 2 {
    tags: [domain]
    item ratio "0.8x" weight 1
    item elute "20 uL" weight 3
  }
}
"""

ANSWER = """
protocol amp {
  materials: [amp_mix]
  step mix { add: 50 uL of amp_mix  to: tube1 }
  step cycle { thermocycle { 98 C for 3 min; repeat 11 { 98 C for 15 s; 63 C for 20 s;
               72 C for 1 min }; hold 4 C } }
}
"""


def test_items_weights_levels_tags_and_children():
    """The tour rubric gives a 3-item tree with a penalty, levels, tags and two children."""
    built, report = rubric(TOUR_RUBRIC)
    assert [d.code for d in report] == []
    denat, wrong, cleanup = built.items
    assert denat.weight == 3 and wrong.weight == -2 and cleanup.weight == 2
    assert denat.levels == ((2, "98 C for at least 10 s"), (1, "above 95 C"), (0, "unchanged"))
    assert denat.tags == ("intent", "domain")
    assert denat.check_text == "answer.step(cycle).denaturation >= 98 C"
    assert [c.id for c in cleanup.children] == ["ratio", "elute"]
    assert [i.id for i in built.leaves()] == ["denat", "wrong", "ratio", "elute"]


def test_rubric_errors_have_their_codes():
    """Bad level key (E0821), duplicate id (E0822), unsafe check (E0823), no positive weight (E0824)."""
    assert codes('rubric r { item a "x" weight 1 { levels { 3: "no" } } }') == ["E0821"]
    assert codes('rubric r { item a "x" weight 1\n item a "y" weight 1 }') == ["E0822"]
    assert codes('rubric r { item a "x" weight 1 { check: open("f") } }') == ["E0823"]
    assert codes('rubric r { item a "x" weight -1 }') == ["E0824"]
    # a zero weight is one error; the item is then treated as weight 1 (no cascade)
    assert codes('rubric r { item a "x" weight 0 }') == ["E0821"]


def test_check_passes_and_fails_on_answers():
    """`denaturation >= 98 C` holds for 98 C and fails for 95 C, with the reason."""
    built, _ = rubric(TOUR_RUBRIC)
    check = built.items[0].check
    answer, _ = protocol(ANSWER)
    assert evaluate_check(check, answer_view(answer), Amount.parse).passed is True
    cooler, _ = protocol(ANSWER.replace("repeat 11 { 98 C", "repeat 11 { 95 C"))
    result = evaluate_check(check, answer_view(cooler), Amount.parse)
    assert result.passed is False
    assert (
        result.explanation == "false: `answer.step(cycle).denaturation >= 98 C` evaluated to false"
    )


def test_check_on_a_missing_step_is_false_and_says_why():
    """An answer without the step fails the check and names the missing step."""
    built, _ = rubric(TOUR_RUBRIC)
    answer, _ = protocol(ANSWER.replace("step cycle", "step amplify"))
    result = evaluate_check(built.items[0].check, answer_view(answer), Amount.parse)
    assert (result.passed, result.explanation) == (False, "false: the answer has no step `cycle`")


def test_check_comparing_different_dimensions_cannot_be_evaluated():
    """Comparing a temperature with a volume is reported as not evaluable, never as a pass."""
    built, _ = rubric(TOUR_RUBRIC.replace(">= 98 C", ">= 98 uL"))
    answer, _ = protocol(ANSWER)
    result = evaluate_check(built.items[0].check, answer_view(answer), Amount.parse)
    assert result.passed is None and result.grade == 0
    assert "temperature" in result.explanation and "volume" in result.explanation


def test_quantifiers_names_and_counts():
    """exists/forall over steps, symbols as names, len(), index() and units across scales."""
    answer, _ = protocol(ANSWER)
    view = answer_view(answer)
    cases = {
        'exists s in answer.steps: s.kind == "add" and s.material == amp_mix': True,
        'forall s in answer.steps: s.kind != "wait"': True,
        "len(answer.steps) == 2": True,
        "answer.index(cycle) > answer.index(mix)": True,
        "answer.step(mix).volume == 0.05 mL": True,
        "answer.step(cycle).initial_denaturation_time == 180 s": True,
        "answer.step(cycle).cycles in [10, 11, 12]": True,
        "answer.step(nothing) == none": True,
        "answer.step(cycle).hold < 0 C": False,
    }
    for text, expected in cases.items():
        built, report = rubric(f'rubric r {{ item a "x" weight 1 {{ check: {text} }} }}')
        assert [d.code for d in report] == [], text
        assert evaluate_check(built.items[0].check, view, Amount.parse).passed is expected, text


def test_weights_are_exact_fractions():
    """A weight of 0.5 is kept as exactly 1/2."""
    built, _ = rubric('rubric r { item a "x" weight 0.5 }')
    assert built.items[0].weight == Fraction(1, 2)
