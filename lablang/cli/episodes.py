"""The episode verbs: replay (re-score a recorded episode) and branch (a matched
continuation from a checkpoint)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from lablang.cli.sim import PATH_OPTION, TASK_OPTION, _internal_error, _judge, _load
from lablang.cli.terminal import echo, echo_diagnostics


@click.command("replay")
@click.argument("record", type=click.Path(dir_okay=False, exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the reconstruction as JSON.")
def replay_command(record: str, as_json: bool) -> None:
    """Reconstruct a recorded episode's choices and confirmations and re-score them.

    Exit 0 when the re-score equals the score stored in the record, 1 when it differs,
    2 when the record cannot be read.

    Example: `lablang simulate examples/tasks/move_tube.lab --record episode.jsonl && lablang replay episode.jsonl`
    """
    from lablang.sim.labference import CHOICES, OUTCOMES
    from lablang.sim.records import RecordError, replay

    try:
        replayed = replay(Path(record))
    except (RecordError, OSError, UnicodeDecodeError) as error:
        echo(f"error: cannot replay `{record}`: {error}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "episode": replayed.header,
                    "choices": [attrs_dict(e) for e in replayed.events if e.kind in CHOICES],
                    "executions": [attrs_dict(e) for e in replayed.events if e.kind in OUTCOMES],
                    "completions": [
                        attrs_dict(e)
                        for e in replayed.events
                        if e.kind in ("completion", "persistence")
                    ],
                    "score": replayed.score,
                    "stored_score": replayed.stored_score,
                    "identical": replayed.identical,
                },
                indent=2,
            )
        )
    else:
        h = replayed.header
        echo(f"episode of task {h.get('task')}, seed {h.get('seed')}")
        confirmations = {e.attempt: e for e in replayed.events if e.kind in OUTCOMES}
        frozen = {c["attempt"]: c for c in replayed.score["choice"]["frozen"]}
        for e in replayed.events:
            if e.kind in CHOICES:
                done = confirmations.get(e.attempt)
                scored = frozen.get(e.attempt)
                verdict = (
                    "revision (not scored)"
                    if scored is None
                    else "correct"
                    if scored["correct"]
                    else f"wrong (legal: {', '.join(scored['legal']) or 'none'})"
                )
                confirmed = (
                    "no outcome"
                    if done is None
                    else f"{'confirmed' if done.confirmed else 'NOT confirmed'}"
                    + (f", rests at {done.target}" if done.target else "")
                )
                echo(f"  {e.time:8.2f} s  {e.attempt:12} {e.operation}: {verdict}; {confirmed}")
            elif e.kind in ("completion", "intervention", "fault"):
                what = e.status or e.kind
                echo(f"  {e.time:8.2f} s  {e.step:12} {what} {e.detail}".rstrip())
        sc = replayed.score
        echo(
            f"choice {sc['choice']['correct']}/{sc['choice']['opportunities']} correct, "
            f"execution {sc['execution']['executed']}/{sc['execution']['opportunities']} "
            f"confirmed, completion {sc['completion']['status']} "
            f"(credit {sc['completion']['credit']:.2f})"
        )
        if replayed.stored_score is None:
            echo("the record stores no score to compare with")
        else:
            echo(
                "re-scored identically"
                if replayed.identical
                else "the re-score DIFFERS from the stored score"
            )
    sys.exit(0 if replayed.identical or replayed.stored_score is None else 1)


def attrs_dict(event: Any) -> dict[str, Any]:
    from lablang.sim.records import event_json

    return event_json(event)


@click.command("branch")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1))
@click.option("--at", "at_step", required=True, help="Checkpoint before this step.")
@click.option(
    "--intervention",
    "kind",
    default=None,
    type=click.Choice(["decision", "target_pose", "execution"]),
    help="What the supported branch replaces (or give --vary).",
)
@click.option(
    "--vary",
    default=None,
    metavar="OBJECT=TARGET",
    help="Vary the evidence instead: at the checkpoint OBJECT is found resting at TARGET "
    "(a surface such as `scale`, or a slot such as `rack.slot[3]`), a tube with another "
    "label (`tube_A.label=B`) or a scale reading off its load (`scale=+5.0 g`); both "
    "continuations run to the end.",
)
@click.option(
    "--step", "step", default=None, help="The step intervened on (default: the --at step)."
)
@click.option("--call", "call", default=0, show_default=True, type=click.IntRange(0, 1000))
@click.option(
    "--argument",
    "argument",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100),
    help="The call's positional argument a decision or target pose replaces.",
)
@click.option(
    "--value",
    default=None,
    help="The replacing value of a decision or target pose, e.g. `rack2.slot[4]`.",
)
@click.option(
    "--status",
    default="failed",
    show_default=True,
    type=click.Choice(["succeeded", "failed"]),
    help="What a replaced execution reports.",
)
@click.option("--json", "as_json", is_flag=True, help="Print both branches' scores as JSON.")
@TASK_OPTION
@PATH_OPTION
def branch_command(
    file: str,
    seed: int,
    at_step: str,
    kind: str | None,
    vary: str | None,
    step: str | None,
    call: int,
    argument: int,
    value: str | None,
    status: str,
    as_json: bool,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Run a matched continuation: checkpoint before a step, then a base branch and a
    supported branch with one intervention, and print each branch's choice, execution and
    completion.

    With `--vary OBJECT=TARGET` (or `TUBE.label=TEXT`, `SCALE=+5.0 g`) the evidence is
    varied instead (`lablang.sim.evidence`):
    both continuations run every remaining step, and each branch's JSON carries the
    state and the evidence it starts from.

    Exit 0 when both branches ran, 2 when the intervention does not fit the task.

    Example: `lablang branch examples/tasks/move_tube.lab --seed 1 --at move --intervention target_pose --call 1 --argument 1 --value rack2.slot[4]`
    """
    from lablang.diagnostics import Report
    from lablang.sim.branches import run_matched
    from lablang.sim.front import value_expr
    from lablang.sim.interventions import Decision, Execution, Intervention, TargetPose

    task = _load(file, roots, task_name)
    names = [s.name for s in task.steps]
    step = step or at_step
    for name in (at_step, step):
        if name not in names:
            echo(
                f"error: task `{task.name}` has no step `{name}` (steps: {', '.join(names)})",
                err=True,
            )
            sys.exit(2)
    if names.index(step) < names.index(at_step):
        echo(
            f"error: step `{step}` runs before the checkpoint at `{at_step}`, so the "
            "supported branch would never reach it",
            err=True,
        )
        sys.exit(2)
    if (kind is None) == (vary is None):
        click.echo("error: give one of --intervention and --vary", err=True)
        sys.exit(2)
    if vary is not None:
        _branch_varied(file, task, seed, at_step, vary, as_json, roots)
        return
    assert kind is not None
    program = task.steps[names.index(step)].program
    if call >= len(program):
        echo(f"error: step `{step}` has {len(program)} calls (0 to {len(program) - 1})", err=True)
        sys.exit(2)
    intervention: Intervention
    if kind == "execution":
        if value is not None:
            echo("error: an execution intervention takes --status, not --value", err=True)
            sys.exit(2)
        intervention = Execution(step, call, status)
    else:
        if value is None:
            echo(f"error: a {kind} intervention needs --value", err=True)
            sys.exit(2)
        if argument >= len(program[call].args):
            echo(
                f"error: `{program[call].func}` in step `{step}` has "
                f"{len(program[call].args)} positional arguments",
                err=True,
            )
            sys.exit(2)
        report = Report()
        expr = value_expr(value, task.scene, report)
        if expr is None:
            echo_diagnostics(report.sorted())
            sys.exit(2)
        cls = Decision if kind == "decision" else TargetPose
        intervention = cls(step, call, argument, expr)
    try:
        matched = run_matched(task, seed, at_step, intervention)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(file, error)
    summary = matched.report(_judge(task, roots))  # against the contract the task follows
    if as_json:
        click.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    echo(f"task {task.name}, seed {seed}, checkpoint before `{at_step}`")
    echo(f"intervention: {summary['intervention']}")
    echo(f"{'branch':10} {'choice':16} {'execution':16} completion")
    for branch in ("base", "supported"):
        score = summary[branch]
        choice, execution = score["choice"], score["execution"]
        echo(f"{branch:10} {_measures(score)}")
        if choice["incorrect"]:
            echo(f"{'':11}incorrect: {', '.join(choice['incorrect'])}")
        if execution["unexecuted"]:
            echo(f"{'':11}unexecuted: {', '.join(execution['unexecuted'])}")
        if choice["reached"] < choice["opportunities"]:
            missed = choice["opportunities"] - choice["reached"]
            echo(f"{'':11}no choice made at {missed} of the opportunities")
    echo(f"changed: {', '.join(summary['changed']) or 'nothing'}")


def _measures(score: dict[str, Any]) -> str:
    """A branch's row: `2/2 correct      2/2 executed     clean, credit 1.00`."""
    choice, execution, completion = score["choice"], score["execution"], score["completion"]
    chosen = f"{choice['correct']}/{choice['opportunities']} correct"
    executed = f"{execution['executed']}/{execution['opportunities']} executed"
    return f"{chosen:16} {executed:16} {completion['status']}, credit {completion['credit']:.2f}"


def _branch_varied(
    file: str,
    task: Any,
    seed: int,
    at_step: str,
    vary: str,
    as_json: bool,
    roots: tuple[str, ...],
) -> None:
    """`lablang branch --vary OBJECT=TARGET`: the base and the evidence-varied
    continuations, each run to the end."""
    from lablang.sim.evidence import evidence_text, parse_variation, run_varied

    try:
        varied = run_varied(task, seed, at_step, parse_variation(vary))
    except ValueError as error:
        echo(f"error: --vary: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(file, error)
    summary = varied.report(_judge(task, roots))
    if as_json:
        echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    echo(f"task {task.name}, seed {seed}, checkpoint before `{at_step}`")
    echo(summary["vary"])
    echo(f"{'branch':10} {'starts':22} {'choice':16} {'execution':16} completion")
    for branch in ("base", "varied"):
        score = summary[branch]
        shown = evidence_text(score["start"]["evidence"])
        echo(f"{branch:10} {shown or '-':22} {_measures(score)}")
        for c in score["choice"]["frozen"]:
            operation = c["contract_operation"] or c["operation"]
            echo(
                f"{'':11}{c['attempt']}: {operation} {'correct' if c['correct'] else 'incorrect'}"
                f"; legal: {', '.join(c['legal']) or '(none)'}"
            )
    echo(f"changed: {', '.join(summary['changed']) or 'nothing'}")
