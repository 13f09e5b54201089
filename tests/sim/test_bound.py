"""Tasks bound to contracts: `follows:` and `operations:`, choices scored against the
contract's legal set, and `lablang monitor` on a simulation record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from click.testing import CliRunner

from lablang.bound import ContractJudge, judge_for, load_contract, monitor_record
from lablang.cli import main
from lablang.contracts.semantics import default_evidence, initial_state, legal_operations
from lablang.driver import check_text
from lablang.sim import load_tasks
from lablang.sim.env import make_env
from lablang.sim.front import tasks_of
from lablang.sim.front_instruction import predicate_calls
from lablang.sim.labference import labference_score, obligations
from lablang.sim.model import Num
from lablang.sim.records import Event, replay
from tests.sim.labference_policies import ScriptedWeigher, evaluate_hold, transfer_choices

FILE = "examples/tasks/feedback_weighing.lab"


def _checked_task(path: str, name: str):  # type: ignore[no-untyped-def]
    tasks, report = load_tasks(path)
    assert not report.has_errors
    return tasks[name]


@pytest.fixture(scope="module")
def weigh_30g():  # type: ignore[no-untyped-def]
    return _checked_task(FILE, "weigh_30g")


def _bound_examples(contract: str = "feedback_weighing") -> list[tuple[str, str]]:
    found = []
    for path in sorted(Path("examples/tasks").glob("*.lab")):
        tasks, _ = load_tasks(str(path))
        found += [
            (str(path), name)
            for name, task in tasks.items()
            if task.contract and task.contract.contract == contract
        ]
    return found


def test_the_weighing_and_centrifuge_examples_follow_their_contracts() -> None:
    """Both weighing examples (30 g and 37 g) are bound to the weighing contract, the
    centrifuge example to the centrifuge contract."""
    assert [name for _, name in _bound_examples()] == ["weigh_30g", "weigh_37g"]
    assert [name for _, name in _bound_examples("centrifuge")] == ["load_pair"]


@pytest.mark.parametrize(("path", "name"), _bound_examples())
def test_each_example_task_and_its_contract_agree_on_the_target(path: str, name: str) -> None:
    """Every example task that follows the weighing contract binds the target its last
    step requires, and the contract's legal additions from an empty pan are exactly the
    weights the task puts on the scale."""
    task = load_tasks(path)[0][name]
    contract = load_contract(task.contract)
    last = task.steps[-1].success
    readings = [a for a in predicate_calls(last) if a.func == "reading" and len(a.args) > 1]
    assert readings and isinstance(readings[0].args[1], Num)
    assert contract.params["target"] == round(readings[0].args[1].value * 1000)  # g
    masses = {
        round(dict(task.scene.entity(o.subject).params)["mass"] * 1000)
        for o in obligations(task)
        if o.kind == "transfer"
    }
    # from an empty pan the contract allows adding exactly the task's standards
    empty = initial_state(contract, default_evidence(contract))
    adds = [op for op in legal_operations(contract, empty) if op.startswith("add(")]
    assert adds == [f"add({m})" for m in sorted(masses)]
    assert sum(masses) == contract.params["target"]


def test_each_transfer_records_the_contract_operation_it_is(weigh_30g) -> None:
    """`put_on_scale(w20, scale)` is `add(20)`: the transfer of w20 to the scale carries it."""
    assert weigh_30g.contract.operation_of("w20", "scale") == "add(20)"
    assert weigh_30g.contract.operation_of("w5", "table") == "remove(5)"
    assert weigh_30g.contract.operation_of("w5", "rack") == ""


def test_a_wrong_weight_is_an_illegal_contract_operation_and_its_removal_becomes_legal(
    weigh_30g,
) -> None:
    """Against the contract, putting w5 on the pan is `add(5)`, not legal at 30 g; once it is
    confirmed on the pan, the next legal set is `remove(5)` (recovery, strays first): not
    the policy's next `add(10)`, nor `remove(20)` or any removal of a standard the target
    needs."""
    judge = judge_for(weigh_30g)
    assert judge is not None
    score = ScriptedWeigher(("w20", "w10"), wrong=frozenset({0})).run(
        make_env(weigh_30g, max_seconds=35.0), 3, judge
    )
    first, second = transfer_choices(score)
    assert (first["contract_operation"], first["correct"]) == ("add(5)", False)
    assert first["legal"] == ["add(10)", "add(20)"]  # tared once, the display observed stable
    assert (second["contract_operation"], second["correct"]) == ("add(10)", False)
    assert second["legal"] == ["remove(5)"]  # the display observed stable with w5 on it


def test_a_refuted_placement_leaves_the_contract_state_unchanged(weigh_30g) -> None:
    """The contract's state advances on physical outcomes only: a transfer whose placement
    was refuted does not count as on the pan, so the same addition stays legal."""
    judge = ContractJudge(load_contract(weigh_30g.contract))

    def transfer(t: float, attempt: str) -> Event:
        return Event("transfer", t, "add_20", attempt=attempt, object="w20", target="scale",
                     contract_op="add(20)")  # fmt: skip

    events = [
        transfer(1.0, "t1"),
        Event("placed", 1.5, "add_20", attempt="t1", confirmed=False),
        transfer(2.0, "t2"),
        Event("placed", 2.5, "add_20", attempt="t2", confirmed=True),
        transfer(3.0, "t3"),
    ]
    legal = judge(events)
    assert "add(20)" in legal["t1"] and "add(20)" in legal["t2"]
    assert "add(20)" not in legal["t3"]


def test_monitor_reads_a_simulation_record_and_scores_it_against_the_contract(
    tmp_path, weigh_30g
) -> None:
    """`lablang monitor CONTRACT RECORD.jsonl` accepts `simulate --record`'s file, takes the
    task's parameters from it and prints the one scorer's measures with the contract's
    legal sets (the same as `monitor_record` from Python)."""
    record = tmp_path / "episode.jsonl"
    runner = CliRunner()
    out = runner.invoke(main, ["simulate", FILE, "--seed", "1", "--record", str(record)])
    assert out.exit_code == 0, out.output
    contract_file = "stdlib/contracts/feedback_weighing.lab"
    out = runner.invoke(main, ["monitor", contract_file, str(record), "--json"])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert printed["params"] == {"target": 30}
    assert [c["contract_operation"] for c in transfer_choices(printed["score"])] == [
        "add(20)",
        "add(10)",
    ]
    assert printed["score"]["choice"]["correct"] == 3  # the tare and both weights
    expected = monitor_record(load_contract(weigh_30g.contract), record)
    assert printed == json.loads(json.dumps(expected))
    text = runner.invoke(main, ["monitor", contract_file, str(record)])
    assert text.exit_code == 0 and "is `add(20)`: correct" in text.output
    # the same episode as an event log of its contract operations: the one scorer again
    log = tmp_path / "events.jsonl"
    log.write_text(_event_log(record, load_contract(weigh_30g.contract)))
    out = runner.invoke(main, ["monitor", contract_file, str(log), "--param", "target=30",
                               "--json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    from_log = json.loads(out.output)["score"]
    assert [(c["contract_operation"], c["correct"], c["executed"]) for c in from_log["choice"][
        "frozen"
    ] if c["contract_operation"].startswith(("add", "remove"))] == [
        (c["contract_operation"], c["correct"], c["executed"])
        for c in transfer_choices(printed["score"])]  # fmt: skip
    # completion is the contract's goal there, `recorded`: the record's observed operations
    # (the display stable, `wait_stable`; the last step reading 30 g, `record`) reach it
    assert from_log["completion"]["status"] != "incomplete"
    observed = [e.contract_op for e in replay(record).events if e.kind == "observed"]
    assert "wait_stable" in observed and observed[-1] == "record"
    # the same log without the display ever observed stable: its `record` is not legal
    # (an incorrect choice), so the episode is not clean
    unstable = tmp_path / "unstable.jsonl"
    unstable.write_text(
        _event_log(record, load_contract(weigh_30g.contract), skip=("wait_stable",))
    )
    out = runner.invoke(main, ["monitor", contract_file, str(unstable), "--param", "target=30",
                               "--json"])  # fmt: skip
    unsteady = json.loads(out.output)["score"]
    recorded = [c for c in unsteady["choice"]["frozen"] if c["contract_operation"] == "record"]
    assert [c["correct"] for c in recorded] == [False]
    assert unsteady["completion"]["status"] != "clean"


def _event_log(record: Path, contract: Any, skip: tuple[str, ...] = ()) -> str:
    """A simulation record's choices that are contract operations, as `monitor`'s event
    log (one line per choice, one per its outcome), and its observed operations that took
    effect (one confirmed line each), but those in `skip`."""
    from lablang.sim.labference import CHOICES, OUTCOMES

    events = replay(record).events
    took = ContractJudge(contract)(events)  # an observation took effect when it was legal
    lines = []
    for e in events:
        if e.kind == "observed" and e.contract_op not in skip and e.contract_op in took[e.attempt]:
            lines.append({"time": e.time, "attempt": f"o{len(lines)}", "object": e.object,
                          "operation": e.contract_op, "confirmed": True})  # fmt: skip
        if e.kind in CHOICES and e.contract_op:
            operation = e.contract_op.split(" | ")[0]
            lines.append({"time": e.time, "attempt": e.attempt, "object": e.object,
                          "operation": operation})  # fmt: skip
            outcome = next(o for o in events if o.kind in OUTCOMES and o.attempt == e.attempt)
            lines.append({"time": outcome.time, "attempt": e.attempt, "object": e.object,
                          "operation": operation, "confirmed": bool(outcome.confirmed)})  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_evaluate_records_name_the_bound_contract_and_monitor_reads_them(tmp_path) -> None:
    """`lablang evaluate --records` of a bound task writes records whose header names the
    contract and the task's parameters, which `lablang monitor` then uses (the do-nothing
    policy's: both opportunities missed, so no incorrect choice and exit 0)."""
    printed = evaluate_hold(FILE, 1, "--records", str(tmp_path))
    assert printed["labference"]["opportunities"] == 3 and printed["labference"]["reached"] == 0
    (record,) = sorted(tmp_path.glob("*.jsonl"))
    header = json.loads(record.read_text().splitlines()[0])
    assert header["contract"]["contract"] == "feedback_weighing"
    assert header["contract"]["params"] == {"target": 30}
    assert header["contract"]["operations"]["transfer(w5, scale)"] == "add(5)"
    out = CliRunner().invoke(
        main, ["monitor", "stdlib/contracts/feedback_weighing.lab", str(record), "--json"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["params"] == {"target": 30}


BOUND = """
use contracts.feedback_weighing.{feedback_weighing}
scene s {
  scale: scale() on table at (0.40 m, 0.05 m)
  w10: weight(mass: 10 g) on table at (0.20 m, 0.00 m)
}
task t in s {
  instruction: "Put w10 on the scale so that it reads 10.0 g."
  FOLLOWS
  OPERATIONS
  step add { do { pick(w10); put_on_scale(w10, scale) } success: reading(scale, 10 g) }
}
"""


@pytest.mark.parametrize(
    ("follows", "operations", "code", "message"),
    [
        ("follows: nothing(target: 10)", "", "E0704", "`nothing` is not a contract"),
        ("follows: feedback_weighing(target: 1.5)", "", "E0708", "parameters are `name: integer`"),
        ("", "operations: { put_on_scale(w10, scale) as add(10) }", "E0708", "name it"),
        ("follows: feedback_weighing(target: 10)", "operations: { put_on_scale(w10, scale) }",
         "E0708", "each operation is `skill call as operation`"),
        ("follows: feedback_weighing(target: 10)", "operations: { pick(w10) as add(10) }",
         "E0708", "only a transfer"),
        ("follows: feedback_weighing(target: 10)", "operations: { read_scale(scale) as add(10) }",
         "E0708", "only a transfer"),
    ],
)  # fmt: skip
def test_a_malformed_binding_is_a_located_diagnostic(
    follows: str, operations: str, code: str, message: str
) -> None:
    """A binding that names no contract, gives a non-integer parameter, maps operations
    without a contract or maps something other than a transfer, a press or a lid move (a
    pick, a reading) is reported, not run."""
    text = BOUND.replace("FOLLOWS", follows).replace("OPERATIONS", operations)
    result = check_text(text, roots=["stdlib"])
    tasks_of(result.program, result.report)
    found = [d for d in result.report if d.code == code]
    assert found and message in found[0].message, [d.message for d in result.report]


def test_branch_scores_a_bound_task_against_its_contract() -> None:
    """`lablang branch` on the 37 g task prints each branch's choices as contract
    operations with the contract's legal sets (the base: add(20), add(10), add(5), add(2),
    each legal when made)."""
    out = CliRunner().invoke(
        main,
        ["branch", "examples/tasks/weigh_37g.lab", "--seed", "1", "--at", "add_10",
         "--intervention", "execution", "--step", "add_10", "--call", "1", "--status",
         "failed", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    frozen = transfer_choices(printed["base"])
    assert [c["contract_operation"] for c in frozen] == ["add(20)", "add(10)", "add(5)", "add(2)"]
    assert all(c["correct"] and c["contract_operation"] in c["legal"] for c in frozen)
    assert printed["base"]["choice"]["frozen"][0]["operation"] == "press(scale.tare)"
    assert len(transfer_choices(printed["supported"])) == 1  # the put was not run


@pytest.mark.parametrize("target", [30, 37])
def test_the_weighing_contracts_stray_pair_is_disjoint_at_the_example_targets(target: int) -> None:
    """The contract's answer-changing pair `stray` (a clean pan against a previous user's
    1 g and 2 g on it) holds at the 30 g example task's target and at 37 g: the clean side
    may only add, the other only take strays off (`remove(1)`, at 30 g `remove(2)` too)."""
    from lablang.contracts.checks import HOLDS
    from lablang.contracts.pairs import check_pair

    contract = load_contract(
        evolve(load_tasks(FILE)[0]["weigh_30g"].contract, params=(("target", target),))
    )
    (pair,) = contract.pairs
    result = check_pair(contract, pair, 8, 10_000_000)
    assert result.status == HOLDS, result.message
    strays = ["remove(1)", "remove(2)"] if target == 30 else ["remove(1)"]
    assert result.details[1] == f"right legal: {', '.join(strays)}, wait_stable"
    assert result.details[0].startswith("left legal: add(")


# ------------------------------------------------------------------ the centrifuge, bound

CENTRIFUGE = "examples/tasks/centrifuge_loading.lab"


@pytest.fixture(scope="module")
def load_pair():  # type: ignore[no-untyped-def]
    return _checked_task(CENTRIFUGE, "load_pair")


def test_a_slot_pattern_maps_each_rotor_slot_to_the_operation_with_that_argument(
    load_pair,
) -> None:
    """`insert_into_slot(tube_B, rotor.slot[k]) as place_b(k)` makes the transfer into
    slot 5 `place_b(5)` (with its retry as the second candidate), and a transfer to the
    rack or to another container's slot no operation."""
    binding = load_pair.contract
    assert binding.operation_of("tube_B", "rotor.slot[5]") == "place_b(5) | retry_b"
    assert binding.operation_of("tube_A", "rotor.slot[0]") == "place_a(0) | retry_a"
    assert binding.operation_of("tube_A", "rack.slot[0]") == ""
    assert binding.operation_of("tube_B", "table") == ""


def test_the_centrifuge_contracts_size_is_the_example_rotors() -> None:
    """The example task binds the contract with N equal to its rotor's slot count, and the
    contract's own answer-changing pair (`slipped`: A in slot 2 or 3) gives disjoint legal
    sets for `place_b`: the target tube B goes to depends on A's actual slot."""
    from lablang.contracts.pairs import check_pair

    task = load_tasks(CENTRIFUGE)[0]["load_pair"]
    contract = load_contract(task.contract)
    rotor = task.scene.entity("rotor")
    assert contract.params["N"] == dict(rotor.params)["slots"] == 8
    (pair,) = contract.pairs
    assert check_pair(contract, pair, 6, 2_000_000).status in ("holds", "proved")


def _centrifuge_events(a_rests: str, a_op: str) -> list[Event]:
    """A's placement aimed at slot 0 and found at `a_rests`, then a choice for tube A
    again (t2) and one for tube B (t3), in the words the observer records them."""
    aim = "transfer(tube_A, rotor.slot[0])"
    return [
        Event("transfer", 1.0, "place_A", attempt="t1", operation=aim, object="tube_A",
              target="rotor.slot[0]", contract_op="place_a(0) | retry_a"),
        Event("placed", 1.5, "place_A", attempt="t1", object="tube_A", target=a_rests,
              confirmed=a_rests == "rotor.slot[0]", contract_op=a_op),
        Event("transfer", 2.0, "place_A", attempt="t2", operation=aim, object="tube_A",
              target="rotor.slot[0]", contract_op="place_a(0) | retry_a"),
        Event("transfer", 3.0, "place_B", attempt="t3", object="tube_B",
              target="rotor.slot[4]", contract_op="place_b(4) | retry_b"),
    ]  # fmt: skip


def test_the_judge_applies_the_outcome_that_explains_where_the_tube_rests(load_pair) -> None:
    """A placement aimed at slot 0: confirmed, A is seated there and, once seen
    (`confirm_a`, applied by the judge), `place_b(4)` is the one legal operation (placing
    A again is not); found in slot 1 it slipped, and `place_b(5)` is; found on the table
    it failed, so retrying A is the one legal operation and B has none yet."""
    judge = ContractJudge(load_contract(load_pair.contract))
    seated = judge(_centrifuge_events("rotor.slot[0]", "place_a(0) | retry_a"))
    assert seated["t2"] == seated["t3"] == ("place_b(4)",)
    slipped = judge(_centrifuge_events("rotor.slot[1]", "place_a(1) | retry_a"))
    assert slipped["t2"] == slipped["t3"] == ("place_b(5)",)
    failed = judge(_centrifuge_events("table", ""))
    assert failed["t2"] == ("retry_a",)
    # the retry is A's choice: the second candidate of its transfer, scored correct
    steps = ["place_A", "place_B"]
    required = ["place_A:transfer:tube_A", "place_B:transfer:tube_B"]
    score = labference_score(steps, required, _centrifuge_events("table", ""), judge)
    assert [(c["contract_operation"], c["correct"]) for c in score["choice"]["frozen"]] == [
        ("place_a(0)", True),
        ("retry_a", True),
    ]


def test_a_slip_in_simulation_moves_tube_bs_legal_slot_under_the_contract(task_from) -> None:
    """Tube A slips into slot 1 (a target-pose intervention before the checkpoint): scored
    against the contract, B opposite A's actual slot (`place_b(5)`, the base) is correct and
    B opposite the intended slot 0 (`place_b(4)`, the supported branch) is not, as the
    task's own legal sets say."""
    from lablang.sim.branches import run_matched
    from lablang.sim.interventions import Decision, TargetPose
    from lablang.sim.model import Call, Ref

    task = load_tasks(CENTRIFUGE)[0]["load_pair"]
    judge = judge_for(task)
    slip = TargetPose("place_A", 1, 1, Ref("rotor", ("slot", 1)))
    intended = Decision(
        "place_B", 1, 1, Call("opposite", (Ref("rotor"), Ref("rotor", ("slot", 0))))
    )
    m = run_matched(task, 1, "place_B", intended, before=(slip,))
    for result, slot, correct in ((m.base, 5, True), (m.supported, 4, False)):
        bound, own = result.score(judge), result.score()
        a, b = transfer_choices(bound)
        assert a["contract_operation"] == "place_a(0)" and a["correct"] and not a["executed"]
        assert b["contract_operation"] == f"place_b({slot})" and b["correct"] is correct
        assert b["legal"] == ["place_b(5)"]
        # the task's own legal set names B's slot alike; it also keeps A's re-placement into
        # slot 0 legal (its step's obligation is unmet), where the contract has A seated
        assert transfer_choices(own)[1]["legal"] == [
            "transfer(tube_A, rotor.slot[0])",
            "transfer(tube_B, rotor.slot[5])",
        ]


def test_the_centrifuge_pair_in_simulation_agrees_with_the_tasks_own_legal_sets(
    load_pair,
) -> None:
    """`branch --vary tube_A=rotor.slot[1]` before `place_B`, scored against the contract:
    B's legal operations are `place_b(4)` in the base and `place_b(5)` in the varied
    branch (disjoint), the expert is correct in both, and each is the transfer the task's
    own legal set names, mapped through the binding."""
    from lablang.sim.evidence import Relocate, run_varied

    varied = run_varied(load_pair, 1, "place_B", Relocate("tube_A", "rotor.slot[1]"))
    report = varied.report(judge_for(load_pair))
    # the lid closed and the start pressed are the contract's `close_lid` and `spin`
    base = report["base"]["choice"]["frozen"]
    assert [(c["contract_operation"], c["correct"]) for c in base] == [
        (None, True),  # the lid opened: the contract has no such operation
        ("place_a(0)", True),
        ("place_b(4)", True),
        ("close_lid", True),
        ("spin", True),
    ]
    # scored by the task's own legal set: B has no legal slot while A is still in the rack
    # (the opposite of a rack slot is no rotor slot)
    assert base[0]["legal"] == ["transfer(tube_A, rotor.slot[0])", "open(rotor)"]
    own = {"base": varied.base.score(), "varied": varied.varied.score()}
    for branch, slot in (("base", 4), ("varied", 5)):
        b = transfer_choices(report[branch])[-1]
        assert b["legal"] == [f"place_b({slot})"] and b["correct"]
        (transfer,) = transfer_choices(own[branch])[-1]["legal"]
        obj, target = transfer.removeprefix("transfer(").rstrip(")").split(", ")
        assert load_pair.contract.operation_of(obj, target).split(" | ")[0] == b["legal"][0]


def test_a_press_or_lid_move_maps_to_the_contract_operation_it_names(load_pair) -> None:
    """`close_lid(rotor) as close_lid` and `start_centrifuge(rotor) as spin`: the lid's
    close and the start button's press are those operations; the lid's opening, which no
    map names, is none."""
    binding = load_pair.contract
    assert binding.operation_of("rotor.close", None) == "close_lid"
    assert binding.operation_of("rotor.start", None) == "spin"
    assert binding.operation_of("rotor.open", None) == ""
    assert binding.operation_of("rotor.close", "rotor.slot[0]") == ""
