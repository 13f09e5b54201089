"""Draft a BenchBench-style modification task from a protocol diff.

The draft is `.lab` text for a person to edit: a `rubric` whose `question` asks for the
modification and which holds one item per consequential change, each with 0/1/2 level
descriptions, a machine `check:` where the change can be checked on an answer protocol,
and the downstream steps the change affects as a comment. Weights start at 1 (penalty
items are left for the editor to add): the point of the draft is the item list.
"""

from __future__ import annotations

import re

from lablang.fmt import canonical_text
from lablang.protocols.diff import Change, ParameterChange, ProtocolDiff
from lablang.protocols.model import Protocol, Step, Value, step_parameters
from lablang.protocols.quantities import Amount
from lablang.syntax.strings import escape, quote

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def draft_task(diff: ProtocolDiff, old: Protocol, new: Protocol) -> str:
    """The draft task as `.lab` text (it parses as a `rubric` declaration).

    >>> from lablang.protocols.model import Wait
    >>> from lablang.protocols.quantities import Amount
    >>> from lablang.protocols.diff import semantic_diff
    >>> a = Protocol(name="a", steps=(Step(name="rest", action=Wait(duration=Amount.parse("5", "min"))),))
    >>> b = Protocol(name="b", steps=(Step(name="rest", action=Wait(duration=Amount.parse("10", "min"))),))
    >>> print(draft_task(semantic_diff(a, b), a, b).splitlines()[5])
      item rest_duration "changes the duration of step `rest` from 5 min to 10 min" weight 1 {
    """
    title = new.title or new.name
    lines = [
        f"# Drafted by `lablang diff --task` from `{escape(old.name)}` -> `{escape(new.name)}`.",
        "# Edit the question, the weights and the level descriptions before use.",
        f"rubric {_ident(new.name + '_task')} {quote('Modify `' + old.name + '` into: ' + title)} {{",
        f"  question: {quote(_question(old, new))}",
        f"  source: {quote(old.name)}",
    ]
    used: set[str] = set()
    for change in diff.changes:
        if not change.consequential:
            continue
        if change.kind == "changed":
            for parameter in change.parameters:
                if parameter.parameter in ("note", "title"):
                    continue
                lines += _parameter_item(change, parameter, used)
        else:
            lines += _step_item(change, old, new, used)
    lines.append("}")
    return canonical_text("\n".join(lines) + "\n")


def _question(old: Protocol, new: Protocol) -> str:
    goal = new.title or new.name
    return (
        f"Here is the published protocol `{old.name}`"
        + (f" ({old.title})" if old.title else "")
        + f". Modify it for this goal: {goal}. Give the complete modified protocol and "
        "say why each change is needed."
    )


def _parameter_item(change: Change, p: ParameterChange, used: set[str]) -> list[str]:
    step = change.step
    ident = _unique(_ident(f"{step}_{p.parameter}".replace(".", "_")), used)
    old, new = _literal(p.old), _literal(p.new)
    if p.parameter == "name":
        criterion = f"renames step `{p.old}` to `{p.new}`"
        check = None
    else:
        criterion = (
            f"changes the {p.parameter.replace('_', ' ')} of step `{step}` from "
            f"{_words(p.old)} to {_words(p.new)}"
        )
        check = (
            f"answer.step({step}).{p.parameter} == {new}"
            if new is not None and _NAME.match(p.parameter)
            else None
        )
    better = (
        "moves it in the same direction but not to " + _words(p.new)
        if isinstance(p.old, Amount) and isinstance(p.new, Amount)
        else "mentions the change without the right value"
    )
    return _item(
        ident,
        criterion,
        {
            2: f"sets it to {_words(p.new)}",
            1: better,
            0: f"leaves it at {_words(p.old)}" if old else "omits it",
        },
        check,
        change.downstream,
    )


def _step_item(change: Change, old: Protocol, new: Protocol, used: set[str]) -> list[str]:
    ident = _unique(_ident(f"{change.kind}_{change.step}"), used)
    match change.kind:
        case "added":
            step = new.steps[change.new_index or 0]
            where = (
                f" after `{new.steps[(change.new_index or 0) - 1].name}`"
                if change.new_index
                else " at the start"
            )
            return _item(
                ident,
                f"adds a `{step.kind}` step{where}: {_describe(step)}",
                {
                    2: "adds the step with these parameters",
                    1: "adds the step with different parameters",
                    0: "does not add it",
                },
                _exists(step),
                change.downstream,
            )
        case "removed":
            step = old.steps[change.old_index or 0]
            return _item(
                ident,
                f"removes the {step.kind} step `{step.name}`: {_describe(step)}",
                {
                    2: "removes the step",
                    1: "changes it without removing it",
                    0: "keeps it unchanged",
                },
                f"answer.step({step.name}) == none" if _NAME.match(step.name) else None,
                change.downstream,
            )
        case "moved":
            index = change.new_index or 0
            after = new.steps[index - 1].name if index else None
            check = (
                f"answer.index({change.step}) > answer.index({after})"
                if after and _NAME.match(after) and _NAME.match(change.step)
                else None
            )
            return _item(
                ident,
                f"moves step `{change.step}` from position "
                f"{(change.old_index or 0) + 1} to {index + 1}"
                + (f", after `{after}`" if after else ""),
                {
                    2: "reorders the step as described",
                    1: "moves it elsewhere",
                    0: "keeps the original order",
                },
                check,
                change.downstream,
            )
    raise AssertionError(change.kind)


def _item(
    ident: str,
    criterion: str,
    levels: dict[int, str],
    check: str | None,
    downstream: tuple[str, ...],
) -> list[str]:
    lines = [f"  item {ident} {quote(criterion)} weight 1 {{"]
    if downstream:
        lines.append("    # downstream steps: " + ", ".join(downstream))
    lines.append("    levels { " + "  ".join(f"{k}: {quote(v)}" for k, v in levels.items()) + " }")
    if check:
        lines.append(f"    check: {check}")
    lines.append("    tags: [intent, domain]")
    lines.append("  }")
    return lines


# the parameter that identifies a step of each kind in an answer, whatever its name
KEY_PARAMETER = {
    "add": "material",
    "transfer": "destination",
    "mix": "method",
    "incubate": "temperature",
    "thermocycle": "cycles",
    "centrifuge": "speed",
    "cleanup": "ratio",
    "wash": "material",
    "measure": "what",
    "wait": "duration",
    "note": "text",
}


def _exists(step: Step) -> str:
    condition = f's.kind == "{step.kind}"'
    key = KEY_PARAMETER[step.kind]
    literal = _literal(step_parameters(step).get(key))
    if literal is not None:
        condition += f" and s.{key} == {literal}"
    return f"exists s in answer.steps: {condition}"


def _describe(step: Step) -> str:
    params = step_parameters(step)
    return ", ".join(f"{k} {_words(v)}" for k, v in params.items()) or step.kind


def _literal(value: Value) -> str | None:
    """`value` as a `.lab` expression, or None when it has none."""
    match value:
        case None:
            return None
        case Amount():
            return value.text or None
        case int():
            return str(value)
        case str() if _NAME.match(value):
            return value
        case str():
            return quote(value)
    return None


def _words(value: Value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, Amount):
        return value.text or str(value)
    return str(value)


def _ident(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", text)
    return cleaned if _NAME.match(cleaned) else "_" + cleaned


def _unique(ident: str, used: set[str]) -> str:
    candidate, n = ident, 2
    while candidate in used:
        candidate, n = f"{ident}_{n}", n + 1
    used.add(candidate)
    return candidate
