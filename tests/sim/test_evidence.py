"""`lablang branch --vary`: evidence changed at a checkpoint, both continuations run to the
end, each branch's start (state and evidence) and its choice, execution and completion."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lablang.cli import main

WEIGHING = "examples/tasks/feedback_weighing.lab"
CENTRIFUGE = "examples/tasks/centrifuge_loading.lab"


def _branch(*args: str) -> tuple[int, str]:
    out = CliRunner().invoke(main, ["branch", *args])
    return out.exit_code, out.output


@pytest.fixture(scope="module")
def centrifuge() -> dict:
    code, output = _branch(CENTRIFUGE, "--seed", "1", "--at", "place_B", "--vary",
                           "tube_A=rotor.slot[1]", "--json")  # fmt: skip
    assert code == 0, output
    result: dict = json.loads(output)
    return result


def test_the_centrifuge_answer_changing_pair_is_reproduced_in_simulation(centrifuge) -> None:
    """Tube A found in slot 1 instead of 0 at the checkpoint before `place_B`: the legal
    destinations of tube B are disjoint between the branches (slot 4 against slot 5), and
    the expert's program, which aims B opposite A's actual slot, is correct in both."""
    base, varied = (centrifuge[b]["choice"]["frozen"][-1] for b in ("base", "varied"))
    assert base["legal"] == ["transfer(tube_B, rotor.slot[4])"]
    assert varied["legal"] == ["transfer(tube_B, rotor.slot[5])"]
    assert base["correct"] and varied["correct"]
    a_base = centrifuge["base"]["start"]["objects"]["tube_A"][:3]
    a_varied = centrifuge["varied"]["start"]["objects"]["tube_A"][:3]
    assert a_base != a_varied  # the state each branch starts from is reported


def test_weighing_evidence_varied_changes_the_reading_and_the_legal_set() -> None:
    """A stray 5 g weight found on the pan before `add_10`: the varied branch starts from a
    different display, its legal set then holds `remove(5)` (the base's does not), and it
    runs to the end although `add_10` fails (the fixed program cannot adapt)."""
    code, output = _branch(WEIGHING, "--seed", "1", "--at", "add_10", "--vary", "w5=scale",
                           "--json")  # fmt: skip
    assert code == 0, output
    result = json.loads(output)
    base, varied = result["base"], result["varied"]
    assert base["start"]["evidence"]["scale"]["display"] == 20.0
    assert varied["start"]["evidence"]["scale"]["display"] > 20.0
    assert "remove(5)" in varied["choice"]["frozen"][-1]["legal"]
    assert "remove(5)" not in base["choice"]["frozen"][-1]["legal"]
    assert base["completion"]["status"] == "clean"
    assert varied["completion"]["status"] == "incomplete"
    assert varied["choice"]["reached"] == 2  # the step after the checkpoint was still run
    assert result["changed"] == ["completion"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "w7=scale"], "`w7` is not an object"),
        (["--vary", "w5=shelf"], "neither a surface nor a slot"),
        (["--vary", "w5"], "OBJECT=TARGET"),
        ([], "give one of --intervention and --vary"),
        (["--vary", "w5=scale", "--intervention", "execution"], "give one of"),
    ],
)
def test_a_variation_that_does_not_fit_exits_2_with_a_message(
    args: list[str], message: str
) -> None:
    """An unknown object or target, a malformed --vary or both/neither options exit 2."""
    code, output = _branch(WEIGHING, "--seed", "1", "--at", "add_10", *args)
    assert code == 2 and message in output
