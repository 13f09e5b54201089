"""The four bench protocol pairs of examples/protocols/pairs: the kinds of change the diff
finds in them (compositions, reagent identity, consumables, double-sided selection, qPCR
standards, washes, spin-column flow-through) and the ones it calls cosmetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.protocols.checks import check_protocol
from lablang.protocols.diff import ProtocolDiff, semantic_diff
from lablang.protocols.front import check_program
from lablang.protocols.model import Protocol

from .helpers import codes, protocol

PAIRS = Path(__file__).resolve().parents[2] / "examples" / "protocols" / "pairs"


def load(name: str) -> Protocol:
    result = check_file(PAIRS / f"{name}.lab")
    assert not result.report.has_errors, [d.message for d in result.report]
    return check_program(result.program, Report())[0]


def diff(old: str, new: str) -> ProtocolDiff:
    return semantic_diff(load(old), load(new))


def params(d: ProtocolDiff, step: str) -> dict[str, tuple[str, str]]:
    change = next(c for c in d.changes if c.step == step and c.kind == "changed")
    return {p.parameter: (str(p.old), str(p.new)) for p in change.parameters}


def test_composition_and_identity_changes_are_found_as_quantities():
    """20 % -> 10 % methanol, milk -> BSA and nitrocellulose -> PVDF are material and
    consumable changes, compared as quantities and names, not as description text."""
    d = diff("western_nitrocellulose", "western_pvdf")
    found = {(r.kind, r.name): {p.parameter: (str(p.old), str(p.new)) for p in r.parameters}
             for r in d.resources}  # fmt: skip
    assert found[("material", "transfer_buffer")] == {"component.methanol": ("20 %", "10 %")}
    assert found[("material", "blocker")]["component.bsa"] == ("None", "5 %")
    assert found[("material", "blocker")]["component.milk"] == ("5 %", "None")
    assert found[("consumable", "membrane")] == {"material": ("nitrocellulose", "pvdf")}
    assert params(d, "wash1")["duration"] == ("300 s", "600 s")


def test_material_dependents_are_the_steps_using_it_and_what_follows():
    """A changed blocker affects the block step and every later step on the membrane,
    and the antibodies diluted in it; nothing before the first use."""
    d = diff("western_nitrocellulose", "western_pvdf")
    blocker = next(r for r in d.resources if r.name == "blocker")
    assert blocker.dependents[0] == "block"
    assert "soak" not in blocker.dependents and "transfer" not in blocker.dependents


def test_a_rename_and_a_reworded_note_are_cosmetic():
    """Renaming `recover` to `collect` and rewording the tip are reported but not
    consequential, and name no downstream steps."""
    d = diff("spri_published", "spri_double")
    cosmetic = [c for c in d.changes if not c.consequential]
    assert [(c.step, c.old_name) for c in cosmetic] == [("collect", "recover"), ("tip", None)]
    assert all(c.downstream == () for c in cosmetic)
    assert [c.step for c in d.changes if c.consequential] == ["bind", "dry"]


def test_double_sided_selection_is_one_step_with_two_ratios():
    """The 0.6x/0.8x selection is the `bind` step's ratio, `keep` and `then`, and its
    downstream includes the magnet and drying waits."""
    d = diff("spri_published", "spri_double")
    assert params(d, "bind") == {
        "title": ("Bind at 0.8x", "Select 0.6x, keep the supernatant, then bind at 0.8x"),
        "ratio": ("0.8 x", "0.6 x"),
        "keep": ("None", "supernatant"),
        "then": ("None", "0.8 x"),
    }
    bind = next(c for c in d.changes if c.step == "bind")
    assert {"settle", "dry"} <= set(bind.downstream)


def test_qpcr_standards_are_structure_not_notes():
    """The 452 bp -> 399 bp standards, their count and the replicates are parameters of
    the quantify step; a measurement's settings change nothing downstream."""
    d = diff("qpcr_kapa", "qpcr_nebnext")
    quantify = next(c for c in d.changes if c.step == "quantify")
    assert quantify.consequential and quantify.downstream == ()
    assert params(d, "quantify") == {
        "standards": ("6", "4"),
        "standard_size": ("452 bp", "399 bp"),
        "replicates": ("3", "2"),
    }
    mix = next(r for r in d.resources if r.name == "qpcr_mix")
    assert [p.parameter for p in mix.parameters] == ["description"]


def test_spin_column_flow_through_leaves_the_ledger():
    """Each `discard: flow_through` spin empties the column, so the eluate holds the
    30 uL of water, not the 2 mL that passed through the column."""
    result = check_file(PAIRS / "rna_column.lab")
    built = check_program(result.program, Report())[0]
    ledger = check_protocol(built, None, Report())
    assert dict(ledger[-1].volumes)["eluate"] == 30


def test_on_column_dnase_is_found_as_added_steps():
    """The DNase digestion and the split RW1 wash are four added steps and a changed
    volume, in protocol order."""
    d = diff("rna_column", "rna_column_dnase")
    assert d.summary() == [
        ("changed", "rw1_add"),
        ("added", "dnase_add"),
        ("added", "dnase_wait"),
        ("added", "rw1b_add"),
        ("added", "rw1b_spin"),
    ]


def test_run_settings_are_quantities_with_units():
    """A wet transfer's 100 V constant is an electrical setting: `0.1 kV`-style unit
    changes compare exactly, and a voltage given as a time is E0801."""
    step = "run: tank for 60 min  voltage: {v}  mode: voltage  consumable: membrane"
    text = "protocol t {{ consumables: {{membrane: {{material: pvdf}}}}  step r {{ {s} }} }}"
    built, report = protocol(text.format(s=step.format(v="100 V")))
    assert [d.code for d in report] == []
    assert str(built.steps[0].action.voltage) == "100 V"  # type: ignore[union-attr]
    other, _ = protocol(text.format(s=step.format(v="100000 mV")))
    assert semantic_diff(built, other).changes == ()
    assert "E0801" in codes(text.format(s=step.format(v="100 s")))


@pytest.mark.parametrize(
    "field",
    ["times: 3  for 5 min", "count: 10  for 5 s"],
)
def test_a_clause_after_another_field_is_an_error_not_dropped(field):
    """`for 5 min` written after `times: 3` belongs to no field the step reads: E0807,
    where it used to be dropped silently with the duration."""
    kind = "wash: 10 mL of tbst" if "times" in field else "mix: vortex"
    text = f"protocol t {{ materials: [tbst]  step s {{ {kind}  {field} }} }}"
    assert "E0807" in codes(text)


def test_a_kept_supernatant_holds_the_sample_and_its_beads():
    """A one-sided cut that keeps the supernatant leaves 50 uL + 0.6 x 50 uL = 80 uL in
    the ledger, so drawing 90 uL from it is E0803; with `then:` and an elution the
    container holds the eluate."""
    text = (
        "protocol t {{ materials: [beads]  containers: {{s: 50 uL, out: 0 uL}}\n"
        "  step cut {{ cleanup: 0.6 x of beads  keep: supernatant {extra} container: s }}\n"
        "  step take {{ transfer: {v} from s  to: out }} }}"
    )
    assert "E0803" not in codes(text.format(extra="", v="80 uL"))
    assert "E0803" in codes(text.format(extra="", v="90 uL"))
    assert "E0803" in codes(text.format(extra=" then: 0.8 x  elute: 20 uL ", v="30 uL"))
