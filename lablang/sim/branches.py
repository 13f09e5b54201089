"""Checkpoints and matched continuations (Labference).

`run_matched` runs a task's program up to a step, checkpoints the whole simulation
there, and continues twice from that one checkpoint: the *base* branch as the program
says, and the *supported* branch with one registered intervention (a decision, a target
pose or a skill's execution, see `lablang.sim.interventions`). Both branches share
everything before the checkpoint bit for bit, and each runs every remaining step to the
end, also after a step failed (as `lablang.sim.evidence.run_varied` does), so that later
choices are compared too; each is scored for choice, execution and completion separately.

>>> from lablang.sim import load_tasks
>>> from lablang.sim.interventions import Execution
>>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
>>> m = run_matched(tasks["move_tube"], 1, "move", Execution("move", 1, "failed"))
>>> m.base.succeeded, m.supported.succeeded, m.changed()  # the release never happened
(True, False, ['choice', 'completion', 'execution'])
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from lablang.sim.episode import EpisodeResult, EpisodeRunner
from lablang.sim.interventions import Intervention
from lablang.sim.model import Task


@frozen
class Matched:
    task: str
    seed: int
    at_step: str
    intervention: Intervention
    base: EpisodeResult
    supported: EpisodeResult

    def changed(self, judge: Any = None) -> list[str]:
        """The measures (choice, execution, completion) whose values differ between the
        branches: counts and statuses, not the times or attempt ids behind them (with
        `judge`, choices against a bound contract: `lablang.bound.judge_for`)."""
        a, b = self.base.score(judge), self.supported.score(judge)
        return sorted(k for k in a if measure_values(a, k) != measure_values(b, k))

    def report(self, judge: Any = None) -> dict[str, Any]:
        return {
            "task": self.task,
            "seed": self.seed,
            "checkpoint": self.at_step,
            "intervention": self.intervention.describe(),
            "base": self.base.score(judge),
            "supported": self.supported.score(judge),
            "changed": self.changed(judge),
        }


def measure_values(score: dict[str, Any], measure: str) -> tuple[Any, ...]:
    """What a measure says, without when or by which attempt: choice and execution by
    their counts and which opportunities were incorrect or unexecuted, completion by its
    status and credit."""
    part = score[measure]
    match measure:
        case "choice":
            wrong = tuple(c["opportunity"] for c in part["frozen"] if not c["correct"])
            return part["reached"], part["correct"], wrong
        case "execution":
            missed = tuple(c["opportunity"] for c in score["choice"]["frozen"] if not c["executed"])
            return part["executed"], part["pressed"], missed
        case "completion":
            return part["status"], part["credit"], tuple(part["side_effects"])
        case _:
            return tuple(sorted(part.items(), key=str)) if isinstance(part, dict) else (part,)


def run_matched(
    task: Task,
    seed: int,
    at_step: str,
    intervention: Intervention,
    *,
    before: tuple[Intervention, ...] = (),
) -> Matched:
    """Checkpoint before `at_step` and run a base and a supported branch from it.

    `before` are interventions applied in the shared prefix (both branches see them).
    """
    if at_step not in [s.name for s in task.steps]:
        raise ValueError(f"task `{task.name}` has no step `{at_step}`")
    runner = EpisodeRunner(task, seed, interventions=before, keep_going=True)
    runner.run(until=at_step)
    checkpoint = runner.checkpoint()
    runner.run()
    base = runner.finish()
    runner.restore(checkpoint, (*before, intervention))
    runner.run()
    supported = runner.finish()
    return Matched(task.name, seed, at_step, intervention, base, supported)
