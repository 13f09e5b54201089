"""From `contract` declarations (AST) to contract models, with E06xx diagnostics.

What the contract vocabulary means (docs/contracts.md has the full story):

* types: `bool`, `int[lo..hi]` or `lo..hi`, `slot` (= `0..N-1` when the contract has a
  parameter `N`), `one_of(a, b)` (named members), `one_of(1, 2, 5)` (a finite set of
  integers), `set(T)` (a subset of a finite type), `T?` (a value or `none`);
* a field `name: <type>` declares a type alias, any other field `name: <expr>` a named
  derived expression (`balanced: a != none and b == (a + N/2) % N`);
* `var x: T { init: e  visible: e }`, `evidence e: T { authorized: e }`, `outcome o: T`;
* `op name(p: T) requires e effect x = e { x = e; confirm e }`; `wait flag` is the
  operation `wait_flag` (requires `not flag`, sets it);
* `goal e`, `invariant e`, `terminal e`, `pair name { x = v } vs { x = w } at op`.
"""

from __future__ import annotations

from typing import Any

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.contract import Compiler
from lablang.contracts.compiler.types import MAX_GROUND_OPS as MAX_GROUND_OPS
from lablang.contracts.compiler.types import MAX_INT_DOMAIN as MAX_INT_DOMAIN
from lablang.contracts.compiler.types import MAX_PARAM, did_you_mean
from lablang.contracts.compiler.types import MAX_SET_ELEMENTS as MAX_SET_ELEMENTS
from lablang.diagnostics import Report
from lablang.source import Source


def compile_contracts(
    module: ast.Module, source: Source, report: Report, params: dict[str, int] | None = None
) -> list[m.Contract]:
    """Every `contract` declaration of a module that compiles without errors."""
    result = []
    for decl in module.decls:
        if decl.kind == "contract":
            contract = compile_contract(decl, source, report, params)
            if contract is not None:
                result.append(contract)
    return result


def compile_contract(
    decl: ast.Decl, source: Source, report: Report, params: dict[str, int] | None = None
) -> m.Contract | None:
    """One contract declaration as a model, or None after reporting why not.

    `params` overrides the declared parameter values (`centrifuge(N: 8)` with `{"N": 16}`).
    """
    before = len(report.errors)
    overrides = params or {}
    declared = [p.name for p in decl.params or ()]
    unknown = sorted(set(overrides) - set(declared))
    for name in unknown:
        report.add(
            "E0610",
            f"contract `{decl.name}` has no parameter `{name}`",
            source,
            decl.name_span,
            label="--param " + name + " given for this contract",
            help=(
                f"its parameters are {', '.join(f'`{n}`' for n in declared)}"
                if declared
                else "it has no parameters"
            )
            + (f"; did you mean `{_close}`?" if (_close := _closest(name, declared)) else ""),
        )
    if unknown:
        return None
    if overrides:
        trial = Report()
        contract = Compiler(decl, source, trial, overrides).run()
        if trial.has_errors and all(d.code == "E0612" for d in trial.errors):
            report.extend(trial)  # a requirement of the parameters names itself
            return None
        if trial.has_errors and not _errors_with(decl, source, {}):
            # one error naming the range that compiles, instead of the cascade
            for name, value in sorted(overrides.items()):
                lo, hi = _allowed_range(decl, source, overrides, name)
                report.add(
                    "E0611",
                    f"`--param {name}={value}` is out of range for contract `{decl.name}`",
                    source,
                    next(p.span for p in decl.params or () if p.name == name),
                    label=(
                        f"the contract compiles for {name} from {lo} to {hi}"
                        if lo is not None and hi is not None
                        else "no value of it compiles with the other parameters given"
                    ),
                    help=f"choose {name} between {lo} and {hi}" if lo is not None else None,
                )
            return None
        report.extend(trial)
        return contract if len(report.errors) == before else None
    c = Compiler(decl, source, report, overrides)
    contract = c.run()
    return contract if len(report.errors) == before else None


def _errors_with(decl: ast.Decl, source: Source, overrides: dict[str, int]) -> bool:
    trial = Report()
    Compiler(decl, source, trial, overrides).run()
    return trial.has_errors


def _allowed_range(
    decl: ast.Decl, source: Source, overrides: dict[str, int], name: str
) -> tuple[int | None, int | None]:
    """The values of parameter `name` (the others as given) around the declared one for
    which the contract compiles: two binary searches, assuming the valid values form an
    interval that holds the declared value (as domain-size limits do)."""
    declared: dict[str, int] = {}
    Compiler(decl, source, Report(), {}).run_params(declared)
    start = declared.get(name)
    if start is None:
        return None, None

    def fine(v: int) -> bool:
        return not _errors_with(decl, source, {**overrides, name: v})

    if not fine(start):
        return None, None
    bounds = []
    for direction in (-1, 1):
        good, bad = start, start + direction * MAX_PARAM
        if fine(bad):
            bounds.append(bad)
            continue
        while abs(bad - good) > 1:
            mid = (good + bad) // 2
            if fine(mid):
                good = mid
            else:
                bad = mid
        bounds.append(good)
    return bounds[0], bounds[1]


def _closest(name: str, candidates: list[str]) -> str | None:
    hint = did_you_mean(name, candidates)
    return hint.split("`")[1] if hint else None


def check_program(program: Any, report: Report) -> None:
    """The `lablang check` hook: compile every contract of the root module (no solver)."""
    source = program.root.source
    for decl in program.decls("contract"):
        compile_contract(decl, source, report)
