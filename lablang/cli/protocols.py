"""`lablang diff`, `lablang grade` and `lablang judge-prompts`: thin front ends.

Each verb loads `.lab` files, calls the library (`lablang.protocols`,
`lablang.rubrics`) and prints. Exit status: 0 clean, 1 errors in the input, 2 usage.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lablang.cli.core import PATH_OPTION
from lablang.cli.executor import executor_from, executor_options
from lablang.cli.terminal import echo, echo_diagnostics
from lablang.diagnostics import Report

if TYPE_CHECKING:
    from lablang.driver import CheckResult
    from lablang.protocols.model import Protocol
    from lablang.rubrics.model import Rubric


# ------------------------------------------------------------ shared plumbing
def load_program(path: Path, report: Report, roots: Sequence[Path] = ()) -> CheckResult | None:
    """Parse, resolve and core-check one file; None if it cannot be read."""
    from lablang.driver import check_source, read_source

    source = read_source(path, report)
    if source is None:
        return None
    return check_source(source, [path.parent, *roots], report=report, backends=False)


def print_report(report: Report) -> None:
    """Diagnostics to stderr, rendered as `lablang check` renders them."""
    echo_diagnostics(report.sorted(), blank_line=True)


def _emit(text: str, output: Path | None) -> None:
    from lablang.output import write_atomic

    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)


def _load_first(
    path: Path,
    report: Report,
    name: str | None,
    roots: Sequence[Path],
    kind: str,
    code: str,
    example: str,
) -> Any:
    """The (first, or named) declaration of `kind` that its backend builds from a file."""
    import importlib

    check_program = importlib.import_module(f"lablang.{kind}s.front").check_program
    result = load_program(path, report, roots)
    if result is None or report.has_errors:
        return None
    found = [d for d in check_program(result.program, report) if name is None or d.name == name]
    if not found:
        what = f"{kind} named `{name}`" if name else f"`{kind}` declaration"
        report.add(
            code,
            f"`{path}` has no {what}",
            result.source,
            label=f"no {kind}",
            help=f"write `{example}`",
        )
        return None
    return found[0]


def load_protocol(
    path: Path, report: Report, name: str | None = None, roots: Sequence[Path] = ()
) -> Protocol | None:
    """The (first, or named) protocol of a file, checked; None if there is none."""
    return _load_first(path, report, name, roots, "protocol", "E0806", "protocol NAME { step ... }")


def load_rubric(
    path: Path, report: Report, name: str | None = None, roots: Sequence[Path] = ()
) -> Rubric | None:
    """The (first, or named) rubric of a file; None if there is none or it has errors."""
    return _load_first(
        path, report, name, roots, "rubric", "E0821", 'rubric NAME { item ID "criterion" weight W }'
    )


def _exit(report: Report) -> None:
    print_report(report)
    if report.has_errors:
        sys.exit(1)


# ------------------------------------------------------------ diff
@click.command("diff")
@click.argument("old", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("new", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON.")
@click.option(
    "--task",
    is_flag=True,
    help="Print a drafted modification task (question + rubric skeleton, .lab).",
)
@click.option(
    "--protocol",
    "names",
    multiple=True,
    help="Protocol name to take from OLD then NEW (default: the first in each).",
)
@click.option(
    "--tasks",
    "task_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Files or folders of tasks that realize the protocol: list the task steps the "
    "diff affects (repeatable).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (atomically) instead of stdout.",
)
def diff_command(
    old: Path,
    new: Path,
    as_json: bool,
    task: bool,
    names: Sequence[str],
    task_paths: Sequence[Path],
    output: Path | None,
) -> None:
    """Semantic diff of two protocols: steps matched by name and content, not by line.

    Exit 0 when the protocols are the same, 1 when they differ (as `diff` and
    `git diff --exit-code` do) or cannot be read; with --task, 0 once the task is drafted.

    Example: lablang diff examples/protocols/pcr_published.lab examples/protocols/pcr_gc_rich.lab
    """
    from lablang.modification import draft_verified_task
    from lablang.protocols.diff import diff_json, render_diff, semantic_diff

    report = Report()
    old_name = names[0] if names else None
    new_name = names[1] if len(names) > 1 else old_name if len(names) == 1 else None
    before = load_protocol(old, report, old_name)
    after = load_protocol(new, report, new_name)
    errors = report.has_errors
    print_report(report)
    if before is None or after is None or errors:
        sys.exit(1)
    result = semantic_diff(before, after)
    if task:
        _emit(draft_verified_task(before, after), output)
        return
    affected = None
    if task_paths:
        from lablang.trace.affected import affected_task_steps, tasks_in

        affected = affected_task_steps(result, tasks_in([old, new, *task_paths]))
    if as_json:
        data = diff_json(result)
        if affected is not None:
            from attr import asdict

            data["affected"] = [asdict(a) for a in affected]
        _emit(json.dumps(data, indent=2) + "\n", output)
    else:
        from lablang.trace.affected import render_affected

        text = render_diff(result, before, after)
        _emit(text + (render_affected(affected) if affected is not None else ""), output)
    sys.exit(1 if result.changes else 0)


# ------------------------------------------------------------ grading
@click.command("grade")
@click.argument("rubric_path", metavar="RUBRIC", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--judgments",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Judgments, one JSON object per line.",
)
@click.option(
    "--answers",
    type=click.Path(path_type=Path, file_okay=False),
    help="Answers as DIR/PROTOCOL/ATTEMPT.lab: machine-checked items are graded from them.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the graded report as JSON.")
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option(
    "--resamples",
    type=click.IntRange(1, 100_000),
    default=10_000,
    show_default=True,
    help="Bootstrap resamples.",
)
@click.option("--rubric", "rubric_name", help="Rubric name (default: the first in the file).")
@click.option(
    "--benchmark",
    "benchmark_name",
    help="Grade the file's `benchmark` of this name: every task with its own rubric, "
    'from judgments that name their "task".',
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (atomically) instead of stdout.",
)
@PATH_OPTION
@executor_options
def grade_command(
    rubric_path: Path,
    judgments: Path,
    answers: Path | None,
    as_json: bool,
    seed: int,
    resamples: int,
    rubric_name: str | None,
    benchmark_name: str | None,
    output: Path | None,
    roots: Sequence[str],
    jobs: int,
    executor_kind: str,
    address: str | None,
) -> None:
    """Grade judgments against a rubric: mean, best-of-k, bootstrap CIs, tags.

    The bootstrap's resamples are drawn in seeded chunks that run on --executor (local
    or ray); the intervals are the same either way.

    Example: lablang grade examples/protocols/gc_rich_rubric.lab
             --judgments examples/protocols/judgments.jsonl --answers examples/protocols/answers
    """
    from lablang.rubrics.grading import (
        collect_grades,
        grade,
        grade_json,
        read_judgments,
        render_grade,
    )

    if benchmark_name is not None:
        _grade_benchmark(
            rubric_path,
            benchmark_name,
            judgments,
            answers,
            as_json,
            seed,
            resamples,
            output,
            [Path(r) for r in roots],
            executor_from(executor_kind, jobs, address),
        )
        return
    report = Report()
    rubric = load_rubric(rubric_path, report, rubric_name, [Path(r) for r in roots])
    if rubric is None or report.has_errors:
        _exit(report)
        sys.exit(1)
    from lablang.driver import read_source

    source = read_source(judgments, report)
    if source is None:
        _exit(report)
        sys.exit(1)
    rejected: dict[tuple[str, str, str], int] = {}
    lines = read_judgments(source, report, rejected)
    machine = {}
    if answers is not None:
        from lablang.modification import machine_grades

        machine = machine_grades(rubric, answers, {(j.protocol, j.attempt) for j in lines}, report)
    grades = collect_grades(rubric, lines, source, report, machine=machine, rejected=rejected)
    _stop_unless_graded(report, bool(grades))
    checked = sorted({item for _, _, item in machine})
    executor = executor_from(executor_kind, jobs, address)
    result = grade(
        rubric, grades, seed=seed, resamples=resamples, machine_checked=checked, executor=executor
    )
    if as_json:
        _emit(json.dumps(grade_json(result), indent=2) + "\n", output)
    else:
        _emit(render_grade(result), output)


def _stop_unless_graded(report: Report, graded: bool) -> None:
    """Exit 1 with the diagnostics when grading cannot go on; else print the warnings."""
    if report.has_errors or not graded:
        if not graded and not report.has_errors:
            echo("error: no judgments to grade", err=True)
        _exit(report)
        sys.exit(1)
    print_report(report)


def _grade_benchmark(
    path: Path,
    name: str,
    judgments: Path,
    answers: Path | None,
    as_json: bool,
    seed: int,
    resamples: int,
    output: Path | None,
    roots: Sequence[Path],
    executor: Any,
) -> None:
    """`grade FILE --benchmark NAME`: every task of the benchmark graded in one run."""
    from lablang.modification import grade_benchmark_files
    from lablang.rubrics.benchmark import benchmark_json, render_benchmark

    report = Report()
    result = grade_benchmark_files(
        path,
        name,
        judgments,
        report,
        answers=answers,
        roots=roots,
        seed=seed,
        resamples=resamples,
        executor=executor,
    )
    _stop_unless_graded(report, result is not None)
    assert result is not None  # `_stop_unless_graded` exits otherwise
    if as_json:
        _emit(json.dumps(benchmark_json(result, name), indent=2) + "\n", output)
    else:
        _emit(render_benchmark(result, name), output)


# ------------------------------------------------------------ judge prompts
@click.command("judge-prompts")
@click.argument("rubric_path", metavar="RUBRIC", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--answer",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="The answer to judge (any text; usually a .lab protocol).",
)
@click.option(
    "--published",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The published protocol the task modifies: each prompt carries it, so that a "
    "free-text answer is judged against it.",
)
@click.option("--protocol", "protocol_id", default="", help="Source protocol id to record.")
@click.option("--attempt", default="", help="Attempt id to record.")
@click.option("--rubric", "rubric_name", help="Rubric name (default: the first in the file).")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (atomically) instead of stdout.",
)
def judge_prompts_command(
    rubric_path: Path,
    answer: Path,
    published: Path | None,
    protocol_id: str,
    attempt: str,
    rubric_name: str | None,
    output: Path | None,
) -> None:
    """One judge prompt per rubric item, as JSON lines (lablang calls no model).

    Example: lablang judge-prompts examples/protocols/gc_rich_rubric.lab
             --answer examples/protocols/answers/lib_pcr/1.lab
    """
    from lablang.rubrics.prompts import judge_prompts

    report = Report()
    rubric = load_rubric(rubric_path, report, rubric_name)
    from lablang.driver import read_source

    answer_source = read_source(answer, report)
    published_source = read_source(published, report) if published is not None else None
    if rubric is None or report.has_errors or answer_source is None:
        _exit(report)
        sys.exit(1)
    print_report(report)
    records = judge_prompts(
        rubric,
        answer_source.text,
        protocol=protocol_id,
        attempt=attempt,
        published=published_source.text if published_source is not None else None,
    )
    _emit("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), output)
