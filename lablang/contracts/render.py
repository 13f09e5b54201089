"""Verification results for people (text tables) and for tools (ITF-style JSON).

A counterexample reads top to bottom: the evidence, then one row per step with the
ground operation, the environment outcomes its effect used, and only the variables
that changed; then the violated item with its location in the `.lab` file. Two-trace
results (pairs, non-interference) share their operations, so they are shown as one
table with a column per side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lablang.contracts.model import Contract
from lablang.contracts.results import BOUNDED, HOLDS, PROVED, Result, Trace, exit_status
from lablang.source import Span

_MARK = {HOLDS: "ok  ", PROVED: "ok  ", "violated": "FAIL", "unknown": "??  ", BOUNDED: "open"}


def location(contract: Contract, span: Span | None) -> str:
    if span is None or contract.source is None:
        return contract.name
    line, col = contract.source.position(span.start)
    return f"{contract.source.name}:{line}:{col}"


def render_text(contract: Contract, results: Sequence[Result], depth: int) -> str:
    """The report `lablang verify` prints."""
    lines = [f"contract `{contract.name}` ({location(contract, contract.span)}), depth {depth}"]
    for r in results:
        lines += render_result(contract, r)
    failed = [r for r in results if not r.passed and r.status != BOUNDED]
    open_ = [r for r in results if r.status == BOUNDED]
    passed = len(results) - len(failed) - len(open_)
    lines.append(
        f"{passed} of {len(results)} checks passed"
        + (f"; {len(failed)} failed" if failed else "")
        + (f"; {len(open_)} open (not decided within depth {depth})" if open_ else "")
        + f"; rlimit {sum(r.rlimit for r in results)}"
    )
    return "\n".join(lines) + "\n"


def render_every_value(space: Any, runs: Sequence[Any], depth: int) -> str:
    """The report of `lablang verify --all-params`: one line per claim over every value,
    then, for each value where it does not pass, that value's result with its trace."""
    from lablang.contracts.every_value import claims, summary

    first = runs[0].contract
    lines = [
        f"contract `{first.name}` ({location(first, first.span)}) for every "
        f"{space.described}: {len(runs)} values, depth {depth}"
    ]
    every = [r for run in runs for r in run.results]
    for (check, item), per_value in claims(runs):
        status, words = summary(space, per_value)
        lines.append(f"  {_MARK[status]} {check}: {item}: {words}")
        for run, r in per_value:
            if not r.passed:
                shown = ", ".join(f"{n} = {v}" for n, v in run.params.items())
                lines.append(f"       with {shown}:")
                lines += ["    " + x for x in render_result(run.contract, r)]
    failed = [r for r in every if not r.passed and r.status != BOUNDED]
    open_ = [r for r in every if r.status == BOUNDED]
    lines.append(
        f"{len(every) - len(failed) - len(open_)} of {len(every)} results passed over "
        f"{len(runs)} values"
        + (f"; {len(failed)} failed" if failed else "")
        + (f"; {len(open_)} open" if open_ else "")
        + f"; rlimit {sum(r.rlimit for r in every)}"
    )
    return "\n".join(lines) + "\n"


def render_result(contract: Contract, r: Result) -> list[str]:
    """One result: a status line, and for a violation (or a plan) its location and traces."""
    lines = [f"  {_MARK[r.status]} {r.check}: {r.item}: {r.status}: {r.message}"]
    if r.status in (HOLDS, PROVED) and r.check != "goal":
        return lines + [f"         note: {d}" for d in r.details]
    if r.status not in ("violated", BOUNDED) and r.check != "goal":
        return lines
    lines.append(f"         --> {location(contract, r.span)}")
    if r.check == "goal" and r.traces:
        lines.append("         shortest plan:")
    if len(r.traces) == 1:
        lines += ["         " + x for x in trace_table(r.traces[0], r.loop)]
    elif len(r.traces) == 2:
        lines += ["         " + x for x in pair_table(r.traces[0], r.traces[1])]
    lines += [f"         {d}" for d in r.details]
    return lines


def _show(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _assignments(values: dict[str, object]) -> str:
    return " ".join(f"{k}={_show(v)}" for k, v in values.items())


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(header), "-+-".join("-" * w for w in widths), *(line(r) for r in rows)]


def trace_table(trace: Trace, loop: int | None = None) -> list[str]:
    """One trace: evidence on top, then a row per step with only what changed. A lasso
    (`loop`: the state its last state repeats) is marked where its loop begins."""
    lines = [f"evidence: {_assignments(trace.evidence) or '(none)'}"]
    rows = [["0", "(initial)", "", _assignments(_non_default(trace.initial))]]
    for i, step in enumerate(trace.steps, start=1):
        rows.append([str(i), step.op, _assignments(step.outcomes), _assignments(step.changes)])
    table = _table(["step", "operation", "outcomes", "changes"], rows)
    if loop is not None:
        k = len(trace.steps)
        mark = (
            f"(loop: steps {loop + 1} to {k} repeat forever, back to the state of step {loop})"
            if loop < k
            else "(loop: no operation is legal here, the run stays in this state)"
        )
        table.insert(3 + loop, mark)
    return lines + table


def pair_table(left: Trace, right: Trace) -> list[str]:
    """Two traces with the same operations, side by side."""
    lines = [
        f"left evidence:  {_assignments(left.evidence) or '(none)'}",
        f"right evidence: {_assignments(right.evidence) or '(none)'}",
    ]
    rows = [
        [
            "0",
            "(initial)",
            _assignments(_non_default(left.initial)),
            _assignments(_non_default(right.initial)),
        ]
    ]
    for i, (a, b) in enumerate(zip(left.steps, right.steps, strict=True), start=1):
        rows.append(
            [
                str(i),
                a.op,
                " ".join(x for x in (_assignments(a.outcomes), _assignments(a.changes)) if x),
                " ".join(x for x in (_assignments(b.outcomes), _assignments(b.changes)) if x),
            ]
        )
    return lines + _table(["step", "operation", "left", "right"], rows)


def _non_default(state: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in state.items() if v not in (None, False, [], 0)}


# ------------------------------------------------------------------ JSON
def itf_trace(
    contract: Contract, result: Result, trace: Trace, side: str | None = None
) -> dict[str, Any]:
    """An ITF-style trace (Apalache ADR-015): `#meta`, `vars`, and one object per state."""
    states = []
    for i, state in enumerate(trace.states):
        meta: dict[str, Any] = {"index": i}
        if i:
            step = trace.steps[i - 1]
            meta["action"] = step.op
            if step.outcomes:
                meta["outcomes"] = {k: _itf(v) for k, v in step.outcomes.items()}
        states.append({"#meta": meta, **{k: _itf(v) for k, v in state.items()}})
    meta = {
        "format": "ITF",
        "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
        "source": contract.source.name if contract.source else None,
        "contract": contract.name,
        "check": result.check,
        "item": result.item,
        "status": result.status,
        "location": location(contract, result.span),
    }
    if side:
        meta["side"] = side
    itf: dict[str, Any] = {
        "#meta": meta,
        "params": dict(contract.params),
        "evidence": {k: _itf(v) for k, v in trace.evidence.items()},
        "vars": [v.name for v in contract.variables],
        "states": states,
    }
    if result.loop is not None:
        itf["loop"] = result.loop  # ITF's lasso field: the index the last state loops to
    return itf


def _itf(value: object) -> Any:
    if isinstance(value, list):
        return {"#set": [_itf(v) for v in value]}
    return value


def result_json(contract: Contract, r: Result) -> dict[str, Any]:
    sides = ("left", "right") if len(r.traces) == 2 else (None,)
    return {
        "check": r.check,
        "item": r.item,
        "status": r.status,
        "passed": r.passed,
        "bounded_by": r.bounded_by,
        "message": r.message,
        "location": location(contract, r.span),
        "depth": r.depth,
        "rlimit": r.rlimit,
        "details": list(r.details),
        "loop": r.loop,
        "traces": [
            itf_trace(contract, r, t, side) for t, side in zip(r.traces, sides, strict=False)
        ],
    }


def report_json(contract: Contract, results: Sequence[Result], depth: int) -> dict[str, Any]:
    return {
        "contract": contract.name,
        "source": contract.source.name if contract.source else None,
        "depth": depth,
        "passed": all(r.passed for r in results),
        "exit": exit_status(results),
        "rlimit": sum(r.rlimit for r in results),
        "results": [result_json(contract, r) for r in results],
    }


def itf_files(contract: Contract, results: Sequence[Result]) -> list[tuple[str, dict[str, Any]]]:
    """One ITF trace file per counterexample trace: `CONTRACT.CHECK.N[.side].itf.json`."""
    files = []
    for n, r in enumerate(results, start=1):
        if r.passed or not r.traces:
            continue
        sides: tuple[str | None, ...] = ("left", "right") if len(r.traces) == 2 else (None,)
        for trace, side in zip(r.traces, sides, strict=False):
            suffix = f".{side}" if side else ""
            files.append(
                (
                    f"{contract.name}.{r.check}.{n}{suffix}.itf.json",
                    itf_trace(contract, r, trace, side),
                )
            )
    return files
