"""`diff --task`: the drafted rubric parses, has one item per consequential change, and its
machine checks tell the modified protocol from the published one."""

from __future__ import annotations

from pathlib import Path

from lablang.protocols.diff import semantic_diff
from lablang.protocols.model import answer_view
from lablang.protocols.quantities import Amount
from lablang.protocols.task import draft_task
from lablang.rubrics.evaluate import evaluate_check

from .helpers import codes, protocol, rubric

ROOT = Path(__file__).parents[2] / "examples" / "protocols"


def _pair():
    old, _ = protocol((ROOT / "pcr_published.lab").read_text())
    new, _ = protocol((ROOT / "pcr_gc_rich.lab").read_text())
    return old, new


def test_draft_has_one_item_per_consequential_change():
    """Seven consequential changes (1 added step, 4 cycling, 1 ratio, 1 move): seven items."""
    old, new = _pair()
    text = draft_task(semantic_diff(old, new), old, new)
    assert codes(text) == []
    drafted, report = rubric(text)
    assert [d.code for d in report] == []
    assert [i.id for i in drafted.items] == [
        "added_dmso",
        "cycle_initial_denaturation_time",
        "cycle_cycles",
        "cycle_denaturation_time",
        "cycle_annealing",
        "beads_ratio",
        "moved_qubit",
    ]
    assert drafted.question is not None and "lib_pcr" in drafted.question


def test_drafted_checks_pass_on_the_new_protocol_and_fail_on_the_old():
    """Every drafted machine check is true for the modified protocol and false for the original."""
    old, new = _pair()
    drafted, _ = rubric(draft_task(semantic_diff(old, new), old, new))
    checked = [i for i in drafted.items if i.check is not None]
    assert len(checked) == 7
    for item in checked:
        assert evaluate_check(item.check, answer_view(new), Amount.parse).passed, item.id
        assert evaluate_check(item.check, answer_view(old), Amount.parse).passed is False, item.id


def test_the_committed_draft_is_current():
    """examples/protocols/task_draft.lab is what `lablang diff --task` prints today."""
    old, new = _pair()
    assert (ROOT / "task_draft.lab").read_text() == draft_task(semantic_diff(old, new), old, new)
