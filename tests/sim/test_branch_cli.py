"""`lablang branch`: matched continuations from the command line (through click's CliRunner)."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from lablang.cli import VERBS, main
from lablang.cli import episodes as cli_episodes
from lablang.sim import load_tasks
from lablang.sim.branches import run_matched
from lablang.sim.interventions import Decision
from lablang.sim.model import Ref
from tests.sim.labference_policies import transfer_choices

FILE = "examples/tasks/move_tube.lab"


def _rows(output: str) -> dict[str, str]:
    return {
        line.split()[0]: line for line in output.splitlines() if line.startswith(("base", "supp"))
    }


def test_branch_docstring_example_prints_both_branches_measures() -> None:
    """The help's example (a slip to rack2.slot[4]) leaves the base clean and the supported
    branch with the insertion unexecuted and the step incomplete."""
    assert VERBS["branch"][:2] == ("lablang.cli.episodes", "branch_command")
    match = re.search(r"Example: `lablang ([^`]*)`", cli_episodes.branch_command.help or "")
    assert match is not None
    out = CliRunner().invoke(main, match.group(1).split())
    assert out.exit_code == 0, out.output
    rows = _rows(out.output)
    assert "1/1 correct" in rows["base"] and "1/1 executed" in rows["base"]
    assert "clean, credit 1.00" in rows["base"]
    assert "1/1 correct" in rows["supported"] and "0/1 executed" in rows["supported"]
    assert "incomplete, credit 0.00" in rows["supported"]
    assert "changed: completion, execution" in out.output


def test_branch_decision_json_equals_the_python_api() -> None:
    """A decision for rack2.slot[5] makes the supported choice incorrect, and `--json` prints
    exactly what `run_matched` reports for the same intervention."""
    args = [
        "branch", FILE, "--seed", "1", "--at", "move", "--intervention", "decision",
        "--call", "1", "--argument", "1", "--value", "rack2.slot[5]", "--json",
    ]  # fmt: skip
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert printed["supported"]["choice"]["incorrect"] == ["t1"]
    assert printed["base"]["choice"]["incorrect"] == []
    tasks, _ = load_tasks(FILE)
    decision = Decision("move", 1, 1, Ref("rack2", ("slot", 5)))
    expected = run_matched(tasks["move_tube"], 1, "move", decision).report()
    assert printed == json.loads(json.dumps(expected))


def test_branch_execution_reports_the_chosen_status() -> None:
    """An execution intervention reporting `failed` for the pick leaves nothing executed."""
    args = [
        "branch", FILE, "--seed", "2", "--at", "move", "--intervention", "execution",
        "--call", "0", "--status", "failed",
    ]  # fmt: skip
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "reports failed" in out.output
    assert "incomplete" in _rows(out.output)["supported"]
    assert "no choice made at 1 of the opportunities" in out.output


def test_branch_refuses_interventions_that_do_not_fit_the_task() -> None:
    """An unknown step, a call out of range, a missing or unknown value exit 2 with a message."""
    base = ["branch", FILE, "--seed", "1", "--at", "move"]
    cases = [
        (["--intervention", "execution", "--step", "nope"], "has no step `nope`"),
        (["--intervention", "execution", "--call", "7"], "has 2 calls"),
        (["--intervention", "decision", "--call", "1"], "needs --value"),
        (
            ["--intervention", "target_pose", "--call", "1", "--argument", "1", "--value", "rak"],
            "E0704",
        ),
        (
            ["--intervention", "decision", "--call", "1", "--argument", "5", "--value", "rack"],
            "2 positional",
        ),
    ]
    for extra, message in cases:
        out = CliRunner().invoke(main, base + extra)
        assert out.exit_code == 2, (extra, out.output)
        assert message in out.output, (extra, out.output)


def test_doc_branch_session_prints_what_docs_sim_shows() -> None:
    """The `lablang branch` console session in docs/sim.md is what the command prints."""
    from pathlib import Path

    doc = Path("docs/sim.md").read_text("utf-8")
    match = re.search(r"```console\n\$ lablang (branch [^\n]*)\n(.*?)```", doc, re.S)
    assert match is not None
    args = [a.strip("'") for a in match.group(1).split()]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert out.output == match.group(2)


def test_an_intervention_branch_runs_past_its_failed_step_so_later_choices_compare() -> None:
    """With the pick of w20 reported failed, `add_20` fails, yet the supported branch still
    runs `add_10`: its w10 transfer is a frozen choice (correct, executed), where a branch
    that stopped at the failed step would have reached no choice."""
    from lablang.sim.interventions import Execution

    tasks, _ = load_tasks("examples/tasks/feedback_weighing.lab")
    matched = run_matched(tasks["weigh_30g"], 1, "add_20", Execution("add_20", 0, "failed"))
    assert [s.status for s in matched.supported.steps] == ["passed", "failed", "failed"]
    frozen = transfer_choices(matched.report()["supported"])
    assert [(c["operation"], c["correct"], c["executed"]) for c in frozen] == [
        ("transfer(w10, scale)", True, True)
    ]
    assert matched.report()["base"]["choice"]["correct"] == 3  # the tare and both weights
