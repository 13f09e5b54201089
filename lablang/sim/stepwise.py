"""Step-wise metrics as SciVLABench defines them, from the one scorer's episode scores.

Per episode (`episode_metrics`, from its events and its Labference score,
`lablang.sim.records.score`):

* task success: every step's spec met, in order (the scorer's `steps_passed` is all of them);
* step-wise progress: the fraction of the ordered steps completed before the first failure;
* premature interactions: robot contact with an event's entities before the event started;
* post-trigger response, for a step that waits on a scripted event (`step NAME on EVENT`):
  whether the step was completed after the event, and the seconds from the event to it.

Per task (`task_metrics`, added to its evaluation) and per operation family and evaluation
protocol (`suite_metrics`: randomized, held-out binding, coordination), with percentile
bootstrap intervals over source scenarios (a `.lab` file is one scenario: its tasks, and a
family's bindings, are resampled together), seeded, so the same run gives the same bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lablang.sim import catalog
from lablang.sim.model import Task

# SciVLABench's five operation families, by the catalog's skill categories
FAMILIES = {
    "liquid handling and transfer": "liquid handling",
    "mixing and agitation": "mixing",
    "solid handling and weighing": "solid handling",
    "thermal control and incubation": "thermal",
    "apparatus and workspace": "apparatus",
}
PROTOCOLS = ("randomized", "heldout", "coordination")
RESAMPLES = 1000
_COLUMNS = ("success", "progress", "premature")


def operation_family(task: Task) -> str:
    """The task's operation family: the one it declares (`family:`), otherwise the category
    most of its skill calls have, apart from the apparatus moves every task makes (`pick`,
    `place`); `apparatus` when it has only those.

    >>> from lablang.sim.model import Call, Ref, Scene, Step
    >>> step = Step("s", (Call("pick", (Ref("b"),)), Call("pour", (Ref("b"), Ref("c")))), None)
    >>> operation_family(Task("t", Scene("s", ()), (step,)))
    'liquid handling'
    >>> operation_family(Task("t", Scene("s", ()), (step,), family="thermal"))
    'thermal'
    """
    if task.family:
        return task.family
    counts = Counter(
        catalog.SKILL_SIGNATURES[c.func][1]
        for step in task.steps
        for c in step.all_calls
        if c.func in catalog.SKILL_SIGNATURES
    )
    counts.pop("apparatus and workspace", None)
    if not counts:
        return FAMILIES["apparatus and workspace"]
    return FAMILIES[counts.most_common(1)[0][0]]


def protocols_of(task: Task) -> list[str]:
    """The evaluation protocols a task serves: `heldout` (a held-out binding of a family),
    `coordination` (a scripted colleague acts), otherwise `randomized`."""
    found = []
    if task.binding is not None and task.binding.heldout:
        found.append("heldout")
    if task.scene.interventions:
        found.append("coordination")
    return found or ["randomized"]


def episode_metrics(task: Task, events: Iterable[Any], score: Mapping[str, Any]) -> dict[str, Any]:
    """One episode's step-wise metrics from its events and its score."""
    events = list(events)
    passed = score["completion"]["steps_passed"]
    triggers = {e.detail: e.time for e in events if e.kind == "trigger"}
    completed = {}
    for e in events:
        if e.kind == "completion" and e.confirmed and e.step not in completed:
            completed[e.step] = e.time
    responses = []
    for step in task.steps:
        if step.trigger is None or step.trigger not in triggers:
            continue
        start, end = triggers[step.trigger], completed.get(step.name)
        done = end is not None and end >= start
        responses.append(
            {
                "event": step.trigger,
                "step": step.name,
                "completed": done,
                "seconds": round(end - start, 6) if done and end is not None else None,
            }
        )
    return {
        "success": passed == len(task.steps),
        "progress": round(passed / len(task.steps), 6) if task.steps else 1.0,
        "premature": int(score["coordination"]["premature"]),
        "responses": responses,
    }


def task_metrics(
    task: Task, episodes: int, metrics: Sequence[Mapping[str, Any]], scenario: str = ""
) -> dict[str, Any]:
    """A task's step-wise metrics over its episodes (a lost episode counts as a failure
    with no progress: `episodes` is the denominator). `scenario` is its source scenario
    (a suite gives the file's stem; the task's family, or its name, otherwise)."""
    responses = [r for m in metrics for r in m["responses"]]
    seconds = [r["seconds"] for r in responses if r["completed"]]
    return {
        "scenario": scenario or (task.binding.family if task.binding else task.name),
        "family": operation_family(task),
        "protocols": protocols_of(task),
        "binding": task.binding.name if task.binding else None,
        "heldout": bool(task.binding and task.binding.heldout),
        "success_rate": round(sum(m["success"] for m in metrics) / episodes, 6),
        "progress": round(sum(m["progress"] for m in metrics) / episodes, 6),
        "premature_rate": round(sum(m["premature"] > 0 for m in metrics) / episodes, 6),
        "post_trigger": {
            "triggered": len(responses),
            "completed": len(seconds),
            "response_rate": round(len(seconds) / len(responses), 6) if responses else None,
            "mean_seconds": round(sum(seconds) / len(seconds), 6) if seconds else None,
        },
    }


def suite_metrics(
    evaluations: Mapping[str, Mapping[str, Any]], seed: int, resamples: int = RESAMPLES
) -> dict[str, Any]:
    """Per operation family and per evaluation protocol: the mean over source scenarios
    of each scenario's task success, progress and premature rate (and the post-trigger
    response rate and seconds where events trigger), with 95% bootstrap intervals over
    the scenarios (each evaluation's `stepwise.scenario`)."""
    groups: dict[str, dict[str, list[str]]] = {"family": {}, "protocol": {}}
    for key, evaluation in evaluations.items():
        step = evaluation["stepwise"]
        groups["family"].setdefault(step["family"], []).append(key)
        for protocol in step["protocols"]:
            groups["protocol"].setdefault(protocol, []).append(key)
    return {
        "resamples": resamples,
        "seed": seed,
        "ci_method": "percentile bootstrap over source scenarios, 95%",
        **{
            kind: {
                name: _group([evaluations[k] for k in keys], seed, resamples)
                for name, keys in sorted(found.items())
            }
            for kind, found in groups.items()
        },
    }


def _group(evaluations: Sequence[Mapping[str, Any]], seed: int, resamples: int) -> dict[str, Any]:
    from lablang.executors.bootstrap import bootstrap_means, percentile_intervals

    by_scenario: dict[str, list[Mapping[str, Any]]] = {}
    for evaluation in evaluations:
        step = evaluation["stepwise"]
        by_scenario.setdefault(step["scenario"], []).append(step)
    names = sorted(by_scenario)
    keys = {"success": "success_rate", "progress": "progress", "premature": "premature_rate"}
    table = [[_mean(s[keys[c]] for s in by_scenario[n]) for c in _COLUMNS] for n in names]
    out: dict[str, Any] = {"scenarios": len(names), "tasks": len(evaluations)}
    means = bootstrap_means(table, seed=seed, resamples=resamples)
    for column, (low, high) in zip(_COLUMNS, percentile_intervals(means, clip=True), strict=True):
        value = _mean(row[_COLUMNS.index(column)] for row in table)
        out[column] = {"mean": round(value, 6), "ci": [round(low, 6), round(high, 6)]}
    triggered = [
        [s["post_trigger"] for s in by_scenario[n] if s["post_trigger"]["triggered"]] for n in names
    ]
    rates = [[_mean(p["response_rate"] for p in rows)] for rows in triggered if rows]
    timed = [
        [_mean(p["mean_seconds"] for p in rows if p["mean_seconds"] is not None)]
        for rows in triggered
        if any(p["mean_seconds"] is not None for p in rows)
    ]
    out["post_trigger"] = {
        "response_rate": _interval(rates, seed, resamples, clip=True),
        "seconds": _interval(timed, seed, resamples, clip=False),
    }
    return out


def _interval(
    table: list[list[float]], seed: int, resamples: int, clip: bool
) -> dict[str, Any] | None:
    from lablang.executors.bootstrap import bootstrap_means, percentile_intervals

    if not table:
        return None
    ((low, high),) = percentile_intervals(
        bootstrap_means(table, seed=seed, resamples=resamples), clip=clip
    )
    return {
        "mean": round(_mean(row[0] for row in table), 6),
        "ci": [round(low, 6), round(high, 6)],
        "scenarios": len(table),
    }


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0
