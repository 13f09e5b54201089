"""Protocol modification tasks: the protocols and rubrics backends meet here.

`draft_verified_task(old, new)` drafts the task of a protocol change
(`lablang.protocols.task.draft_task`) and keeps only the machine checks that tell the
two protocols apart: a positive item's check must hold on the modified protocol and fail
on the published one, a penalty's the other way round. Every other drafted check is left
out of the draft with a note, so no drafted check is already met by the published protocol.

`machine_grades(rubric, answers, attempts, report)` grades a rubric's machine-checked
items on answer protocols (`DIR/ID/ATTEMPT.lab`, ID a source protocol for `grade`, a task
for `grade --benchmark`); `grade_benchmark_files` is `grade FILE --benchmark NAME`: the
benchmark read and checked, its judgments and answers graded in one run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lablang.diagnostics import Diagnostic, Report, Severity
from lablang.protocols.model import Protocol

if TYPE_CHECKING:
    from lablang.rubrics.benchmark import BenchmarkGrade
    from lablang.rubrics.grading import Judgment
    from lablang.rubrics.model import Rubric


def draft_verified_task(old: Protocol, new: Protocol) -> str:
    """The drafted task text, every machine check in it verified on both protocols.

    >>> from lablang.protocols.model import Step, Wait
    >>> from lablang.protocols.quantities import Amount
    >>> def rest(t): return Protocol(name="p", steps=(Step(name="rest",
    ...     action=Wait(duration=Amount.parse(t, "min"))),))
    >>> [line.strip() for line in draft_verified_task(rest("5"), rest("10")).splitlines()
    ...  if "check:" in line]
    ['check: answer.step(rest).duration == 10 min', 'check: answer.step(rest).duration == 5 min']
    """
    from lablang.protocols.diff import semantic_diff
    from lablang.protocols.task import candidate_checks, draft_task

    diff = semantic_diff(old, new)
    verdicts = check_verdicts(candidate_checks(diff, old, new), old, new)
    return draft_task(
        diff, old, new, verify=lambda check, penalty: verdicts.get((check, penalty), False)
    )


def check_verdicts(
    checks: list[tuple[str, bool]], old: Protocol, new: Protocol
) -> dict[tuple[str, bool], bool]:
    """For each (check text, is a penalty's): whether it holds on exactly the protocol it
    should, the modified one for an item and the published one for a penalty."""
    from lablang.protocols.model import answer_view
    from lablang.protocols.quantities import Amount
    from lablang.rubrics.evaluate import evaluate_check
    from lablang.rubrics.front import build_rubrics
    from lablang.source import Source
    from lablang.syntax import parse

    if not checks:
        return {}
    # one item per check, so that each is parsed and validated as a rubric check is
    body = "".join(f'  item c{n} "" {{ check: {text} }}\n' for n, (text, _) in enumerate(checks))
    report = Report()
    source = Source("rubric verify {\n" + body + "}\n", "checks.lab")
    rubrics = build_rubrics(parse(source, report), source, report)
    parsed = {item.id: item.check for item in rubrics[0].leaves()} if rubrics else {}
    before, after = answer_view(old), answer_view(new)
    verdicts: dict[tuple[str, bool], bool] = {}
    for n, (text, penalty) in enumerate(checks):
        expr = parsed.get(f"c{n}")
        if expr is None:
            verdicts[(text, penalty)] = False
            continue
        on_old = evaluate_check(expr, before, Amount.parse).passed
        on_new = evaluate_check(expr, after, Amount.parse).passed
        verdicts[(text, penalty)] = (on_old, on_new) == (
            (True, False) if penalty else (False, True)
        )
    return verdicts


def machine_grades(
    rubric: Rubric, answers: Path, attempts: Iterable[tuple[str, str]], report: Report
) -> dict[tuple[str, str, str], Judgment]:
    """Grade every machine-checked item of `rubric` on `answers/ID/ATTEMPT.lab` for each
    (ID, attempt): 2 when its check holds, 0 otherwise (a missing or unreadable answer, or
    a check that cannot be evaluated, is 0 with warning `W0820`). Problems inside an answer
    are the answerer's, not the grader's: they are reported as warnings."""
    from lablang.protocols.model import answer_view
    from lablang.protocols.quantities import Amount
    from lablang.rubrics.evaluate import evaluate_check
    from lablang.rubrics.grading import Judgment

    checked = [item for item in rubric.leaves() if item.check is not None]
    grades: dict[tuple[str, str, str], Judgment] = {}
    if not checked:
        return grades
    root = answers.resolve()
    for protocol, attempt in sorted(set(attempts)):
        where = f"protocol `{protocol}` attempt `{attempt}`"
        path = (answers / protocol / f"{attempt}.lab").resolve()
        view = None
        reason = ""
        if not path.is_relative_to(root):
            reason = f"answer path for protocol `{protocol}` leaves {answers}"
        elif not path.is_file():
            reason = f"no answer file {answers / protocol / (attempt + '.lab')}"
        else:
            loaded = _answer_protocol(path, report)
            if loaded is None:
                reason = f"`{path}` could not be read as a protocol (see its diagnostics)"
            else:
                view = answer_view(loaded)
        for item in checked:
            assert item.check is not None  # `checked` holds machine-checked items only
            if view is None:
                score, explanation = 0, f"could not evaluate: {reason}"
                report.add("W0820", f"check of item `{item.id}` on {where}: {explanation}", None)
            else:
                result = evaluate_check(item.check, view, Amount.parse)
                score, explanation = result.grade, result.explanation
                if result.passed is None:
                    report.add(
                        "W0820", f"check of item `{item.id}` on {where}: {explanation}", None
                    )
            grades[(protocol, attempt, item.id)] = Judgment(
                protocol=protocol, attempt=attempt, item=item.id, score=score,
                explanation=explanation,
            )  # fmt: skip
    return grades


def _answer_protocol(path: Path, report: Report) -> Protocol | None:
    """The first protocol of an answer file, its errors reported as warnings."""
    from lablang.driver import check_source, read_source
    from lablang.protocols.front import check_program

    sub = Report()
    source = read_source(path, sub)
    found: tuple[Protocol, ...] = ()
    if source is not None:
        result = check_source(source, [path.parent], report=sub, backends=False)
        if not sub.has_errors and result.program is not None:
            # a protocol with errors of its own (a ledger gone negative) is still graded
            found = check_program(result.program, sub)
            if not found:
                sub.add("E0806", f"`{path}` has no `protocol` declaration", source,
                        label="no protocol", help="write `protocol NAME { step ... }`")  # fmt: skip
    for d in sub:
        report.diagnostics.append(d if d.severity is not Severity.ERROR else _as_warning(d))
    return found[0] if found else None


def _as_warning(diagnostic: Diagnostic) -> Diagnostic:
    from attrs import evolve

    return evolve(diagnostic, severity=Severity.WARNING)


def grade_benchmark_files(
    path: Path,
    name: str,
    judgments: Path,
    report: Report,
    *,
    answers: Path | None = None,
    roots: Sequence[Path] = (),
    seed: int = 0,
    resamples: int = 10_000,
    executor: Any = None,
) -> BenchmarkGrade | None:
    """Grade the benchmark `name` of the file `path` from a judgments file (each line naming
    its task) and, with `answers`, each task's machine-checked items from
    `answers/TASK/ATTEMPT.lab`; None when it cannot be graded (the reasons in `report`)."""
    from lablang.driver import check_file, read_source
    from lablang.rubrics.benchmark import collect_benchmark_grades, grade_benchmark
    from lablang.rubrics.benchmark_front import build_benchmarks
    from lablang.rubrics.grading import read_judgments

    checked = check_file(path, roots=roots)
    report.diagnostics.extend(checked.report.diagnostics)
    found = []
    if checked.program is not None:
        found = [b for b in build_benchmarks(checked.program, Report()) if b.name == name]
    if not found:
        report.add("E0850", f"{path} declares no benchmark `{name}`", None)
    source = read_source(judgments, report)
    if not found or source is None or report.has_errors:
        return None
    tasks = found[0].tasks
    rejected: dict[tuple[str, str, str], int] = {}
    lines = read_judgments(source, report, rejected)
    machine: dict[tuple[str, str, str], Judgment] = {}
    if answers is not None:
        for task in tasks:
            attempts = {(j.protocol, j.attempt) for j in lines if j.protocol == task.id}
            machine.update(machine_grades(task.rubric, answers, attempts, report))
    grades = collect_benchmark_grades(tasks, lines, source, report, rejected, machine=machine)
    if not grades or report.has_errors:
        return None
    checked_items: dict[str, set[str]] = {}
    for task_id, _, item in machine:
        checked_items.setdefault(task_id, set()).add(item)
    return grade_benchmark(
        tasks,
        grades,
        seed=seed,
        resamples=resamples,
        executor=executor,
        machine_checked={t: sorted(items) for t, items in checked_items.items()},
    )
