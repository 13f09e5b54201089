"""Why a check failed, in the words of the contract: the requirement each operation
fails in a stuck state, the derived values a violated condition reads, source snippets."""

from __future__ import annotations

from typing import Any

from attrs import fields, has

from lablang.contracts.model import Contract, Item, Span
from lablang.contracts.results import Trace, plain
from lablang.contracts.semantics import Evaluator, first_failing


def why_stuck(contract: Contract, trace: Trace) -> list[str]:
    """For each operation, the first requirement that fails in the stuck state, grouping
    the ground instances that fail on the same requirement."""
    from lablang.contracts.model import ground

    state, evidence = trace.raw_states[-1], trace.raw_evidence
    lines = []
    for op in contract.operations:
        groups: dict[tuple[int, int], tuple[Item, list[str]]] = {}
        for g in ground(contract):
            if g.op is not op:
                continue
            item = first_failing(contract, state, evidence, g)
            if item is None:
                continue
            key = (item.span.start, item.span.end) if item.span else (id(item), 0)
            groups.setdefault(key, (item, []))[1].append(g.name)
        total = sum(len(names) for _, names in groups.values())
        for item, names in groups.values():
            if not op.params:
                who = op.name
            elif len(names) == total:
                who = f"{op.name}(" + ", ".join("*" for _ in op.params) + ")"
            else:
                who = ", ".join(names)
            text = item.text or snippet(contract, item.span)
            lines.append(f"{who}: `{text}` is false{location(contract, item.span)}")
    return lines


def snippet(contract: Contract, span: Span | None) -> str:
    if span is None or contract.source is None:
        return "a requirement"
    text = contract.source.text[span.start : span.end]
    # a parenthesised operand's span can stop before its `)`: keep the text balanced
    return text + ")" * max(0, text.count("(") - text.count(")"))


def location(contract: Contract, span: Span | None) -> str:
    if span is None or contract.source is None:
        return ""
    line, col = contract.source.position(span.start)
    return f" ({contract.source.name}:{line}:{col})"


def explain_definitions(contract: Contract, expr: Any, trace: Trace) -> list[str]:
    """The derived expressions a violated condition uses, evaluated in the trace's last
    state with the values they read: `balanced` = false: a=2, b=5, opposite=6."""
    from lablang.contracts.model import references
    from lablang.contracts.semantics import state_env

    defs = {d.name: d.expr for d in contract.definitions}
    order = [d.name for d in contract.definitions]
    used = _defines_used(expr, defs)
    if not used:
        return []
    ev = Evaluator(contract)
    env = state_env(contract, trace.raw_states[-1], trace.raw_evidence)
    shown = trace.states[-1]
    lines = []
    for name in sorted(used, key=order.index):
        value = ev.evaluate(defs[name], env)
        if isinstance(value, dict):
            continue
        reads = sorted(references(defs[name], defs))
        inner = sorted(_defines_used(defs[name], defs) - {name}, key=order.index)
        parts = [f"{v}={plain(shown[v])}" for v in reads]
        parts += [f"{d}={plain(ev.evaluate(defs[d], env))}" for d in inner]
        lines.append(f"`{name}` = {plain(value)}: " + ", ".join(parts))
    return lines


def _defines_used(expr: Any, defs: dict[str, Any]) -> set[str]:
    from lablang.contracts.model import Ref

    found: set[str] = set()
    todo = [expr]
    while todo:
        x = todo.pop()
        if isinstance(x, Ref):
            if x.kind == "define" and x.name in defs and x.name not in found:
                found.add(x.name)
                todo.append(defs[x.name])
        elif isinstance(x, tuple):
            todo.extend(x)
        elif has(type(x)):
            todo.extend(getattr(x, f.name) for f in fields(type(x)))
    return found


def plan_remarks(contract: Contract, trace: Trace) -> list[str]:
    """A remark for each invariant that a plan's states break (the first state each)."""
    from lablang.contracts.semantics import evaluate, state_env

    remarks = []
    for inv in contract.invariants:
        for t, state in enumerate(trace.raw_states):
            if not evaluate(contract, inv.expr, state_env(contract, state, trace.raw_evidence)):
                remarks.append(
                    f"remark: the plan passes through a state that violates the invariant "
                    f"`{inv.text}` (after step {t})"
                )
                break
    return remarks
