"""`verify --all-params`: every claim of a contract for every value of its parameters in
their declared ranges (`contract ring(N: 2..16 = 8)`) that meets the contract's
requirements (`requires N % 2 == 0`), one full verification per value.

The values are enumerated, not reasoned about symbolically: each value is a contract of
its own (its types, ground operations and unrolling depend on it), so a value that fails
gets its own trace. At most `MAX_PARAM_VALUES` values are checked.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from attrs import frozen

from lablang import ast
from lablang.contracts import model as m
from lablang.contracts.compiler.contract import Compiler
from lablang.contracts.results import BOUNDED, PROVED, UNKNOWN, VIOLATED, Result
from lablang.diagnostics import Report
from lablang.source import Source

MAX_PARAM_VALUES = 64
"""Parameter values `--all-params` verifies at most (each is a full `verify`)."""


@frozen(kw_only=True)
class ParamSpace:
    """The parameter values `--all-params` checks, and how to say which they are."""

    values: tuple[dict[str, int], ...]
    described: str  # "N in 2..16 with `N % 2 == 0`"


@frozen(kw_only=True)
class ValueResults:
    params: dict[str, int]
    contract: m.Contract
    results: tuple[Result, ...]


def parameter_space(decl: ast.Decl, source: Source, report: Report) -> ParamSpace | None:
    """Every combination of the declared ranges that meets the requirements; None after
    an error (no range declared, or more than `MAX_PARAM_VALUES` combinations)."""
    c = Compiler(decl, source, Report(), {})
    c.params_and_requirements()
    ranges = c.param_ranges
    if not ranges:
        report.add(
            "E0607",
            f"`--all-params`: no parameter of contract `{decl.name}` declares a range",
            source,
            decl.name_span,
            help="declare one: `contract name(N: 2..16 = 8)`",
        )
        return None
    names = sorted(ranges)
    fixed = {n: v for n, v in c.params.items() if n not in ranges}
    count = 1
    for lo, hi in ranges.values():
        count *= hi - lo + 1
    if count > 16 * MAX_PARAM_VALUES:
        count = 16 * MAX_PARAM_VALUES + 1  # do not enumerate what cannot be checked
    values = []
    if count <= 16 * MAX_PARAM_VALUES:
        for combo in itertools.product(*(range(ranges[n][0], ranges[n][1] + 1) for n in names)):
            params = {**fixed, **dict(zip(names, combo, strict=True))}
            if _meets(decl, source, params):
                values.append(params)
    if count > 16 * MAX_PARAM_VALUES or len(values) > MAX_PARAM_VALUES:
        report.add(
            "E0603",
            f"`--all-params` would verify more than {MAX_PARAM_VALUES} parameter values of "
            f"contract `{decl.name}`",
            source,
            decl.name_span,
            help="narrow the declared ranges, or add a requirement",
        )
        return None
    described = ", ".join(f"{n} in {ranges[n][0]}..{ranges[n][1]}" for n in names)
    if c.param_requires:
        described += " with " + " and ".join(f"`{t}`" for t in c.param_requires)
    return ParamSpace(values=tuple(values), described=described)


def _meets(decl: ast.Decl, source: Source, params: dict[str, int]) -> bool:
    """Do these values meet the contract's requirements? (They are compiled with the
    values substituted, as for `--param`.)"""
    trial = Report()
    Compiler(decl, source, trial, params).params_and_requirements()
    return not any(d.code == "E0612" for d in trial.errors)


def verify_every_value(
    decl: ast.Decl,
    source: Source,
    report: Report,
    depth: int,
    budget: int | None = None,
    chc: bool = False,
    total: int | None = None,
) -> tuple[ParamSpace, list[ValueResults]] | None:
    """`verify` for each parameter value of `parameter_space`; None after an error (a value
    that does not compile is reported with its diagnostics)."""
    from lablang.contracts.checks import verify
    from lablang.contracts.front import compile_contract
    from lablang.contracts.session import DEFAULT_RLIMIT, DEFAULT_TOTAL_RLIMIT

    space = parameter_space(decl, source, report)
    if space is None:
        return None
    runs = []
    for params in space.values:
        contract = compile_contract(decl, source, report, params)
        if contract is None:
            return None
        results = verify(
            contract, depth, budget or DEFAULT_RLIMIT, chc, total or DEFAULT_TOTAL_RLIMIT
        )
        runs.append(ValueResults(params=params, contract=contract, results=tuple(results)))
    return space, runs


def claims(
    runs: Sequence[ValueResults],
) -> list[tuple[tuple[str, str], list[tuple[ValueResults, Result]]]]:
    """Each claim (check and item), in the order of the first value, with its result per value."""
    table: dict[tuple[str, str], list[tuple[ValueResults, Result]]] = {}
    for run in runs:
        for r in run.results:
            table.setdefault((r.check, r.item), []).append((run, r))
    return list(table.items())


def summary(space: ParamSpace, per_value: Sequence[tuple[ValueResults, Result]]) -> tuple[str, str]:
    """A claim's status over every value and its words: "proved for every N in 2..16 ..."
    or the values where it is violated, open or unknown."""

    def names(status: str) -> str:
        return "; ".join(_show(run.params) for run, r in per_value if r.status == status)

    bad = {r.status for _, r in per_value if not r.passed}
    if not bad:
        if all(r.status == PROVED for _, r in per_value):
            return PROVED, f"proved for every {space.described} ({len(per_value)} values)"
        bounds = [r.bounded_by for _, r in per_value if r.bounded_by is not None]
        to = f" to depth {max(bounds)}" if bounds else ""
        return "holds", f"holds{to} for every {space.described} ({len(per_value)} values)"
    order = [s for s in (VIOLATED, UNKNOWN, BOUNDED) if s in bad]
    words = "; ".join(f"{s} for {names(s)}" for s in order)
    return order[0], f"{words} (of {len(per_value)} values)"


def _show(params: dict[str, int]) -> str:
    return ", ".join(f"{n} = {v}" for n, v in params.items())
