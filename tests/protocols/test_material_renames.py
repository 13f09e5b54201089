"""A material under a new name (same identity and composition, used in the same steps) is a
cosmetic rename, not a removal plus an addition; a material whose identity changed under the
same name is a consequential change; a same-identity material used elsewhere is not renamed."""

from __future__ import annotations

from pathlib import Path

from lablang.diagnostics import Report
from lablang.modification import draft_verified_task
from lablang.protocols.diff import diff_json, render_diff, semantic_diff
from lablang.protocols.front import build_protocols
from lablang.protocols.model import Protocol
from lablang.source import Source
from lablang.syntax import parse

WESTERN = (
    Path(__file__).resolve().parents[2] / "examples/protocols/pairs/western_nitrocellulose.lab"
)


def built(text: str) -> Protocol:
    report = Report()
    source = Source(text, "w.lab")
    found = build_protocols(parse(source, report), source, report)
    assert not report.has_errors, [d.message for d in report]
    return found[0]


def published() -> str:
    return WESTERN.read_text()


def renamed_tbst(text: str) -> str:
    """`tbst` renamed `wash_buffer` everywhere: its declaration, the washes, the blocker's
    solvent."""
    return text.replace("tbst", "wash_buffer")


def test_a_renamed_material_is_one_cosmetic_rename_with_no_step_changes():
    """`tbst` -> `wash_buffer` (same identity, same steps, also the blocker's solvent) is one
    `renamed` resource change, cosmetic, with no dependents; no step or material changes."""
    old, new = built(published()), built(renamed_tbst(published()))
    d = semantic_diff(old, new)
    assert d.changes == ()
    assert [(r.kind, r.name, r.change, r.old_name, r.consequential) for r in d.resources] == [
        ("material", "wash_buffer", "renamed", "tbst", False)
    ]
    assert d.resources[0].dependents == ()
    assert "* renamed material `wash_buffer` (was `tbst`, cosmetic)" in render_diff(d, old, new)
    data = diff_json(d)["resources"][0]
    assert (data["old_name"], data["consequential"]) == ("tbst", False)


def test_a_rename_is_no_rubric_item_but_the_changes_around_it_still_are():
    """A rename beside a real change (milk -> BSA in the blocker) drafts items for the
    blocker only: nothing mentions `tbst` or `wash_buffer` being removed or added."""
    text = renamed_tbst(published())
    modified = text.replace(
        'blocker: {is: "nonfat dry milk in TBST", components: {milk: 5 %}',
        'blocker: {is: "BSA in TBST", components: {bsa: 5 %}',
    )
    old, new = built(published()), built(modified)
    d = semantic_diff(old, new)
    assert [(r.name, r.change) for r in d.resources] == [
        ("wash_buffer", "renamed"),
        ("blocker", "changed"),
    ]
    draft = draft_verified_task(old, new)
    assert "material_blocker" in draft
    assert "wash_buffer" not in draft and "tbst" not in draft.split("question")[0]


def test_identity_changed_under_the_same_name_is_consequential():
    """The same name `blocker` with a new identity and composition is a `changed` material,
    consequential, whose dependents are the steps that use it and what they feed."""
    modified = published().replace(
        'blocker: {is: "nonfat dry milk in TBST", components: {milk: 5 %}',
        'blocker: {is: "BSA in TBST", components: {bsa: 5 %}',
    )
    d = semantic_diff(built(published()), built(modified))
    (change,) = d.resources
    assert (change.name, change.change, change.consequential) == ("blocker", "changed", True)
    assert {p.parameter for p in change.parameters} == {
        "description",
        "component.milk",
        "component.bsa",
    }
    assert "block" in change.dependents and "primary_ab" in change.dependents


def test_same_identity_used_in_other_steps_is_not_a_rename():
    """`tbst` renamed but the first wash now uses the transfer buffer instead: the renamed
    material is not used in the same steps, so it is not a rename, and the wash's material
    change is a consequential step change."""
    modified = renamed_tbst(published()).replace(
        'step wash1 "Wash 3 x 5 min" { wash: 10 mL of wash_buffer',
        'step wash1 "Wash 3 x 5 min" { wash: 10 mL of transfer_buffer',
    )
    d = semantic_diff(built(published()), built(modified))
    assert all(r.change != "renamed" for r in d.resources)
    wash1 = next(c for c in d.changes if c.step == "wash1")
    assert wash1.consequential
    assert [(p.parameter, p.old, p.new) for p in wash1.parameters] == [
        ("material", "tbst", "transfer_buffer")
    ]


def test_a_material_with_only_a_name_is_not_taken_for_a_rename():
    """Two plain materials (`[water]` -> `[buffer]`) record no identity, so a new name is a
    different reagent: the step's material change stays consequential."""
    old = built("protocol p { materials: [water]\n step a { add: 5 uL of water  to: t } }")
    new = built("protocol p { materials: [buffer]\n step a { add: 5 uL of buffer  to: t } }")
    d = semantic_diff(old, new)
    assert d.resources == () and d.changes[0].consequential
