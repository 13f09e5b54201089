"""Every protocols/rubrics diagnostic code is registered with an explanation, and its `bad`
example produces it while its `good` example does not."""

from __future__ import annotations

import pytest

from lablang.diagnostics import Report
from lablang.diagnostics.codes import CODES
from lablang.rubrics.grading import Judgment, collect_grades, read_judgments
from lablang.source import Source

from .helpers import codes, rubric

OURS = sorted(c for c in CODES if c[1:3] == "08")
# judgments examples: the E083x errors and the W0837/W0838 warnings on protocol ids and counts
JSONL = {c for c in OURS if c.startswith("E083") or c in ("W0837", "W0838")}
# W0820 needs an answer to evaluate against: pinned in test_rubrics / test_cli instead.
# W0820 needs answers and E0851 a benchmark: their golden cases cover them
LAB = [c for c in OURS if c not in JSONL and c not in ("W0820", "E0851")]

JUDGED = """rubric r {
  item denat "d" weight 3
  item wrong "w" weight -2
  item cleanup "c" weight 1 { item cleanup_ratio "r" weight 1 }
  item rationale "why" weight 1
  item denat_check "machine" weight 1 { check: answer.step(cycle).denaturation >= 98 C }
}"""


def test_the_area_registers_its_codes():
    """The protocols registry holds errors and warnings of the E08xx/W08xx range."""
    assert {"E0801", "E0803", "E0821", "E0831", "W0801", "W0820"} <= set(OURS)
    for code in OURS:
        assert CODES[code].area == "protocols"
        assert CODES[code].explanation and CODES[code].bad and CODES[code].good


@pytest.mark.parametrize("code", LAB)
def test_lab_examples_produce_their_code(code):
    """`bad` yields the code through `lablang check`; `good` yields no diagnostic."""
    assert code in codes(CODES[code].bad), CODES[code].bad
    assert codes(CODES[code].good) == []


def _grading_codes(text: str) -> list[str]:
    built, _ = rubric(JUDGED)
    report = Report()
    source = Source(text.strip() + "\n", "j.jsonl")
    rejected: dict[tuple[str, str, str], int] = {}
    lines = read_judgments(source, report, rejected)
    machine = {
        ("pcr1", "1", "denat_check"): Judgment(
            protocol="pcr1", attempt="1", item="denat_check", score=2
        )
    }
    collect_grades(built, lines, source, report, machine=machine, rejected=rejected)
    return [d.code for d in report]


def _complete(text: str) -> str:
    """Add judgments for the items an example does not mention, so only its point shows."""
    import json

    mentioned = {
        json.loads(line)["item"]
        for line in text.strip().splitlines()
        if line.startswith("{") and '"item"' in line
    }
    rest = [i for i in ("denat", "wrong", "cleanup_ratio", "rationale") if i not in mentioned]
    extra = "".join(
        json.dumps({"protocol": "pcr1", "attempt": 1, "item": i, "score": 0}) + "\n" for i in rest
    )
    return text.strip() + "\n" + extra


@pytest.mark.parametrize("code", sorted(JSONL))
def test_judgment_examples_produce_their_code(code):
    """A `bad` judgments example yields its code; the `good` one grades cleanly."""
    bad = CODES[code].bad if code == "E0833" else _complete(CODES[code].bad)
    assert code in _grading_codes(bad)
    good = CODES[code].good if code == "E0833" else _complete(CODES[code].good)
    if code == "E0833":
        good = _complete(good)
    assert _grading_codes(good) == []
