"""Replaying event logs: choice, execution and completion are reported separately."""

from __future__ import annotations

import json

import pytest

from lablang.contracts.replay import MonitorError, monitor, read_events
from tests.contracts.loading import ROOT, STDLIB, load

CENTRIFUGE = load(STDLIB / "centrifuge.lab")
EXAMPLES = ROOT / "examples" / "contracts"


def replay(name: str):  # type: ignore[no-untyped-def]
    return monitor(CENTRIFUGE, read_events((EXAMPLES / name).read_text("utf-8")))


def test_clean_episode_scores_correct_executed_clean() -> None:
    """A slip-free episode: correct choice, every obligation executed once, clean completion."""
    report = replay("centrifuge_clean.jsonl")
    assert report.choice is not None and report.choice.legal
    assert report.choice.operation == "place_b(6)"
    assert all(o.executed and o.attempts == 1 for o in report.obligations)
    assert report.completion == "clean"


def test_wrong_choice_after_slip_is_incorrect_but_recovered() -> None:
    """B opposite the intended slot after A slipped: incorrect choice, then recovered."""
    report = replay("centrifuge_wrong_choice.jsonl")
    assert report.choice is not None
    assert (report.choice.operation, report.choice.legal) == ("place_b(6)", False)
    assert report.choice.legal_set == ("place_b(7)",)
    assert report.completion == "recovered"
    assert report.final_state["b"] == 7


def test_obligations_are_counted_once() -> None:
    """Two lines of one attempt and two attempts of one obligation count as one obligation."""
    report = replay("centrifuge_wrong_choice.jsonl")
    keys = [o.key for o in report.obligations]
    assert len(keys) == len(set(keys)) == 7
    place_a = next(o for o in report.obligations if o.key == "tube_a:place_a")
    assert (place_a.attempts, place_a.executed) == (1, False)  # it slipped: not at its target
    place_b = next(o for o in report.obligations if o.key == "tube_b:place_b")
    assert (place_b.attempts, place_b.executed) == (2, True)


def test_incomplete_episode() -> None:
    """A log that stops before the spin is incomplete whatever its choices."""
    lines = (EXAMPLES / "centrifuge_clean.jsonl").read_text("utf-8").splitlines()[:-1]
    report = monitor(CENTRIFUGE, read_events("\n".join(lines)))
    assert report.completion == "incomplete" and report.choice is not None and report.choice.legal


def test_confirmation_that_contradicts_the_contract_is_noted() -> None:
    """Claiming A is seated at its slot although the outcome says it slipped gives a note."""
    log = json.dumps(
        {
            "time": 0,
            "attempt": "a1",
            "operation": "place_a(2)",
            "confirmed": True,
            "outcomes": {"slip": True},
        }
    )
    report = monitor(CENTRIFUGE, read_events(log))
    assert report.notes and "`a == k` is false" in report.notes[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "line 1: not valid JSON"),
        ('{"attempt": "x", "operation": "spin"}', "line 1: `time` must be a number"),
        ('{"time": 0, "attempt": "x", "operation": "fly"}', "line 1: `fly` is not an operation"),
        ('{"time": 0, "evidence": {"ghost": 1}}', "line 1: `ghost` is not evidence"),
        ('\n{"time": 0, "operation": "spin"}', "line 2: an attempt needs"),
        (
            '{"time": 0, "attempt": "x", "operation": "spin"}\n'
            '{"time": 1, "attempt": "x", "operation": "close_lid"}',
            "line 2: attempt `x` changes",
        ),
    ],
)
def test_bad_log_lines_are_named(text: str, message: str) -> None:
    """Malformed or unknown log content is an error naming its line."""
    with pytest.raises(MonitorError, match=message.replace("(", r"\(")):
        monitor(CENTRIFUGE, read_events(text))
