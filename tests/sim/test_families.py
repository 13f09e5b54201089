"""Task families: one task over roles, made once per binding (`<task>-<binding>`), some
bindings held out; certified per binding, registered with Gymnasium per binding, and
evaluated on the held-out or training bindings only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.executors import Executor
from lablang.sim import load_tasks
from lablang.sim.suite import SuiteError, certify_suite, of_bindings, one_family, task_refs

FAMILY = "examples/families/weigh_family.lab"
OTHER = "examples/tasks/move_tube.lab"

SCENE = """scene s {
  scale: scale() on table at (0.40 m, 0.05 m)
  w10: weight(mass: 10 g) on table at (0.20 m, 0.10 m)
  w50: weight(mass: 50 g) on table at (0.20 m, -0.12 m)
}
"""


def _codes(text: str) -> list[str]:
    return [d.code for d in check_text(SCENE + text).report.sorted()]


def test_a_family_is_one_task_per_binding_with_its_roles_replaced() -> None:
    """`weigh_one` with bindings light, mid and heavy is three tasks `weigh_one-<binding>`,
    each picking its own weight; only `heavy` is held out."""
    tasks, report = load_tasks(FAMILY)
    assert not report.has_errors
    assert sorted(tasks) == ["weigh_one-heavy", "weigh_one-light", "weigh_one-mid"]
    picked = {n: t.steps[0].program[0].args[0].name for n, t in tasks.items()}
    assert picked == {"weigh_one-light": "w10", "weigh_one-mid": "w20", "weigh_one-heavy": "w50"}
    assert {n for n, t in tasks.items() if t.binding and t.binding.heldout} == {"weigh_one-heavy"}
    # the bound tasks run in the scene as written: no role is drawn per instance
    assert all(not t.scene.roles() for t in tasks.values())
    assert one_family(FAMILY) and not one_family(OTHER)


def test_binding_names_that_gymnasium_reads_as_versions_and_half_families_are_refused() -> None:
    """A binding named `v2` (`-v2` is a Gymnasium version), `roles:` without `bindings:`,
    and a family with only held-out bindings are E0708."""
    step = (
        "  step weigh { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }\n}"
    )
    v2 = "task t in s {\n roles: [load]\n bindings: { training: { v2: {load: w10} } }\n" + step
    half = "task t in s {\n roles: [load]\n" + step
    only_heldout = "task t in s {\n roles: [load]\n bindings: { heldout: { b: {load: w50} } }\n"
    assert "E0708" in _codes(v2)
    assert "E0708" in _codes(half)
    assert "E0708" in _codes(only_heldout + step)


def test_a_binding_to_an_unknown_entity_is_e0704_and_a_clean_family_has_no_diagnostic() -> None:
    """Binding a role to an entity the scene lacks is E0704; the same family bound to
    scene entities checks cleanly."""
    step = (
        "  step weigh { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }\n}"
    )
    head = "task t in s {\n roles: [load]\n bindings: { training: { a: {load: w10} } heldout: { b: {load: %s} } }\n"
    assert _codes(head % "w99" + step) == ["E0704"]
    assert _codes(head % "w50" + step) == []


def test_certify_gives_one_certified_certificate_per_binding(tmp_path: Path) -> None:
    """Certifying the family certifies each binding: one certificate per binding, each
    naming its binding (valid against the certificate schema), and suite.json says which
    are held out."""
    jsonschema = pytest.importorskip("jsonschema")
    from lablang.sim.certificate_schema import certificate_schema

    certificates, summary = certify_suite(task_refs([FAMILY]), 1, 0, Executor(), mutants="none")
    assert summary["certified"] == summary["total"] == 3
    rows = {r["binding"]: r["heldout"] for r in summary["tasks"]}
    assert rows == {"light": False, "mid": False, "heavy": True}
    for key, certificate in certificates.items():
        jsonschema.validate(certificate, certificate_schema())
        binding = certificate["family_binding"]
        assert key.endswith(f"weigh_one-{binding['binding']}")
        assert binding["family"] == "weigh_one" and binding["roles"]["load"] in {
            "w10",
            "w20",
            "w50",
        }


def test_each_binding_is_its_own_gymnasium_id() -> None:
    """`register_tasks` registers `lablang/weigh_one-<binding>` per binding, and
    `gymnasium.make` of the held-out id runs the task with the 50 g weight."""
    gymnasium = pytest.importorskip("gymnasium")
    from lablang.sim.gym_env import register_tasks

    ids = register_tasks(FAMILY)
    assert sorted(ids) == [f"lablang/weigh_one-{b}" for b in ("heavy", "light", "mid")]
    env = gymnasium.make("lablang/weigh_one-heavy")
    env.reset(seed=1)
    task = env.unwrapped.task
    assert task.binding.heldout and task.steps[0].program[0].args[0].name == "w50"
    env.close()


def test_evaluation_protocols_keep_the_held_out_or_the_training_bindings() -> None:
    """`heldout` keeps the held-out binding only; `training` the training bindings and
    tasks that are no family; `all` everything; a protocol that keeps nothing is an error."""
    entries = task_refs([FAMILY, OTHER])
    names = lambda which: sorted(t.name for t, _ in of_bindings(entries, which))  # noqa: E731
    assert names("heldout") == ["weigh_one-heavy"]
    assert names("training") == ["move_tube", "weigh_one-light", "weigh_one-mid"]
    assert len(names("all")) == 4
    with pytest.raises(SuiteError, match="no held-out binding"):
        of_bindings(task_refs([OTHER]), "heldout", [OTHER])


def test_evaluate_bindings_heldout_evaluates_the_held_out_binding_only() -> None:
    """`lablang evaluate FAMILY --bindings heldout` prints one entry, the held-out task, and
    its metrics under the held-out protocol, valid against the evaluate schema's suite."""
    from click.testing import CliRunner

    from lablang.cli import main

    result = CliRunner().invoke(
        main,
        [
            "evaluate", FAMILY, "--policy", "lablang.sim.policies:hold", "--episodes", "1",
            "--max-seconds", "0.5", "--bindings", "heldout", "--no-progress",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert sorted(out) == ["metrics", "weigh_family.weigh_one-heavy"]
    assert out["weigh_family.weigh_one-heavy"]["success_rate"] == 0.0
    assert list(out["metrics"]["protocol"]) == ["heldout"]
    jsonschema = pytest.importorskip("jsonschema")
    from lablang.sim.labference import evaluate_schema

    schema = evaluate_schema()
    jsonschema.validate(out["weigh_family.weigh_one-heavy"], schema)
    metrics = {"$defs": schema["$defs"], "$ref": "#/$defs/suite_metrics"}
    jsonschema.Draft202012Validator(metrics).validate(out["metrics"])


def test_the_family_shown_in_docs_sim_md_is_the_example_files() -> None:
    """docs/sim.md's task family is `weigh_one` of examples/families/weigh_family.lab, verbatim."""
    import re

    doc = Path("docs/sim.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```lab\n(.*?)^```", doc, re.S | re.M)
    (shown,) = [b for b in blocks if "bindings:" in b and "roles: [load]" in b]
    assert shown in Path(FAMILY).read_text(encoding="utf-8")


def test_a_family_that_follows_a_contract_maps_each_bindings_own_transfers(
    tmp_path: Path,
) -> None:
    """`operations:` written over a role name each binding's entity: the transfer of `w10`
    in one binding, of `w20` in the other, is the contract's `add(10)`."""
    file = tmp_path / "family_contract.lab"
    file.write_text(
        "use contracts.feedback_weighing.{feedback_weighing}\n"
        + SCENE.replace("w50: weight(mass: 50 g)", "w20: weight(mass: 20 g)")
        + """task weigh_it in s {
  follows: feedback_weighing(target: 10)
  roles: [load]
  bindings: { training: { a: {load: w10} } heldout: { b: {load: w20} } }
  operations: { put_on_scale(load, scale) as add(10) }
  step put { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }
}
"""
    )
    tasks, report = load_tasks(file)
    assert not report.has_errors, report.sorted()
    ops = {n: t.contract.operation_of(t.binding.roles[0][1], "scale") for n, t in tasks.items()}
    assert ops == {"weigh_it-a": "add(10)", "weigh_it-b": "add(10)"}
    assert tasks["weigh_it-b"].contract.operation_of("w10", "scale") == ""


@pytest.mark.parametrize(
    "path", sorted(Path("examples/families").glob("*.lab")), ids=lambda p: p.stem
)
def test_every_example_family_checks_clean_with_training_and_held_out_bindings(path: Path) -> None:
    """Each example family checks without a diagnostic and makes at least two training
    bindings and one held-out binding, each its own task."""
    tasks, report = load_tasks(path)
    assert not report.sorted(), [d.message for d in report.sorted()]
    heldout = [t for t in tasks.values() if t.binding and t.binding.heldout]
    training = [t for t in tasks.values() if t.binding and not t.binding.heldout]
    assert len(heldout) >= 1 and len(training) >= 2 and len(tasks) == len(heldout) + len(training)


def test_an_empty_first_binding_is_only_e0741_and_a_repeated_name_is_e0708() -> None:
    """The steps still read the role (from the next binding that binds it), so a first
    binding with no entity is E0741 alone; two bindings named alike are E0708."""
    step = (
        "  step weigh { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }\n}"
    )
    head = "task t in s {\n roles: [load]\n bindings: { %s }\n"
    assert _codes(head % "training: { a: {} } heldout: { b: {load: w50} }" + step) == ["E0741"]
    assert _codes(head % "training: { a: {load: w10}, a: {load: w50} }" + step) == ["E0708"]


def test_a_binding_whose_object_starts_at_the_goal_is_w0703() -> None:
    """The luck check runs per binding: the held-out weight declared on the scale makes
    `on(load, scale)` hold before the step does anything (W0703, at `w50`'s placement)."""
    scene = SCENE.replace(
        "w50: weight(mass: 50 g) on table at (0.20 m, -0.12 m)", "w50: weight(mass: 50 g) on scale"
    )
    step = (
        "  step weigh { do { pick(load); put_on_scale(load, scale) } success: on(load, scale) }\n}"
    )
    text = "task t in s {\n roles: [load]\n bindings: { training: { a: {load: w10} } heldout: { b: {load: w50} } }\n"
    found = check_text(scene + text + step).report.sorted()
    assert [(d.code, "`w50`" in d.message) for d in found] == [("W0703", True)]
