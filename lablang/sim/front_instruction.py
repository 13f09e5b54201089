"""W0701/W0702: a task's instruction should name every object and state every condition its
success specs require, so an agent reading only the instruction can do the task."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lablang import ast
from lablang.diagnostics import Report
from lablang.sim import model as sm
from lablang.source import Source, Span


def check_instruction(
    decl: ast.Decl, task: sm.Task, report: Report, source: Source, instruction_span: Span | None
) -> None:
    """W0701: the instruction should name every object the success specs require."""
    if not task.instruction:
        return
    text = sm.spoken(task.instruction)
    missing: list[str] = []
    for step in task.steps:
        for ref in _refs(step.success):
            if task.scene.entity(ref) is None or ref in missing:
                continue
            if f" {sm.spoken(ref)} " not in f" {text} ":
                missing.append(ref)
    words = set(text.split())
    # numbers standing on their own ("20 g", "37 C"), not inside names such as `w20`
    numbers = {float(n) for n in re.findall(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?", task.instruction)}
    conditions: list[str] = []
    for step in task.steps:
        for call in predicate_calls(step.success):
            stated = _condition_stated(call, words, numbers)
            if stated is not None and not stated and _text_of(call) not in conditions:
                conditions.append(_text_of(call))
    for condition in conditions:
        report.add(
            "W0702",
            f"the instruction does not state the condition `{condition}`, which the "
            "success spec requires",
            source,
            instruction_span or decl.name_span,
            label="not stated here",
            help="say it in `instruction` (the words or the number it checks), so an agent "
            "reading only the instruction knows when the step is done",
        )
    for ref in missing:
        report.add(
            "W0701",
            f"the instruction does not mention `{ref}`, which the success spec requires",
            source,
            instruction_span or decl.name_span,
            label=f"`{ref}` is not mentioned here",
            help=f"name `{ref}` in `instruction`, so an agent reading only the "
            "instruction can do the task",
        )


def _refs(expr: sm.Expr | None) -> Iterator[str]:
    match expr:
        case None | sm.Num() | sm.Bool() | sm.Text():
            return
        case sm.Ref(name=name):
            yield name
        case sm.Call(args=args, kwargs=kwargs):
            for a in args:
                yield from _refs(a)
            for _, v in kwargs:
                yield from _refs(v)
        case sm.Logic(parts=parts):
            for p in parts:
                yield from _refs(p)
        case sm.Not(operand=operand):
            yield from _refs(operand)
        case sm.Compare(left=left, right=right):
            yield from _refs(left)
            yield from _refs(right)


# Conditions an instruction should state: predicate -> words that state it (any one).
_CONDITION_WORDS: dict[str, tuple[str, ...]] = {
    "balanced": ("balance", "balanced", "opposite"),
    "open": ("open", "opened"),
    "closed": ("close", "closed", "shut"),
    "mixed": (
        "mix",
        "mixed",
        "invert",
        "inverting",
        "shake",
        "shaking",
        "vortex",
        "swirl",
        "stir",
    ),
    "started": ("start", "spin", "run"),
    "not_spilled": ("spill", "spilling", "spilled"),
}


# Predicates whose amount (argument index) the instruction should state as a number.
_CONDITION_AMOUNTS: dict[str, int] = {"reading": 1, "temperature": 1, "contains": 2}


_DISPLAY = {
    "mass": (1e3,),
    "volume": (1e6, 1e9),
    "temperature": (1.0,),
    "length": (1e2, 1e3, 1.0),
    "time": (1.0,),
}


def predicate_calls(expr: sm.Expr | None) -> Iterator[sm.Call]:
    """The calls in a condition, with those inside `during`/`throughout`."""
    match expr:
        case sm.Call(func="during" | "throughout", args=args):
            yield expr
            if args:  # the condition inside an interval predicate
                yield from predicate_calls(args[0])
        case sm.Call():
            yield expr
        case sm.Logic(parts=parts):
            for part in parts:
                yield from predicate_calls(part)
        case sm.Not(operand=operand):
            yield from predicate_calls(operand)
        case _:
            return


def _condition_stated(call: sm.Call, words: set[str], numbers: set[float]) -> bool | None:
    """Whether the instruction states the condition a predicate checks (None: nothing to
    state, e.g. `in` or `stable`, whose objects W0701 covers)."""
    if call.func in _CONDITION_WORDS:
        return bool(words & set(_CONDITION_WORDS[call.func]))
    index = _CONDITION_AMOUNTS.get(call.func)
    if index is None or len(call.args) <= index:
        return None
    amount = call.args[index]
    if not isinstance(amount, sm.Num):
        return None
    scales = _DISPLAY.get(amount.dimension, (1.0,))
    return any(abs(amount.value * k - n) < 1e-6 * max(1.0, n) for k in scales for n in numbers)


def _text_of(call: sm.Call) -> str:
    inner = []
    for arg in call.args:
        match arg:
            case sm.Ref():
                inner.append(arg.text())
            case sm.Num(value=value, dimension=dim):
                scale, unit = {
                    "mass": (1e3, " g"),
                    "volume": (1e6, " mL"),
                    "temperature": (1.0, " C"),
                    "time": (1.0, " s"),
                }.get(dim, (1.0, ""))
                inner.append(f"{value * scale:g}{unit}")
            case _:
                inner.append("...")
    return f"{call.func}({', '.join(inner)})"
