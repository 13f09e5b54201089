"""The skill, asset and message faults that six unseen lab tasks hit (issue 26, item 5),
each pinned by the task that hit it (`tests/sim/data/*.lab`) or by a minimal text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.syntax.grammar import grammar_text

DATA = Path(__file__).parent / "data"

_SCENE = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  tube: tube_1_5ml(contents: 200 uL of sample) in rack.slot[0]
}
"""


def _keywords(rule: str) -> list[str]:
    """The words of one `!rule: "a" | "b"` keyword rule of the grammar."""
    match = re.search(rf"^!{rule}:(.*?)(?=^\S)", grammar_text(), re.S | re.M)
    assert match is not None, rule
    return re.findall(r'"([a-z_]+)"', match.group(1))


@pytest.mark.parametrize("word", _keywords("entry_kw") + _keywords("expr_kw"))
def test_a_step_named_by_a_keyword_gets_e0708_saying_the_name_is_reserved(word: str) -> None:
    """`step hold { ... }` (and every keyword that opens an entry) is E0708 saying the word
    is reserved, located on it, whose fix renames the step to `hold_`, which checks clean."""
    task = f"""task t in s {{
  instruction: "Pick up the tube."
  step {word} {{ do {{ pick(tube) }} success: grasped(tube) }}
}}
"""
    text = _SCENE + task
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0708"
    assert diagnostic.message == f"`{word}` is a reserved word, so it cannot name a step"
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    assert text[edit.span.start : edit.span.end] == word
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert not check_text(fixed).report.errors


def test_an_event_named_by_a_keyword_gets_e0708_saying_the_name_is_reserved() -> None:
    """`event hold at 2 s { ... }` in a scene is E0708 saying `hold` is reserved."""
    text = _SCENE.replace(
        "in rack.slot[0]\n",
        "in rack.slot[0]\n  event hold at 2 s { move(rack, by: (5 cm, 0 cm)) }\n",
    )
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0708" and "reserved word" in diagnostic.message


_NEEDS_SCENE = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  tube: tube_1_5ml(contents: 200 uL of sample) in rack.slot[0]
  rotor: centrifuge(slots: 8) on table at (0.40 m, 0.15 m)
  scale: scale() on table at (0.40 m, -0.15 m)
  block: thermal_block(slots: 6) on table at (0.15 m, 0.20 m)
  stand: pipette_stand(slots: 1) on table at (0.60 m, 0.10 m)
  p: pipette(volume: 200 uL) in stand.slot[0]
  b: bottle(capacity: 200 mL, contents: 100 mL of water) on table at (0.60 m, -0.15 m)
  box: tip_box(slots: 12) on table at (0.15 m, 0.40 m)
  bin: waste_bin() on table at (0.45 m, 0.40 m)
  vx: vortex_mixer() on table at (0.62 m, 0.40 m)
}
"""
# one call per static precondition of `catalog.SKILL_NEEDS` (skill, argument index) that
# breaks it; the screw-cap case is the one the unseen task hit
BROKEN = {
    ("twist_cap", 0): "twist_cap(tube, 2)",
    ("twist_cap", 1): "twist_cap(b, 9)",
    ("close_cap", 0): "close_cap(tube)",
    ("open_lid", 0): "open_lid(rack)",
    ("close_lid", 0): "close_lid(scale)",
    ("start_centrifuge", 0): "start_centrifuge(rack)",
    ("tare", 0): "tare(rack)",
    ("read_scale", 0): "read_scale(rack)",
    ("put_on_scale", 1): "put_on_scale(tube, rack)",
    ("weigh", 1): "weigh(tube, rack)",
    ("set_temperature", 0): "set_temperature(rack, 37 C)",
    ("set_temperature", 1): "set_temperature(block, 120 C)",
    ("incubate", 1): "incubate(tube, rack.slot[1], 5 s)",
    ("stir", 0): "stir(rack, 5 s)",
    ("attach_tip", 0): "attach_tip(tube, box.slot[1])",
    ("attach_tip", 1): "attach_tip(p, rack.slot[1])",
    ("eject_tip", 0): "eject_tip(tube, bin)",
    ("eject_tip", 1): "eject_tip(p, rack)",
    ("discard", 1): "discard(tube, rack)",
    ("aspirate", 0): "aspirate(tube, b, 10 uL)",
    ("dispense", 0): "dispense(tube, b, 10 uL)",
    ("transfer", 0): "transfer(tube, b, b, 10 uL)",
    ("mix_by_pipetting", 0): "mix_by_pipetting(tube, b, 3)",
    ("mix_by_pipetting", 2): "mix_by_pipetting(p, b, 50)",
    ("invert", 1): "invert(tube, 100)",
    ("pour", 1): "pour(b, rack, 1 mL)",
    ("vortex", 1): "vortex(tube, rack, 3 s)",
    ("vortex", 2): "vortex(tube, vx, 90 s)",
    ("open_drawer", 0): "open_drawer(rack)",
    ("close_drawer", 0): "close_drawer(scale)",
    ("scoop", 0): "scoop(tube, b, 1 g)",
    ("empty_scoop", 0): "empty_scoop(p, b)",
}


def _step(call: str) -> str:
    return (
        _NEEDS_SCENE
        + f'task t in s {{ instruction: "x" step a {{ do {{ {call} }} success: true }} }}'
    )


def test_every_static_skill_precondition_has_a_case_here() -> None:
    """The cases below cover every entry of `SKILL_NEEDS`, so a precondition added to the
    table is tested by `check` as soon as it is given a breaking call."""
    from lablang.sim import catalog

    needs = {(skill, n.index) for skill, entries in catalog.SKILL_NEEDS.items() for n in entries}
    assert needs == set(BROKEN)


@pytest.mark.parametrize("key", sorted(BROKEN))
def test_check_rejects_a_call_that_breaks_a_static_skill_precondition(key: tuple[str, int]) -> None:
    """`check` reports E0712 on the argument that breaks a skill's static precondition
    (`twist_cap(tube, 2)`: a 1.5 mL tube has no screw cap), before anything runs."""
    text = _step(BROKEN[key])
    errors = [d for d in check_text(text).report.errors]
    assert [d.code for d in errors] == ["E0712"], [(d.code, d.message) for d in errors]
    assert f"argument of `{key[0]}` must be" in errors[0].message


def test_a_screw_cap_skill_on_a_tube_names_the_bottle_that_fits_as_its_fix() -> None:
    """`twist_cap(tube, 2)` says a bottle is needed, and with one bottle in the scene the
    fix names it; the fixed call checks clean."""
    text = _step("twist_cap(tube, 2)")
    (diagnostic,) = check_text(text).report.errors
    assert "has no screw cap" not in diagnostic.message
    assert diagnostic.message.startswith("the first argument of `twist_cap` must be a bottle")
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert "twist_cap(b, 2)" in fixed and not check_text(fixed).report.errors


def test_the_screw_cap_task_is_rejected_by_check() -> None:
    """The unseen task that uncaps two tubes with `twist_cap` (`data/screw_cap.lab`) does
    not pass `check`: both calls are E0712."""
    result = check_text((DATA / "screw_cap.lab").read_text("utf-8"), "screw_cap.lab")
    assert [d.code for d in result.report.errors] == ["E0712", "E0712"]


def _load(name: str, robot: str = "gantry"):  # type: ignore[no-untyped-def]
    from lablang.sim import load_tasks
    from lablang.sim.robots import with_robot

    tasks, report = load_tasks(DATA / name)
    assert not report.has_errors, [d.message for d in report]
    (task,) = tasks.values()
    return with_robot(task, robot)


@pytest.mark.parametrize("robot", ["gantry", "panda"])
def test_a_bare_pipette_is_in_its_stand_at_the_start_and_after_being_put_back(robot: str) -> None:
    """The pipette-stand task passes on both robots: a bare pipette is `in(p, stand.slot[0])`
    at t = 0, and after a tip is attached and ejected, `place` puts it back upright in the
    stand (it used to read 3 cm into the floor, and to end lying against the bin)."""
    from lablang.sim import simulate_task

    result = simulate_task(_load("pipette_stand.lab", robot), seed=1)
    assert [s.status for s in result.steps] == ["passed"] * 4, [s.reason for s in result.steps]
    assert result.succeeded


TIP_ORDERS_TEXT = """
scene bench {
  box: tip_box(slots: 12) on table at (0.15 m, -0.15 m)
  stand: pipette_stand(slots: 1) on table at (0.30 m, 0.10 m)
  p: pipette(volume: 200 uL, tip: 0) in stand.slot[0]
  bin: waste_bin() on table at (0.15 m, 0.15 m)
}
task t in bench {
  instruction: "Put tips on pipette p from the box positions in turn, ejecting each into the bin."
  step first { do { pick(p); attach_tip(p, box.slot[A]) } success: has_tip(p) }
  step eject { do { eject_tip(p, bin) } success: not has_tip(p) }
  step second { do { attach_tip(p, box.slot[B]) } success: has_tip(p) }
  step eject_2 { do { eject_tip(p, bin) } success: not has_tip(p) }
  step third { do { attach_tip(p, box.slot[C]) } success: has_tip(p) }
}
"""


def _tip_orders_pass(order: tuple[int, int, int], robot: str = "gantry") -> list[str]:
    from lablang.sim import simulate_task
    from lablang.sim.front import tasks_of
    from lablang.sim.robots import with_robot

    text = TIP_ORDERS_TEXT
    for letter, slot in zip("ABC", order, strict=True):
        text = text.replace(f"[{letter}]", f"[{slot}]")
    result = check_text(text)
    task = with_robot(tasks_of(result.program, result.report)["t"], robot)
    return [s.reason for s in simulate_task(task, seed=0).steps if s.status != "passed"]


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 5, 4), (7, 8, 6)])
def test_attach_after_eject_works_in_the_slot_orders_that_failed(
    order: tuple[int, int, int],
) -> None:
    """`attach_tip` after `eject_tip` seats the tip for the orders the unseen task hit (0
    then 1, 2 or 5; 7 then 8): the shaft no longer rests on the tips beside the one the
    nose is pressed on, so an emptied neighbour does not tilt the pipette."""
    assert _tip_orders_pass(order) == []


def test_attach_after_eject_works_in_any_slot_order() -> None:
    """Property over slot orders of a 12-tip box (three distinct positions, drawn by
    hypothesis, derandomized): every attach after an eject seats its tip."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    orders = st.permutations(range(12)).map(lambda p: (p[0], p[1], p[2]))

    @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    @given(orders)
    def attach_seats(order: tuple[int, int, int]) -> None:
        assert _tip_orders_pass(order) == [], order

    attach_seats()


def test_attach_after_eject_works_on_the_panda() -> None:
    """The Panda arm seats the tip after an eject in an order that failed (0 then 1 then 2)."""
    assert _tip_orders_pass((0, 1, 2), "panda") == []


def test_the_tip_change_task_passes() -> None:
    """The unseen task with a tip change between two tubes (`data/tip_change.lab`: tips 0
    then 1) passes every step."""
    from lablang.sim import simulate_task

    result = simulate_task(_load("tip_change.lab"), seed=1)
    assert result.succeeded, [(s.name, s.reason) for s in result.steps]


def test_false_at_the_deadline_lists_literals_with_their_not() -> None:
    """A failing `not has_tip(p)` is listed as `not has_tip(p)` (it gave `failing: []`), and
    a passing `not has_tip(p)` beside a failing atom is not listed (it showed as the
    failing `has_tip(p)`)."""
    from lablang.sim import simulate_task
    from lablang.sim.front import tasks_of

    scene = TIP_ORDERS_TEXT.split("task t")[0]
    task = """
task t in bench {
  instruction: "Watch pipette p in its stand."
  step a { do { wait(0.1 s) } success: not has_tip(p) and grasped(p) within 0.2 s }
}
"""
    failing = []
    for tip in ("0", "1"):
        result = check_text(scene.replace("tip: 0", f"tip: {tip}") + task)
        (step,) = simulate_task(tasks_of(result.program, result.report)["t"], seed=0).steps
        assert step.status == "failed"
        failing.append(step.failing)
    assert failing == [("grasped(p)",), ("grasped(p)", "not has_tip(p)")]


def test_reaching_for_an_object_not_handed_over_yet_says_it_is_not_there() -> None:
    """In the hand-over task's broken twin (`early`, no `on bring`), `pick(tube)` before the
    colleague's hand-over fails saying the tube is not there and when it comes (never
    "`pick` timed out"), and the episode records a premature interaction with `bring`;
    the twin that waits (`load`) passes with none."""
    from lablang.sim import load_tasks, simulate_task

    tasks, _ = load_tasks(DATA / "hand_over.lab")
    early = simulate_task(tasks["early"], seed=1)
    (step,) = early.steps
    assert step.status == "failed"
    assert "`tube` is not there: a colleague hands it over at" in step.reason
    assert "(event `bring`)" in step.reason and "timed out" not in step.reason
    assert [e.object for e in early.premature] == ["tube"] and not early.succeeded
    load = simulate_task(tasks["load"], seed=1)
    assert load.succeeded and not load.premature


def test_the_skills_refuse_a_broken_static_precondition_in_the_words_of_check() -> None:
    """A `twist_cap` on a tube that `check` never saw (the program edited after checking)
    fails at run time before moving, with the message `check` gives for the same call:
    both read the one table, `SKILL_NEEDS`."""
    from attrs import evolve

    from lablang.sim import simulate_task
    from lablang.sim.front import tasks_of
    from lablang.sim.model import Ref

    bad = check_text(_step("twist_cap(tube, 2)")).report.errors[0].message
    result = check_text(_step("twist_cap(b, 2)"))
    task = tasks_of(result.program, result.report)["t"]
    (step,) = task.steps
    (call,) = step.program
    edited = evolve(call, args=(Ref("tube"), *call.args[1:]))
    task = evolve(task, steps=(evolve(step, program=(edited,)),))
    (ran,) = simulate_task(task, seed=0).steps
    assert ran.status == "failed"
    assert ran.reason == f"skill `twist_cap` failed: {bad}"
    assert ran.skills[0].end == ran.skills[0].start  # refused before it moved


def test_a_protocol_step_named_by_a_keyword_gets_one_error_saying_it_is_reserved() -> None:
    """The same class in a protocol: `step hold { ... }` is one E0806 saying `hold` is
    reserved, with the rename as its fix (it gave three errors: an unnamed step without an
    action and a `hold` not understood)."""
    text = "protocol p {\n  step hold { incubate: 37 C for 20 s }\n}\n"
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0806"
    assert diagnostic.message == "`hold` is a reserved word, so it cannot name a step"
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert not check_text(fixed).report.errors
