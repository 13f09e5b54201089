"""`diff --task`: the drafted rubric parses, has one item per scientific decision with
its knock-on changes under it naming their cause, weights from consequence, penalties for
keeping published values, a question without the answer, and machine checks verified to
tell the modified protocol from the published one."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.modification import draft_verified_task
from lablang.protocols.diff import semantic_diff
from lablang.protocols.model import answer_view
from lablang.protocols.quantities import Amount
from lablang.protocols.task import draft_task
from lablang.rubrics.evaluate import evaluate_check

from .helpers import codes, protocol, rubric

ROOT = Path(__file__).parents[2] / "examples" / "protocols"
PAIRS = [
    ("pcr_published", "pcr_gc_rich"),
    ("pairs/spri_published", "pairs/spri_double"),
    ("pairs/qpcr_kapa", "pairs/qpcr_nebnext"),
    ("pairs/western_nitrocellulose", "pairs/western_pvdf"),
    ("pairs/rna_column", "pairs/rna_column_dnase"),
]


def _pair(old: str = "pcr_published", new: str = "pcr_gc_rich"):
    before, _ = protocol((ROOT / f"{old}.lab").read_text())
    after, _ = protocol((ROOT / f"{new}.lab").read_text())
    return before, after


def test_draft_has_one_item_per_decision_and_a_penalty_for_each_kept_value():
    """The GC-rich adaptation: the DMSO, the cycling (four settings as sub-items), the
    cleanup ratio and the QC order are four decisions; the cycling and the ratio have
    penalties for keeping the published value."""
    old, new = _pair()
    text = draft_task(semantic_diff(old, new), old, new)
    assert codes(text) == []
    drafted, report = rubric(text)
    assert [d.code for d in report] == []
    assert [(i.id, int(i.weight)) for i in drafted.items] == [
        ("added_dmso", 3),
        ("changed_cycle_decision", 3),
        ("beads_ratio", 3),
        ("moved_qubit", 1),
        ("keeps_cycle", -3),
        ("keeps_beads", -3),
    ]
    cycling = drafted.items[1]
    assert [(c.id, int(c.weight)) for c in cycling.children] == [
        ("cycle_initial_denaturation_time", 2),
        ("cycle_cycles", 3),
        ("cycle_denaturation_time", 2),
        ("cycle_annealing", 3),
    ]


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[n for _, n in PAIRS])
def test_every_drafted_check_fails_on_the_published_protocol(old, new):
    """Each check of the verified draft holds on the modified protocol and not on the
    published one (a penalty's the other way round), for all five protocol pairs."""
    before, after = _pair(old, new)
    drafted, report = rubric(draft_verified_task(before, after))
    assert [d.code for d in report] == []
    checked = [i for i in drafted.leaves() if i.check is not None]
    assert checked
    for item in checked:
        on_old = evaluate_check(item.check, answer_view(before), Amount.parse).passed
        on_new = evaluate_check(item.check, answer_view(after), Amount.parse).passed
        assert (on_old, on_new) == ((True, False) if item.weight < 0 else (False, True)), item.id


def test_a_check_the_published_protocol_meets_is_left_out_with_a_note():
    """The second RW1 spin is like the published spin, so no check can tell them apart:
    the draft says so instead of shipping a check that the published protocol passes; the
    added RW1 step gets the stricter check (its 350 uL) that does."""
    text = draft_verified_task(*_pair("pairs/rna_column", "pairs/rna_column_dnase"))
    assert '# no machine check: `exists s in answer.steps: s.kind == "centrifuge"' in text
    assert "s.volume == 350 uL and s.material == rw1" in text


def test_knock_on_changes_sit_under_their_cause_and_name_it():
    """The shorter drying follows from the double-sided selection and the longer washes
    from the new blocker: each is a sub-item of its cause whose criterion names it."""
    spri, _ = rubric(draft_verified_task(*_pair("pairs/spri_published", "pairs/spri_double")))
    bind = spri.item("changed_bind_decision")
    assert bind is not None and [c.id for c in bind.children][-1] == "dry_duration"
    assert bind.children[-1].criterion.endswith("(a consequence of the change to step `bind`)")
    western, _ = rubric(
        draft_verified_task(*_pair("pairs/western_nitrocellulose", "pairs/western_pvdf"))
    )
    blocker = western.item("material_blocker")
    assert blocker is not None
    assert {"wash1_duration", "wash2_duration"} <= {c.id for c in blocker.children}
    membrane = western.item("consumable_membrane")
    assert membrane is not None and "added_activate" in {c.id for c in membrane.children}


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[n for _, n in PAIRS])
def test_the_question_states_the_goal_without_the_answer(old, new):
    """The question names neither the modified protocol's title nor any new value; what
    only the author can say is marked as a draft."""
    before, after = _pair(old, new)
    drafted, _ = rubric(draft_verified_task(before, after))
    assert drafted.question is not None and "[DRAFT:" in drafted.question
    assert after.title is not None and after.title not in drafted.question
    for change in semantic_diff(before, after).changes:
        for p in change.parameters:
            if p.new is not None and p.parameter not in ("name", "title"):
                assert f" {p.new} " not in drafted.question, p.parameter


def test_the_committed_draft_is_current():
    """examples/protocols/task_draft.lab is what `lablang diff --task` prints today."""
    assert (ROOT / "task_draft.lab").read_text() == draft_verified_task(*_pair())


def test_free_text_judge_prompt_carries_published_protocol_goal_item_and_answer():
    """For a free-text answer each judge prompt holds the published protocol, the task's
    goal, the item and the answer, in that order."""
    from lablang.rubrics.prompts import judge_prompts

    published = (ROOT / "pairs" / "spri_published.lab").read_text()
    drafted, _ = rubric(draft_verified_task(*_pair("pairs/spri_published", "pairs/spri_double")))
    answer = "Use 0.6x beads, keep the supernatant, then add beads to 0.8x and elute."
    prompts = judge_prompts(drafted, answer, published=published)
    prompt = next(p["prompt"] for p in prompts if p["item"] == "bind_ratio")
    assert isinstance(prompt, str) and drafted.question is not None
    positions = [
        prompt.index(drafted.question),
        prompt.index("changes the ratio of step `bind`"),
        prompt.index('protocol spri "0.8x SPRI cleanup"'),
        prompt.index(answer),
    ]
    assert positions == sorted(positions)
