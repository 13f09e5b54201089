"""The skill, asset and message faults that six unseen lab tasks hit (issue 26, item 5),
each pinned by the task that hit it (`tests/sim/data/*.lab`) or by a minimal text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lablang.driver import check_text
from lablang.syntax.grammar import grammar_text

DATA = Path(__file__).parent / "data"

_SCENE = """
scene s {
  rack: tube_rack(slots: 6) on table at (0.15 m, -0.15 m)
  tube: tube_1_5ml(contents: 200 uL of sample) in rack.slot[0]
}
"""


def _keywords(rule: str) -> list[str]:
    """The words of one `!rule: "a" | "b"` keyword rule of the grammar."""
    match = re.search(rf"^!{rule}:(.*?)(?=^\S)", grammar_text(), re.S | re.M)
    assert match is not None, rule
    return re.findall(r'"([a-z_]+)"', match.group(1))


@pytest.mark.parametrize("word", _keywords("entry_kw") + _keywords("expr_kw"))
def test_a_step_named_by_a_keyword_gets_e0708_saying_the_name_is_reserved(word: str) -> None:
    """`step hold { ... }` (and every keyword that opens an entry) is E0708 saying the word
    is reserved, located on it, whose fix renames the step to `hold_`, which checks clean."""
    task = f"""task t in s {{
  instruction: "Pick up the tube."
  step {word} {{ do {{ pick(tube) }} success: grasped(tube) }}
}}
"""
    text = _SCENE + task
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0708"
    assert diagnostic.message == f"`{word}` is a reserved word, so it cannot name a step"
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    assert text[edit.span.start : edit.span.end] == word
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert not check_text(fixed).report.errors


def test_an_event_named_by_a_keyword_gets_e0708_saying_the_name_is_reserved() -> None:
    """`event hold at 2 s { ... }` in a scene is E0708 saying `hold` is reserved."""
    text = _SCENE.replace(
        "in rack.slot[0]\n",
        "in rack.slot[0]\n  event hold at 2 s { move(rack, by: (5 cm, 0 cm)) }\n",
    )
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0708" and "reserved word" in diagnostic.message
