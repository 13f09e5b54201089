"""Semantic diff of two protocols: steps matched by identity and content, not by line.

Steps are matched first by name, then (for the rest) by kind and parameter content,
so a renamed step is a change of name rather than a removal plus an addition. Matched
steps whose relative order differs are reported as moved: the steps kept in place are a
longest increasing subsequence of the new positions, so a swap of two neighbours moves
exactly one step. Parameters are compared as exact quantities in canonical units
(`3 min` equals `180 s`). Each change lists the later steps that depend on it: the steps
that use a container the changed step fills, directly or through later transfers.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from attrs import evolve, frozen

from lablang.protocols.model import (
    Add,
    Note,
    Protocol,
    Run,
    Step,
    Transfer,
    Value,
    Wait,
    step_parameters,
)
from lablang.protocols.quantities import CANONICAL, Amount
from lablang.protocols.resource_diff import (
    ParameterChange,
    ResourceChange,
    material_renames,
    rename_materials,
    resource_changes,
    uses_material,
)
from lablang.protocols.resource_diff import same as _same

KINDS = ("removed", "added", "moved", "changed")


@frozen(kw_only=True)
class Change:
    kind: str  # one of KINDS
    step: str  # the step's name in the new protocol (the old one for `removed`)
    old_name: str | None = None  # the old name when a matched step was renamed
    old_index: int | None = None
    new_index: int | None = None
    parameters: tuple[ParameterChange, ...] = ()
    downstream: tuple[str, ...] = ()  # at most MAX_DOWNSTREAM names
    downstream_truncated: bool = False  # more downstream steps than those named
    step_kind: str | None = None  # the step's action kind (`add`, `note`, ...)

    @property
    def consequential(self) -> bool:
        """Changes that alter what happens at the bench: not a rename, a retitling, a
        reworded note or a note step added, removed or moved."""
        if self.step_kind == "note":
            return False
        if self.kind == "changed":
            return any(p.parameter not in COSMETIC for p in self.parameters)
        return True


# parameters whose change alters nothing at the bench
COSMETIC = frozenset({"note", "title", "name"})
# per action kind, the parameters that do not change what the step's container holds
# (a measurement's instrument or replicates change the result, not the sample)
NO_EFFECT_DOWNSTREAM: dict[str, frozenset[str]] = {
    "measure": frozenset({"what", "instrument", "standards", "standard_size", "replicates",
                          "melt_curve"}),
}  # fmt: skip


@frozen(kw_only=True)
class ProtocolDiff:
    old: str
    new: str
    changes: tuple[Change, ...]
    # changes to materials and consumables (`lablang.protocols.resource_diff`)
    resources: tuple[ResourceChange, ...] = ()

    def summary(self) -> list[tuple[str, str]]:
        """(kind, step) pairs, e.g. for asserting an exact change list."""
        return [(c.kind, c.step) for c in self.changes]


def semantic_diff(old: Protocol, new: Protocol) -> ProtocolDiff:
    """The changes that turn `old` into `new`.

    >>> from lablang.protocols.model import Incubate
    >>> from lablang.protocols.quantities import Amount
    >>> def warm(t): return Step(name="warm", action=Incubate(
    ...     temperature=Amount.parse(t, "C"), duration=Amount.parse("5", "min")))
    >>> d = semantic_diff(Protocol(name="a", steps=(warm("37"),)),
    ...                   Protocol(name="b", steps=(warm("42"),)))
    >>> [(c.kind, c.step, [(p.parameter, str(p.old), str(p.new)) for p in c.parameters])
    ...  for c in d.changes]
    [('changed', 'warm', [('temperature', '37 C', '42 C')])]
    """
    old, renames = _renamed(old, new)
    pairs = _match(old.steps, new.steps)
    old_flows, new_flows = _containers(old), _containers(new)
    matched_old = {i for i, _ in pairs}
    matched_new = {j for _, j in pairs}
    changes: list[tuple[float, int, Change]] = []
    order = {kind: n for n, kind in enumerate(KINDS)}

    def emit(position: float, change: Change) -> None:
        changes.append((position, order[change.kind], change))

    # for each old index, the largest new index matched to an earlier old step (or -1)
    latest = [-1] * (len(old.steps) + 1)
    matched_at = dict(pairs)
    old_index = {step.name: i for i, step in enumerate(old.steps)}
    for i in range(len(old.steps)):
        latest[i + 1] = max(latest[i], matched_at.get(i, -1))
    for i, gone in enumerate(old.steps):
        if i not in matched_old:
            # place a removal just after the new position of the step that preceded it
            emit(
                latest[i] + 0.5,
                Change(
                    kind="removed",
                    step=gone.name,
                    old_index=i,
                    **_affected(
                        _surviving(
                            found := _downstream(old, old_flows, i), old_index, new, matched_at
                        ),
                        found,
                    ),
                ),
            )
    for j, fresh in enumerate(new.steps):
        if j not in matched_new:
            emit(
                j,
                Change(
                    kind="added",
                    step=fresh.name,
                    new_index=j,
                    **_affected(_downstream(new, new_flows, j)),
                ),
            )
    kept = _kept_in_place([j for _, j in sorted(pairs)])
    for i, j in sorted(pairs):
        before, after = old.steps[i], new.steps[j]
        if j not in kept:
            emit(
                j,
                Change(
                    kind="moved",
                    step=after.name,
                    old_index=i,
                    new_index=j,
                    old_name=before.name if before.name != after.name else None,
                    **_affected(_downstream(new, new_flows, j)),
                ),
            )
        parameters = _parameter_changes(before, after)
        if parameters:
            emit(
                j,
                Change(
                    kind="changed",
                    step=after.name,
                    old_index=i,
                    new_index=j,
                    old_name=before.name if before.name != after.name else None,
                    parameters=parameters,
                    **_affected(_downstream(new, new_flows, j)),
                ),
            )
    changes.sort(key=lambda item: (item[0], item[1]))
    return ProtocolDiff(
        old=old.name,
        new=new.name,
        changes=tuple(_effective(c, old, new, new_flows) for _, _, c in changes),
        resources=(
            *(
                ResourceChange(kind="material", name=b, change="renamed", old_name=a)
                for a, b in renames.items()
            ),
            *resource_changes(old, new, lambda j: _downstream(new, new_flows, j)),
        ),
    )


def _renamed(old: Protocol, new: Protocol) -> tuple[Protocol, dict[str, str]]:
    """The published protocol in the new protocol's material names, and the renames: a
    material of the same identity under a new name, used by the same steps (matched as
    the diff matches them), is renamed; one used elsewhere stays a removal and an addition."""
    renames = material_renames(old, new)
    if not renames:
        return old, {}
    pairs = _match(rename_materials(old, renames).steps, new.steps)
    renames = {
        a: b
        for a, b in renames.items()
        if {j for i, j in pairs if uses_material(old.steps[i], a)}
        == {j for j, step in enumerate(new.steps) if uses_material(step, b)}
    }
    return rename_materials(old, renames), renames


def _effective(
    change: Change, old: Protocol, new: Protocol, flows: list[tuple[set[str], set[str]]]
) -> Change:
    """The change with its step kind, and with no downstream steps when it changes no
    step's inputs: a cosmetic change, or one of parameters that leave the sample as it was."""
    index = change.old_index if change.kind == "removed" else change.new_index
    step = (old if change.kind == "removed" else new).steps[index or 0]
    change = evolve(change, step_kind=step.kind)
    inert = COSMETIC | NO_EFFECT_DOWNSTREAM.get(step.kind, frozenset())
    if not change.consequential or (
        change.kind == "changed" and all(p.parameter in inert for p in change.parameters)
    ):
        return evolve(change, downstream=(), downstream_truncated=False)
    return change


# ------------------------------------------------------------ matching
def _match(old: tuple[Step, ...], new: tuple[Step, ...]) -> list[tuple[int, int]]:
    new_by_name: dict[str, int] = {}
    for j, step in enumerate(new):
        new_by_name.setdefault(step.name, j)
    pairs: list[tuple[int, int]] = []
    used_new: set[int] = set()
    for i, step in enumerate(old):
        found = new_by_name.get(step.name)
        if found is not None and found not in used_new and step.kind == new[found].kind:
            pairs.append((i, found))
            used_new.add(found)
    used_old = {i for i, _ in pairs}
    # The rest by content: same action kind, most parameters equal (at least half). Every
    # pair is compared while that is cheap; past `_PAIR_BUDGET` comparisons a step is
    # compared only with the steps near its own position (linear, not quadratic, work).
    rest_old = [i for i in range(len(old)) if i not in used_old]
    rest_new = [j for j in range(len(new)) if j not in used_new]
    params_old = {i: step_parameters(old[i]) for i in rest_old}
    params_new = {j: step_parameters(new[j]) for j in rest_new}
    window = None
    if len(rest_old) * len(rest_new) > _PAIR_BUDGET:
        window = max(8, _PAIR_BUDGET // max(1, len(rest_old)) // 2)
    candidates = []
    for i in rest_old:
        a, pa = old[i], params_old[i]
        if window is None:
            nearby = rest_new
        else:
            low = bisect_left(rest_new, i - window)
            nearby = rest_new[low : bisect_left(rest_new, i + window + 1)]
        for j in nearby:
            b = new[j]
            if a.kind != b.kind:
                continue
            pb = params_new[j]
            keys = set(pa) | set(pb)
            same = sum(1 for k in keys if k in pa and k in pb and _same(pa[k], pb[k]))
            score = same / len(keys) if keys else 1.0
            if score >= 0.5:
                candidates.append((-score, abs(i - j), i, j))
    for _, _, i, j in sorted(candidates):
        if i not in used_old and j not in used_new:
            pairs.append((i, j))
            used_old.add(i)
            used_new.add(j)
    return sorted(pairs)


_PAIR_BUDGET = 250_000


def _kept_in_place(positions: list[int]) -> set[int]:
    """A longest increasing subsequence of `positions` (earliest-ending, deterministic)."""
    tails: list[int] = []
    tail_index: list[int] = []
    previous: list[int] = [-1] * len(positions)
    for k, value in enumerate(positions):
        slot = bisect_left(tails, value)
        if slot == len(tails):
            tails.append(value)
            tail_index.append(k)
        else:
            tails[slot] = value
            tail_index[slot] = k
        previous[k] = tail_index[slot - 1] if slot else -1
    kept: set[int] = set()
    k = tail_index[-1] if tail_index else -1
    while k >= 0:
        kept.add(positions[k])
        k = previous[k]
    return kept


def _parameter_changes(before: Step, after: Step) -> tuple[ParameterChange, ...]:
    pa, pb = step_parameters(before), step_parameters(after)
    changes = []
    if before.name != after.name:
        changes.append(ParameterChange(parameter="name", old=before.name, new=after.name))
    if before.title != after.title:
        changes.append(ParameterChange(parameter="title", old=before.title, new=after.title))
    ordered = list(pa) + [k for k in pb if k not in pa]
    for key in ordered:
        a, b = pa.get(key), pb.get(key)
        if not _same(a, b):
            changes.append(ParameterChange(parameter=key, old=a, new=b))
    return tuple(changes)


# ------------------------------------------------------------ dependencies
def _containers(protocol: Protocol) -> list[tuple[set[str], set[str]]]:
    """For each step: (containers it uses, containers it fills)."""
    current: str | None = None
    flows: list[tuple[set[str], set[str]]] = []
    for step in protocol.steps:
        action = step.action
        here = step.container or current
        uses: set[str] = set()
        fills: set[str] = set()
        match action:
            case Add():
                target = action.destination or here
                if target:
                    uses, fills, current = {target}, {target}, target
            case Transfer():
                origin = action.source or here
                uses = {c for c in (origin, action.destination) if c}
                if action.destination:
                    fills, current = {action.destination}, action.destination
            case Note():
                pass
            case Wait():  # on the magnet, drying: the wait acts on the current container
                if here:
                    uses, fills = {here}, {here}
            case Run():  # a run acts on its consumable (a membrane, a gel)
                target = action.consumable or here
                if target:
                    uses, fills, current = {target}, {target}, target
            case _:
                if here:
                    uses, fills, current = {here}, {here}, here
        flows.append((uses, fills))
    return flows


def _downstream(
    protocol: Protocol, flows: list[tuple[set[str], set[str]]], index: int
) -> tuple[str, ...]:
    tainted = set(flows[index][1])
    found = []
    for k in range(index + 1, len(protocol.steps)):
        uses, fills = flows[k]
        if uses & tainted:
            found.append(protocol.steps[k].name)
            if len(found) > 2 * MAX_DOWNSTREAM:  # enough to name them and say there are more
                break
            tainted |= fills
    return tuple(found)


MAX_DOWNSTREAM = 20  # named per change: every later step can be downstream of every step


def _affected(names: tuple[str, ...], scanned: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The `downstream` fields of a change: the first MAX_DOWNSTREAM names, and whether
    there are more (listing all would make the diff quadratic in the steps). `scanned`
    is what `_downstream` found before `names` were filtered from it."""
    stopped = len(scanned if scanned is not None else names) > 2 * MAX_DOWNSTREAM
    return {
        "downstream": names[:MAX_DOWNSTREAM],
        "downstream_truncated": stopped or len(names) > MAX_DOWNSTREAM,
    }


def _surviving(
    names: tuple[str, ...], index: dict[str, int], new: Protocol, mapping: dict[int, int]
) -> tuple[str, ...]:
    """Old step names mapped to the new protocol (steps that were removed too are dropped)."""
    return tuple(new.steps[mapping[index[n]]].name for n in names if index[n] in mapping)


# ------------------------------------------------------------ presentation
def value_json(value: Value) -> object:
    """A JSON form of a parameter value: quantities in canonical units with the author's text."""
    match value:
        case Amount():
            number = value.value
            plain: int | float | str = (
                number.numerator if number.denominator == 1 else float(number)
            )
            return {
                "value": plain,
                "unit": CANONICAL.get(value.dimension, ""),
                "dimension": value.dimension,
                "text": value.text,
            }
        case _:
            return value


def diff_json(diff: ProtocolDiff) -> dict[str, object]:
    return {
        "old": diff.old,
        "new": diff.new,
        "changes": [
            {
                "kind": c.kind,
                "step": c.step,
                "old_name": c.old_name,
                "old_index": c.old_index,
                "new_index": c.new_index,
                "consequential": c.consequential,
                "parameters": _parameters_json(c.parameters),
                "downstream": list(c.downstream),
                "downstream_truncated": c.downstream_truncated,
            }
            for c in diff.changes
        ],
        "resources": [
            {
                "kind": r.kind,
                "name": r.name,
                "change": r.change,
                "old_name": r.old_name,
                "consequential": r.consequential,
                "parameters": _parameters_json(r.parameters),
                "dependents": list(r.dependents),
            }
            for r in diff.resources
        ],
    }


def _parameters_json(parameters: tuple[ParameterChange, ...]) -> list[dict[str, object]]:
    return [
        {"parameter": p.parameter, "old": value_json(p.old), "new": value_json(p.new)}
        for p in parameters
    ]


def render_diff(diff: ProtocolDiff, old: Protocol, new: Protocol) -> str:
    """The diff as text, one change per paragraph."""
    lines = [f"--- protocol `{diff.old}`", f"+++ protocol `{diff.new}`"]
    if not diff.changes and not diff.resources:
        lines.append("no semantic changes")
    for resource in diff.resources:
        mark = {"added": "+", "removed": "-"}.get(resource.change, "*")
        was = f" (was `{resource.old_name}`, cosmetic)" if resource.old_name else ""
        lines.append(f"{mark} {resource.change} {resource.kind} `{resource.name}`{was}")
        for p in resource.parameters:
            lines.append(f"    {p.parameter}: {_show(p.old)} -> {_show(p.new)}")
        if resource.dependents:
            lines.append("    dependents: " + ", ".join(f"`{n}`" for n in resource.dependents))
    for change in diff.changes:
        match change.kind:
            case "removed":
                step = old.steps[change.old_index or 0]
                lines.append(
                    f"- removed step `{change.step}` ({step.kind}, was #{_n(change.old_index)})"
                )
            case "added":
                step = new.steps[change.new_index or 0]
                lines.append(
                    f"+ added step `{change.step}` ({step.kind}) at #{_n(change.new_index)}"
                )
            case "moved":
                lines.append(
                    f"~ moved step `{change.step}` from #{_n(change.old_index)} to "
                    f"#{_n(change.new_index)}"
                )
            case "changed":
                renamed = f" (was `{change.old_name}`)" if change.old_name else ""
                cosmetic = "" if change.consequential else " (cosmetic)"
                lines.append(f"* changed step `{change.step}`{renamed}{cosmetic}")
                for p in change.parameters:
                    lines.append(f"    {p.parameter}: {_show(p.old)} -> {_show(p.new)}")
        if change.downstream:
            more = ", …" if change.downstream_truncated else ""
            lines.append("    downstream: " + ", ".join(f"`{n}`" for n in change.downstream) + more)
    return "\n".join(lines) + "\n"


def _n(index: int | None) -> int:
    return (index or 0) + 1


def _show(value: Value) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, Amount):
        canonical = str(value)
        return (
            canonical
            if not value.text or value.text == canonical
            else f"{canonical} ({value.text})"
        )
    return str(value)
