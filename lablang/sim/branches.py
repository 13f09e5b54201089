"""Checkpoints and matched continuations (Labference).

`run_matched` runs a task's program up to a step, checkpoints the whole simulation
there, and continues twice from that one checkpoint: the *base* branch as the program
says, and the *supported* branch with one registered intervention (a decision, a target
pose or a skill's execution, see `lablang.sim.interventions`). Both branches share
everything before the checkpoint bit for bit, and each is scored for choice, execution
and completion separately.

>>> from lablang.sim import load_tasks
>>> from lablang.sim.interventions import Execution
>>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
>>> m = run_matched(tasks["move_tube"], 1, "move", Execution("move", 1, "failed"))
>>> m.base.succeeded, m.supported.succeeded, m.changed()
(True, False, ['completion', 'execution'])
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

    def changed(self) -> list[str]:
        """The measures (choice, execution, completion) that differ between the branches."""
        a, b = self.base.score(), self.supported.score()
        return sorted(k for k in a if a[k] != b[k])

    def report(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "seed": self.seed,
            "checkpoint": self.at_step,
            "intervention": self.intervention.describe(),
            "base": self.base.score(),
            "supported": self.supported.score(),
            "changed": self.changed(),
        }


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
    runner = EpisodeRunner(task, seed, interventions=before)
    runner.run(until=at_step)
    checkpoint = runner.checkpoint()
    runner.run()
    base = runner.finish()
    runner.restore(checkpoint, (*before, intervention))
    runner.run()
    supported = runner.finish()
    return Matched(task.name, seed, at_step, intervention, base, supported)
