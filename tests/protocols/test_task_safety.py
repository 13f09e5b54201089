"""Hazards as structure (`hazard:` on a material record or a step, names from `HAZARDS`,
E0811 otherwise) and safety in a drafted task's weights: a decision whose changes touch a
hazard weighs above every outcome decision and comes first, its penalty likewise."""

from __future__ import annotations

from pathlib import Path

from lablang.protocols.model import HAZARDS

from .helpers import codes, drafted_task, protocol

PAIRS = Path(__file__).parents[2] / "examples" / "protocols" / "pairs"
BUFFER = "      components: {tris: 25 mM, glycine: 192 mM, methanol: %s %%}\n"


def western(name: str, *, buffer_hazard: bool = False, methanol_hazard: bool = False) -> str:
    """A Western pair file, its transfer buffer (and the PVDF's activating methanol) marked
    flammable and toxic when asked."""
    text = (PAIRS / f"{name}.lab").read_text()
    if buffer_hazard:
        for percent in ("20", "10"):
            text = text.replace(
                BUFFER % percent, BUFFER % percent + "      hazard: [flammable, toxic]\n"
            )
    if methanol_hazard:
        text = text.replace(
            'methanol: "methanol, 100 %"',
            'methanol: {is: "methanol, 100 %", hazard: [flammable, toxic]}',
        )
    return text


def test_hazards_are_read_on_materials_and_steps():
    """`hazard:` takes one name or a list, on a material record and on a step; both are
    kept on the model."""
    built, report = protocol(
        "protocol p {\n"
        '  materials: {methanol: {is: "methanol", hazard: [flammable, toxic]}}\n'
        "  step pour { add: 5 mL of methanol  to: tray  hazard: harmful }\n}\n"
    )
    assert [d.code for d in report] == []
    assert built.materials[0].hazards == ("flammable", "toxic")
    assert built.steps[0].hazards == ("harmful",)
    assert {"flammable", "electrical", "biohazard"} <= set(HAZARDS)


def test_an_unknown_hazard_is_E0811_with_the_closest_name_as_its_fix():
    """A misspelt hazard (`flamable`) is E0811, located, with `flammable` as the fix, on a
    material and on a step alike."""
    from lablang.driver import check_text

    result = check_text(
        "protocol p {\n"
        '  materials: {methanol: {is: "methanol", hazard: [flamable]}}\n'
        "  step pour { add: 5 mL of methanol  to: tray  hazard: electrcal }\n}\n"
    )
    found = [d for d in result.report if d.code == "E0811"]
    assert len(found) == 2
    assert [d.fix.edits[0].replacement for d in found if d.fix] == ["flammable", "electrical"]
    assert codes("protocol p { step s { wait 5 s  hazard: uv } }") == []


def test_a_change_to_a_hazardous_reagent_weighs_first():
    """The transfer buffer marked flammable and toxic: its methanol change (20 -> 10 %)
    weighs 4, above the outcome decisions (3), names the hazards, is tagged `safety`, and
    its penalty weighs -4."""
    drafted = drafted_task(
        western("western_nitrocellulose", buffer_hazard=True),
        western("western_pvdf", buffer_hazard=True),
    )
    first = drafted.items[0]
    assert (first.id, int(first.weight)) == ("transfer_buffer_component_methanol", 4)
    assert first.criterion.endswith("(touches a hazard: flammable, toxic)")
    assert "safety" in first.tags
    assert max(int(i.weight) for i in drafted.items[1:]) == 3
    penalty = drafted.item("keeps_transfer_buffer")
    assert penalty is not None and int(penalty.weight) == -4


def test_a_hazardous_knock_on_lifts_its_decision_ahead_of_earlier_ones():
    """Unmarked, the membrane decision comes after the buffer and blocker ones; with the
    activating methanol (added under it as a knock-on) marked flammable, the membrane
    decision weighs 4 and comes first; the order of the rest is the protocol's."""
    plain = drafted_task(western("western_nitrocellulose"), western("western_pvdf"))
    marked = drafted_task(
        western("western_nitrocellulose"), western("western_pvdf", methanol_hazard=True)
    )
    positive = [i.id for i in plain.items if i.weight > 0]
    assert positive == ["transfer_buffer_component_methanol", "material_blocker",
                        "consumable_membrane"]  # fmt: skip
    assert [i.id for i in marked.items if i.weight > 0] == [
        "consumable_membrane",
        "transfer_buffer_component_methanol",
        "material_blocker",
    ]
    membrane = marked.item("consumable_membrane")
    assert membrane is not None and int(membrane.weight) == 4 and "safety" in membrane.tags
    assert "added_activate" in {c.id for c in membrane.children}


def test_a_step_marked_hazardous_makes_its_change_a_safety_decision():
    """A run step marked `hazard: electrical` whose voltage changes weighs 4; the same
    change unmarked weighs as an outcome (3)."""
    body = "protocol p {{\n  consumables: {{gel: {{material: agarose}}}}\n" \
        "  step run1 {{ run: tank for 30 min  voltage: {v}  mode: voltage  consumable: gel{h} }}\n}}\n"  # fmt: skip
    for mark, weight in (("  hazard: electrical", 4), ("", 3)):
        drafted = drafted_task(body.format(v="100 V", h=mark), body.format(v="150 V", h=mark))
        assert int(drafted.items[0].weight) == weight, mark


def test_marking_a_hazard_is_not_a_change_at_the_bench():
    """The same protocol with its transfer buffer and transfer step marked hazardous has
    no semantic changes: a hazard is a label the task weights read, not a bench change."""
    from lablang.protocols.diff import semantic_diff

    text = western("western_nitrocellulose")
    marked = western("western_nitrocellulose", buffer_hazard=True).replace(
        "    consumable: membrane\n", "    consumable: membrane\n    hazard: electrical\n"
    )
    assert "hazard: electrical" in marked
    old, _ = protocol(text)
    new, _ = protocol(marked)
    assert new.step("transfer").hazards == ("electrical",)
    d = semantic_diff(old, new)
    assert (d.changes, d.resources) == ((), ())
