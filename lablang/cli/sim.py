"""The simulation verbs: simulate, certify, evaluate (replay and branch: `lablang.cli.episodes`)."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import click

from lablang.cli.executor import executor_from, executor_options
from lablang.cli.terminal import echo, echo_diagnostics, on_terminal


def _deprecated_path(ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]) -> Any:
    """`--path` still works but says what it is and what replaces it."""
    if value:
        click.echo(
            f"warning: `lablang {ctx.info_name} --path` is deprecated: it adds a directory of "
            "`.lab` modules (for `use`), not a Python path (a policy or other Python code "
            "loads through PYTHONPATH); write `--lab-root DIR`",
            err=True,
        )
    return value


def PATH_OPTION(command: Any) -> Any:
    """`--lab-root DIR` (repeatable): a directory of `.lab` modules for `use`. `--path` is
    its deprecated old name, which read like a Python import path; it still works, with a
    warning, until a later release drops it."""

    @functools.wraps(command)
    def merged(*args: Any, roots: tuple[str, ...] = (), old_roots: tuple[str, ...] = (),
               **kwargs: Any) -> Any:  # fmt: skip
        return command(*args, roots=(*roots, *old_roots), **kwargs)

    merged = click.option(
        "--path",
        "old_roots",
        multiple=True,
        type=click.Path(file_okay=False),
        hidden=True,
        callback=_deprecated_path,
    )(merged)
    return click.option(
        "--lab-root",
        "roots",
        multiple=True,
        type=click.Path(file_okay=False),
        help="A directory of `.lab` modules to import from with `use` (repeatable); not a "
        "Python path: policies load through PYTHONPATH (`--path`: its deprecated old name).",
    )(merged)


TASK_OPTION = click.option(
    "--task",
    "task_name",
    default=None,
    help="Which task of the file (needed when it declares several).",
)


BINDINGS_OPTION = click.option(
    "--bindings",
    type=click.Choice(["all", "training", "heldout"]),
    default="all",
    show_default=True,
    help="Of task families, take the held-out bindings only, the training ones (and the "
    "tasks that are no family), or all.",
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


def _judge(task: Any, roots: tuple[str, ...]) -> Any:
    """The judge of the contract a task follows (None if it follows none); exit 1 when the
    contract does not load."""
    if task.contract is None:
        return None
    from lablang.bound import BindingError, judge_for

    try:
        return judge_for(task, roots)
    except BindingError as error:
        click.echo(f"error: task `{task.name}`: {error}", err=True)
        sys.exit(1)


def _on_robot(entries: list[Any], robot: str | None) -> list[Any]:
    """A suite's (task, reference) entries run on `robot` (None: each scene's own)."""
    if robot is None:
        return entries
    from attrs import evolve

    from lablang.sim.robots import with_robot

    return [(with_robot(t, robot), evolve(r, robot=robot)) for t, r in entries]


def _entries(
    files: tuple[str, ...],
    roots: tuple[str, ...],
    task_name: str | None,
    robot: str | None,
    bindings: str = "all",
) -> tuple[bool, list[Any]]:
    """Whether FILES are a suite, and its (task, reference) entries: one file gives its
    one task (or the one `--task` names), checked once; a suite every task found, as does
    a file that declares one task family (one task per binding). `bindings` keeps the
    held-out bindings, the training ones or all (`lablang.sim.suite.of_bindings`)."""
    from lablang.sim.suite import SuiteError, of_bindings, one_family, task_ref, task_refs

    try:
        single = len(files) == 1 and not Path(files[0]).is_dir()
        if single and (task_name is not None or not one_family(files[0], roots)):
            task = _load(files[0], roots, task_name, robot)
            entries = [(task, task_ref(files[0], roots, task.name, robot))]
            return False, of_bindings(entries, bindings, files)
        entries = _on_robot(task_refs(files, roots), robot)
        return True, of_bindings(entries, bindings, files)
    except SuiteError as error:
        echo(f"error: {error}", err=True)
        sys.exit(1 if "error[" in str(error) else 2)


def _robot_missing(error: Exception) -> None:
    """A robot extra is not installed: said plainly (exit 2), never as an internal error."""
    echo(f"error: {error}", err=True)
    sys.exit(2)


def _load_task(file: str, roots: tuple[str, ...], task_name: str | None) -> Any:
    from lablang.sim import load_tasks

    tasks, report = load_tasks(file, roots)
    if report.has_errors:
        echo_diagnostics(report.sorted())
        sys.exit(1)
    if not tasks:
        echo(f"error: `{file}` declares no task", err=True)
        sys.exit(2)
    if task_name is None:
        if len(tasks) > 1:
            echo(
                f"error: `{file}` declares several tasks ({', '.join(sorted(tasks))}); "
                "choose one with --task",
                err=True,
            )
            sys.exit(2)
        return next(iter(tasks.values()))
    if task_name not in tasks:
        echo(f"error: no task `{task_name}` in `{file}`", err=True)
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
    judge = _judge(task, roots)
    payload = episode_json(result)
    if judge is not None:
        payload["score"] = result.score(judge)  # against the contract the task follows
    if record is not None:
        from lablang.sim.records import write_records

        write_records(Path(record), result.record_lines())
    if render_dir is not None:
        write_atomic(Path(render_dir) / "trace.json", json.dumps(payload, indent=2) + "\n")
    if as_json:
        click.echo(json.dumps(payload, indent=2))
    else:
        echo(f"task {task.name}, seed {seed}: {len(task.steps)} steps")
        if result.bindings:
            roles = ", ".join(f"`{role}` is `{entity}`" for role, entity in result.bindings)
            echo(f"  roles: {roles}")
        for step in result.steps:
            timing = (
                f"{step.start:7.2f} s -> {step.end:7.2f} s sim, {step.wall * 1000:6.0f} ms wall"
            )
            echo(f"  {step.status:7} {step.name:16} {timing}")
            for skill in step.skills:
                mark = "ok" if skill.status == "succeeded" else skill.status
                echo(
                    f"            {mark:9} {skill.call}"
                    + (f": {skill.reason}" if skill.reason else "")
                )
            if step.status != "passed":
                echo(f"            reason: {step.reason}")
                if step.failing:
                    echo(f"            false at the deadline: {', '.join(step.failing)}")
            if step.keyframe:
                echo(f"            keyframe: {step.keyframe}")
        if result.fault is not None:
            echo(
                f"simulator fault (not a task failure): {result.fault.kind}: {result.fault.detail}"
            )
        for effect in result.side_effects:
            echo(f"side effect: {effect}")
        if result.limit is not None:
            echo(f"stopped by a bound: {result.limit}")
        for touch in result.premature:
            echo(premature_reason(result, touch))
        lost = [s.name for s, ok in zip(result.steps, result.persisted, strict=False) if not ok]
        if lost:
            echo(f"no longer holding at the end: {', '.join(lost)}")
        echo(score_line(payload["score"]))
        echo(
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
@click.option(
    "--mutants",
    type=click.Choice(["all", "none"]),
    default="all",
    show_default=True,
    help="Test each step's spec with mutants of the expert program (each run on at most "
    "3 instances); `none` skips that, and the certificate says so.",
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
    mutants: str,
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
        echo("error: certifying a suite writes a folder: give it with --out DIR", err=True)
        sys.exit(2)
    try:
        if not suite:
            certificate = certify_task(
                task, instances, seed, jobs, progress=not no_progress and on_terminal(),
                records_dir=Path(records_dir) if records_dir else None,
                executor=executor, origin=ref, mutants=mutants,
            )  # fmt: skip
        else:
            certificates, summary = certify_suite(
                entries, instances, seed, executor, not no_progress and on_terminal(), mutants
            )
    except (ExecutorError, SuiteError, RobotMissing) as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(files[0], error)
    if suite:
        assert out is not None
        write_suite(Path(out), certificates, summary)
        for row in summary["tasks"]:
            echo(
                f"{row['id']}: {row['success_rate']:.0%} of {instances} instances succeeded"
                + (
                    f", mutants {row['mutants_killed']}/{row['mutants']} killed"
                    if row["mutants"]
                    else ""
                )
                + (f", {row['already_held']} step(s) held at start" if row["already_held"] else "")
                + (f", {row['faults']} faulted" if row["faults"] else "")
                + (f", {row['unit_failures']} lost" if row["unit_failures"] else "")
            )
        echo(
            f"{summary['certified']} of {summary['total']} tasks certified; "
            f"certificates, suite.json and suite.html in {out}"
        )
        sys.exit(0 if summary["certified"] == summary["total"] else 1)
    text = certificate_json(certificate)
    if out:
        write_atomic(Path(out), text)
        echo(f"{certify_summary(task.name, certificate)}; certificate in {out}")
        totals = certificate["labference"]
        echo(
            f"choice {totals['correct']}/{totals['opportunities']} correct, execution "
            f"{totals['executed']}/{totals['opportunities']} executed over all instances"
        )
        if certificate.get("limit"):
            echo(f"stopped by a bound: {certificate['limit']}")
        for line in verdict_lines(certificate):
            echo(line)
    else:
        click.echo(text, nl=False)
    sys.exit(0 if certificate["certified"] else 1)


def verdict_lines(certificate: dict[str, Any]) -> list[str]:
    """What a certificate says of its specs: mutants killed, survivors, luck, unchecked steps.

    >>> verdict_lines({"sensitivity": {"mutants": "all", "run": 2, "killed": 1,
    ...     "messages": ["removing the calls of `a` still meets every spec"], "limit": None},
    ...     "already_held": [], "unchecked": {"b": "a wait"}})
    ['mutants: 1 of 2 killed', 'surviving mutant: removing the calls of `a` still meets every spec', 'unchecked: `b`: a wait']
    """
    section = certificate["sensitivity"]
    lines = []
    if section["mutants"] == "none":
        lines.append("mutants: not run (--mutants none): the specs' sensitivity is not tested")
    else:
        lines.append(f"mutants: {section['killed']} of {section['run']} killed")
    lines += [f"surviving mutant: {m}" for m in section["messages"]]
    if section["limit"]:
        lines.append(f"mutants stopped by a bound: {section['limit']}")
    lines += [f"success by luck: {a['reason']}" for a in certificate["already_held"]]
    lines += [f"unchecked: `{k}`: {v}" for k, v in certificate["unchecked"].items()]
    for step, alternatives in certificate.get("alternatives", {}).items():
        lines.append(
            f"alternatives of `{step}`: taken " + " / ".join(map(str, alternatives["taken"]))
        )
        lines += [f"uncovered: {m}" for m in alternatives["messages"]]
    return lines


def score_line(sc: dict[str, Any]) -> str:
    """Choice apart from execution (Labference): a right choice badly executed and a wrong
    choice well executed read differently.

    >>> score_line({"choice": {"opportunities": 2, "correct": 1, "incorrect": ["t1"]},
    ...             "execution": {"opportunities": 2, "executed": 2, "unexecuted": []},
    ...             "completion": {"status": "incomplete"}})
    'choice 1/2 correct (incorrect: t1), execution 2/2 executed, completion incomplete'
    """
    choice, execution = sc["choice"], sc["execution"]
    wrong = choice["incorrect"]
    missed = execution["unexecuted"]
    return (
        f"choice {choice['correct']}/{choice['opportunities']} correct"
        + (f" (incorrect: {', '.join(wrong)})" if wrong else "")
        + f", execution {execution['executed']}/{execution['opportunities']} executed"
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
    echo(
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
@BINDINGS_OPTION
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
    bindings: str,
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
    suite, entries = _entries(files, roots, task_name, robot, bindings)
    try:
        resolve(policy_ref)
    except (ImportError, AttributeError, ValueError) as error:
        echo(f"error: cannot load policy `{policy_ref}`: {error}", err=True)
        sys.exit(2)
    judges = {task.name: _judge(task, roots) for task, _ref in entries if task.contract}
    try:
        results = evaluate_suite(
            entries, policy_ref, episodes, seed, max_seconds, executor,
            progress=not no_progress,
            records_dir=Path(records_dir) if records_dir is not None else None,
            judges=judges,
        )  # fmt: skip
    except (ExecutorError, SuiteError) as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # in the policy or in lablang
        echo(
            f"error: evaluating `{policy_ref}` failed: {error.__class__.__name__}: {error}",
            err=True,
        )
        sys.exit(4)
    if suite:
        from lablang.sim.stepwise import suite_metrics

        # per operation family and evaluation protocol, over source scenarios (task ids
        # hold a `.`, so `metrics` is never one)
        shown: dict[str, Any] = {**results, "metrics": suite_metrics(results, seed)}
        click.echo(json.dumps(shown, indent=2))
    else:
        click.echo(json.dumps(next(iter(results.values())), indent=2))
    lost = [item for result in results.values() for item in result["lost_episodes"]]
    for item in lost:
        echo(
            f"error: episode {item['unit']} (seed {item['seed']}) failed: {item['error']}", err=True
        )
    if lost:
        sys.exit(4)
