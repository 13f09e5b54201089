"""Registered interventions for matched continuations (Labference).

From one checkpoint, a *base* branch continues as the task's program says and a
*supported* branch continues with one interface output replaced:

* `Decision(step, call, argument, value)`: the agent's decision. The call's argument is
  replaced by `value` before the choice is recorded, so the choice record shows the
  replaced target (and is scored against the target the actual state calls for).
* `TargetPose(step, call, argument, value)`: the execution's target pose. The choice stands
  (it is recorded as the program made it), but the skill is executed towards `value`,
  as when a hand slips to the neighbouring slot.
* `Execution(step, call, status)`: the skill's execution. The skill is not run; its result
  is `status` ("succeeded" or "failed"), as if a controller reported it.

`call` counts the skill calls of the step's program from 0; `argument` counts the call's
positional arguments from 0. Values are expressions of the task model (`lablang.sim.model`).

>>> from lablang.sim.model import Call, Ref
>>> d = Decision("place_B", 1, 1, Call("opposite", (Ref("rotor"), Ref("rotor", ("slot", 0)))))
>>> INTERVENTIONS["decision"] is Decision, d.describe()
(True, 'decision: place_B call 1 argument 1 := opposite(rotor, rotor.slot[0])')
"""

from __future__ import annotations

from typing import TypeAlias

from attrs import frozen

from lablang.sim.model import Expr


@frozen
class Decision:
    step: str
    call: int
    argument: int
    value: Expr

    def describe(self) -> str:
        from lablang.sim.predicates import expr_text

        return (
            f"decision: {self.step} call {self.call} argument {self.argument} := "
            f"{expr_text(self.value)}"
        )


@frozen
class TargetPose:
    step: str
    call: int
    argument: int
    value: Expr

    def describe(self) -> str:
        from lablang.sim.predicates import expr_text

        return f"target pose: {self.step} call {self.call} executes towards {expr_text(self.value)}"


@frozen
class Execution:
    step: str
    call: int
    status: str = "failed"  # "succeeded" | "failed"

    def __attrs_post_init__(self) -> None:
        if self.status not in ("succeeded", "failed"):
            raise ValueError(
                f"an execution intervention reports `succeeded` or `failed`, not `{self.status}`"
            )

    def describe(self) -> str:
        return f"execution: {self.step} call {self.call} is not run and reports {self.status}"


Intervention: TypeAlias = Decision | TargetPose | Execution

INTERVENTIONS: dict[str, type[Decision] | type[TargetPose] | type[Execution]] = {
    "decision": Decision,
    "target": TargetPose,
    "execution": Execution,
}
