"""The agent loop of examples/agent replays recorded answers to a clean module."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "agent"
_spec = importlib.util.spec_from_file_location("agent_loop", AGENT / "loop.py")
assert _spec is not None and _spec.loader is not None
loop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loop)


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("agent")
    task = (AGENT / "task.md").read_text("utf-8")
    return loop.run(task, loop.replay(AGENT / "recorded"), folder)


def test_recorded_session_ends_clean_after_fixes_and_repairs(transcript):
    """The first check reports all three mistakes at once (unclosed block, typo, wrong
    temperature) and the harness applies the two machine fixes; the protocol backend's
    wrong temperature goes to the model; its repair is clean."""
    rounds = [(r.source, r.codes, r.fixed) for r in transcript.rounds]
    assert rounds == [
        ("model", ("E0101", "E0203", "E0801"), ("E0101", "E0203")),
        ("fixes", ("E0801",), ()),
        ("model", (), ()),
    ]
    assert transcript.ok
    assert transcript.text == (AGENT / "recorded" / "answer_2.txt").read_text("utf-8")


def test_prompts_carry_the_reference_and_the_diagnostics_to_repair(transcript):
    """The first prompt holds the language reference; each repair prompt quotes the
    remaining diagnostics with their position and help."""
    first, *repairs = transcript.prompts
    assert loop.reference() in first
    assert len(repairs) == 1
    assert "E0801" in repairs[0] and "must be a temperature" in repairs[0]
    assert "TS0" not in repairs[0]  # the machine fix was applied before asking the model


def test_machine_fixes_are_applied_at_their_offsets():
    """A fix edit replaces exactly its span; of two clashing fixes the first is applied."""
    text = "aa TS0 bb"
    diagnostics = [
        {"code": "E0203", "fix": {"edits": [{"offset": 3, "end_offset": 6, "replacement": "TSO"}]}},
        {"code": "E0999", "fix": {"edits": [{"offset": 4, "end_offset": 5, "replacement": "x"}]}},
    ]
    fixed, applied = loop.apply_fixes(text, diagnostics)
    assert (fixed, applied) == ("aa TSO bb", ["E0203"])


def test_loop_stops_and_says_so_when_the_round_budget_is_spent(tmp_path: Path):
    """A model that keeps answering the same broken module ends with ok == False."""
    broken = (AGENT / "recorded" / "answer_1.txt").read_text("utf-8")
    transcript = loop.run("task", lambda prompt: broken, tmp_path, max_rounds=2)
    assert not transcript.ok
    assert [r.codes for r in transcript.rounds] == [("E0101", "E0203", "E0801"), ("E0801",)]
