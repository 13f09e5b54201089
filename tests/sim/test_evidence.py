"""`lablang branch --vary`: evidence changed at a checkpoint, both continuations run to the
end, each branch's start (state and evidence) and its choice, execution and completion."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lablang.cli import main
from tests.sim.labference_policies import transfer_choices

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
    destinations of tube B are disjoint between the branches (slot 4 against slot 5, as the
    bound centrifuge contract's legal sets say), and the expert's program, which aims B
    opposite A's actual slot, is correct in both."""
    base, varied = (transfer_choices(centrifuge[b])[-1] for b in ("base", "varied"))
    assert base["legal"] == ["place_b(4)"] and base["contract_operation"] == "place_b(4)"
    assert varied["legal"] == ["place_b(5)"] and varied["contract_operation"] == "place_b(5)"
    assert base["correct"] and varied["correct"]
    a_base = centrifuge["base"]["start"]["objects"]["tube_A"][:3]
    a_varied = centrifuge["varied"]["start"]["objects"]["tube_A"][:3]
    assert a_base != a_varied  # the state each branch starts from is reported


def _moves(choice: dict) -> list[str]:  # type: ignore[type-arg]
    return [op for op in choice["legal"] if op.startswith(("add(", "remove("))]


def _weighing_branch(vary: str) -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    """`branch --json` of the weighing task (seed 1) varied before `add_10`: the report,
    its base and its varied branch (the base starts from the 20 g display)."""
    code, output = _branch(WEIGHING, "--seed", "1", "--at", "add_10", "--vary", vary, "--json")
    assert code == 0, output
    result = json.loads(output)
    assert result["base"]["start"]["evidence"]["scale"]["display"] == 20.0
    return result, result["base"], result["varied"]


def test_the_30g_answer_changing_pair_is_reproduced_in_simulation() -> None:
    """The example task's own pair (30 g): before `add_10`, a clean pan of 20 g calls for
    `add(10)` and the same pan with a stray 5 g found on it for `remove(5)` only, disjoint
    legal sets as the contract's `stray` pair says; the varied branch starts from a
    different display and runs to the end, where the fixed program's `add(10)` is an
    incorrect choice and `add_10` fails."""
    result, base, varied = _weighing_branch("w5=scale")
    assert varied["start"]["evidence"]["scale"]["display"] > 20.0
    assert _moves(transfer_choices(base)[-1]) == ["add(10)"]
    assert _moves(transfer_choices(varied)[-1]) == ["remove(5)"]
    assert [c["correct"] for c in transfer_choices(varied)] == [True, False]
    assert base["completion"]["status"] == "clean"
    assert varied["completion"]["status"] == "incomplete"
    assert varied["choice"]["reached"] == 3  # the step after the checkpoint was still run
    assert result["changed"] == ["choice", "completion"]


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


def test_a_reading_offset_at_the_checkpoint_is_evidence_the_fixed_program_misreads() -> None:
    """`--vary 'scale=+5.0 g'` before `add_10`: the varied branch starts from a display of
    25.0 g on the same 20 g (its text row says so); the fixed program still adds w10, so
    the display ends at 35.0 g and `add_10` fails. The offset is no contract operation: the
    bound contract's legal set is the base's (`add(10)`), so the choice stays correct and
    only completion changes (the weighing pair is a stray object: `--vary w5=scale`)."""
    result, _base, varied = _weighing_branch("scale=+5.0 g")
    assert varied["start"]["evidence"]["scale"]["display"] == 25.0
    assert _moves(transfer_choices(varied)[-1]) == ["add(10)"]
    assert varied["completion"]["status"] == "incomplete"
    assert result["changed"] == ["completion"]
    assert result["vary"] == "evidence: `scale` is found reading +5.0 g off its load"


def test_the_documented_reading_offset_session_is_what_branch_prints() -> None:
    """docs/sim.md's `--vary 'scale=+5.0 g'` session: every line it shows (the rows of
    choices elided as `...`) is what `lablang branch` prints, in order."""
    import re
    from pathlib import Path

    doc = Path("docs/sim.md").read_text("utf-8")
    match = re.search(
        r"```text\n\$ lablang (branch [^\n]*scale=\+5\.0 g'[^\n]*)\n(.*?)```", doc, re.S
    )
    assert match is not None
    args = [a.strip("'") for a in re.findall(r"'[^']*'|\S+", match.group(1))]
    code, output = _branch(*args[1:])
    assert code == 0, output
    lines = output.splitlines()
    at = 0
    for shown in match.group(2).splitlines():
        if shown == "...":
            continue
        assert shown in lines[at:], (shown, output)  # present, and after the line before it
        at = lines.index(shown, at) + 1
