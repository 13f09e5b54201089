"""Draft a BenchBench-style modification task from a protocol diff.

The draft is `.lab` text for a person to edit: a `rubric` whose `question` states the goal
of the modification without its answer, with one top-level item per scientific decision
and, under it, one sub-item per parameter the decision sets and per knock-on change it
causes (each naming its cause). Decisions are the consequential changes that no earlier
change causes: a change to a material or consumable, or a step change that is not only
bookkeeping or timing in a step downstream of another change (or upstream of a later
outcome change whose steps it feeds: a wash halved before the DNase steps it makes room
for). Weights come from
consequence (3: what the result depends on, such as a ratio, a temperature, a reagent, a
step added or removed; 2: durations and counts; 1: volumes and order), and each decision
that changes a published value has a penalty item for keeping it. Machine checks are
written where the change can be checked on an answer protocol; `verify` (given by the
caller, see `lablang.modification`) says which of them tell the modified protocol from the
published one, and the others are left out with a note. What only the author can decide
is marked `[DRAFT: ...]`: the goal's wording where the diff cannot know it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from attrs import define, evolve, field

from lablang.fmt import canonical_text
from lablang.protocols.diff import COSMETIC, Change, ParameterChange, ProtocolDiff
from lablang.protocols.model import Protocol, Step, Value, step_parameters
from lablang.protocols.quantities import Amount
from lablang.protocols.resource_diff import ResourceChange
from lablang.syntax.strings import escape, quote

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
BOOKKEEPING = frozenset({"volume", "elute", "destination", "source", "container"})
TIMING = frozenset({"times", "count", "replicates"})
DRAFT = "[DRAFT: {}]"
# a decision whose changes touch a hazard weighs above every outcome (3): safety first
SAFETY_WEIGHT = 4
# verify(check, penalty) -> whether the check tells the two protocols apart: a positive
# item's check holds on the modified protocol only, a penalty's on the published only
Verify = Callable[[str, bool], bool]


@define(kw_only=True)
class _Leaf:
    ident: str
    criterion: str
    levels: dict[int, str]
    check: str | None
    weight: int
    step: str | None = None  # the step it is about (None for materials and consumables)
    alternatives: tuple[str, ...] = ()  # stricter checks, tried when `check` does not verify


@define(kw_only=True)
class _Decision:
    ident: str
    criterion: str
    goal: str
    cause: str  # what changed, as the knock-on items name it: "step `bind`"
    first: int  # where its cause is in the new protocol (for ordering and nearest cause)
    affected: tuple[str, ...]  # the steps whose inputs it changes
    leaves: list[_Leaf] = field(factory=list)
    penalty: _Leaf | None = None
    origin: tuple[str, ...] = ()  # the steps its own change is in (a resource's: its users)
    bookkeeping: bool = False  # a step change of volumes, durations or counts only
    material: str | None = None  # the material a resource decision changes
    hazards: tuple[str, ...] = ()  # the hazards its changes touch (then it weighs first)

    @property
    def weight(self) -> int:
        if self.hazards:
            return SAFETY_WEIGHT
        return max((leaf.weight for leaf in self.leaves), default=1)


def draft_task(
    diff: ProtocolDiff, old: Protocol, new: Protocol, *, verify: Verify | None = None
) -> str:
    """The draft task as `.lab` text (it parses as a `rubric` declaration).

    >>> from lablang.protocols.model import Wait
    >>> from lablang.protocols.quantities import Amount
    >>> from lablang.protocols.diff import semantic_diff
    >>> a = Protocol(name="a", steps=(Step(name="rest", action=Wait(duration=Amount.parse("5", "min"))),))
    >>> b = Protocol(name="b", steps=(Step(name="rest", action=Wait(duration=Amount.parse("10", "min"))),))
    >>> print(draft_task(semantic_diff(a, b), a, b).splitlines()[4])
      item rest_duration "changes the duration of step `rest` from 5 min to 10 min" weight 2 {
    """
    used: set[str] = set()
    decisions = _decisions(diff, old, new, used)
    question = (
        f"Here is the published protocol `{old.name}`"
        + (f" ({old.title})" if old.title else "")
        + ". Adapt it: "
        + "; ".join(d.goal for d in decisions)
        + ". Give the complete modified protocol and say why each change is needed."
    )
    lines = [
        f"# Drafted by `lablang diff --task` from `{escape(old.name)}` -> `{escape(new.name)}`.",
        f"rubric {_ident(new.name + '_task')} {quote('Adapt `' + old.name + '`')} {{",
        f"  question: {quote(question)}",
        f"  source: {quote(old.name)}",
    ]
    for decision in decisions:
        lines += _render_decision(decision, verify)
    for decision in decisions:
        if decision.penalty is not None:
            lines += _render_leaf(decision.penalty, "  ", verify, penalty=True)
    lines.append("}")
    return canonical_text("\n".join(lines) + "\n")


def candidate_checks(diff: ProtocolDiff, old: Protocol, new: Protocol) -> list[tuple[str, bool]]:
    """Every machine check the draft may use, with whether it is a penalty's: the caller
    verifies them on both protocols and passes the verdicts to `draft_task` as `verify`."""
    found: list[tuple[str, bool]] = []
    for decision in _decisions(diff, old, new, set()):
        for leaf in decision.leaves:
            found += [(c, False) for c in (leaf.check, *leaf.alternatives) if c]
        if decision.penalty is not None and decision.penalty.check:
            found.append((decision.penalty.check, True))
    return found


# ------------------------------------------------------------ decisions
def _decisions(diff: ProtocolDiff, old: Protocol, new: Protocol, used: set[str]) -> list[_Decision]:
    position = {step.name: j for j, step in enumerate(new.steps)}
    decisions: list[_Decision] = [
        _resource_decision(r, position, used) for r in diff.resources if r.consequential
    ]
    for change in diff.changes:
        if not change.consequential:
            continue
        leaves = _change_leaves(change, old, new, used)
        if not leaves:
            continue
        cause = _cause(change, leaves, decisions, position)
        if cause is not None:
            for leaf in leaves:
                leaf.criterion += f" (a consequence of the change to {cause.cause})"
            cause.leaves += leaves
            cause.affected = tuple(dict.fromkeys((*cause.affected, *change.downstream)))
            continue
        previous = decisions[-1] if decisions else None
        if (
            change.kind == "added"
            and previous is not None
            and previous.ident.startswith("added_")
            and previous.ident.endswith("_decision")
            and previous.first == (change.new_index or 0) - 1
        ):  # a run of adjacent new steps is one decision
            previous.leaves += leaves
            previous.first = change.new_index or 0
            previous.affected = tuple(dict.fromkeys((*previous.affected, *change.downstream)))
            previous.origin += (change.step,)
            continue
        decisions.append(_step_decision(change, old, new, leaves, used))
    decisions = _fold_early_knock_ons(decisions)
    for decision in decisions:
        decision.hazards = _hazards(decision, old, new)
        if decision.penalty is not None:
            decision.penalty.weight = -decision.weight
    # safety first, then in the protocol's order (the sort is stable)
    return sorted(decisions, key=lambda d: not d.hazards)


def _hazards(decision: _Decision, old: Protocol, new: Protocol) -> tuple[str, ...]:
    """The hazards a decision's changes touch, in either protocol: those of the material it
    changes, and of each step a leaf is about (the step's own and its material's)."""
    found: list[str] = []
    for protocol in (old, new):
        marked = {m.name: m.hazards for m in protocol.materials}
        found += marked.get(decision.material or "", ())
        for leaf in decision.leaves:
            step = protocol.step(leaf.step) if leaf.step else None
            if step is not None:
                found += (*step.hazards, *marked.get(getattr(step.action, "material", ""), ()))
    return tuple(sorted(set(found)))


def _fold_early_knock_ons(decisions: list[_Decision]) -> list[_Decision]:
    """A bookkeeping or timing change that comes before its cause (a wash halved to make
    room for a later DNase step) has no earlier cause, so it was drafted as a decision of
    its own: it goes under the nearest later outcome decision (weight 3) whose own steps it
    feeds, naming it, and loses its penalty (its cause's decision is what is penalised)."""
    kept: list[_Decision] = []
    for n, decision in enumerate(decisions):
        if decision.bookkeeping and decision.weight < 3:
            later = [
                d
                for d in decisions[n + 1 :]
                if d.weight == 3 and not d.bookkeeping and set(d.origin) & set(decision.affected)
            ]
            cause = min(later, key=lambda d: d.first, default=None)
            if cause is not None:
                for leaf in decision.leaves:
                    leaf.criterion += (
                        f" (a consequence of the change to {cause.cause}, later in the protocol)"
                    )
                cause.leaves += decision.leaves
                continue
        kept.append(decision)
    return kept


def _cause(
    change: Change, leaves: list[_Leaf], decisions: list[_Decision], position: dict[str, int]
) -> _Decision | None:
    """The nearest earlier decision whose affected steps include this change's step, when
    the change is a knock-on: bookkeeping or timing only (an outcome change is a decision
    of its own), or a step added on a consumable or with a material that changed."""
    here = position.get(change.step)
    if here is None:
        return None
    if change.kind == "moved":
        return None  # an order is a decision of its own
    resource_only = change.kind in ("added", "removed")
    if not resource_only and max(leaf.weight for leaf in leaves) > 2:
        return None
    candidates = [
        d
        for d in decisions
        if change.step in d.affected
        and (not resource_only or d.ident.startswith(("material_", "consumable_")))
        and d.first <= here
    ]
    return max(candidates, key=lambda d: d.first, default=None)


def _resource_decision(r: ResourceChange, position: dict[str, int], used: set[str]) -> _Decision:
    where = "answer.reagents" if r.kind == "material" else "answer.consumables"
    leaves = []
    for p in r.parameters:
        ident = _unique(_ident(f"{r.name}_{p.parameter}".replace(".", "_")), used)
        what = p.parameter.replace("component.", "the concentration of ").replace("_", " ")
        path = f"{where}.{r.name}." + (
            f"components.{p.parameter.removeprefix('component.')}"
            if p.parameter.startswith("component.")
            else p.parameter
        )
        literal = _literal(p.new)
        leaves.append(
            _Leaf(
                ident=ident,
                criterion=f"changes {what} in {r.kind} `{r.name}` from {_words(p.old)} to "
                f"{_words(p.new)}",
                levels=_levels(p),
                check=f"{path} == {literal}" if literal and _path_ok(path) else None,
                weight=3,
            )
        )
    first = min((position[n] for n in r.dependents if n in position), default=0)
    decision = _Decision(
        ident=_unique(_ident(f"{r.kind}_{r.name}"), used),
        criterion=f"{r.change} {r.kind} `{r.name}` as the goal requires",
        cause=f"{r.kind} `{r.name}`",
        goal=(
            f"rework the reagent `{r.name}` "
            + DRAFT.format("the reason it must change, without the new composition")
            if r.kind == "material"
            else f"use a different `{r.name}` "
            + DRAFT.format("the constraint that requires it, without naming the new one")
        ),
        first=first,
        affected=r.dependents,
        leaves=leaves,
        origin=r.dependents,
        material=r.name if r.kind == "material" else None,
    )
    changed = next((p for p in r.parameters if p.old is not None and _literal(p.old)), None)
    if changed is not None:
        path = f"{where}.{r.name}." + (
            f"components.{changed.parameter.removeprefix('component.')}"
            if changed.parameter.startswith("component.")
            else changed.parameter
        )
        decision.penalty = _penalty(
            decision,
            f"the published {changed.parameter.replace('component.', '')} "
            f"{_words(changed.old)} of `{r.name}`",
            f"{path} == {_literal(changed.old)}" if _path_ok(path) else None,
            used,
        )
    return decision


def _step_decision(
    change: Change, old: Protocol, new: Protocol, leaves: list[_Leaf], used: set[str]
) -> _Decision:
    step = (old if change.kind == "removed" else new).steps[
        (change.old_index if change.kind == "removed" else change.new_index) or 0
    ]
    decision = _Decision(
        ident=_unique(_ident(f"{change.kind}_{change.step}_decision"), used),
        criterion=f"adapts step `{change.step}` ({step.kind}) as the goal requires",
        cause=f"step `{change.step}`",
        goal=_goal(change, step),
        first=change.new_index or 0,
        affected=change.downstream,
        leaves=leaves,
        origin=(change.step,),
        bookkeeping=change.kind == "changed" and max(leaf.weight for leaf in leaves) < 3,
    )
    if change.kind == "added":
        decision.criterion = "adds the steps the goal requires"
    if change.kind == "changed":
        kept = [
            p
            for p in change.parameters
            if p.parameter not in COSMETIC and _literal(p.old) and _NAME.match(p.parameter)
        ]
        # the penalty is for keeping the published value the result depends on most
        first = max(kept, key=lambda p: _consequence(p.parameter, p.old), default=None)
        if first is not None:
            decision.penalty = _penalty(
                decision,
                f"the published {first.parameter.replace('_', ' ')} {_words(first.old)} of "
                f"step `{change.step}`",
                f"answer.step({change.step}).{first.parameter} == {_literal(first.old)}"
                if _NAME.match(change.step)
                else None,
                used,
            )
    return decision


def _penalty(decision: _Decision, what: str, check: str | None, used: set[str]) -> _Leaf:
    return _Leaf(
        ident=_unique(_ident(f"keeps_{decision.cause.split('`')[1]}"), used),
        criterion=f"keeps {what} where the goal requires a change",
        levels={
            2: "keeps the published value",
            1: "changes it in the wrong direction",
            0: "changes it",
        },
        check=check,
        weight=-decision.weight,
    )


def _goal(change: Change, step: Step) -> str:
    """What the question asks for, from the kind of change, without its answer."""
    match change.kind, step.kind:
        case "added", _:
            return DRAFT.format(f"the goal that needs a new `{step.kind}` step, without naming it")
        case "removed", _:
            return DRAFT.format(f"why step `{step.name}` is no longer wanted")
        case "moved", _:
            return DRAFT.format(f"why the order of step `{step.name}` matters")
        case _, "cleanup":
            return f"change the fragment sizes the cleanup `{step.name}` keeps " + DRAFT.format(
                "the size window to keep, e.g. 200-500 bp"
            )
        case _, "thermocycle":
            return f"adapt the cycling of `{step.name}` " + DRAFT.format(
                "the template, enzyme or product it must suit"
            )
        case _, "measure":
            return f"adapt the measurement `{step.name}` " + DRAFT.format("the kit or instrument")
        case _:
            return f"adapt step `{step.name}` " + DRAFT.format("what the goal requires of it")


# ------------------------------------------------------------ leaves
def _change_leaves(change: Change, old: Protocol, new: Protocol, used: set[str]) -> list[_Leaf]:
    if change.kind == "changed":
        return [
            _parameter_leaf(change, p, used)
            for p in change.parameters
            if p.parameter not in COSMETIC
        ]
    return [_step_leaf(change, old, new, used)]


def _consequence(parameter: str, value: Value) -> int:
    """3 for what the result depends on, 2 for durations and counts, 1 for bookkeeping."""
    if parameter in BOOKKEEPING:
        return 1
    if (
        parameter in TIMING
        or parameter.endswith("_time")
        or (isinstance(value, Amount) and value.dimension == "time")
    ):
        return 2
    return 3


def _levels(p: ParameterChange) -> dict[int, str]:
    better = (
        "moves it in the same direction but not to " + _words(p.new)
        if isinstance(p.old, Amount) and isinstance(p.new, Amount)
        else "mentions the change without the right value"
    )
    return {
        2: f"sets it to {_words(p.new)}",
        1: better,
        0: f"leaves it at {_words(p.old)}" if _literal(p.old) else "omits it",
    }


def _parameter_leaf(change: Change, p: ParameterChange, used: set[str]) -> _Leaf:
    step = change.step
    new = _literal(p.new)
    return _Leaf(
        ident=_unique(_ident(f"{step}_{p.parameter}".replace(".", "_")), used),
        criterion=(
            f"changes the {p.parameter.replace('_', ' ')} of step `{step}` from "
            f"{_words(p.old)} to {_words(p.new)}"
        ),
        levels=_levels(p),
        check=(
            f"answer.step({step}).{p.parameter} == {new}"
            if new is not None and _NAME.match(p.parameter) and _NAME.match(step)
            else None
        ),
        weight=_consequence(p.parameter, p.new if p.new is not None else p.old),
        step=step,
    )


def _step_leaf(change: Change, old: Protocol, new: Protocol, used: set[str]) -> _Leaf:
    ident = _unique(_ident(f"{change.kind}_{change.step}"), used)
    match change.kind:
        case "added":
            step = new.steps[change.new_index or 0]
            where = (
                f" after `{new.steps[(change.new_index or 0) - 1].name}`"
                if change.new_index
                else " at the start"
            )
            return _Leaf(
                ident=ident,
                criterion=f"adds a `{step.kind}` step{where}: {_describe(step)}",
                levels={
                    2: "adds the step with these parameters",
                    1: "adds the step with different parameters",
                    0: "does not add it",
                },
                check=_exists(step)[0],
                alternatives=_exists(step)[1:],
                weight=3,
                step=step.name,
            )
        case "removed":
            step = old.steps[change.old_index or 0]
            return _Leaf(
                ident=ident,
                criterion=f"removes the {step.kind} step `{step.name}`: {_describe(step)}",
                levels={
                    2: "removes the step",
                    1: "changes it without removing it",
                    0: "keeps it unchanged",
                },
                check=f"answer.step({step.name}) == none" if _NAME.match(step.name) else None,
                weight=3,
                step=step.name,
            )
        case "moved":
            index = change.new_index or 0
            after = new.steps[index - 1].name if index else None
            check = (
                f"answer.index({change.step}) > answer.index({after})"
                if after and _NAME.match(after) and _NAME.match(change.step)
                else None
            )
            return _Leaf(
                ident=ident,
                criterion=f"moves step `{change.step}` from position "
                f"{(change.old_index or 0) + 1} to {index + 1}"
                + (f", after `{after}`" if after else ""),
                levels={
                    2: "reorders the step as described",
                    1: "moves it elsewhere",
                    0: "keeps the original order",
                },
                check=check,
                weight=1,
                step=change.step,
            )
    raise AssertionError(change.kind)


# ------------------------------------------------------------ rendering
def _render_decision(decision: _Decision, verify: Verify | None) -> list[str]:
    safety = f" (touches a hazard: {', '.join(decision.hazards)})" if decision.hazards else ""
    if len(decision.leaves) == 1:
        leaf = decision.leaves[0]
        if decision.hazards:
            leaf = evolve(leaf, criterion=leaf.criterion + safety, weight=decision.weight)
        return _render_leaf(
            leaf, "  ", verify, affected=decision.affected, safety=bool(decision.hazards)
        )
    criterion = quote(decision.criterion + safety)
    lines = [f"  item {decision.ident} {criterion} weight {decision.weight} {{"]
    if decision.affected:
        lines.append("    # steps whose inputs it changes: " + ", ".join(decision.affected))
    lines.append("    tags: [decision, safety]" if decision.hazards else "    tags: [decision]")
    for leaf in decision.leaves:
        lines += _render_leaf(leaf, "    ", verify)
    lines.append("  }")
    return lines


def _render_leaf(
    leaf: _Leaf,
    indent: str,
    verify: Verify | None,
    *,
    penalty: bool = False,
    affected: tuple[str, ...] = (),
    safety: bool = False,
) -> list[str]:
    lines = [f"{indent}item {leaf.ident} {quote(leaf.criterion)} weight {leaf.weight} {{"]
    if affected:
        lines.append(f"{indent}  # steps whose inputs it changes: " + ", ".join(affected))
    lines.append(
        f"{indent}  levels {{ "
        + "  ".join(f"{k}: {quote(v)}" for k, v in leaf.levels.items())
        + " }"
    )
    candidates = [c for c in (leaf.check, *leaf.alternatives) if c]
    chosen = next(
        (c for c in candidates if verify is None or verify(c, penalty)),
        None,
    )
    if chosen:
        lines.append(f"{indent}  check: {chosen}")
    elif leaf.check:
        lines.append(
            f"{indent}  # no machine check: `{leaf.check}` does not tell the modified "
            "protocol from the published one"
        )
    tag = (
        "penalty"
        if penalty
        else ("knock_on" if "(a consequence of" in leaf.criterion else "decision")
    )
    lines.append(f"{indent}  tags: [{tag}, safety]" if safety else f"{indent}  tags: [{tag}]")
    lines.append(f"{indent}}}")
    return lines


def _path_ok(path: str) -> bool:
    return all(_NAME.match(part) for part in path.split("."))


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


def _exists(step: Step) -> tuple[str, ...]:
    """Checks that an answer has a step like `step`, whatever its name: by its kind and
    key parameter, then by every parameter it has a literal for (the second tells a new
    step from a published one of the same kind and reagent at another volume)."""
    params = step_parameters(step)
    condition = f's.kind == "{step.kind}"'
    key = KEY_PARAMETER[step.kind]
    literal = _literal(params.get(key))
    if literal is not None:
        condition += f" and s.{key} == {literal}"
    strict = f's.kind == "{step.kind}"' + "".join(
        f" and s.{name} == {_literal(value)}"
        for name, value in params.items()
        if _literal(value) is not None and _NAME.match(name) and name not in COSMETIC
    )
    return tuple(dict.fromkeys(f"exists s in answer.steps: {c}" for c in (condition, strict)))


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
