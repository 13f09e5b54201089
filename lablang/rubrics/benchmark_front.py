"""Build `benchmark` declarations: a benchmark's tasks, each with its rubric, the source
protocol it modifies and its domain.

    benchmark mods "Protocol modifications" {
      domains: [dna, rna]
      item spri_window { rubric: spri_task  published: spri  domain: dna }
      item rna_dnase { rubric: dnase_task  published: rna_column  domain: rna }
    }

A task's rubric is a `rubric` of the same module or one imported as the language's other
imports are (`use tasks.{spri_task}`, or `use tasks` and `rubric: tasks.spri_task`), read
only inside the module roots; its `published` id is the source protocol the bootstrap
resamples (and that judgments of the task are grouped by); its domain is one of
`domains`. `E0850` reports a task whose rubric, published protocol or domain is missing or
unknown (an imported name that is not a rubric), or a task id given twice; a module that
cannot be imported is the resolver's error.
"""

from __future__ import annotations

from attrs import frozen

from lablang import ast
from lablang.diagnostics import Report
from lablang.resolve import ModuleInfo, Program
from lablang.rubrics.benchmark import BenchmarkTask
from lablang.rubrics.front import build_rubric
from lablang.rubrics.model import Rubric
from lablang.source import NO_SPAN, Source, Span

TASK_FIELDS = ("rubric", "published", "domain")


@frozen(kw_only=True)
class Benchmark:
    name: str
    tasks: tuple[BenchmarkTask, ...]
    domains: tuple[str, ...]
    title: str | None = None
    span: Span = NO_SPAN


def check_program(program: Program, report: Report) -> tuple[Benchmark, ...]:
    """Build and check every benchmark of the program's root module (the driver's hook)."""
    return build_benchmarks(program, report)


def build_benchmarks(program: Program, report: Report) -> tuple[Benchmark, ...]:
    """Every `benchmark` of the root module, its rubrics found among the module's own
    declarations and its imports."""
    info = program.root
    decls = [d for d in info.module.decls if d.kind == "benchmark"]
    if not decls:
        return ()
    rubrics = _Rubrics(info, report)
    return tuple(_benchmark(d, rubrics, info.source, report) for d in decls)


class _Rubrics:
    """The rubrics a module can name, each built once from the module that declares it.
    An imported rubric's own problems (E0821-E0824, located in its module) are reported
    here, since only the root module's rubrics are checked by the rubric backend."""

    def __init__(self, info: ModuleInfo, report: Report) -> None:
        self.info = info
        self.report = report
        self.built: dict[int, Rubric] = {}

    def find(self, path: tuple[str, ...]) -> Rubric | str | None:
        """The rubric at `path` (`name` or `module.name`), or why there is none (None when
        its import failed: the resolver has reported that)."""
        symbol = self.info.lookup(path)
        if symbol is None and path[0] in self.info.broken:
            return None
        if symbol is None:
            return "which this module neither declares nor imports"
        if symbol.decl.kind != "rubric":
            return f"which is a `{symbol.decl.kind}`, not a `rubric`"
        key = id(symbol.decl)  # `r` and `m.r` may name one rubric: built and reported once
        if key not in self.built:
            imported = symbol.module is not self.info
            report = self.report if imported else Report()
            self.built[key] = build_rubric(symbol.decl, symbol.module.source, report)
        return self.built[key]

    def names(self) -> list[str]:
        return sorted(s.name for s in self.info.visible() if s.decl.kind == "rubric")


def _name(expr: ast.Expr) -> str | None:
    match expr:
        case ast.Name():
            return expr.id
        case ast.String():
            return expr.value
        case ast.Attribute(value=ast.Name(id=module)):
            return f"{module}.{expr.name}"  # a member of a module imported whole
    return None


def _benchmark(decl: ast.Decl, rubrics: _Rubrics, source: Source, report: Report) -> Benchmark:
    def bad(span: Span, message: str, label: str, help: str | None = None) -> None:
        report.add("E0850", message, source, span, label=label, help=help)

    domains: list[str] = []
    entries: list[ast.Entry] = []
    for member in decl.body.members if decl.body else ():
        match member:
            case ast.Field(key="domains"):
                items = member.value.items if isinstance(member.value, ast.ListExpr) else ()
                domains += [n for n in (_name(i) for i in items) if n]
            case ast.Entry(keyword="item"):
                entries.append(member)
            case _:
                span = member.key_span if isinstance(member, ast.Field) else member.span
                bad(span, "not understood in a benchmark", "expected `domains` or `item TASK`")
    tasks: list[BenchmarkTask] = []
    seen: set[str] = set()
    for entry in entries:
        where = entry.name_span or entry.span
        if entry.name is None or entry.name in seen:
            bad(where, f"task `{entry.name}` is declared twice" if entry.name else
                "a task has no id", "task id", "give each task a distinct id")  # fmt: skip
            continue
        seen.add(entry.name)
        values: dict[str, str] = {}
        for member in entry.body.members if entry.body else ():
            if isinstance(member, ast.Field) and member.key in TASK_FIELDS:
                named = _name(member.value)
                if named is not None:
                    values[member.key] = named
                    continue
            span = member.key_span if isinstance(member, ast.Field) else member.span
            bad(span, f"not understood in task `{entry.name}`",
                "expected `rubric: NAME`, `published: ID` or `domain: NAME`")  # fmt: skip
        missing = [f for f in TASK_FIELDS if f not in values]
        if missing:
            bad(where, f"task `{entry.name}` has no " + ", ".join(f"`{m}`" for m in missing),
                "incomplete task", "write `item TASK { rubric: R  published: P  domain: D }`")  # fmt: skip
            continue
        rubric = rubrics.find(tuple(values["rubric"].split(".")))
        if rubric is None:
            continue
        if isinstance(rubric, str):
            known = ", ".join(f"`{n}`" for n in rubrics.names()) or "none"
            bad(where, f"task `{entry.name}` names rubric `{values['rubric']}`, {rubric}",
                "unknown rubric", f"rubrics here: {known}; import one from another module "
                "with `use MODULE.{NAME}`")  # fmt: skip
            continue
        if domains and values["domain"] not in domains:
            bad(where, f"task `{entry.name}` is in domain `{values['domain']}`, not one of "
                "the benchmark's `domains`", "unknown domain",
                "domains: " + ", ".join(f"`{d}`" for d in domains))  # fmt: skip
            continue
        tasks.append(
            BenchmarkTask(
                id=entry.name,
                rubric=rubric,
                source=values["published"],
                domain=values["domain"],
            )
        )
    return Benchmark(
        name=decl.name, title=decl.title, tasks=tuple(tasks), domains=tuple(domains),
        span=decl.span,
    )  # fmt: skip
