"""Label evidence varied: a tube's label drawn per instance by `randomize TUBE.label within
[...]` (so certification covers the `requires label(...)` blocks), or changed at a
checkpoint by `branch --vary TUBE.label=TEXT`, and a scale's reading offset by
`--vary SCALE=+5.0 g`."""

from __future__ import annotations

import numpy as np
import pytest

from lablang.sim.evidence import Relabel, run_varied

SORT = """
scene bench {
  rack: tube_rack(slots: 6) on table at (0.30 m, -0.15 m)
  tube_A: tube_1_5ml(label: "A") on table at (0.40 m, 0.12 m)
}
task sort in bench {
  instruction: "Read tube_A's label: if it is B, put tube A in slot 0 of the rack; else leave it on the table."
  step look { do { wait(0.1 s) } success: true }
  step sort {
    do { pick(tube_A); insert_into_slot(tube_A, rack.slot[0]) } requires label(tube_A) == "B"
    do { wait(0.1 s) }
    success: in(tube_A, rack.slot[0]) or label(tube_A) != "B"
  }
}
"""

# a cheap program per label: which block ran is what coverage counts
CHOOSE = """
scene bench {
  tube_A: tube_1_5ml(label: "A") on table at (0.40 m, 0.12 m)
  randomize tube_A.label within ["A", "B"]
}
task choose in bench {
  instruction: "Read tube_A's label and wait 0.2 s if it is B, else 0.1 s."
  step check {
    do { wait(0.2 s) } requires label(tube_A) == "B"
    do { wait(0.1 s) }
    success: true
    may_already_hold: true
  }
}
"""


def test_a_label_choice_draws_the_label_per_instance_by_seed(task_from) -> None:
    """`randomize tube_A.label within ["A", "B"]` gives each instance one of the labels,
    drawn from the instance's seed (the same seeds draw the same labels), and the tube's
    flag and observation show the drawn one."""
    from lablang.sim.build import compile_scene
    from lablang.sim.certify import instance_seeds
    from lablang.sim.runtime import Runtime

    task = task_from(CHOOSE)

    def labels() -> list[str]:
        return [
            compile_scene(task.scene, np.random.default_rng(s)).infos["tube_A"].label
            for s in instance_seeds(0, 6)
        ]

    drawn = labels()
    assert set(drawn) == {"A", "B"} and labels() == drawn
    built = compile_scene(task.scene, np.random.default_rng(instance_seeds(0, 6)[0]))
    assert Runtime(built).labels.text == {"tube_A": drawn[0]}


def test_randomized_labels_let_a_guarded_task_certify_with_every_block_taken(task_from) -> None:
    """With the label drawn per instance, 4 instances take both `requires label(...)`
    blocks (E0719 coverage) and the task certifies; with the label fixed, the B block is
    never taken and the task is not certified."""
    from lablang.sim import certify_task

    certificate = certify_task(task_from(CHOOSE), instances=4, seed=0, mutants="none")
    taken = certificate["alternatives"]["check"]["taken"]
    assert certificate["certified"] and min(taken) >= 1, certificate["alternatives"]
    fixed = task_from(CHOOSE.replace('  randomize tube_A.label within ["A", "B"]\n', ""))
    certificate = certify_task(fixed, instances=2, seed=0, mutants="none")
    assert certificate["alternatives"]["check"]["uncovered"] == [0]
    assert not certificate["certified"]


@pytest.mark.parametrize(
    ("line", "code", "message"),
    [
        ('randomize tube_A.label within ["A"]', "E0708", "two or more labels"),
        ('randomize tube_A.label within ["A", "K"]', "E0746", "cannot show"),
        ('randomize tube_B.label within ["A", "B"]', "E0746", "no `label:` to vary"),
    ],
)
def test_a_malformed_label_choice_is_a_located_diagnostic(
    line: str, code: str, message: str
) -> None:
    """A label choice names two or more drawable labels of a tube that declares one."""
    from lablang.driver import check_text
    from lablang.sim.front import tasks_of

    text = CHOOSE.replace(
        '  randomize tube_A.label within ["A", "B"]\n',
        f"  tube_B: tube_1_5ml() on table at (0.20 m, 0.10 m)\n  {line}\n",
    )
    result = check_text(text)
    tasks_of(result.program, result.report)
    found = [d for d in result.report if d.code == code and message in d.message]
    assert found and found[0].span is not None, [d.message for d in result.report]


def test_a_tube_relabelled_at_the_checkpoint_changes_the_experts_choice(task_from) -> None:
    """`--vary tube_A.label=B` before `sort`: the base finds label A and leaves the tube
    (no transfer), the varied branch finds B, takes the guarded block and puts the tube in
    slot 0; each branch's start carries the label it found, and both succeed."""
    varied = run_varied(task_from(SORT), 1, "sort", Relabel("tube_A", "B"))
    report = varied.report()
    assert report["base"]["start"]["evidence"]["tube_A"] == {"label": "A"}
    assert report["varied"]["start"]["evidence"]["tube_A"] == {"label": "B"}
    taken = {
        b: [e.detail for e in r.events if e.kind == "alternative"]
        for b, r in (("base", varied.base), ("varied", varied.varied))
    }
    assert taken == {"base": ["1"], "varied": ["0"]}
    assert "sort:transfer:tube_A" in varied.varied.obligations
    assert "sort:transfer:tube_A" not in varied.base.obligations
    assert varied.base.succeeded and varied.varied.succeeded
    assert "choice" in report["changed"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tube_A.label=K", "cannot show"),
        ("rack.label=B", "not a tube with a `label:`"),
        ("rack=+5.0 g", "not a scale"),
    ],
)
def test_a_variation_of_evidence_that_does_not_fit_is_refused(
    task_from, text: str, message: str
) -> None:
    """A label no flag can show, a label on what has no flag, and an offset on what is not
    a scale are ValueErrors (the CLI's exit 2)."""
    from lablang.sim.evidence import parse_variation

    with pytest.raises(ValueError, match=message):
        run_varied(task_from(SORT), 1, "sort", parse_variation(text))


DRIFT = """
scene balance {
  scale: scale() on table at (0.40 m, 0.05 m)
  randomize scale.offset within [0 g, 5 g]
}
task zero in balance {
  instruction: "Tare the scale if it does not read 0.0 g."
  step settle { do { wait(4.5 s) } success: true  may_already_hold: true }
  step zero {
    do { tare(scale) } requires not reading(scale, 0 g)
    do { wait(0.1 s) }
    success: reading(scale, 0 g)  may_already_hold: true
  }
}
"""


def test_a_scales_offset_is_drawn_per_instance_shown_on_the_empty_pan_and_tared_off(
    task_from, make_runtime
) -> None:
    """`randomize scale.offset within [0 g, 5 g]` gives each instance one of the offsets
    by its seed; an instance that drew 5 g shows 5.0 g on the empty pan once settled, and
    a tare brings it to 0.0 g."""
    from lablang.sim.build import compile_scene
    from lablang.sim.certify import instance_seeds
    from lablang.sim.runtime import Runtime
    from lablang.sim.skills import SKILLS, run_skill

    task = task_from(DRIFT)
    seeds = instance_seeds(0, 6)
    drawn = [
        compile_scene(task.scene, np.random.default_rng(s)).infos["scale"].offset for s in seeds
    ]
    assert set(drawn) == {0.0, 0.005}
    seed = seeds[drawn.index(0.005)]
    rt = Runtime(compile_scene(task.scene, np.random.default_rng(seed)))
    rt.reset({})
    for _ in range(int(4.5 / rt.dt)):  # the display follows in about 1 s, then 3 s stable
        rt.tick()
    assert rt.scales["scale"].reading() == 5.0 and rt.scale_stable("scale")
    skill, timeout = SKILLS["tare"]
    assert run_skill(rt, skill(rt, "scale"), timeout).ok
    assert rt.scales["scale"].reading() == 0.0


def test_randomized_offsets_let_the_tare_block_be_covered(task_from) -> None:
    """With the offset drawn per instance, 4 instances take both blocks of `zero`: the
    tare where the empty pan reads 5.0 g, the wait where it reads 0.0 g; all succeed."""
    from lablang.sim import certify_task

    certificate = certify_task(task_from(DRIFT), instances=4, seed=0, mutants="none")
    assert certificate["success_rate"] == 1.0
    assert min(certificate["alternatives"]["zero"]["taken"]) >= 1, certificate["alternatives"]
    assert certificate["certified"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("randomize scale.offset within [0 g]", "two or more masses"),
        ("randomize scale.offset within [0 g, 200 g]", "at most 100 g"),
        ("randomize rack.offset within [0 g, 5 g]", "not a scale"),
    ],
)
def test_a_malformed_offset_choice_is_a_located_diagnostic(line: str, message: str) -> None:
    """An offset choice names two or more masses of at most 100 g, for a scale."""
    from lablang.driver import check_text
    from lablang.sim.front import tasks_of

    text = DRIFT.replace(
        "  randomize scale.offset within [0 g, 5 g]\n",
        f"  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)\n  {line}\n",
    )
    result = check_text(text)
    tasks_of(result.program, result.report)
    found = [d for d in result.report if d.code == "E0708" and message in d.message]
    assert found and found[0].span is not None, [d.message for d in result.report]
