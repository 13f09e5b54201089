"""`lablang bench libstruct`: prompt, answer, check, repair and score every round."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from click.testing import CliRunner

from lablang.agent.bench import ReplayAgent, load_tasks, run_bench
from lablang.cli import main

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
REPLAY = HERE / "replay"
RECORDS = ("rounds.jsonl", "rounds.csv", "summary.json", "report.html")


def _rounds(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]


def _records(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in RECORDS}


def test_replayed_answers_improve_over_repair_rounds_and_every_round_is_recorded(
    tmp_path: Path,
) -> None:
    """mini_smart's three recorded answers score strictly better each round (Task 3 state
    F1) and the last is clean with reward 1; mini_lig's one mistake is fixed by the
    harness in round 1; all four rounds are in the JSONL, the CSV and the HTML report."""
    result = run_bench(TASKS, tmp_path, ReplayAgent(REPLAY), repairs=3)
    rounds = _rounds(tmp_path)
    smart = [r for r in rounds if r["task"] == "mini_smart"]
    assert [r["status"] for r in smart] == ["errors", "errors", "clean"]
    states = [r["metrics"]["t3_state_f1"] for r in smart]
    assert states[0] < states[1] < states[2] == 1.0
    assert smart[-1]["metrics"]["reward"] > 0.999
    assert smart[0]["codes"] == ["E0203", "E0410"] and smart[0]["fixes_applied"] == 1
    lig = [r for r in rounds if r["task"] == "mini_lig"]
    assert [(r["status"], r["fixes_applied"]) for r in lig] == [("clean", 1)]
    means = result.per_round("t3_state_f1")
    assert means[0] < means[1] < means[2]
    with (tmp_path / "rounds.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 4
    page = (tmp_path / "report.html").read_text()
    assert "round 3" in page and "mini_smart" in page
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["clean"] == 2 and len(summary["per_round"]["reward"]) == 3
    assert (tmp_path / "answers" / "mini_smart" / "round_3.lab").is_file()


def test_the_repair_prompt_carries_the_previous_answer_and_its_diagnostics(tmp_path: Path) -> None:
    """Round 2's prompt holds round 1's answer (with fixes applied) and its errors as JSON;
    round 1's prompt holds the reference sections the task asks for and its protocol."""
    seen: list[tuple[int, str]] = []

    class Recording(ReplayAgent):
        def answer(self, task, round_number, prompt):
            seen.append((round_number, prompt))
            return super().answer(task, round_number, prompt)

    (task,) = [t for t in load_tasks(TASKS) if t.id == "mini_smart"]
    run_bench(TASKS, tmp_path, Recording(REPLAY), repairs=1)
    prompts = dict(p for p in seen if "Minimal full-length" in p[1] or "E0410" in p[1])
    assert "## Molecular workflows" in prompts[1] and task.protocol.strip() in prompts[1]
    assert '"code": "E0410"' in prompts[2] and "products: [amplicon]" in prompts[2]


def test_an_agent_command_gets_the_prompt_on_stdin_and_jobs_run_tasks_in_parallel(
    tmp_path: Path,
) -> None:
    """`--agent CMD --jobs 2` writes the same records, byte for byte, as the replay run
    serially (the command reads the round from its environment); the times of each
    round are in timings.csv only."""
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import os, sys\n"
        "prompt = sys.stdin.read()\n"
        "assert 'lablang' in prompt\n"
        f"folder = {str(REPLAY)!r}\n"
        "path = os.path.join(folder, os.environ['LABLANG_TASK'], "
        "f\"round_{os.environ['LABLANG_ROUND']}.lab\")\n"
        "sys.stdout.write(open(path).read())\n"
    )
    runner = CliRunner()
    command = f"{sys.executable} {agent}"
    out = tmp_path / "cmd"
    args = ["bench", "libstruct", "--tasks", str(TASKS), "--out", str(out)]
    done = runner.invoke(main, [*args, "--agent", command, "--jobs", "2"])
    assert done.exit_code == 0, done.output
    replay = tmp_path / "replay"
    runner.invoke(main, ["bench", "libstruct", "--tasks", str(TASKS), "--out", str(replay),
                         "--replay", str(REPLAY)])  # fmt: skip
    assert _records(out) == _records(replay)
    assert "after round 3: mean reward 1.0000" in done.output
    timings = (out / "timings.csv").read_text().splitlines()
    assert timings[0] == "task,round,agent_seconds,check_seconds,score_seconds"
    assert len(timings) == 5


def test_an_agent_over_its_time_limit_is_recorded_as_a_timeout(tmp_path: Path) -> None:
    """An agent that does not answer within `--timeout` gives a `timeout` round scoring 0."""
    slow = f'{sys.executable} -c "import time; time.sleep(30)"'
    done = CliRunner().invoke(
        main,
        ["bench", "libstruct", "--tasks", str(TASKS), "--out", str(tmp_path), "--agent", slow,
         "--timeout", "0.5", "--rounds", "0"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rounds = _rounds(tmp_path)
    assert [(r["status"], r["metrics"]["reward"]) for r in rounds] == [("timeout", 0.0)] * 2


def test_a_folder_without_tasks_and_conflicting_options_are_usage_errors(tmp_path: Path) -> None:
    """A task folder without protocol.md, or both --agent and --replay, exit 2."""
    (tmp_path / "t" / "x").mkdir(parents=True)
    runner = CliRunner()
    base = ["bench", "libstruct", "--out", str(tmp_path / "o")]
    done = runner.invoke(main, [*base, "--tasks", str(tmp_path / "t"), "--replay", str(REPLAY)])
    assert done.exit_code == 2 and "no protocol.md" in done.output
    both = runner.invoke(main, [*base, "--tasks", str(TASKS), "--replay", str(REPLAY),
                                "--agent", "true"])  # fmt: skip
    assert both.exit_code == 2


def test_the_summary_counts_rounds_as_its_after_round_lines_do() -> None:
    """Two tasks, one passing in round 1 and one in round 3, are `2 tasks, 3 rounds` with
    three `after round` lines and the 4 replies counted apart (not `4 rounds`)."""
    from lablang.agent.bench import BenchResult
    from lablang.agent.rounds import Round

    def reply(task: str, number: int, reward: float) -> Round:
        return Round(task, number, "ok", 0, 0, (), 0, {"reward": reward}, 0.0, 0.0, 0.0, 0, "")

    rounds = (reply("a", 1, 1.0), reply("b", 1, 0.0), reply("b", 2, 0.5), reply("b", 3, 1.0))
    lines = BenchResult(rounds, ()).summary_lines()
    assert lines[0].startswith("2 tasks, 3 rounds (4 replies in all")
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "after round 1", "after round 2", "after round 3",
    ]  # fmt: skip
    assert lines[-1].endswith("mean reward 1.0000")
