"""A task traced to the protocol it realizes: each violation of the trace is a coded error
in the task that also points at the protocol step, and a protocol diff lists the task
steps it affects (`lablang.trace`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lablang.cli import main
from lablang.driver import check_file, check_text

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suite"

PROTOCOL = """
protocol prep "Buffer into a tube, then mix it" {
  materials: [buffer]
  containers: {stock: unknown, tube1: 0 uL}
  step fill { transfer: 20 mL from stock  to: tube1 }
  step mix { mix: swirl  container: tube1 }
  step spin { centrifuge: 300 xg for 1 min  container: tube1 }
}
scene s {
  src: beaker(capacity: 50 mL, contents: 30 mL of buffer) on table at (0.20 m, 0.00 m)
  dst: beaker(capacity: 50 mL) on table at (0.40 m, 0.05 m)
  other: beaker(capacity: 50 mL) on table at (0.40 m, -0.15 m)
}
"""
TASK = """
task t in s realizes prep {
  bind: {stock: src, tube1: dst}
  tolerance: 0.5 mL
  defer: {spin: "done by the centrifuge, not the robot"}
  instruction: "Pour 20 mL of buffer from beaker src into beaker dst, set src down, then swirl dst."
  step pour realizes fill {
    do { pick(src); pour(src, dst, 20 mL); place(src, table) }
    success: contains(dst, buffer, 20 mL, within: 0.5 mL) and on(src, table)
  }
  step swirl realizes mix { do { pick(dst); swirl(dst, 2 s) }  success: mixed(dst) }
}
"""


def _errors(text: str) -> list:
    return [d for d in check_text(text, "t.lab").report.errors]


def _at(text: str, diagnostic) -> str:
    return text[diagnostic.span.start : diagnostic.span.end]


def test_a_faithful_task_checks_clean():
    """The task that pours the protocol's 20 mL into the bound beaker, swirls it, and
    defers the spin has no trace errors."""
    assert _errors(PROTOCOL + TASK) == []


def test_a_step_neither_realized_nor_deferred_is_an_error_at_both_places():
    """Dropping the deferral of `spin` is E0841 at the task's `realizes prep`, labelled at
    the protocol step `spin`."""
    text = PROTOCOL + TASK.replace('  defer: {spin: "done by the centrifuge, not the robot"}\n', "")
    (error,) = _errors(text)
    assert error.code == "E0841" and _at(text, error) == "prep"
    (label,) = error.labels
    assert _at(text, label).startswith("step spin {")


def test_steps_realized_out_of_order_are_an_error_at_both_places():
    """Swirling before pouring realizes `mix` before `fill`: one E0842 at the swirl's
    `realizes mix`, labelled at protocol step `fill`, which comes first."""
    pour, swirl = TASK.split("  step pour")[1].split("  step swirl")
    text = (
        PROTOCOL
        + TASK.split("  step pour")[0]
        + "  step swirl"
        + swirl.rstrip().removesuffix("}")
        + "  step pour"
        + pour
        + "}\n"
    )
    (error,) = _errors(text)
    assert error.code == "E0842" and _at(text, error) == "mix"
    (label,) = error.labels
    assert _at(text, label).startswith("step fill {")


def test_a_step_both_realized_and_deferred_is_an_error():
    """Deferring `fill`, which task step `pour` realizes, is E0843 at the deferral."""
    text = PROTOCOL + TASK.replace("defer: {spin:", 'defer: {fill: "by hand", spin:')
    (error,) = _errors(text)
    assert error.code == "E0843" and _at(text, error) == "fill"


def test_mixing_another_entity_breaks_the_containers_identity():
    """Swirling `src` where the protocol mixes `tube1` (bound to `dst`) is E0844 at the
    swirl call."""
    text = PROTOCOL + TASK.replace("pick(dst); swirl(dst, 2 s)", "pick(src); swirl(src, 2 s)")
    text = text.replace("success: mixed(dst)", "success: mixed(src)")
    (error,) = _errors(text)
    assert error.code == "E0844" and _at(text, error) == "swirl(src, 2 s)"


def test_a_different_quantity_is_an_error_at_both_places_with_the_protocols_amount_as_fix():
    """Pouring 25 mL where the protocol transfers 20 mL (tolerance 0.5 mL) is E0845 at the
    program's `25 mL` and at the spec's `25 mL`, each labelled at the protocol's `20 mL`
    and fixed by writing it."""
    text = PROTOCOL + TASK.replace("20 mL", "25 mL").replace("transfer: 25 mL", "transfer: 20 mL")
    errors = _errors(text)
    assert [e.code for e in errors] == ["E0845", "E0845"]
    for error in errors:
        assert _at(text, error) == "25 mL"
        assert [_at(text, label) for label in error.labels] == ["20 mL"]
        assert [edit.replacement for edit in error.fix.edits] == ["20 mL"]


def test_a_quantity_within_the_tolerance_agrees():
    """19.8 mL poured and checked agrees with the protocol's 20 mL within 0.5 mL; 19.4 mL
    does not."""
    near = PROTOCOL + TASK.replace("pour(src, dst, 20 mL)", "pour(src, dst, 19.8 mL)")
    far = PROTOCOL + TASK.replace("pour(src, dst, 20 mL)", "pour(src, dst, 19.4 mL)")
    assert _errors(near) == []
    assert [e.code for e in _errors(far)] == ["E0845"]


def test_moving_the_liquid_into_another_entity_breaks_the_containers_identity():
    """Pouring into `other` while `tube1` is bound to `dst` is E0844 at the pour."""
    text = PROTOCOL + TASK.replace("pour(src, dst, 20 mL)", "pour(src, other, 20 mL)")
    (error,) = _errors(text)
    assert error.code == "E0844" and _at(text, error) == "pour(src, other, 20 mL)"


def test_an_unbound_container_and_a_container_bound_twice_are_errors():
    """A realized step's container missing from `bind` is E0844, and so are two protocol
    containers bound to one entity."""
    unbound = PROTOCOL + TASK.replace("bind: {stock: src, tube1: dst}", "bind: {stock: src}")
    assert "E0844" in [e.code for e in _errors(unbound)]
    twice = PROTOCOL + TASK.replace(
        "bind: {stock: src, tube1: dst}", "bind: {stock: dst, tube1: dst}"
    )
    assert "E0844" in [e.code for e in _errors(twice)]


def test_a_misspelt_protocol_step_is_one_error_with_its_fix():
    """`realizes fil` is E0843 with `fill` as the fix, and `fill` is not reported again as
    missing."""
    text = PROTOCOL + TASK.replace("realizes fill", "realizes fil")
    errors = _errors(text)
    assert [e.code for e in errors] == ["E0843"]
    assert [edit.replacement for edit in errors[0].fix.edits] == ["fill"]


def test_an_edited_protocol_in_another_file_that_the_task_no_longer_matches(tmp_path):
    """A task importing its protocol (`use protocols.prep.{prep}`): after the protocol's
    volume is edited, the task's quantities are E0845 in the task, with a note giving the
    protocol step's place in the other file."""
    (tmp_path / "protocols").mkdir()
    protocol, scene = PROTOCOL.split("scene s")
    (tmp_path / "protocols" / "prep.lab").write_text(protocol)
    task = tmp_path / "task.lab"
    task.write_text("use protocols.prep.{prep}\nscene s" + scene + TASK)
    assert check_file(task).report.errors == []
    (tmp_path / "protocols" / "prep.lab").write_text(protocol.replace("20 mL", "15 mL"))
    errors = check_file(task).report.errors
    assert [e.code for e in errors] == ["E0845", "E0845"]
    assert all("protocols/prep.lab:" in " ".join(e.notes) for e in errors)


def test_the_suite_checks_clean():
    """Every scenario of examples/suite checks without errors or warnings, each task
    realizes a protocol and names its family, and the scenarios are task families giving
    at least 100 tasks over at least 25 scenarios in the five operation families (20 of them
    solid handling), at least 20 held-out bindings and 10 coordination tasks, and a held-out
    binding in every tube scenario too (the 2 mL tube fits the tube slots): SciVLABench's
    shape at the scale issue 28 asks for."""
    from lablang.diagnostics import Report
    from lablang.driver import lab_files
    from lablang.sim.front import tasks_of

    tasks = []
    for path in lab_files([SUITE]):
        result = check_file(path)
        assert list(result.report) == [], path
        tasks += tasks_of(result.program, Report()).values()
    assert len(tasks) >= 100
    assert all(t.trace is not None and t.family for t in tasks)
    families = {t.binding.family for t in tasks if t.binding}
    assert len(families) >= 25
    heldout = [t for t in tasks if t.binding and t.binding.heldout]
    assert len(heldout) >= 20 and len({t.binding.family for t in heldout}) >= 25
    assert {t.binding.family for t in heldout if t.binding} >= {
        "invert_then_digest", "heat_shock_tube", "load_and_spin", "load_after_colleague"
    }  # fmt: skip
    assert sum(bool(t.scene.interventions) for t in tasks) >= 10  # a colleague acts
    assert {t.family for t in tasks} >= {
        "liquid handling",
        "mixing",
        "solid handling",
        "thermal",
        "apparatus",
    }
    assert sum(t.family == "solid handling" for t in tasks) >= 20


def test_the_suite_page_groups_tasks_by_family_with_binding_heldout_and_coordination():
    """suite.html has one section per operation family in the registry's order, each
    with its counts, and per row the binding, training or held out, and whether a scripted
    colleague acts."""
    from lablang.sim.suite import suite_html

    def row(task, family, binding, heldout, colleague):
        return {"id": f"f.{task}", "task": task, "file": "f.lab", "family": family,
                "protocol": "p", "binding": binding, "heldout": heldout,
                "coordination": colleague, "certified": True, "success_rate": 1.0,
                "mean_credit": 1.0, "faults": 0, "unit_failures": 0, "mutants": 2,
                "mutants_killed": 2, "mutants_surviving": 0, "already_held": 0,
                "simulated_seconds": 1.0}  # fmt: skip

    rows = [
        row("spin-a", "apparatus", "a", False, True),
        row("pour-wide", "liquid handling", "wide", True, False),
        row("pour-b", "liquid handling", "b", False, False),
    ]
    page = suite_html({"instances": 1, "seed": 0, "tasks": rows, "certified": 3, "total": 3})
    liquid, apparatus = page.index("<h2>liquid handling</h2>"), page.index("<h2>apparatus</h2>")
    assert liquid < apparatus  # TASK_FAMILIES' order, not the rows'
    section = page[liquid:apparatus]
    assert "2 tasks, 2 certified, 1 held out, 0 coordination" in section
    assert "<td>wide</td><td>held out</td><td>&mdash;</td>" in section
    assert "<td>b</td><td>training</td>" in section
    assert "<td>a</td><td>training</td><td>scripted colleague</td>" in page[apparatus:]


def test_diff_lists_the_task_steps_an_edit_affects(monkeypatch):
    """`lablang diff OLD NEW --tasks examples/suite` names the task steps that realize the
    changed step and the task that does not realize the added one, in text and JSON."""
    monkeypatch.chdir(SUITE)
    args = ["diff", "protocols/buffer_aliquot.lab", "protocols/buffer_aliquot_200ul.lab"]
    text = CliRunner().invoke(main, [*args, "--tasks", "."])
    assert text.exit_code == 1
    assert "task `aliquot_buffer` step `draw` realizes `aliquot` (changed)" in text.output
    assert "task `aliquot_buffer` step `deliver` realizes `aliquot` (changed)" in text.output
    assert "task `aliquot_buffer` does not realize `mix` (added)" in text.output
    data = json.loads(CliRunner().invoke(main, [*args, "--tasks", ".", "--json"]).output)
    assert {(a["task"], a["step"], a["protocol_step"], a["change"]) for a in data["affected"]} == {
        ("aliquot_buffer", "draw", "aliquot", "changed"),
        ("aliquot_buffer", "deliver", "aliquot", "changed"),
        ("aliquot_buffer", None, "mix", "added"),
    }


def test_a_sample_of_the_suite_certifies_and_its_report_carries_the_trace(tmp_path):
    """One scenario, a task family over four receivers, certifies on one instance without
    mutants (the cheap CI sample): suite.json has one row per binding with its family,
    protocol, trace, binding, held-out flag and coordination flag (no colleague acts)."""
    files = [str(SUITE / "pour_medium.lab")]
    args = ["certify", *files, "--instances", "1", "--mutants", "none", "--out", str(tmp_path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = {r["task"]: r for r in json.loads((tmp_path / "suite.json").read_text())["tasks"]}
    assert sorted(rows) == [f"pour_20ml-{b}" for b in ("beaker", "flask", "small", "wide")]
    keys = {"id", "file", "task", "family", "protocol", "trace", "binding", "heldout"}
    for name, row in rows.items():
        assert keys | {"coordination", "certified"} <= set(row)
        assert row["certified"] and row["coordination"] is False
        assert (row["family"], row["protocol"]) == ("liquid handling", "split_medium")
        assert row["trace"] == {"pour": ["split"]}
        assert (row["binding"], row["heldout"]) == (name.split("-")[1], name.endswith("wide"))


def test_the_docs_worked_example_is_the_suites_scenario():
    """docs/protocols.md's traced task is examples/suite/pour_medium.lab's, word for word
    (the docs test checks it clean and runs its diff session)."""
    page = (ROOT / "docs" / "protocols.md").read_text()
    section = page.split("## From protocol to task, traced")[1]
    block = section.split("```lab\n")[1].split("```")[0]
    assert block in (SUITE / "pour_medium.lab").read_text()


def test_incubating_another_tube_breaks_the_containers_identity():
    """The heat-shock family incubating `tube2` where the protocol's `cells_tube` is bound
    to the role `sample` is E0844 at the `incubate` call in every binding whose sample is
    another tube (tube, tube3, tube4, the held-out 2 mL big), and none in the binding whose
    sample is tube2."""
    text = (SUITE / "heat_block_incubation.lab").read_text()
    wrong = text.replace("pick(sample); incubate(sample,", "pick(tube2); incubate(tube2,")
    assert wrong != text
    errors = _errors(wrong)
    assert {e.code for e in errors} == {"E0844"}
    assert {_at(wrong, e) for e in errors} == {"incubate(tube2, block.slot[1], 15 s)"}
    assert sorted(e.message.split("not `")[1].split("`")[0] for e in errors) == [
        "big",
        "tube",
        "tube3",
        "tube4",
    ]


def test_two_additions_to_one_tube_by_the_same_steps_are_checked_as_their_sum():
    """Task steps realizing both a 100 uL and a 50 uL transfer into `tube1` agree when
    they move 150 uL into its entity, and are one E0845 when they move 140 uL."""
    text = (Path(__file__).parent / "two_additions.lab").read_text()
    assert _errors(text) == []
    short = text.replace("aspirate(p200, stock, 150 uL)", "aspirate(p200, stock, 140 uL)")
    (error,) = _errors(short)
    assert error.code == "E0845" and "protocol steps `a`, `b` move 150 uL" in error.message


def test_a_protocol_imported_as_a_module_is_found_by_its_dotted_name(tmp_path):
    """`use protocols.prep` then `realizes prep.prep` resolves the protocol through the
    module import; a name the module does not declare is E0840."""
    (tmp_path / "protocols").mkdir()
    protocol, scene = PROTOCOL.split("scene s")
    (tmp_path / "protocols" / "prep.lab").write_text(protocol)
    task = tmp_path / "task.lab"
    text = (
        "use protocols.prep\nscene s"
        + scene
        + TASK.replace("realizes prep {", "realizes prep.prep {")
    )
    task.write_text(text)
    assert check_file(task).report.errors == []
    task.write_text(text.replace("realizes prep.prep {", "realizes prep.perp {"))
    assert [e.code for e in check_file(task).report.errors] == ["E0840"]


FAMILY = """
protocol split "Split off 20 mL" {
  materials: [medium]
  containers: {bulk: 30 mL of medium, part: 0 uL}
  step split "Transfer 20 mL" { transfer: 20 mL from bulk  to: part }
}
scene s {
  src: beaker(capacity: 50 mL, contents: 30 mL of medium) on table at (0.20 m, 0.00 m)
  dst: beaker(capacity: 50 mL) on table at (0.40 m, 0.05 m)
  wide: beaker(capacity: 100 mL) on table at (0.20 m, 0.22 m)
}
task t in s realizes split {
  roles: [receiver]
  bindings: { training: { narrow: {receiver: dst} } heldout: { wide: {receiver: wide} } }
  bind: {bulk: src, part: receiver}
  tolerance: 0.5 mL
  instruction: "Pour 20 mL of medium from beaker src into the receiver, then set src down."
  step pour realizes split {
    do { pick(src); pour(src, receiver, AMOUNT); place(src, table) }
    success: contains(receiver, medium, 20 mL, within: 0.5 mL) and on(src, table)
  }
}
"""


def test_a_family_binds_a_protocol_container_through_a_role():
    """`bind: {part: receiver}` names a role of a task family: each binding's trace binds
    the container to that binding's entity, so a faithful family checks clean and a wrong
    amount is an error per binding, naming the binding's entity."""
    assert _errors(FAMILY.replace("AMOUNT", "20 mL")) == []
    from lablang.diagnostics import Report
    from lablang.sim.front import tasks_of

    program = check_text(FAMILY.replace("AMOUNT", "20 mL"), "t.lab").program
    binds = {
        t.name: {n.name: r.text() for n, r in t.trace.bind}
        for t in tasks_of(program, Report()).values()
    }
    assert binds == {
        "t-narrow": {"bulk": "src", "part": "dst"},
        "t-wide": {"bulk": "src", "part": "wide"},
    }
    wrong = _errors(FAMILY.replace("AMOUNT", "25 mL"))
    assert [d.code for d in wrong] == ["E0845", "E0845"]
    assert {("`dst`" in d.message, "`wide`" in d.message) for d in wrong} == {
        (True, False),
        (False, True),
    }


def test_a_suite_row_is_a_coordination_task_when_a_scripted_colleague_acts():
    """The colleague scenario (a scene `event` takes the centrifuge's lid off) certifies
    one binding on one instance, and its suite row says `coordination: true`."""
    from lablang.executors import Executor
    from lablang.sim.suite import certify_suite, task_refs

    entries = task_refs([SUITE / "colleague_spin.lab"])
    one = [(t, r) for t, r in entries if t.name == "load_after_colleague-first"]
    _certificates, summary = certify_suite(one, 1, 0, Executor("local", 1), mutants="none")
    (row,) = summary["tasks"]
    assert (row["coordination"], row["certified"]) == (True, True)
    assert (row["protocol"], row["binding"], row["heldout"]) == ("quick_spin", "first", False)
