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
    """Two lines of one attempt count as one attempt, and a retry after an illegal
    placement joins its obligation; a confirmation needed again after B was removed and
    placed again is the next obligation (`tube_b:confirm_b#2`)."""
    report = replay("centrifuge_wrong_choice.jsonl")
    keys = [o.key for o in report.obligations]
    assert len(keys) == len(set(keys)) == 8
    place_a = next(o for o in report.obligations if o.key == "tube_a:place_a")
    assert (place_a.attempts, place_a.executed) == (1, False)  # it slipped: not at its target
    place_b = next(o for o in report.obligations if o.key == "tube_b:place_b")
    assert (place_b.attempts, place_b.executed) == (2, True)
    confirms = [(o.key, o.attempts) for o in report.obligations if "confirm_b" in o.key]
    assert confirms == [("tube_b:confirm_b", 1), ("tube_b:confirm_b#2", 1)]


TWICE = (
    "contract twice {\n  var mixed: int[0..2]\n"
    "  op mix requires mixed < 2 effect mixed = mixed + 1\n  goal mixed == 2\n}\n"
)


def test_a_legal_log_repeating_an_operation_on_one_object_completes_clean() -> None:
    """Issue 33: a contract that needs `mix` on the same tube twice, and a log where both
    attempts are legal and confirmed, completes `clean` with two obligations of one
    attempt each (it was `recovered`: attempts were counted per object and operation)."""
    from tests.contracts.loading import compile_text

    (c,), report = compile_text(TWICE)
    assert not report.has_errors
    lines = [
        {"time": t, "attempt": a, "object": "tube", "operation": "mix", "confirmed": True}
        for t, a in ((1, "m1"), (2, "m2"))
    ]
    rep = monitor(c, _log(*lines))
    assert rep.completion == "clean"
    assert [(o.key, o.attempts, o.executed) for o in rep.obligations] == [
        ("tube:mix", 1, True),
        ("tube:mix#2", 1, True),
    ]
    # a third mix is illegal (`mixed < 2` fails) and opens a third obligation; the world
    # did it, so the goal no longer holds
    third = {"time": 3, "attempt": "m3", "object": "tube", "operation": "mix", "confirmed": True}
    over = monitor(c, _log(*lines, third))
    assert [o.key for o in over.obligations][-1] == "tube:mix#3"
    assert not over.attempts[-1].legal and over.completion == "incomplete"


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


BOX = load(EXAMPLES / "lidded_box.lab")


def _log(*events: dict) -> list:  # type: ignore[type-arg]
    return read_events("\n".join(json.dumps(e) for e in events))


def test_a_final_state_breaking_an_invariant_is_never_recovered() -> None:
    """Closing the lid of an empty box reaches the goal `lid` but breaks
    `lid -> slot != none`: completion is `violated` (it used to be `recovered`), and the
    first violation names the invariant and the attempt that broke it."""
    report = monitor(
        BOX, _log({"time": 1, "attempt": "c1", "operation": "close", "confirmed": True})
    )
    assert report.completion == "violated"
    assert report.violation is not None
    assert (report.violation.invariant, report.violation.attempt) == ("lid -> slot != none", "c1")
    assert report.final_broken == ("lid -> slot != none",)
    assert report.exit_code == 3


def test_a_transient_violation_is_reported_but_the_episode_can_recover() -> None:
    """An invariant broken on the way and holding again at the end: the first violation
    is reported (exit 3), completion is `recovered`, never `clean`."""
    from tests.contracts.loading import compile_text

    (c,), report = compile_text(
        "contract t {\n  var x: int[0..3]\n  op up requires x < 3 effect x = x + 1\n"
        "  op down requires x > 0 effect x = x - 1\n  goal x == 1\n  invariant x != 2\n}\n"
    )
    assert not report.has_errors
    steps = [("a", "up"), ("b", "up"), ("c", "down")]
    rep = monitor(
        c,
        _log(
            *(
                {"time": i, "attempt": a, "operation": o, "confirmed": True}
                for i, (a, o) in enumerate(steps)
            )
        ),
    )
    assert rep.violation is not None and rep.violation.operation == "up"
    assert rep.violation.attempt == "b"
    assert rep.completion == "recovered" and rep.exit_code == 3


def test_an_unknown_outcome_name_is_an_error() -> None:
    """An event that gives an outcome the contract does not declare is rejected with its
    line, like unknown evidence names (it used to be ignored)."""
    events = _log(
        {"time": 0, "attempt": "a1", "operation": "place_a(2)", "outcomes": {"slipp": True}}
    )
    with pytest.raises(MonitorError, match="line 1: `slipp` is not an outcome of `centrifuge`"):
        monitor(CENTRIFUGE, events)


def test_monitor_exit_codes_follow_the_documentation() -> None:
    """`lablang monitor` exits 0 on a clean log, 2 on an incorrect choice, 3 on a violated
    invariant and 1 on a log it cannot read."""
    import os
    import tempfile

    from click.testing import CliRunner

    from lablang.cli import main

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        runner = CliRunner()
        centrifuge = "stdlib/contracts/centrifuge.lab"
        clean = runner.invoke(
            main, ["monitor", centrifuge, "examples/contracts/centrifuge_clean.jsonl"]
        )
        wrong = runner.invoke(
            main, ["monitor", centrifuge, "examples/contracts/centrifuge_wrong_choice.jsonl"]
        )
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.jsonl")
            with open(bad, "w") as f:
                f.write('{"time": 0, "attempt": "c1", "operation": "close", "confirmed": true}\n')
            violated = runner.invoke(main, ["monitor", "examples/contracts/lidded_box.lab", bad])
            with open(bad, "w") as f:
                f.write("not json\n")
            unreadable = runner.invoke(main, ["monitor", centrifuge, bad])
    finally:
        os.chdir(cwd)
    assert [clean.exit_code, wrong.exit_code, violated.exit_code, unreadable.exit_code] == [
        0,
        2,
        3,
        1,
    ]
    assert "invariants: `lid -> slot != none` first violated after `close`" in violated.output
