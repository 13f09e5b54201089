"""One place that chains the stages: read -> parse -> resolve -> check -> backend checks.

The CLI, the language server and Python users all call these functions.

>>> result = check_text("oligo TSO { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACATrGrGrG-3' }")
>>> result.ok, [d.code for d in result.report]
(True, [])
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import define, evolve

from lablang.check import check
from lablang.diagnostics import InternalError, Report
from lablang.limits import DEFAULT_LIMITS, Limits, gc_paused, gc_relaxed
from lablang.output import remember_input
from lablang.resolve import Loader, Program, resolve
from lablang.source import Source, Span
from lablang.syntax import parse

__all__ = [
    "BACKEND_CHECKS",
    "CheckResult",
    "check_file",
    "check_source",
    "check_text",
    "lab_files",
    "read_source",
]

# kind -> "module:function" of the backend that checks declarations of that kind.
# Each function is `check(program: Program, report: Report) -> None`; the module is
# imported only when the program declares that kind (so `check` on a file without
# contracts never imports z3). A backend that has not landed is skipped.
BACKEND_CHECKS: dict[str, str] = {
    "segment": "lablang.molecular.front:check_program",
    "oligo": "lablang.molecular.front:check_program",
    "state": "lablang.molecular.front:check_program",
    "transition": "lablang.molecular.front:check_program",
    "workflow": "lablang.molecular.front:check_program",
    "library": "lablang.molecular.front:check_program",
    # the protocols' own check, then their annealing against the primers' Tm (W0408)
    "protocol": "lablang.annealing:check_program",
    "rubric": "lablang.rubrics.front:check_program",
    "benchmark": "lablang.rubrics.benchmark_front:check_program",
    # the simulation's front end, then each task's trace to the protocol it realizes
    "scene": "lablang.trace.check:check_program",
    "task": "lablang.trace.check:check_program",
    "skill": "lablang.trace.check:check_program",
    "contract": "lablang.contracts.front:check_program",
}


@define
class CheckResult:
    source: Source
    program: Program
    report: Report
    roots: tuple[str, ...] = ()  # roots the user named: exporters read data files only there

    @property
    def ok(self) -> bool:
        return not self.report.has_errors


STDIN = "-"  # the path that names standard input, as in ruff, black and git


def lab_files(paths: Sequence[str | Path]) -> list[str]:
    """The files `paths` name: each directory's `.lab` files (recursively, sorted, hidden
    folders and node_modules skipped) in its place, files and `-` (stdin) as given."""
    files: list[str] = []
    for path in map(str, paths):
        if path != STDIN and Path(path).is_dir():
            found = [
                p
                for p in Path(path).rglob("*.lab")
                if p.is_file()
                and not any(
                    part.startswith(".") or part == "node_modules"
                    for part in p.relative_to(path).parts[:-1]
                )
            ]
            files += [str(p) for p in sorted(found)]
        else:
            files.append(path)
    return files


def read_source(
    path: str | Path,
    report: Report,
    limits: Limits = DEFAULT_LIMITS,
    within: Sequence[str | Path] | None = None,
) -> Source | None:
    """Read a file (or standard input for `-`) as UTF-8 text, or report why it cannot be read.

    The file is opened by the guarded opener (`lablang.guarded`): a regular file (a FIFO
    never blocks the open), its size checked before it is read, and inside `within` after
    symlinks are resolved when that is given (`lablang serve`'s `--root` folders)."""
    if str(path) == STDIN and within is None:
        data = sys.stdin.buffer.read(limits.max_file_bytes + 1)
        return _decoded(data, "<stdin>", report, limits)
    from lablang.guarded import Refused, read_guarded

    path = Path(path)
    try:
        data = read_guarded(path, within, max_bytes=limits.max_file_bytes, limit="max_file_bytes")
    except Refused as refused:
        if refused.reason == "too-big":
            report.add(
                "E0001",
                refused.message,
                Source("", str(path)),
                help="split it into modules joined with `use`",
            )
        else:
            fix = "check the path and its permissions"
            if refused.reason == "outside":
                fix = "give a file inside the allowed folders (`--root DIR`)"
            elif refused.reason == "special":
                fix = "give a regular file, or `-` to read standard input"
            report.add("E0006", refused.message, None, help=fix)
        return None
    remember_input(path)
    return _decoded(data, str(path), report, limits)


def _decoded(data: bytes, name: str, report: Report, limits: Limits) -> Source | None:
    if len(data) > limits.max_file_bytes:
        report.add(
            "E0001",
            f"input is more than the {limits.max_file_bytes} bytes allowed",
            Source("", name),
            help="split it into modules joined with `use`",
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        source = Source(data.decode("utf-8", "replace"), name)
        report.add(
            "E0005",
            "file is not valid UTF-8",
            source,
            Span(error.start, error.start + 1),
            label="this byte is not UTF-8",
            help="save the file as UTF-8 text",
        )
        return None
    return Source(text.removeprefix("\ufeff"), name)


def check_source(
    source: Source,
    roots: Sequence[str | Path] = (),
    limits: Limits = DEFAULT_LIMITS,
    report: Report | None = None,
    backends: bool = True,
    parser: Callable[[Source, Report, Limits], Any] = parse,
) -> CheckResult:
    """Parse, resolve and check one source; internal failures become E0000 diagnostics.

    `parser` is `lablang.syntax.parse` or a function that returns what it returns (the
    language server's `lablang.syntax.reuse.ParseCache.parse`)."""
    report = report if report is not None else Report()
    loader = Loader.with_roots(roots, limits)
    file = Path(source.name) if Path(source.name).suffix == ".lab" else None
    try:
        with gc_paused():
            module = parser(source, report, limits)
            program = resolve(module, source, loader, report, file=file)
            check(program, report)
        if backends:
            if report.has_errors:
                _backend_checks_after_errors(program, report)
            else:
                _backend_checks(program, report)
        _drop_follow_ons(report)
    except InternalError as error:
        _internal(report, source, error)
        program = Program(root=_empty_info(source), modules={})
    except (RecursionError, MemoryError) as error:
        report.add(
            "E0002", "input is too deeply nested to check", source, help="flatten the structure"
        )
        program = Program(root=_empty_info(source), modules={})
        del error
    except Exception as error:  # every other failure is a lablang bug, reported as such
        _internal(report, source, error)
        program = Program(root=_empty_info(source), modules={})
    return CheckResult(
        source=source, program=program, report=report, roots=tuple(str(r) for r in roots)
    )


def check_text(text: str, name: str = "<input>", roots: Sequence[str | Path] = ()) -> CheckResult:
    return check_source(Source(text, name), roots)


def check_file(
    path: str | Path,
    roots: Sequence[str | Path] = (),
    limits: Limits = DEFAULT_LIMITS,
    within: Sequence[str | Path] | None = None,
) -> CheckResult:
    """Check one `.lab` file; its own directory is a module root too. With `within`, the
    file must lie inside one of those folders (see `read_source`)."""
    report = Report()
    source = read_source(path, report, limits, within)
    if source is None:
        empty = Source("", str(path))
        return CheckResult(
            source=empty, program=Program(root=_empty_info(empty), modules={}), report=report
        )
    result = check_source(source, [Path(path).parent, *roots], limits, report)
    # the roots the user named (the file's own folder is a module root, not a trusted one)
    return evolve(result, roots=tuple(str(r) for r in roots))


def _backend_checks(program: Program, report: Report) -> None:
    """Each backend that checks a kind the program declares, in turn; the collector runs
    rarely meanwhile (`gc_relaxed`: the tree was built with it paused)."""
    with gc_relaxed():
        _run_backends(program, report)


def _run_backends(program: Program, report: Report) -> None:
    kinds = {decl.kind for decl in program.decls()}
    done: set[str] = set()
    for kind in sorted(kinds):
        target = BACKEND_CHECKS.get(kind)
        if target is None or target in done:
            continue
        done.add(target)
        module_name, function_name = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and module_name.startswith(error.name):
                continue  # this backend has not landed
            raise
        report.working_at = (program.root.source, Span(0, 0))
        getattr(module, function_name)(program, report)


# core errors the backends never see: a spelled-out unit is parsed as its symbol
_READ_AS_REPAIRED = frozenset({"E0104"})
# checks over the whole graph of declared states and transitions (acyclic, dispositions,
# carried products used, finals reachable): a broken state or transition makes them
# follow-ons wherever they are reported
_GRAPH_RULES = frozenset({"E0406", "E0407", "E0408", "E0409"})


def _backend_checks_after_errors(program: Program, report: Report) -> None:
    """Run the backends on a program the core found errors in, keeping only what they
    find in declarations free of core errors (the rest would be follow-on errors); a
    backend that fails on the broken parts is a follow-on too, never an internal error."""
    source = program.root.source
    broken_decls = [
        decl
        for decl in program.root.module.decls
        if any(
            d.source is source
            and d.code not in _READ_AS_REPAIRED
            and decl.span.start <= d.span.start < max(decl.span.end, 1)
            for d in report.errors
        )
    ]
    broken = [decl.span for decl in broken_decls]
    graph_broken = any(decl.kind in ("state", "transition") for decl in broken_decls)
    scratch = Report()
    try:
        _backend_checks(program, scratch)
    except Exception:  # a follow-on of the errors already reported
        return
    finally:
        report.working_at = None
    seen = {(d.code, d.span, d.message) for d in report}
    for diagnostic in scratch:
        if diagnostic.code == "E0000" or (graph_broken and diagnostic.code in _GRAPH_RULES):
            continue
        inside = diagnostic.source is source and any(
            span.start <= diagnostic.span.start < span.end for span in broken
        )
        key = (diagnostic.code, diagnostic.span, diagnostic.message)
        if not inside and key not in seen:
            seen.add(key)
            report.diagnostics.append(diagnostic)


def _drop_follow_ons(report: Report) -> None:
    """Uses of a declaration the parser dropped are not reported as undeclared."""
    if not report.dropped:
        return
    marks = tuple(f"`{name}`" for name in report.dropped)
    report.diagnostics[:] = [
        d
        for d in report.diagnostics
        if not (d.code == "E0203" and any(m in d.message for m in marks))
    ]


def _internal(report: Report, source: Source, error: BaseException) -> None:
    where, span = report.working_at or (source, Span(0, 0))
    report.add(
        "E0000",
        f"internal error: {error.__class__.__name__}: {error}",
        where,
        span,
        label="lablang failed while checking this",
        # an install problem (`TablesUnavailable`) carries its own fix
        help=getattr(error, "help", None)
        or "this is a bug in lablang, not in your file; please report it with the file",
    )


def _empty_info(source: Source) -> Any:
    from lablang import ast
    from lablang.resolve import ModuleInfo

    module = ast.Module(name=None, title=None, uses=(), decls=(), comments=(), span=Span(0, 0))
    return ModuleInfo(path=("__main__",), source=source, module=module)
