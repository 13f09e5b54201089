"""Object-binding randomization: `randomize role from [a, b, c]`."""

from __future__ import annotations

from lablang.driver import check_text
from lablang.sim import certify_task, load_tasks, simulate_task
from lablang.sim.build import compile_scene

EXAMPLE = "examples/tasks/move_chosen_tube.lab"


def _bound(task, seed: int) -> str:
    import numpy as np

    return compile_scene(task.scene, np.random.default_rng(seed)).bindings["target"]


def test_two_seeds_bind_the_role_to_different_tubes_and_both_certify() -> None:
    """Two seeds bind `target` to different tubes; each instance moves its own tube and passes."""
    tasks, _ = load_tasks(EXAMPLE)
    task = tasks["move_chosen_tube"]
    seeds = list(range(1, 20))
    first = _bound(task, seeds[0])
    other = next(s for s in seeds if _bound(task, s) != first)
    for seed in (seeds[0], other):
        result = simulate_task(task, seed=seed)
        assert result.succeeded, (seed, result.steps)
        bound = dict(result.bindings)["target"]
        assert bound == _bound(task, seed)
    assert dict(simulate_task(task, seed=seeds[0]).bindings) != dict(
        simulate_task(task, seed=other).bindings
    )


def test_the_binding_is_deterministic_per_seed_and_only_the_bound_tube_moves() -> None:
    """The same seed binds the same tube, and every choice of the episode concerns that tube."""
    tasks, _ = load_tasks(EXAMPLE)
    task = tasks["move_chosen_tube"]
    assert [_bound(task, s) for s in range(8)] == [_bound(task, s) for s in range(8)]
    assert len({_bound(task, s) for s in range(8)}) >= 2
    result = simulate_task(task, seed=2)
    moved = dict(result.bindings)["target"]
    # the episode's steps were rewritten to the bound tube
    choices = [e for e in result.events if e.kind in ("choice", "transfer")]
    assert choices and all(e.object == moved for e in choices)


def test_the_certificate_reports_each_instances_binding() -> None:
    """`certify` lists the entity bound to each role for every instance seed."""
    tasks, _ = load_tasks(EXAMPLE)
    task = tasks["move_chosen_tube"]
    certificate = certify_task(task, instances=3, seed=5)
    assert certificate["certified"]
    assert [b["seed"] for b in certificate["bindings"]] == certificate["seeds"]
    for entry in certificate["bindings"]:
        assert entry["target"] == _bound(task, entry["seed"])


def test_bad_role_bindings_are_diagnosed() -> None:
    """Mixed assets, an unknown or repeated candidate, a role named like an entity: E0704/E0708."""
    base = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  a: tube_1_5ml in rack.slot[0]
  b: tube_1_5ml in rack.slot[1]
  w: weight(mass: 20 g) on table at (0.3 m, 0.1 m)
  randomize ROLE from [CANDIDATES]
}
task t in s {
  instruction: "Pick the a tube."
  step one { do { pick(a) } success: grasped(a) }
}
"""
    cases = {
        ("x", "a, w"): "E0708",
        ("x", "a, nope"): "E0704",
        ("b", "a, b"): "E0708",
        ("x", "a, a"): "E0708",
    }
    for (role, candidates), code in cases.items():
        text = base.replace("ROLE", role).replace("CANDIDATES", candidates)
        result = check_text(text)
        codes = [d.code for d in result.report]
        assert code in codes, (role, candidates, codes)


def test_a_role_is_checked_like_its_candidates_in_skill_arguments() -> None:
    """A role of tubes passes where an object is needed; a role of racks is refused (E0709)."""
    text = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  rack2: tube_rack(slots: 6) on table at (0.4 m, 0.1 m)
  a: tube_1_5ml in rack.slot[0]
  randomize holder from [rack, rack2]
}
task t in s {
  instruction: "Pick the holder."
  step one { do { pick(holder) } success: grasped(holder) }
}
"""
    codes = [d.code for d in check_text(text).report]
    assert "E0709" in codes


def test_simulate_prints_the_roles_binding() -> None:
    """`lablang simulate` names the entity each role is bound to in this instance."""
    from click.testing import CliRunner

    from lablang.cli import main

    tasks, _ = load_tasks(EXAMPLE)
    bound = _bound(tasks["move_chosen_tube"], 3)
    out = CliRunner().invoke(main, ["simulate", EXAMPLE, "--seed", "3"])
    assert out.exit_code == 0, out.output
    assert f"roles: `target` is `{bound}`" in out.output


def test_the_environment_tells_a_policy_which_entity_a_role_names() -> None:
    """`make_env(...).reset(seed)` puts the seed's binding in `info["bindings"]`."""
    from lablang.sim import make_env

    tasks, _ = load_tasks(EXAMPLE)
    task = tasks["move_chosen_tube"]
    env = make_env(task)
    _, info = env.reset(seed=3)
    assert info["bindings"] == {"target": _bound(task, 3)}
    assert env.task.steps[0].program[0].args[0].name == _bound(task, 3)
