"""Programs that choose from evidence: guarded `do { ... } requires COND` blocks, the
first whose condition holds when the step starts running."""

from __future__ import annotations

from lablang.bound import judge_for
from lablang.sim.evidence import Relocate, run_varied
from lablang.sim.labference import obligations

TASK = """
use contracts.feedback_weighing.{feedback_weighing}
scene balance {
  scale: scale() on table at (0.40 m, 0.05 m)
  w20: weight(mass: 20 g) on table at (0.20 m, 0.10 m)
  w10: weight(mass: 10 g) on table at (0.20 m, 0.00 m)
  w5: weight(mass: 5 g) on table at (0.20 m, -0.10 m)
}
task weigh in balance {
  instruction: "Tare the scale so that it reads 0.0 g, put w20 on the scale, take w5 off the scale if it is there, then add w10 so that it reads 30.0 g."
  follows: feedback_weighing(target: 30)
  operations: {
    put_on_scale(w20, scale) as add(20)
    put_on_scale(w10, scale) as add(10)
    put_on_scale(w5, scale) as add(5)
    place(w5, table) as remove(5)
  }
  step zero { do { tare(scale) }  success: reading(scale, 0 g) }
  step add_20 {
    do { pick(w20); put_on_scale(w20, scale) }
    success: on(w20, scale) and reading(scale, 20 g)
  }
  step fix {
    do { pick(w5); place(w5, table) } requires on(w5, scale)
    do { wait(0.1 s) }
    success: not on(w5, scale)
  }
  step add_10 {
    do { pick(w10); put_on_scale(w10, scale) }
    success: on(w10, scale) and reading(scale, 30 g, within: 0.1 g)
  }
}
"""


def test_a_guarded_step_reads_as_alternatives_with_the_first_as_its_program(task_from) -> None:
    """The `fix` step has two alternatives, the first guarded by `on(w5, scale)`, the last
    unguarded; its default obligations are the first alternative's."""
    task = task_from(TASK)
    fix = next(s for s in task.steps if s.name == "fix")
    assert [guard is None for guard, _calls in fix.alternatives] == [False, True]
    assert [c.func for c in fix.program] == ["pick", "place"]
    assert "fix:transfer:w5" in [o.key for o in obligations(task)]


def test_the_expert_chooses_from_the_evidence_and_is_correct_in_both_branches(task_from) -> None:
    """With the pan as the instance leaves it, `fix` waits; with a stray 5 g found on the
    pan at the checkpoint, it takes the weight off (`remove(5)`, legal) and still reaches
    30 g: the expert program is correct in both evidence variations, and each branch
    requires the transfers of the alternative it took."""
    task = task_from(TASK)
    varied = run_varied(task, 1, "fix", Relocate("w5", "scale"))
    report = varied.report(judge_for(task))
    taken = {
        b: [e.detail for e in r.events if e.kind == "alternative"]
        for b, r in (("base", varied.base), ("varied", varied.varied))
    }
    assert taken == {"base": ["1"], "varied": ["0"]}
    base_ops = [c["contract_operation"] for c in report["base"]["choice"]["frozen"]]
    varied_ops = [c["contract_operation"] for c in report["varied"]["choice"]["frozen"]]
    assert base_ops == ["add(20)", "add(10)"]
    assert varied_ops == ["add(20)", "remove(5)", "add(10)"]
    assert report["varied"]["choice"]["correct"] == report["varied"]["choice"]["opportunities"]
    assert report["base"]["completion"]["status"] == "clean"
    assert report["varied"]["completion"]["credit"] == 1.0
    assert "fix:transfer:w5" not in varied.base.obligations
    assert "fix:transfer:w5" in varied.varied.obligations


BAD = TASK.replace("    do { wait(0.1 s) }\n", "").replace(
    "    do { pick(w5); place(w5, table) } requires on(w5, scale)\n",
    "    do { wait(0.1 s) }\n    do { pick(w5); place(w5, table) } requires on(w5, scale)\n",
)


def test_an_unguarded_do_before_a_guarded_one_is_a_diagnostic() -> None:
    """Only the last `do` may lack `requires`: one before a guarded `do` is E0708."""
    from lablang.driver import check_text
    from lablang.sim.front import tasks_of

    result = check_text(BAD)
    tasks_of(result.program, result.report)
    assert any(d.code == "E0708" and "only the last `do`" in d.message for d in result.report), [
        d.message for d in result.report
    ]


def test_certification_reports_each_alternative_and_needs_every_one_taken(task_from) -> None:
    """No instance of this scene puts w5 on the pan, so `fix`'s first alternative is never
    taken: the certificate counts the alternatives taken and is not certified, although
    every instance succeeded."""
    from lablang.sim import certify_task

    certificate = certify_task(task_from(TASK), instances=1, seed=0)
    assert certificate["success_rate"] == 1.0
    assert certificate["alternatives"] == {"fix": {"taken": [0, 1], "uncovered": [0]}}
    assert not certificate["certified"]
