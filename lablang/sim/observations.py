"""Contract operations that no skill is, applied from what is observed.

A bound task's `operations:` map may name observations (`binding.OBSERVED`) as well as
skill calls: `stable(scale) as wait_stable` is applied each time the scale's display has
been constant for its stable window (`runtime.SCALE_STABLE_WINDOW`, 3 s), `reading(scale)
as record` when a step whose success spec reads the scale (`reading(scale, 30 g)`) passes.
Each is an `observed` event carrying its contract operation: not a choice the policy
made (it is not scored), but a state change the bound contract's judge applies
(`lablang.bound.ContractJudge`) and the episode's record keeps, so that `monitor` on the
record's contract operations reaches the contract's goal as the episode did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from attrs import define, field

from lablang.sim.events import Event
from lablang.sim.model import Call, Compare, Logic, Not, Ref, Task

if TYPE_CHECKING:
    from lablang.sim.runtime import Runtime


@define
class Observations:
    """Emits a bound task's observed contract operations (see the module docstring)."""

    rt: Runtime
    task: Task
    emit: Callable[[Event], None]
    settled: dict[str, float] = field(factory=dict)  # scale -> the stable period announced
    scales: tuple[str, ...] = field(init=False)

    def __attrs_post_init__(self) -> None:
        contract = self.task.contract
        self.scales = tuple(
            name
            for name in self.rt.scales
            if contract is not None and contract.operation_of(f"{name}.stable", None)
        )

    def __call__(self, step: str) -> None:
        """After a tick: a display that has now been stable for its window is observed."""
        rt = self.rt
        for name in self.scales:
            since = rt.scales[name].stable_since
            if self.settled.get(name) != since and rt.scale_stable(name):
                self.settled[name] = since
                self._observe(step, f"stable({name})", f"{name}.stable")

    def passed(self, step: str) -> None:
        """A step passed: each scale its success spec reads is observed read."""
        spec = next((s.success for s in self.task.steps if s.name == step), None)
        for name in dict.fromkeys(_read_scales(spec)):
            self._observe(step, f"reading({name})", f"{name}.reading")

    def _observe(self, step: str, operation: str, subject: str) -> None:
        contract = self.task.contract
        op = contract.operation_of(subject, None) if contract is not None else ""
        if op:
            time = self.rt.time  # its attempt names it: `seen@20.82:reading(scale)`
            self.emit(Event("observed", time, step, attempt=f"seen@{round(time, 6)}:{operation}",
                            operation=operation, object=subject, confirmed=True,
                            contract_op=op))  # fmt: skip


def _read_scales(expr: object) -> list[str]:
    """The entities `reading(X, ...)` calls in a spec read, in order."""
    match expr:
        case Call(func="reading", args=(Ref(name=name, path=()), *_)):
            return [name]
        case Call(args=args, kwargs=kwargs):
            return [n for a in (*args, *(v for _, v in kwargs)) for n in _read_scales(a)]
        case Logic(parts=parts):
            return [n for p in parts for n in _read_scales(p)]
        case Not(operand=operand):
            return _read_scales(operand)
        case Compare(left=left, right=right):
            return _read_scales(left) + _read_scales(right)
        case _:
            return []
