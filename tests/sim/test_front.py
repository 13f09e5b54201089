"""The front end: scenes and tasks from `.lab`, E07xx diagnostics, and the catalog."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.sim.front import tasks_of

REGISTRY = Path("lablang/diagnostics/registry/sim.toml")
CODES = tomllib.loads(REGISTRY.read_text("utf-8"))


@pytest.mark.parametrize("code", sorted(c for c in CODES if CODES[c].get("stage") != "run"))
def test_registry_bad_example_reports_its_code_and_good_example_is_clean(code: str) -> None:
    """Each sim code `check` reports: its `bad` example produces it, its `good` example nothing."""
    entry = CODES[code]
    bad = check_text(entry["bad"])
    assert code in [d.code for d in bad.report], [(d.code, d.message) for d in bad.report]
    good = check_text(entry["good"])
    assert [d.code for d in good.report] == []


def test_unknown_asset_skill_and_predicate_suggest_the_closest_name() -> None:
    """Typos in asset, skill and predicate names get a did-you-mean help line."""
    text = """
scene s { tube: tube_15ml() on table at (0.2 m, 0.1 m) }
"""
    [diagnostic] = check_text(text).report.diagnostics
    assert diagnostic.code == "E0701" and diagnostic.help == "did you mean `tube_1_5ml`?"
    text = """
scene s { tube: tube_1_5ml() on table at (0.2 m, 0.1 m) }
task t in s { step a { do { pickk(tube) } success: grasp(tube) } }
"""
    helps = {d.code: d.help for d in check_text(text).report}
    assert helps == {"E0702": "did you mean `pick`?", "E0703": "did you mean `grasped`?"}


def test_scene_fields_become_entities_with_si_parameters_contents_and_placements(task_from) -> None:
    """Placements, quantities in SI, contents and randomization are read from the scene."""
    task = task_from("""
scene s {
  rack: tube_rack(slots: 4) on table at (10 cm, -0.2 m, 90 deg)
  w: weight(mass: 20 g) on table at (0.3 m, 0 m)
  tube: tube_1_5ml(contents: 200 uL of sample) in rack.slot[3]
  randomize rack within {x: ±2 cm, yaw: ±10 deg}
  randomize [tube] within rack.slot[0..3]
}
task t in s { step a { do { pick(tube) } success: grasped(tube) } }
""")
    rack, w, tube = task.scene.entities
    assert rack.placement == sm.OnSurface("table", 0.1, -0.2, pytest.approx(1.5707963))
    assert w.params == (("mass", pytest.approx(0.02)),)
    assert tube.placement == sm.InSlot("rack", 3)
    assert tube.contents == (sm.Content("sample", pytest.approx(2e-7), "liquid"),)
    pose, slots = task.scene.randomizations
    assert (pose.entity, pose.x, pose.y) == ("rack", pytest.approx(0.02), 0.0)
    assert slots == sm.SlotPermutation(("tube",), "rack", (0, 1, 2, 3))


def test_success_spec_translates_in_operator_and_connectives(task_from) -> None:
    """`a in rotor`, `and`, `not` and calls become the simulator's expression tree."""
    task = task_from("""
scene s {
  rotor: centrifuge(slots: 8) on table at (0.45 m, 0.12 m)
  tube: tube_1_5ml() on table at (0.2 m, 0 m)
}
task t in s { step a { do { pick(tube) } success: tube in rotor and not grasped(tube) } }
""")
    success = task.steps[0].success
    assert success == sm.Logic(
        "and",
        (
            sm.Call("in", (sm.Ref("tube"), sm.Ref("rotor"))),
            sm.Not(sm.Call("grasped", (sm.Ref("tube"),))),
        ),
    )


def test_instruction_that_omits_a_required_object_warns() -> None:
    """W0701 names each entity of a success spec that the instruction never mentions."""
    result = check_text("""
scene s {
  tube_A: tube_1_5ml() on table at (0.2 m, 0.1 m)
  scale: scale() on table at (0.4 m, 0.1 m)
}
task t in s {
  instruction: "Put tube A down."
  step a { do { pick(tube_A); put_on_scale(tube_A, scale) } success: on(tube_A, scale) }
}
""")
    assert [(d.code, d.message) for d in result.report] == [
        ("W0701", "the instruction does not mention `scale`, which the success spec requires")
    ]


def test_slot_out_of_range_and_double_occupancy_are_placement_errors() -> None:
    """A slot the container lacks, and two objects in one slot, are both E0706."""
    result = check_text("""
scene s {
  rack: tube_rack(slots: 2) on table at (0.2 m, 0 m)
  a: tube_1_5ml() in rack.slot[1]
  b: tube_1_5ml() in rack.slot[1]
  c: tube_1_5ml() in rack.slot[2]
}
""")
    messages = sorted(d.message for d in result.report if d.code == "E0706")
    assert messages == ["`b` and `a` are both in `rack.slot[1]`", "`rack` has slots 0 to 1, not 2"]


def test_task_referring_to_a_missing_entity_is_left_out_with_a_diagnostic() -> None:
    """A task with errors yields no runnable task, only diagnostics."""
    result = check_text("""
scene s { tube: tube_1_5ml() on table at (0.2 m, 0 m) }
task t in s { step a { do { pick(tubes) } success: grasped(tube) } }
""")
    assert [d.code for d in result.report] == ["E0704"]
    assert tasks_of(result.program, result.report) == {}


def test_catalog_matches_the_implementations() -> None:
    """Every catalogued asset, skill and predicate has an implementation and vice versa."""
    from lablang.sim.assets import BUILDERS
    from lablang.sim.predicates import ALL_PREDICATES, FUNCTIONS
    from lablang.sim.skills import SKILLS

    assert set(BUILDERS) == set(catalog.ASSET_KINDS)
    assert set(SKILLS) == set(catalog.SKILL_SIGNATURES)
    assert set(ALL_PREDICATES) == set(catalog.PREDICATE_NAMES)
    assert set(FUNCTIONS) == set(catalog.FUNCTION_NAMES)


def test_checking_a_task_file_does_not_import_mujoco() -> None:
    """`lablang check` on a task file stays light: the front end never imports mujoco."""
    code = (
        "import sys; from lablang.driver import check_file; "
        "r = check_file('examples/tasks/centrifuge_loading.lab'); "
        "print(r.ok, 'mujoco' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_standard_benches_check_clean_and_a_task_can_run_in_an_imported_scene(tmp_path) -> None:
    """`stdlib/sim/benches.lab` checks without diagnostics, and `use` brings its scenes to tasks."""
    from lablang.driver import check_file

    assert [d.message for d in check_file("stdlib/sim/benches.lab").report] == []
    task_file = tmp_path / "weigh.lab"
    task_file.write_text(
        "use sim.benches.{weighing_bench}\n"
        "task weigh in weighing_bench {\n"
        '  instruction: "Put w20 on the scale."\n'
        "  step put { do { pick(w20); put_on_scale(w20, scale) } success: on(w20, scale) }\n"
        "}\n"
    )
    result = check_file(task_file)
    assert result.ok, [d.message for d in result.report]
    task = tasks_of(result.program, result.report)["weigh"]
    assert task.scene.name == "weighing_bench" and len(task.scene.entities) == 5
