"""One definition of success and termination (`lablang.sim.success.StepProgress`): the
environment, the certifier and the demonstrations' labels all ask the same object, and a
demonstration whose expert stopped first is held still until the environment itself ends
the episode, so each of its labels is one the environment gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lablang.sim import load_tasks
from lablang.sim.certify import certify_task
from lablang.sim.demos import hold_after, label_demo, record_demo, replay_steps
from lablang.sim.gym_env import LabEnv
from lablang.sim.success import StepProgress

ROOT = Path(__file__).resolve().parents[2]
MOVE_TUBE = ROOT / "examples" / "tasks" / "move_tube.lab"
LIMIT = 15.0  # s: the environment's time limit in these tests (LabEnv's default is 120 s)


def _task(path: Path) -> object:
    return load_tasks(path)[0]["move_tube"]


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> object:
    """move_tube whose spec asks for slot 2, while the expert's program fills slot 3."""
    text = MOVE_TUBE.read_text().replace("in(tube, rack2.slot[3])", "in(tube, rack2.slot[2])")
    path = tmp_path_factory.mktemp("failing") / "move_tube.lab"
    path.write_text(text)
    return _task(path)


def _replayed(task: object, demo: object) -> tuple[list[float], list[bool], list[bool]]:
    env = LabEnv(task, action_mode="ee_delta", weld_assist=False, max_seconds=LIMIT)
    per_tick = {t: ops for t, ops in enumerate(demo.recording.bookkeeping) if ops}
    steps = list(replay_steps(env, demo.seed, demo.recording.actions, per_tick))[1:]
    env.close()
    return [s[1] for s in steps], [s[2] for s in steps], [s[3] for s in steps]


def test_a_failed_expert_is_held_until_the_environment_truncates_at_its_time_limit(
    failing: object,
) -> None:
    """The expert fails (wrong slot) and stops; its demonstration goes on with the hold
    action until LabEnv truncates at its time limit, so it ends `truncated` on the tick the
    environment says, and replaying the file's actions gives exactly its labels."""
    recording = record_demo(failing, 0)
    assert recording.result is not None and not recording.result.succeeded
    assert not recording.result.terminated  # the environment's judge never terminated it
    demo = label_demo(failing, 0, recording, "ee_delta", max_seconds=LIMIT)
    assert demo.held_ticks > 0 and demo.ticks == len(recording.actions) + demo.held_ticks
    times = demo.recording.times  # simulated time after each tick: it ends at the limit
    assert len(times) == demo.ticks and times[-2] < LIMIT <= times[-1]
    assert not demo.terminated.any() and demo.truncated.tolist() == [False] * (demo.ticks - 1) + [True]  # fmt: skip
    hold = hold_after(recording.actions[-1], "ee_delta")
    assert all(np.array_equal(a, hold) for a in demo.recording.actions[-demo.held_ticks :])
    assert len(demo.recording.states) == len(demo.recording.bookkeeping) == demo.ticks
    assert not demo.success and demo.replay_exact
    rewards, terminated, truncated = _replayed(failing, demo)
    assert rewards == demo.rewards.tolist()
    assert (terminated, truncated) == (demo.terminated.tolist(), demo.truncated.tolist())


def test_the_environment_the_certifier_and_the_labels_ask_one_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With StepProgress made to pass no step, the certificate's expert fails, LabEnv
    never terminates and the demonstration is labelled `truncated` at the time limit: none
    of the three has a loop of its own that would still say success."""
    task = _task(MOVE_TUBE)
    recording = record_demo(task, 0)
    assert recording.result is not None and recording.result.succeeded
    assert label_demo(task, 0, recording, "ee_delta").terminated[-1]
    monkeypatch.setattr(StepProgress, "advance", lambda self: 0)  # no step ever passes
    assert certify_task(task, 1, mutants="none")["success_rate"] == 0.0
    demo = label_demo(task, 0, recording, "ee_delta", max_seconds=LIMIT)
    assert not demo.terminated.any() and demo.truncated[-1] and not demo.success
