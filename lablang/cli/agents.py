"""The agent verbs: `lablang serve` and `lablang bench libstruct`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from lablang.cli.terminal import echo


@click.command("serve")
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder whose files requests may name (repeatable; default: the current folder).",
)
def serve_command(roots: tuple[str, ...]) -> None:
    """Answer check, fix, export, score and spec requests as JSON lines on stdio.

    One request per line, one reply per line (see docs/agents.md), until stdin ends or a
    `shutdown` request:

    \b
    {"id": 1, "method": "check", "params": {"text": "segment UMI = umi(12)"}}

    A path in a request must lie inside a `--root` folder after symlinks are resolved.

    Example: `lablang serve --root .`
    """
    from lablang.agent.serve import serve

    sys.exit(serve(roots=roots))


@click.group("bench")
def bench_group() -> None:
    """Run an agent on benchmark tasks with `.lab` as its answer format."""


@bench_group.command("libstruct")
@click.option("--agent", "agent", help="The agent command: prompt on stdin, .lab on stdout.")
@click.option(
    "--replay",
    "replay",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Replay recorded answers DIR/TASK/round_N.lab instead of running an agent.",
)
@click.option(
    "--tasks",
    "tasks",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder of task folders (protocol.md, truth/ or truth.lab, optional task.json).",
)
@click.option(
    "--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
    help="Where rounds.jsonl, rounds.csv, summary.json, report.html and the answers go.",
)  # fmt: skip
@click.option("--rounds", "repairs", default=3, show_default=True, help="Repair rounds (K).")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds per agent call.")
@click.option("--jobs", default=1, show_default=True, help="Tasks run in parallel.")
@click.option(
    "--no-autofix", "no_autofix", is_flag=True, help="Do not apply machine-applicable fixes."
)
def bench_libstruct_command(
    agent: str | None,
    replay: Path | None,
    tasks: Path,
    out: Path,
    repairs: int,
    timeout: float,
    jobs: int,
    no_autofix: bool,
) -> None:
    """LibStructBench Tasks 1-3 with `.lab` answers: prompt, answer, check, repair, score.

    Example: `lablang bench libstruct --replay tests/agents/replay --tasks tests/agents/tasks --out bench-report`
    """
    from lablang.agent.bench import BenchError, CommandAgent, ReplayAgent, run_bench

    if (agent is None) == (replay is None):
        raise click.UsageError("give exactly one of --agent CMD and --replay DIR")
    if repairs < 0 or jobs < 1 or timeout <= 0:
        raise click.UsageError("--rounds >= 0, --jobs >= 1 and --timeout > 0")
    runner = CommandAgent(agent, timeout) if agent is not None else ReplayAgent(replay)  # type: ignore[arg-type]
    try:
        result = run_bench(tasks, out, runner, repairs=repairs, jobs=jobs, autofix=not no_autofix)
    except BenchError as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    for line in result.summary_lines():
        echo(line)
