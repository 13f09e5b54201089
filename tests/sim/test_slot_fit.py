"""E0745: an object must fit the slot it is put in (a vial is wider than a tube slot's
bore); the 2 mL tube fits one, is picked and inserted like the 1.5 mL tube, and gives
tube task families a held-out binding of another geometry."""

from __future__ import annotations

import pytest

from lablang.driver import check_text
from lablang.sim import catalog

SCENE = """scene s {{
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  block: thermal_block(slots: 6) on table at (0.45 m, -0.15 m)
  rotor: centrifuge(slots: 8) on table at (0.45 m, 0.15 m)
  stand: pipette_stand(slots: 2) on table at (0.15 m, 0.15 m)
  {lines}
}}
"""


def _codes(lines: str, tasks: str = "") -> list[str]:
    return [d.code for d in check_text(SCENE.format(lines=lines) + tasks).report]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("v: vial() in rack.slot[0]", ["E0745"]),
        ("v: vial() in block.slot[2]", ["E0745"]),
        ("w: weight(mass: 50 g) in rack.slot[0]", ["E0745"]),
        ("w: weight(mass: 10 g) in rack.slot[0]", []),
        ("t: tube_2ml() in rotor.slot[3]", []),
        ("t: tube_1_5ml() in rack.slot[0]", []),
        ("v: vial() in stand.slot[0]", []),  # 14.8 mm in a 17 mm well
        (  # permuted into another container's slots than the one it starts in
            "t: tube_1_5ml() in rack.slot[0]\n  v: vial() on table at (0.3 m, 0 m)\n"
            "  randomize [t, v] within rack.slot[0..5]",
            ["E0745"],
        ),
    ],
)
def test_a_scene_placing_an_object_in_a_slot_it_does_not_fit_is_e0745(lines, expected) -> None:
    """Placed in a slot or permuted among slots: a vial or a 50 g weight (13.8 mm) does not
    fit a 13 mm tube bore, a tube or a 10 g weight does, a vial fits a pipette stand."""
    assert _codes(lines) == expected


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("do { pick(v); insert_into_slot(v, rack.slot[0]) }  success: on(v, table)", ["E0745"]),
        ("do { pick(v); place(v, block.slot[1]) }  success: on(v, table)", ["E0745"]),
        ("do { pick(v); incubate(v, block.slot[1], 5 s) }  success: on(v, table)", ["E0745"]),
        (
            "do { pick(v); insert_into_slot(v, opposite(rotor, slot_of(t))) } "
            " success: on(v, table)",
            ["E0745"],
        ),
        ("do { pick(v); place(v, table) }  success: v in rotor", ["E0745"]),
        ("do { pick(t); insert_into_slot(t, rack.slot[0]) }  success: in(t, rack.slot[0])", []),
    ],
)
def test_a_task_moving_an_object_into_a_slot_it_does_not_fit_is_e0745(step, expected) -> None:
    """`insert_into_slot`, `place`, `incubate` into a slot (also one computed by
    `opposite`), or a spec asking for the object in a slotted container: E0745 at the
    object, with the fitting assets as the fix; the tube passes."""
    lines = "v: vial() on table at (0.3 m, 0 m)\n  t: tube_2ml() on table at (0.3 m, -0.05 m)"
    task = f'task k in s {{\n  instruction: "Move v or t, as the program says."\n  step a {{ {step} }}\n}}\n'
    report = [d for d in check_text(SCENE.format(lines=lines) + task).report if d.code[0] == "E"]
    assert [d.code for d in report] == expected
    for d in report:
        assert d.help and "tube_2ml" in d.help and "`v`" in d.message


def test_a_binding_that_puts_a_vial_in_a_tube_slot_is_e0742_naming_the_misfit() -> None:
    """Through a family binding the misfit is E0742 on the binding, its message the slot
    rule's; the 2 mL tube binding passes."""
    lines = (
        "v: vial() on table at (0.3 m, 0 m)\n  t: tube_1_5ml() on table at (0.3 m, -0.05 m)\n"
        "  t2: tube_2ml() on table at (0.35 m, 0 m)"
    )
    task = """task k in s {{
  roles: [load]
  bindings: {{ training: {{ small: {{load: t}} }} heldout: {{ {name}: {{load: {entity}}} }} }}
  instruction: "Put the load in slot 0 of the rack."
  step a {{ do {{ pick(load); insert_into_slot(load, rack.slot[0]) }}  success: in(load, rack.slot[0]) }}
}}
"""
    report = check_text(SCENE.format(lines=lines) + task.format(name="wide", entity="v")).report
    assert [d.code for d in report] == ["E0742"]
    assert "does not fit a slot of `rack`" in report.sorted()[0].message
    fine = check_text(SCENE.format(lines=lines) + task.format(name="big", entity="t2")).report
    assert [d.code for d in fine] == []


def test_every_slotted_asset_has_a_bore_and_the_tubes_fit_the_tube_slots() -> None:
    """`catalog.SLOT_BORES` covers every asset with slots (the builders read it), and
    both tubes fit the rack's, the block's and the rotor's slots."""
    assert {a for a, k in catalog.ASSET_KINDS.items() if k.slots} == set(catalog.SLOT_BORES)
    for host in ("tube_rack", "thermal_block", "centrifuge"):
        for tube in catalog.TUBES:
            assert catalog.slot_misfit(tube, {}, host) == ""
        assert "does not fit" in catalog.slot_misfit("vial", {}, host)


def test_a_2ml_tube_is_picked_and_inserted_into_a_rack_slot(task_from) -> None:
    """The 2 mL tube (wider, taller) goes from one rack to another's slot and stands upright
    and still: the task certifies on one instance."""
    from lablang.sim import certify_task

    task = task_from(
        """
scene s {
  rack: tube_rack(slots: 6) on table at (0.40 m, -0.10 m)
  rack2: tube_rack(slots: 6) on table at (0.20 m, 0.10 m)
  t: tube_2ml(contents: 1.8 mL of buffer) in rack.slot[1]
}
task k in s {
  instruction: "Move t to slot 3 of rack2."
  step m {
    do { pick(t); insert_into_slot(t, rack2.slot[3]) }
    success: in(t, rack2.slot[3]) and upright(t) and stable(t, 0.5 s)
  }
}
"""
    )
    certificate = certify_task(task, instances=1, seed=0, mutants="none")
    assert certificate["certified"], certificate["failures"]
