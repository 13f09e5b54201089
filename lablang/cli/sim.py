"""The simulation verbs: simulate, certify, evaluate, replay, branch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from lablang.cli.executor import executor_from, executor_options
from lablang.cli.terminal import echo_diagnostics, on_terminal

PATH_OPTION = click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable).",
)
TASK_OPTION = click.option(
    "--task",
    "task_name",
    default=None,
    help="Which task of the file (needed when it declares several).",
)


ROBOT_OPTION = click.option(
    "--robot",
    type=click.Choice(["gantry", "panda"]),
    default=None,
    help="Run on this robot instead of the scene's (`panda` needs the `robot` extra).",
)


def _load(
    file: str, roots: tuple[str, ...], task_name: str | None, robot: str | None = None
) -> Any:
    task = _load_task(file, roots, task_name)
    if robot is None:
        return task
    from lablang.sim.robots import with_robot

    return with_robot(task, robot)


def _on_robot(entries: list[Any], robot: str | None) -> list[Any]:
    """A suite's (task, reference) entries run on `robot` (None: each scene's own)."""
    if robot is None:
        return entries
    from attrs import evolve

    from lablang.sim.robots import with_robot

    return [(with_robot(t, robot), evolve(r, robot=robot)) for t, r in entries]


def _entries(
    files: tuple[str, ...], roots: tuple[str, ...], task_name: str | None, robot: str | None
) -> tuple[bool, list[Any]]:
    """Whether FILES are a suite, and its (task, reference) entries: one file gives its
    one task (or the one `--task` names), checked once; a suite every task found."""
    from lablang.sim.suite import SuiteError, task_ref, task_refs

    if len(files) == 1 and not Path(files[0]).is_dir():
        task = _load(files[0], roots, task_name, robot)
        return False, [(task, task_ref(files[0], roots, task.name, robot))]
    try:
        return True, _on_robot(task_refs(files, roots), robot)
    except SuiteError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1 if "error[" in str(error) else 2)


def _robot_missing(error: Exception) -> None:
    """A robot extra is not installed: said plainly (exit 2), never as an internal error."""
    click.echo(f"error: {error}", err=True)
    sys.exit(2)


def _load_task(file: str, roots: tuple[str, ...], task_name: str | None) -> Any:
    from lablang.sim import load_tasks

    tasks, report = load_tasks(file, roots)
    if report.has_errors:
        echo_diagnostics(report.sorted())
        sys.exit(1)
    if not tasks:
        click.echo(f"error: `{file}` declares no task", err=True)
        sys.exit(2)
    if task_name is None:
        if len(tasks) > 1:
            click.echo(
                f"error: `{file}` declares several tasks ({', '.join(sorted(tasks))}); "
                "choose one with --task",
                err=True,
            )
            sys.exit(2)
        return next(iter(tasks.values()))
    if task_name not in tasks:
        click.echo(f"error: no task `{task_name}` in `{file}`", err=True)
        sys.exit(2)
    return tasks[task_name]


@click.command("simulate")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1))
@click.option(
    "--render",
    "render_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write a 960x720 PNG keyframe per step and trace.json into this directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the episode as JSON.")
@click.option(
    "--record",
    "record",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the episode's event, observation and score records (JSON lines) here.",
)
@click.option(
    "--video",
    "video",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the episode as an MP4 (front camera, 960x720, 25 fps; the `robot` extra).",
)
@ROBOT_OPTION
@TASK_OPTION
@PATH_OPTION
def simulate_command(
    file: str,
    seed: int,
    render_dir: str | None,
    as_json: bool,
    record: str | None,
    video: str | None,
    robot: str | None,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Run a task's expert program in MuJoCo and print each step's result.

    Exit 0 when every step passes, 1 when a step fails, 3 on a simulator fault.

    Example: `lablang simulate examples/tasks/centrifuge_loading.lab --seed 3`
    """
    from lablang.output import write_atomic
    from lablang.sim import simulate_task
    from lablang.sim.episode import episode_json, premature_reason
    from lablang.sim.robots import RobotMissing

    task = _load(file, roots, task_name, robot)
    try:
        if video is not None:
            from lablang.sim.video import record_video

            result = record_video(task, seed, video)
            if render_dir is not None:  # keyframes too: the same run again (deterministic)
                result = simulate_task(task, seed, render_dir)
        else:
            result = simulate_task(task, seed, render_dir)
    except (RobotMissing, RuntimeError) as error:
        _robot_missing(error)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(file, error)
    payload = episode_json(result)
    if record is not None:
        from lablang.sim.records import write_records

        write_records(Path(record), result.record_lines())
    if render_dir is not None:
        write_atomic(Path(render_dir) / "trace.json", json.dumps(payload, indent=2) + "\n")
    if as_json:
        click.echo(json.dumps(payload, indent=2))
    else:
        click.echo(f"task {task.name}, seed {seed}: {len(task.steps)} steps")
        if result.bindings:
            roles = ", ".join(f"`{role}` is `{entity}`" for role, entity in result.bindings)
            click.echo(f"  roles: {roles}")
        for step in result.steps:
            timing = (
                f"{step.start:7.2f} s -> {step.end:7.2f} s sim, {step.wall * 1000:6.0f} ms wall"
            )
            click.echo(f"  {step.status:7} {step.name:16} {timing}")
            for skill in step.skills:
                mark = "ok" if skill.status == "succeeded" else skill.status
                click.echo(
                    f"            {mark:9} {skill.call}"
                    + (f": {skill.reason}" if skill.reason else "")
                )
            if step.status != "passed":
                click.echo(f"            reason: {step.reason}")
                if step.failing:
                    click.echo(f"            false at the deadline: {', '.join(step.failing)}")
            if step.keyframe:
                click.echo(f"            keyframe: {step.keyframe}")
        if result.fault is not None:
            click.echo(
                f"simulator fault (not a task failure): {result.fault.kind}: {result.fault.detail}"
            )
        for effect in result.side_effects:
            click.echo(f"side effect: {effect}")
        if result.limit is not None:
            click.echo(f"stopped by a bound: {result.limit}")
        for touch in result.premature:
            click.echo(premature_reason(result, touch))
        lost = [s.name for s, ok in zip(result.steps, result.persisted, strict=False) if not ok]
        if lost:
            click.echo(f"no longer holding at the end: {', '.join(lost)}")
        click.echo(score_line(result.score()))
        click.echo(
            f"credit {result.credit:.2f}, {result.sim_time:.2f} s simulated in "
            f"{result.wall_time:.2f} s, trace {result.trace_digest[:16]}"
        )
    sys.exit(3 if result.fault is not None else 0 if result.succeeded else 1)


@click.command("certify")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--instances", default=20, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1))
@executor_options
@click.option(
    "--out",
    "out",
    type=click.Path(),
    default=None,
    help="One task: write its certificate JSON here (printed otherwise). A suite (a folder "
    "or several files): the folder for one certificate per task plus suite.json and "
    "suite.html (required).",
)
@click.option(
    "--no-progress", is_flag=True, help="Hide the progress bar (shown only on a terminal)."
)
@click.option(
    "--records",
    "records_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write each instance's event, observation and score records (SEED.jsonl) here.",
)
@ROBOT_OPTION
@TASK_OPTION
@PATH_OPTION
def certify_command(
    files: tuple[str, ...],
    instances: int,
    seed: int,
    jobs: int,
    executor_kind: str,
    address: str | None,
    out: str | None,
    no_progress: bool,
    records_dir: str | None,
    robot: str | None,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Certify a task, or every task of a suite, on randomized instances.

    FILES are `.lab` files or folders (searched recursively). One task gives one
    certificate; a suite gives one certificate per task and a summary. Exit 0 when every
    instance of every task succeeds, 1 otherwise, 2 on a usage error.

    Example: `lablang certify examples/tasks/feedback_weighing.lab --instances 2 --jobs 2 --out cert.json`

    Example: `lablang certify examples/tasks/move_tube.lab examples/tasks/tip_handling.lab --instances 1 --executor ray --jobs 2 --out certs`
    """
    from lablang.executors import ExecutorError
    from lablang.output import write_atomic
    from lablang.sim import certify_task
    from lablang.sim.certify import certificate_json
    from lablang.sim.robots import RobotMissing
    from lablang.sim.suite import SuiteError, certify_suite, write_suite

    executor = executor_from(executor_kind, jobs, address)
    suite, entries = _entries(files, roots, task_name, robot)
    task, ref = entries[0]
    if suite and (out is None or Path(out).is_file()):
        click.echo("error: certifying a suite writes a folder: give it with --out DIR", err=True)
        sys.exit(2)
    try:
        if not suite:
            certificate = certify_task(
                task, instances, seed, jobs, progress=not no_progress and on_terminal(),
                records_dir=Path(records_dir) if records_dir else None,
                executor=executor, origin=ref,
            )  # fmt: skip
        else:
            certificates, summary = certify_suite(
                entries, instances, seed, executor, progress=not no_progress and on_terminal()
            )
    except (ExecutorError, SuiteError, RobotMissing) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(files[0], error)
    if suite:
        assert out is not None
        write_suite(Path(out), certificates, summary)
        for row in summary["tasks"]:
            click.echo(
                f"{row['id']}: {row['success_rate']:.0%} of {instances} instances succeeded"
                + (f", {row['faults']} faulted" if row["faults"] else "")
                + (f", {row['unit_failures']} lost" if row["unit_failures"] else "")
            )
        click.echo(
            f"{summary['certified']} of {summary['total']} tasks certified; "
            f"certificates, suite.json and suite.html in {out}"
        )
        sys.exit(0 if summary["certified"] == summary["total"] else 1)
    text = certificate_json(certificate)
    if out:
        write_atomic(Path(out), text)
        click.echo(f"{certify_summary(task.name, certificate)}; certificate in {out}")
        totals = certificate["labference"]
        click.echo(
            f"choice {totals['correct']}/{totals['choices']} correct, execution "
            f"{totals['executed']}/{totals['obligations']} executed over all instances"
        )
        if certificate.get("limit"):
            click.echo(f"stopped by a bound: {certificate['limit']}")
    else:
        click.echo(text, nl=False)
    sys.exit(0 if certificate["certified"] else 1)


def score_line(sc: dict[str, Any]) -> str:
    """Choice apart from execution (Labference): a right choice badly executed and a wrong
    choice well executed read differently.

    >>> score_line({"choice": {"choices": 2, "correct": 1, "incorrect_attempts": ["b.0"]},
    ...             "execution": {"obligations": 2, "executed": 2, "unexecuted": []},
    ...             "completion": {"status": "incomplete"}})
    'choice 1/2 correct (incorrect: b.0), execution 2/2 executed, completion incomplete'
    """
    choice, execution = sc["choice"], sc["execution"]
    wrong = choice["incorrect_attempts"]
    missed = execution["unexecuted"]
    return (
        f"choice {choice['correct']}/{choice['choices']} correct"
        + (f" (incorrect: {', '.join(wrong)})" if wrong else "")
        + f", execution {execution['executed']}/{execution['obligations']} executed"
        + (f" (not: {', '.join(missed)})" if missed else "")
        + f", completion {sc['completion']['status']}"
    )


def certify_summary(task: str, certificate: dict[str, Any]) -> str:
    """One line: how many instances succeeded, failed and faulted, and the step pass rates.

    >>> certify_summary("t", {"instances": 2, "success_rate": 0.0, "faults": [{}, {}],
    ...                       "failures": [], "step_pass_rates": {"a": 0.0}})
    't: 2 of 2 instances faulted (simulator faults, not task results); a 0%'
    """
    instances = certificate["instances"]
    faulted = len(certificate["faults"])
    succeeded = round(certificate["success_rate"] * instances)
    failed = instances - succeeded - faulted
    rates = ", ".join(f"{k} {v:.0%}" for k, v in certificate["step_pass_rates"].items())
    if faulted == instances:
        return f"{task}: {faulted} of {instances} instances faulted (simulator faults, not task results); {rates}"
    parts = [f"{succeeded} of {instances} instances succeeded"]
    if failed:
        parts.append(f"{failed} failed")
    if faulted:
        parts.append(f"{faulted} faulted")
    return f"{task}: {', '.join(parts)} ({rates})"


def _internal_error(file: str, error: Exception) -> None:
    click.echo(
        f"internal error: {error.__class__.__name__}: {error} (while simulating `{file}`; "
        "this is a bug in lablang, not in your file; please report it with the file)",
        err=True,
    )
    sys.exit(4)


@click.command("evaluate")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--policy",
    "policy_ref",
    required=True,
    help="`module:function` taking (observation, info) and returning an action.",
)
@click.option("--episodes", default=10, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1))
@click.option("--max-seconds", default=120.0, show_default=True, type=click.FloatRange(0.1, 3600))
@executor_options
@click.option(
    "--records",
    "records_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write each episode's event, observation and score records (SEED.jsonl) here "
    "(one folder per task for a suite).",
)
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
@ROBOT_OPTION
@TASK_OPTION
@PATH_OPTION
def evaluate_command(
    files: tuple[str, ...],
    policy_ref: str,
    episodes: int,
    seed: int,
    max_seconds: float,
    jobs: int,
    executor_kind: str,
    address: str | None,
    records_dir: str | None,
    no_progress: bool,
    robot: str | None,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Evaluate a policy on randomized instances of a task, or of every task of a suite.

    Prints the results as JSON (for a suite: one entry per task). The policy is your own
    Python code (it is imported, in every worker too, so only name code you trust).

    Example: `lablang evaluate examples/tasks/move_tube.lab --policy lablang.sim.policies:hold --episodes 1 --max-seconds 1`
    """
    from lablang.executors import ExecutorError, resolve
    from lablang.sim.suite import SuiteError, evaluate_suite

    executor = executor_from(executor_kind, jobs, address)
    suite, entries = _entries(files, roots, task_name, robot)
    try:
        resolve(policy_ref)
    except (ImportError, AttributeError, ValueError) as error:
        click.echo(f"error: cannot load policy `{policy_ref}`: {error}", err=True)
        sys.exit(2)
    try:
        results = evaluate_suite(
            entries, policy_ref, episodes, seed, max_seconds, executor,
            progress=not no_progress,
            records_dir=Path(records_dir) if records_dir is not None else None,
        )  # fmt: skip
    except (ExecutorError, SuiteError) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # in the policy or in lablang
        click.echo(
            f"error: evaluating `{policy_ref}` failed: {error.__class__.__name__}: {error}",
            err=True,
        )
        sys.exit(4)
    click.echo(json.dumps(results if suite else next(iter(results.values())), indent=2))
    lost = [item for result in results.values() for item in result["lost_episodes"]]
    for item in lost:
        click.echo(
            f"error: episode {item['unit']} (seed {item['seed']}) failed: {item['error']}", err=True
        )
    if lost:
        sys.exit(4)


@click.command("replay")
@click.argument("record", type=click.Path(dir_okay=False, exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the reconstruction as JSON.")
def replay_command(record: str, as_json: bool) -> None:
    """Reconstruct a recorded episode's choices and confirmations and re-score them.

    Exit 0 when the re-score equals the score stored in the record, 1 when it differs,
    2 when the record cannot be read.

    Example: `lablang simulate examples/tasks/move_tube.lab --record episode.jsonl && lablang replay episode.jsonl`
    """
    from lablang.sim.records import RecordError, replay

    try:
        replayed = replay(Path(record))
    except (RecordError, OSError, UnicodeDecodeError) as error:
        click.echo(f"error: cannot replay `{record}`: {error}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "episode": replayed.header,
                    "choices": [attrs_dict(e) for e in replayed.events if e.kind == "choice"],
                    "executions": [attrs_dict(e) for e in replayed.events if e.kind == "execution"],
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
        click.echo(f"episode of task {h.get('task')}, seed {h.get('seed')}")
        confirmations = {e.attempt: e for e in replayed.events if e.kind == "execution"}
        for e in replayed.events:
            if e.kind == "choice":
                done = confirmations.get(e.attempt)
                verdict = "correct" if e.target == e.measured else f"wrong (wanted {e.measured})"
                confirmed = (
                    "no execution"
                    if done is None
                    else f"{done.status}, {'confirmed' if done.confirmed else 'NOT confirmed'}"
                    + (f" at {done.target}" if done.target else "")
                )
                click.echo(
                    f"  {e.time:8.2f} s  {e.attempt:12} {e.operation}: {verdict}; {confirmed}"
                )
            elif e.kind in ("completion", "intervention", "fault"):
                what = e.status or e.kind
                click.echo(f"  {e.time:8.2f} s  {e.step:12} {what} {e.detail}".rstrip())
        sc = replayed.score
        click.echo(
            f"choice {sc['choice']['correct']}/{sc['choice']['choices']} correct, "
            f"execution {sc['execution']['executed']}/{sc['execution']['obligations']} "
            f"confirmed, completion {sc['completion']['status']} "
            f"(credit {sc['completion']['credit']:.2f})"
        )
        if replayed.stored_score is None:
            click.echo("the record stores no score to compare with")
        else:
            click.echo(
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
    required=True,
    type=click.Choice(["decision", "target_pose", "execution"]),
    help="What the supported branch replaces.",
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
    kind: str,
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
            click.echo(
                f"error: task `{task.name}` has no step `{name}` (steps: {', '.join(names)})",
                err=True,
            )
            sys.exit(2)
    if names.index(step) < names.index(at_step):
        click.echo(
            f"error: step `{step}` runs before the checkpoint at `{at_step}`, so the "
            "supported branch would never reach it",
            err=True,
        )
        sys.exit(2)
    program = task.steps[names.index(step)].program
    if call >= len(program):
        click.echo(
            f"error: step `{step}` has {len(program)} calls (0 to {len(program) - 1})", err=True
        )
        sys.exit(2)
    intervention: Intervention
    if kind == "execution":
        if value is not None:
            click.echo("error: an execution intervention takes --status, not --value", err=True)
            sys.exit(2)
        intervention = Execution(step, call, status)
    else:
        if value is None:
            click.echo(f"error: a {kind} intervention needs --value", err=True)
            sys.exit(2)
        if argument >= len(program[call].args):
            click.echo(
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
    summary = matched.report()
    if as_json:
        click.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    click.echo(f"task {task.name}, seed {seed}, checkpoint before `{at_step}`")
    click.echo(f"intervention: {summary['intervention']}")
    click.echo(f"{'branch':10} {'choice':16} {'execution':16} completion")
    for branch in ("base", "supported"):
        score = summary[branch]
        choice, execution, completion = score["choice"], score["execution"], score["completion"]
        chosen = f"{choice['correct']}/{choice['choices']} correct"
        executed = f"{execution['executed']}/{execution['obligations']} executed"
        click.echo(
            f"{branch:10} {chosen:16} {executed:16} "
            f"{completion['status']}, credit {completion['credit']:.2f}"
        )
        if choice["incorrect_attempts"]:
            click.echo(f"{'':11}incorrect: {', '.join(choice['incorrect_attempts'])}")
        if execution["unexecuted"]:
            click.echo(f"{'':11}unexecuted: {', '.join(execution['unexecuted'])}")
    click.echo(f"changed: {', '.join(summary['changed']) or 'nothing'}")
