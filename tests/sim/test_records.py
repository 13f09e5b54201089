"""Labference event records: choice, execution and completion apart; persisted and replayed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from lablang.cli.episodes import replay_command
from lablang.cli.sim import simulate_command
from lablang.sim.branches import run_matched
from lablang.sim.episode import run_episode
from lablang.sim.interventions import Decision, Execution, TargetPose
from lablang.sim.model import Call, Ref
from lablang.sim.records import replay

PUT_BACK = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[2]
}
task put in s {
  instruction: "Pick the tube and put it in slot 0 of the rack."
  step grasp { do { pick(tube) } success: grasped(tube) }
  step put {
    do { insert_into_slot(tube, rack.slot[0]) }
    success: in(tube, rack.slot[0]) and stable(tube, 0.5 s)
  }
}
"""


def test_live_episode_records_replay_to_the_same_score(task_from, tmp_path) -> None:
    """`simulate --record` persists events, observations and score, and `replay` rebuilds the
    choices and confirmations and re-scores them identically to the live episode."""
    task = task_from(PUT_BACK)
    live = run_episode(task, 2)
    assert live.succeeded
    kinds = [e.kind for e in live.events]
    assert kinds.count("choice") == kinds.count("execution") == 2
    assert kinds.count("completion") == 2 and kinds.count("persistence") == 2
    place = [e for e in live.events if e.kind == "choice"][1]
    assert place.operation == "insert_into_slot(tube, rack.slot[0])"
    assert place.target == place.measured == "rack.slot[0]"
    path = tmp_path / "episode.jsonl"
    from lablang.sim.records import write_records

    write_records(path, live.record_lines())
    replayed = replay(path)
    assert replayed.identical and replayed.score == live.score()
    assert replayed.score["completion"]["credit"] == live.credit
    assert (replayed.score["completion"]["status"] == "clean") == live.succeeded
    assert len(replayed.observations) == 2 and "tube" in replayed.observations[0]["objects"]


def test_replay_cli_reports_identical_rescore_and_rejects_a_tampered_record(tmp_path) -> None:
    """`lablang replay` exits 0 on an untouched record and 1 when a confirmation was edited."""
    runner = CliRunner()
    record = tmp_path / "r.jsonl"
    result = runner.invoke(
        simulate_command, ["examples/tasks/move_tube.lab", "--seed", "1", "--record", str(record)]
    )
    assert result.exit_code == 0, result.output
    out = runner.invoke(replay_command, [str(record)])
    assert out.exit_code == 0 and "re-scored identically" in out.output
    assert "transfer(tube, rack2.slot[3]): correct; confirmed, rests at rack2.slot[3]" in out.output
    lines = record.read_text().splitlines()
    edited = [
        line.replace('"confirmed": true', '"confirmed": false')
        if '"kind": "placed"' in line
        else line
        for line in lines
    ]
    record.write_text("\n".join(edited) + "\n")
    out = runner.invoke(replay_command, [str(record), "--json"])
    assert out.exit_code == 1
    assert json.loads(out.output)["score"]["execution"]["executed"] == 0
    record.write_text("not json\n")
    bad = runner.invoke(replay_command, [str(record)])
    assert bad.exit_code == 2 and "line 1" in bad.output


def test_env_info_separates_a_wrong_choice_from_its_confirmed_execution(task_from) -> None:
    """A policy that puts the tube back in slot 2 when the program calls for slot 0 makes an
    incorrect choice that is physically confirmed; info carries each record kind apart."""
    from lablang.sim.env import make_env

    env = make_env(task_from(PUT_BACK), max_seconds=9.0)
    obs, info = env.reset(seed=0)
    x, y, z = obs["objects"]["tube"][:3]
    seen: dict[str, list] = {"choice": [], "execution": [], "completion": [], "coordination": []}
    t = 0.0
    while True:
        if t < 1.5:
            action = [x, y, 0.2, 0, 0, 0.011]
        elif t < 2.5:
            action = [x, y, z + 0.008, 0, 0, 0.011]
        elif t < 3.0:
            action = [x, y, z + 0.008, 0, 0, 0.0]
        elif t < 4.0:
            action = [x, y, z + 0.03, 0, 0, 0.0]
        elif t < 5.0:
            action = [x, y, z + 0.01, 0, 0, 0.0]
        else:
            action = [x, y, 0.2, 0, 0, 0.011]
        obs, _, terminated, truncated, info = env.step(np.array(action))
        for kind, items in info["events"].items():
            seen[kind] += items
        t += 0.02
        if terminated or truncated:
            break
    assert truncated and info["step_success"] == {"grasp": True, "put": False}
    place = seen["choice"][0]
    assert place["operation"] == "transfer(tube, rack.slot[2])"
    assert place["legal"] == ["transfer(tube, rack.slot[0])"]
    confirmation = seen["execution"][0]
    assert confirmation["attempt"] == place["attempt"] and confirmation["confirmed"] is True
    assert [c["status"] for c in seen["completion"]] == ["passed", "failed"]
    result = env.score()
    assert result["choice"]["incorrect"] == [place["attempt"]]
    assert result["execution"]["executed"] == 1 and result["completion"]["credit"] == 0.5


def test_matched_continuation_on_the_centrifuge_changes_choice_correctness(task_from) -> None:
    """Tube A slips into slot 1 (a target-pose intervention before the checkpoint); from one
    checkpoint, B goes opposite A's actual slot (base) or opposite the intended slot 0
    (supported): only the supported branch's choice is wrong and its rotor unbalanced."""
    text = Path("examples/tasks/centrifuge_loading.lab").read_text()
    task = task_from(
        text.replace(
            "success: in(tube_A, rotor.slot[0]) and upright(tube_A)",
            "success: tube_A in rotor and upright(tube_A)",
        )
    )
    slip = TargetPose("place_A", 1, 1, Ref("rotor", ("slot", 1)))
    intended = Decision(
        "place_B", 1, 1, Call("opposite", (Ref("rotor"), Ref("rotor", ("slot", 0))))
    )
    m = run_matched(task, 1, "place_B", intended, before=(slip,))
    base, supported = m.base.score(), m.supported.score()
    assert base["choice"]["incorrect"] == []
    assert supported["choice"]["incorrect"] == ["t3"]  # t1 opened the lid, t2 placed A
    b_choice = next(e for e in m.supported.events if e.kind == "transfer" and e.attempt == "t3")
    assert b_choice.target == "rotor.slot[4]"
    assert "transfer(tube_B, rotor.slot[5])" in b_choice.legal  # opposite A's actual slot 1
    assert base["completion"]["credit"] == 1.0 and supported["completion"]["credit"] == 0.4
    assert "choice" in m.changed() and "completion" in m.changed()
    # the shared prefix is the same in both branches, event for event
    prefix = [e for e in m.base.events if e.time < 11.0]
    assert prefix == [e for e in m.supported.events if e.time < 11.0 and e.kind != "intervention"]


def test_execution_intervention_replaces_a_skill_result_without_running_it(task_from) -> None:
    """An execution intervention reports its status without moving anything: the tube stays
    where it was and the step's spec fails."""
    task = task_from(PUT_BACK)
    m = run_matched(task, 2, "put", Execution("put", 0, "succeeded"))
    assert m.base.succeeded and not m.supported.succeeded
    execution = [e for e in m.supported.events if e.attempt == "put.0" and e.kind == "execution"]
    assert execution[0].status == "succeeded" and execution[0].confirmed is False
    assert m.supported.steps[1].failing  # the spec's false atoms are named


WAIT_FOR_MOVE = """
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[2]
  event slide at 3 s .. 4 s { move(rack, by: (8 cm, 0 cm)) }
}
task t in s {
  instruction: "After the rack has been moved, lift the tube out of it."
  step lift on slide {
    do { remove_from_slot(tube, rack.slot[2]) }
    success: grasped(tube) and height(tube) > 5 cm
  }
}
"""


def test_premature_touches_and_the_response_are_recorded_apart_from_completion(
    task_from,
) -> None:
    """A policy that pokes the tube before the rack moves makes premature interactions; it
    then lifts the tube after the move (the response), and the step still completes."""
    from lablang.sim import make_env
    from lablang.sim.records import score

    task = task_from(WAIT_FOR_MOVE)
    env = make_env(task, max_seconds=14.0, weld_assist=False)  # no grasp while poking
    obs, info = env.reset(seed=5)
    start = env.rt.interventions[0].start
    coordination: list[dict] = []
    while True:
        x, y, z = obs["objects"]["tube"][:3]
        t = info["time"]
        if t < 1.0 or start - 0.6 < t < start + 2.0:
            action = [x, y, 0.2, 0, 0, 0.0]  # hands up (closed fingers)
        elif t < start - 0.6:
            action = [x, y, z + 0.025, 0, 0, 0.0]  # press the closed fingers onto the cap
        elif t < start + 3.0:
            action = [x, y, z + 0.008, 0, 0, 0.011]
        elif t < start + 3.5:
            action = [x, y, z + 0.008, 0, 0, 0.0]
        else:
            action = [x, y, 0.25, 0, 0, 0.0]
        obs, _, terminated, truncated, info = env.step(np.array(action))
        coordination += info["events"]["coordination"]
        if terminated or truncated:
            break
    assert terminated and info["step_success"] == {"lift": True}
    kinds = [e["kind"] for e in coordination]
    assert kinds[0] == "premature" and "trigger" in kinds and "response" in kinds
    assert kinds.index("response") > kinds.index("trigger")
    result = score(["lift"], env.events)
    assert result["coordination"]["premature"] >= 1
    assert result["coordination"]["response_latency"] > 0
    assert result["completion"]["credit"] == 1.0


def test_expert_waits_for_the_event_without_premature_touches() -> None:
    """In the placement-recall example the expert's waiting step touches nothing before the
    rack moves, and its retrieval is the response to the move."""
    from lablang.sim import load_tasks

    tasks, _ = load_tasks("examples/tasks/placement_recall.lab")
    result = run_episode(tasks["recall"], 3)
    coordination = result.score()["coordination"]
    assert result.succeeded and coordination["triggers"] == ["slide"]
    assert coordination["premature"] == 0 and coordination["response_latency"] > 0


def test_certify_persists_each_instance_record_and_counts_completions(task_from, tmp_path) -> None:
    """`certify_task(..., records_dir=...)` writes one record per instance that replays to
    its stored score, and the certificate counts clean, recovered and incomplete episodes."""
    from lablang.sim import certify_task

    certificate = certify_task(task_from(PUT_BACK), instances=2, seed=4, records_dir=tmp_path)
    assert certificate["completion"] == {"clean": 2, "recovered": 0, "incomplete": 0}
    files = sorted(tmp_path.glob("*.jsonl"))
    assert [f.stem for f in files] == sorted(str(s) for s in certificate["seeds"])
    assert all(replay(f).identical for f in files)
