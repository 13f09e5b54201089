"""Certified means a wrong program would have failed: mutants of the expert program,
no success by luck, holds that last (issue 26, items 1-3).

Each test runs a task that used to certify and shows that it no longer does, and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.sim import certify_task, load_tasks
from lablang.sim.episode import run_episode
from lablang.sim.mutants import apply_mutant, derive_mutants

SORT = """
scene bench "two tubes, two racks" {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  rack2: tube_rack(slots: 6) on table at (0.40 m, 0.10 m)
  tube_A: tube_1_5ml(contents: 200 uL of sample) in rack.slot[0]
  tube_B: tube_1_5ml(contents: 200 uL of sample) in rack.slot[1]
}

task sort in bench {
  instruction: "Put tube A in slot 0 of rack2 and tube B in slot 2 of rack2."
  step sort_A {
    do { pick(tube_A); insert_into_slot(tube_A, rack2.slot[0]) }
    success: in(tube_A, rack2.slot[0]) and stable(tube_A, 0.5 s)
  }
  step sort_B {
    do { pick(tube_B); insert_into_slot(tube_B, rack2.slot[2]) }
    success: SPEC_B
  }
}
"""
SPEC_B = "in(tube_B, rack2.slot[2]) and stable(tube_B, 0.5 s)"


def _sort(task_from, spec: str = SPEC_B, text: str = SORT):
    return task_from(text.replace("SPEC_B", spec))


# ---------------------------------------------------------------- item 1: mutants


def test_mutants_are_derived_per_step_and_kind_where_they_apply(task_from) -> None:
    """Each step gets its calls removed, its tube swapped for the other tube, its slot moved
    to the next one, and (for the first step) the program stopped before it."""
    keys = [m.key for m in derive_mutants(_sort(task_from))]
    assert keys == [
        "removed:sort_A",
        "target:sort_A",
        "destination:sort_A",
        "stopped:sort_A",
        "removed:sort_B",
        "target:sort_B",
        "destination:sort_B",
    ]


def test_a_target_mutant_acts_on_the_other_tube_in_every_call(task_from) -> None:
    """Swapping `sort_B`'s target renames `tube_B` to `tube_A` in both of its calls only."""
    task = _sort(task_from)
    target = next(m for m in derive_mutants(task) if m.key == "target:sort_B")
    mutated = apply_mutant(task, target, {})
    assert [c.args[0].name for c in mutated.steps[1].program] == ["tube_A", "tube_A"]
    assert mutated.steps[0] == task.steps[0] and mutated.steps[1].success == task.steps[1].success


def test_a_computed_destination_moves_to_the_next_slot_at_run_time() -> None:
    """Centrifuge loading: `place_B`'s destination `opposite(rotor, slot_of(tube_A))` cannot
    be changed in the text, so its mutant moves it to the next slot when the call runs."""
    from lablang.sim.mutants import shift_destination
    from lablang.sim.state import SlotTarget

    tasks, _ = load_tasks("examples/tasks/centrifuge_loading.lab")
    task = tasks["load_pair"]
    mutant = next(m for m in derive_mutants(task) if m.key == "destination:place_B")
    assert mutant.change == "the next slot instead of `opposite(rotor, slot_of(tube_A))`"

    from types import SimpleNamespace

    rotor = SimpleNamespace(infos={"rotor": SimpleNamespace(slots=[None] * 8)})  # 8 slots
    rewrite = shift_destination(mutant, task.scene)
    values = ["tube_B", SlotTarget("rotor", 7)]
    assert rewrite(rotor, "place_B", 1, values) == ["tube_B", SlotTarget("rotor", 0)]
    assert rewrite(rotor, "place_A", 1, values) == values  # other steps run as written


def test_a_durations_mutant_cuts_every_time_of_the_step_to_a_tenth(task_from) -> None:
    """`wait 15 s` becomes `wait 1.5 s` in the mutated step; the spec and the other steps
    are unchanged."""
    task = _hold(task_from, "15 s")
    mutant = next(m for m in derive_mutants(task) if m.key == "durations:keep")
    mutated = apply_mutant(task, mutant, {})
    assert mutated.steps[1].program[0].args[0].value == 1.5
    assert mutated.steps[0] == task.steps[0] and mutated.steps[1].success == task.steps[1].success


def test_mutants_continued_from_the_checkpoint_judge_as_runs_from_the_start(task_from) -> None:
    """Each mutant of `sort_B`, continued from the checkpoint before the step, is killed (or
    not) by the same step for the same reason as the same mutant run from the start."""
    from lablang.sim.mutants import _from_scratch, _on_instance

    task = _sort(task_from, "in(tube_A, rack2.slot[2]) or in(tube_B, rack2.slot[2])")
    mutants = [m for m in derive_mutants(task) if m.step == "sort_B"]
    shared = [run for _m, run, _work in _on_instance(task, mutants, 3)]
    alone = [_from_scratch(task, m, 3)[0] for m in mutants]
    assert shared == alone
    assert [r.killed for r in shared] == [True, False, True]  # the target swap survives


def test_a_sensitive_task_kills_every_mutant_and_certifies(task_from) -> None:
    """The sorting task's specs check where each tube ends up: all 7 mutants are killed."""
    certificate = certify_task(_sort(task_from), instances=1, seed=0)
    section = certificate["sensitivity"]
    assert (section["run"], section["killed"], section["surviving"]) == (7, 7, 0)
    assert section["steps"]["sort_B"] == {
        "run": 3,
        "killed": 3,
        "surviving": [],
        "unchecked": None,
    }
    assert certificate["certified"] is True


def test_a_vacuous_success_true_step_does_not_certify_and_says_why(task_from) -> None:
    """`sort_B` written `success: true` used to certify (every instance succeeded); now its
    removal mutant survives and is named, and its spec held before it started."""
    certificate = certify_task(_sort(task_from, "true"), instances=1, seed=0)
    assert certificate["success_rate"] == 1.0  # the expert still passes every step
    assert certificate["certified"] is False
    messages = certificate["sensitivity"]["messages"]
    assert (
        "removing the calls of `sort_B` still meets every spec: `sort_B`'s spec does not "
        "check its outcome"
    ) in messages
    assert certificate["sensitivity"]["steps"]["sort_B"]["surviving"] == [
        "removed",
        "target",
        "destination",
    ]
    assert [a["step"] for a in certificate["already_held"]] == ["sort_B"]


def test_a_spec_that_ignores_which_tube_is_moved_survives_the_target_mutant(task_from) -> None:
    """`tube_B` checked only as "some tube in slot 2" (`slot_of` of either): swapping the
    target for `tube_A` still meets it, so that mutant survives, by name."""
    spec = "in(tube_A, rack2.slot[2]) or in(tube_B, rack2.slot[2])"
    certificate = certify_task(_sort(task_from, spec), instances=1, seed=0)
    assert certificate["sensitivity"]["steps"]["sort_B"]["surviving"] == ["target"]
    assert certificate["sensitivity"]["messages"] == [
        "`sort_B` acting on `tube_A` instead of `tube_B` still meets its spec: `sort_B`'s "
        "spec does not check which object it acts on"
    ]
    assert certificate["certified"] is False


def test_a_step_that_says_why_it_needs_no_check_has_no_mutants_and_shows_the_reason(
    task_from,
) -> None:
    """`unchecked: "..."` on the vacuous step: its mutants are not run, the reason is in the
    certificate, and only the luck of its `true` spec still stops certification."""
    text = SORT.replace(
        "    success: SPEC_B\n", '    success: true\n    unchecked: "a demonstration step"\n'
    )
    task = task_from(text)
    assert [m.step for m in derive_mutants(task)] == ["sort_A"] * 4
    certificate = certify_task(task, instances=1, seed=0)
    assert certificate["unchecked"] == {"sort_B": "a demonstration step"}
    assert certificate["sensitivity"]["steps"]["sort_B"]["unchecked"] == "a demonstration step"
    assert certificate["sensitivity"]["surviving"] == 0


def test_mutants_none_runs_no_mutant_and_the_certificate_says_so(task_from) -> None:
    """`mutants="none"`: the vacuous task's instances alone decide, and the section says
    `none` with nothing run."""
    certificate = certify_task(_sort(task_from, "true"), instances=1, seed=0, mutants="none")
    section = certificate["sensitivity"]
    assert section["mutants"] == "none" and section["run"] == 0
    assert certificate["certified"] is False  # the luck of `true` is still seen


# ---------------------------------------------------------------- item 2: no success by luck

LUCKY = SORT.replace(
    "tube_B: tube_1_5ml(contents: 200 uL of sample) in rack.slot[1]",
    "tube_B: tube_1_5ml(contents: 200 uL of sample) in rack2.slot[2]",
).replace("do { pick(tube_B); insert_into_slot(tube_B, rack2.slot[2]) }", "do { wait 1 s }")


def test_an_object_that_starts_at_its_goal_is_seen_by_check(task_from) -> None:
    """`tube_B` declared in its target slot: `check` warns (W0703) that `sort_B` can pass
    without doing anything."""
    result = check_text(LUCKY.replace("SPEC_B", SPEC_B))
    [warning] = [d for d in result.report if d.code == "W0703"]
    assert warning.message == (
        "`tube_B` starts in `rack2.slot[2]`, which step `sort_B` requires: the step can "
        "pass without doing anything"
    )


def test_check_warns_only_when_every_conjunct_of_the_spec_can_hold_at_the_start() -> None:
    """`in(tube_B, rack2.slot[2]) and grasped(tube_B)`: the tube starts in its slot, but
    `grasped` does not hold at rest, so the spec cannot pass by luck and W0703 is silent
    (as for a pour whose source is to stay `on` the table)."""
    text = LUCKY.replace("SPEC_B", "in(tube_B, rack2.slot[2]) and grasped(tube_B)")
    assert [d.code for d in check_text(text).report if d.code == "W0703"] == []


def test_a_step_whose_object_starts_at_its_goal_does_not_certify_and_says_why(
    task_from,
) -> None:
    """The sorting task whose second tube starts in its target slot, with a program that only
    waits: it used to certify; now the step's spec is reported as already holding."""
    certificate = certify_task(_sort(task_from, text=LUCKY), instances=1, seed=0)
    assert certificate["success_rate"] == 1.0 and certificate["certified"] is False
    [lucky] = certificate["already_held"]
    assert lucky["step"] == "sort_B"
    assert lucky["reason"].startswith("`sort_B`'s spec already held when the step started (seed ")


def test_a_step_that_may_already_hold_is_not_reported_as_luck(task_from) -> None:
    """`may_already_hold: true` keeps the step out of `already_held` and silences W0703."""
    text = LUCKY.replace(
        "    success: SPEC_B\n", f"    success: {SPEC_B}\n    may_already_hold: true\n"
    )
    assert [d.code for d in check_text(text).report if d.code == "W0703"] == []
    certificate = certify_task(task_from(text), instances=1, seed=0, mutants="none")
    assert certificate["already_held"] == [] and certificate["certified"] is True


def test_a_randomized_slot_range_that_includes_the_goal_is_warned_about() -> None:
    """`randomize [tube_B] within rack2.slot[0..3]` can put `tube_B` in slot 2: W0703 points
    at the randomization; a range without slot 2 is not reported."""
    base = SORT.replace("SPEC_B", SPEC_B).replace(
        "  tube_B: tube_1_5ml(contents: 200 uL of sample) in rack.slot[1]\n",
        "  tube_B: tube_1_5ml(contents: 200 uL of sample) in rack.slot[1]\n"
        "  randomize [tube_B] within RANGE\n",
    )
    codes = [d.code for d in check_text(base.replace("RANGE", "rack2.slot[1..3]")).report]
    assert codes == ["W0703"]
    assert [d.code for d in check_text(base.replace("RANGE", "rack.slot[1..3]")).report] == []


# ---------------------------------------------------------------- item 3: holds that last

HOLD = """
scene bench "a flask of medium on a hot plate" {
  stirrer: stirrer() on table at (0.40 m, -0.10 m)
  flask: flask(capacity: 100 mL, contents: 40 mL of medium) on stirrer
}

task hold_60 in bench {
  instruction: "Heat the flask to 60 C, then hold it at 60 C for 15 s."
  step heat {
    do { set_temperature(stirrer, 60 C); wait 50 s }
    success: temperature(flask, 60 C, within: 3 C) within 1 s
  }
  step keep {
    do { wait HOLD_TIME }
    success: HOLD_SPEC
  }
}
"""
DURING = "during(temperature(flask, 60 C, within: 3 C), min: 15 s)"


def _hold(task_from, time: str, spec: str = DURING):
    return task_from(HOLD.replace("HOLD_TIME", time).replace("HOLD_SPEC", spec))


def test_a_1_s_hold_for_a_15_s_hold_fails_with_the_time_it_held(task_from) -> None:
    """`wait 1 s` for "hold 15 s": the condition held through the program and the 6 s window
    (7 s), short of the 15 s asked; the step fails and the reason gives both times."""
    result = run_episode(_hold(task_from, "1 s"), 0)
    keep = result.steps[1]
    assert keep.status == "failed" and not result.succeeded
    assert keep.reason == (
        "success spec did not hold within 6 s after the program: "
        "`during(temperature(flask, 60 C, within: 3 C), min: 15 s)` held 7.00 s of 15 s"
    )


def test_a_1_s_hold_does_not_certify_and_a_15_s_hold_kills_its_duration_mutant(
    task_from,
) -> None:
    """The 1 s hold used to certify; now it does not. The 15 s hold certifies, and the
    mutant that cuts its wait to 1.5 s is killed by `min: 15 s`."""
    short = certify_task(_hold(task_from, "1 s"), instances=1, seed=0, mutants="none")
    assert short["certified"] is False
    assert "held 7.00 s of 15 s" in short["failures"][0]["reason"]
    full = certify_task(_hold(task_from, "15 s"), instances=1, seed=0)
    rows = {(r["step"], r["kind"]): r["killed"] for r in full["sensitivity"]["results"]}
    assert rows[("keep", "durations")] is True
    assert full["certified"] is True, full["sensitivity"]["messages"]


def test_throughout_counts_the_steps_own_program(task_from) -> None:
    """`throughout(cond, 15 s)` after a 15 s wait at temperature holds as the program ends
    (before, only the ticks after the program counted, so it needed 30 s)."""
    spec = "throughout(temperature(flask, 60 C, within: 3 C), 15 s)"
    result = run_episode(_hold(task_from, "15 s", spec), 0)
    keep = result.steps[1]
    assert result.succeeded
    assert keep.end - keep.skills[-1].end < 0.05


# ---------------------------------------------------------------- the examples

EXAMPLES = sorted(Path("examples/tasks").glob("*.lab"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_task_certifies_with_its_specs_shown_sensitive(path: Path) -> None:
    """On the gantry with one instance (as CI runs it), every mutant of every example task's
    expert program is killed, except those of steps that say why they need no check, and
    no step's spec held before the step started."""
    tasks, report = load_tasks(path)
    assert not report.has_errors and len(tasks) == 1
    task = next(iter(tasks.values()))
    certificate = certify_task(task, instances=1, seed=7)
    section = certificate["sensitivity"]
    assert section["messages"] == [] and section["limit"] is None
    assert certificate["already_held"] == []
    for step in task.steps:
        entry = section["steps"][step.name]
        assert entry["killed"] == entry["run"] and (entry["run"] > 0 or step.unchecked), step.name
    assert certificate["certified"] is True


def test_the_mutants_module_sits_below_certification() -> None:
    """`lablang.sim.mutants` (what certify and suite call) imports neither of them, nor the
    environment, at any depth: it adds no import circle to certify / suite / env."""
    import ast

    import lablang.sim.mutants as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported & {"lablang.sim.certify", "lablang.sim.suite", "lablang.sim.env"} == set()
    assert "lablang.sim.episode" in imported  # it runs episodes, which sit below it
