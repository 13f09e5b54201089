"""The one definition of a task's success and termination, per tick.

`StepProgress` is called after every tick of a running simulation: the current step
passes once the policy (or the expert) has done the step's required operations (the
Labference watch's `step_done`) and its success spec holds; steps pass in order, several
on one tick if their specs all hold. The task has *terminated* when its last step has
passed. Three users call this very object:

- `lablang.sim.env.TaskEnv.step` (and so `LabEnv`): its reward is `advance()`'s count and
  its `terminated` is `StepProgress.terminated`;
- the demonstrations' labels (`lablang.sim.demos.label_demo` replays the recorded actions
  in `LabEnv`, so a file's rewards and dones are this object's);
- the certifier: every expert episode (`lablang.sim.episode.EpisodeRunner`) runs one as a
  watcher of its runtime, `EpisodeResult.terminated` is its verdict, and
  `EpisodeResult.succeeded` (what `certify` counts) requires it, besides the expert's
  own stricter conditions (each step passed after its program, persisted to the end, no
  fault, side effect or premature touch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import define, field, frozen

from lablang.sim.model import Step
from lablang.sim.predicates import Evaluator, SpecError


@frozen
class ProgressState:
    """A `StepProgress` saved at a checkpoint (`state()` and `restore()`)."""

    index: int
    passed: tuple[str, ...]
    evaluator: Evaluator


@define
class StepProgress:
    """Which steps of a task have passed, in order, judged after each tick of `rt`.

    `watch` is the Labference watch whose `step_done(name)` says the required operations
    of a step were done (None: no operations are required); `on_pass(step)` is called as
    each step passes, after `index` has moved past it (the environment emits its
    completion event and arms the next step there)."""

    rt: Any  # lablang.sim.runtime.Runtime
    steps: tuple[Step, ...]
    watch: Any = None  # lablang.sim.labference.TransferWatch
    on_pass: Callable[[Step], None] | None = None
    index: int = 0
    passed: list[str] = field(factory=list)
    evaluator: Evaluator = field(default=None)

    def __attrs_post_init__(self) -> None:
        if self.evaluator is None:
            self.evaluator = Evaluator(self.rt)

    @property
    def terminated(self) -> bool:
        """Every step has passed (the environment's `terminated`)."""
        return self.index == len(self.steps)

    def advance(self) -> int:
        """Judge the simulation as it is now: pass every step, in order, whose operations
        are done and whose spec holds; returns how many passed (the environment's reward)."""
        count = 0
        while self.index < len(self.steps):
            step = self.steps[self.index]
            if self.watch is not None and not self.watch.step_done(step.name):
                break  # a step passes only once its required operations were done
            try:
                holds = step.success is None or self.evaluator.holds(step.success)
            except SpecError:
                holds = False
            if not holds:
                break
            self.passed.append(step.name)
            self.index += 1
            self.evaluator = Evaluator(self.rt)
            if self.on_pass is not None:
                self.on_pass(step)
            count += 1
        return count

    def __call__(self) -> None:
        """As a runtime watcher (`Runtime.watchers`): judge after every tick."""
        self.advance()

    def state(self) -> ProgressState:
        return ProgressState(self.index, tuple(self.passed), self.evaluator.copy())

    def restore(self, state: ProgressState) -> None:
        self.index, self.passed = state.index, list(state.passed)
        self.evaluator = state.evaluator.copy()
