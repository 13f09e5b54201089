"""Programs that choose from evidence: guarded `do { ... } requires COND` blocks, the
first whose condition holds when the step starts running."""

from __future__ import annotations

import pytest

from lablang.bound import judge_for
from lablang.sim.evidence import Relocate, run_varied
from lablang.sim.labference import obligations
from tests.sim.labference_policies import transfer_choices

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
    base_ops = [c["contract_operation"] for c in transfer_choices(report["base"])]
    varied_ops = [c["contract_operation"] for c in transfer_choices(report["varied"])]
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
    fix = certificate["alternatives"]["fix"]
    assert (fix["taken"], fix["uncovered"]) == ([0, 1], [0])
    (message,) = fix["messages"]  # the diagnostic names the branch no instance took
    assert message.startswith("E0719: step `fix`'s `do` block 1 of 2 `requires on(w5, scale)`")
    assert not certificate["certified"]


STRAY = "examples/evidence/weigh_stray.lab"


def _stray():  # type: ignore[no-untyped-def]
    from lablang.sim import load_tasks

    tasks, report = load_tasks(STRAY)
    assert not report.has_errors
    return tasks["weigh_stray"]


def test_a_surface_choice_starts_the_object_on_either_surface_by_seed() -> None:
    """`randomize w5 within [table, scale]` draws per instance: seed 0's two instances
    start the 5 g on the pan and at its declared place on the table, and the same seed
    draws the same surfaces again."""
    import numpy as np

    from lablang.sim.build import compile_scene
    from lablang.sim.certify import instance_seeds
    from lablang.sim.model import OnSurface

    task = _stray()

    def starts() -> list[object]:
        return [
            compile_scene(task.scene, np.random.default_rng(s)).placements["w5"]
            for s in instance_seeds(0, 2)
        ]

    first = starts()
    assert [p.surface for p in first if isinstance(p, OnSurface)] == ["scale", "table"]
    assert first[1] == task.scene.entity("w5").placement
    assert starts() == first


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("randomize w5 within [scale, table]", "declared on `scale` first"),
        ("randomize w5 within [table, table]", "repeat one"),
        ("randomize w5 within [table]", "two or more surfaces"),
        ("randomize w5 within [table, w10]", "nothing can be put on `w10`"),
        ("randomize scale within [table, w10]", "not an object that can be moved"),
        (
            "randomize w10 within [table, scale]\n  w1: weight(mass: 1 g) on scale",
            "`scale` already carries `w1`",
        ),
    ],
)
def test_a_malformed_surface_choice_is_a_located_diagnostic(line: str, message: str) -> None:
    """A surface choice must start from the object's declared surface, name two or more
    distinct surfaces that can carry it and carry nothing yet (it starts at the centre),
    and randomize an object, not a fixture."""
    from lablang.driver import check_text
    from lablang.sim.front import tasks_of

    text = TASK.replace("  w5: weight(mass: 5 g) on table at (0.20 m, -0.10 m)\n",
                        f"  w5: weight(mass: 5 g) on table at (0.20 m, -0.10 m)\n  {line}\n")  # fmt: skip
    result = check_text(text, roots=["stdlib"])
    tasks_of(result.program, result.report)
    found = [d for d in result.report if d.code in ("E0706", "E0708") and message in d.message]
    assert found and found[0].span is not None, [d.message for d in result.report]


def test_a_stray_found_at_the_start_is_contract_context_and_its_removal_correct() -> None:
    """An instance that starts the 5 g on the pan records it as context (`add(5)` done), so
    against the contract the expert's `remove(5)` is legal and correct, then `add(20)`
    and `add(10)`: the expert is correct in this evidence variation too, and clean."""
    from lablang.bound import judge_for
    from lablang.sim.certify import instance_seeds
    from lablang.sim.episode import EpisodeRunner

    task = _stray()
    runner = EpisodeRunner(task, instance_seeds(0, 1)[0])
    runner.run()
    result = runner.finish()
    context = [e for e in result.events if e.kind == "context"]
    assert [(e.object, e.target, e.contract_op) for e in context] == [("w5", "scale", "add(5)")]
    score = result.score(judge_for(task))
    frozen = transfer_choices(score)
    assert [(c["contract_operation"], c["correct"]) for c in frozen] == [
        ("remove(5)", True),
        ("add(20)", True),
        ("add(10)", True),
    ]
    assert frozen[0]["legal"] == ["remove(5)", "wait_stable"]
    assert score["completion"]["status"] == "clean"


def test_randomized_evidence_lets_a_guarded_task_certify_with_every_alternative_taken(
    tmp_path,
) -> None:
    """docs/sim.md's session: two instances of `weigh_stray` (seed 0), one finding the 5 g
    on the pan and taking it off, the other a clear pan; each alternative of `clear` is
    taken once, the task certifies (exit 0) and prints what the doc shows (its mutants are
    the next test's)."""
    import json
    import re
    from pathlib import Path

    from click.testing import CliRunner

    from lablang.cli import main

    doc = Path("docs/sim.md").read_text("utf-8")
    session = re.search(
        r"```console\n\$ (lablang certify examples/evidence/[^\n]*)\n(.*?)```", doc, re.S
    )
    assert session is not None
    out_file = str(tmp_path / "weigh_stray.cert.json")
    args = session.group(1).split()[1:]
    args[args.index("weigh_stray.cert.json")] = out_file
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.output == session.group(2).replace("weigh_stray.cert.json", out_file)
    certificate = json.loads(Path(out_file).read_text("utf-8"))
    assert certificate["alternatives"] == {
        "clear": {"taken": [1, 1], "uncovered": [], "messages": []}
    }
    assert certificate["certified"]


def test_a_guarded_steps_mutants_run_on_the_instances_that_took_what_they_change() -> None:
    """The mutants of `clear` change its first alternative (taking the 5 g off): they run
    on the instance that found the 5 g on the pan, where each is killed, and not on the
    one that found a clear pan, which could not tell (before, a mutant changed only the
    step's `program`, which a guarded step never runs, and survived everywhere)."""
    from lablang.sim.certify import instance_seeds
    from lablang.sim.mutants import derive_mutants, run_step_mutants

    task = _stray()
    mutants = [m for m in derive_mutants(task) if m.step == "clear" and m.kind != "stopped"]
    assert [m.kind for m in mutants] == ["removed", "target"]
    outcomes = run_step_mutants(task, mutants, instance_seeds(0, 2))
    pan_seed = instance_seeds(0, 2)[0]
    assert [[r.seed for r in o.runs] for o in outcomes] == [[pan_seed]] * 2
    assert all(o.killed for o in outcomes)
