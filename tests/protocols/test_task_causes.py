"""Drafted tasks group a knock-on change under its cause even when the knock-on comes first
in the protocol's order, and name that cause; a change that feeds no later outcome change
stays a decision of its own."""

from __future__ import annotations

from pathlib import Path

from .helpers import drafted_task

PAIRS = Path(__file__).parents[2] / "examples" / "protocols" / "pairs"


def test_a_wash_halved_before_the_added_dnase_steps_sits_under_them():
    """On-column DNase: the first RW1 wash is halved (700 -> 350 uL) to make room for the
    DNase steps added after it. The halving is a sub-item of the added steps' decision,
    naming `dnase_add` as its cause, with no penalty or goal of its own."""
    task = drafted_task(
        (PAIRS / "rna_column.lab").read_text(), (PAIRS / "rna_column_dnase.lab").read_text()
    )
    assert [i.id for i in task.items] == ["added_dnase_add_decision"]
    added = task.items[0]
    halved = added.children[-1]
    assert halved.id == "rw1_add_volume"
    assert halved.criterion.endswith(
        "(a consequence of the change to step `dnase_add`, later in the protocol)"
    )
    assert task.question is not None and "rw1_add" not in task.question


BUFFER = """protocol p {{
  materials: [water, enzyme, beads]
  containers: [buffer, tube, other]
  step prepare {{ add: {prepared} of water  to: buffer }}
  step spare {{ add: {spare} of water  to: other }}
  step sample {{ add: 10 uL of water  to: tube }}
  step dilute {{ transfer: 20 uL from buffer  to: tube }}
  step digest {{ incubate: {temperature} for 10 min  container: tube }}
}}
"""


def test_a_buffer_prepared_early_goes_under_the_later_change_it_feeds():
    """A buffer made in a larger volume early on, whose use later changed (the digestion's
    temperature), is a knock-on of that later change: one decision, the digestion's."""
    task = drafted_task(
        BUFFER.format(prepared="50 uL", spare="5 uL", temperature="37 C"),
        BUFFER.format(prepared="100 uL", spare="5 uL", temperature="50 C"),
    )
    decisions = [i for i in task.items if i.weight > 0]
    assert len(decisions) == 1 and decisions[0].id == "changed_digest_decision"
    assert [c.id for c in decisions[0].children] == ["digest_temperature", "prepare_volume"]
    assert (
        decisions[0]
        .children[1]
        .criterion.endswith("(a consequence of the change to step `digest`, later in the protocol)")
    )


def test_an_early_change_that_feeds_no_later_outcome_change_is_its_own_decision():
    """A volume change in a container the changed digestion never uses is not its knock-on:
    it stays a decision of its own, with its own penalty."""
    task = drafted_task(
        BUFFER.format(prepared="50 uL", spare="5 uL", temperature="37 C"),
        BUFFER.format(prepared="50 uL", spare="8 uL", temperature="50 C"),
    )
    assert [(i.id, int(i.weight)) for i in task.items] == [
        ("spare_volume", 1),
        ("digest_temperature", 3),
        ("keeps_spare", -1),
        ("keeps_digest", -3),
    ]
