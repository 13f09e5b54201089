"""From protocol to task, traced: a task that says `realizes PROTOCOL` is checked against
the protocol (every step realized in order or deferred, containers and materials bound
to the scene, quantities agreeing), and a protocol diff lists the task steps it affects.

The simulation and the protocols are sibling backends that never import each other;
this package joins them, as `lablang.bound` joins the simulation and the contracts.
Stages: `check.check_program` (the driver's hook for scenes and tasks),
`steps.check_trace` (one task against its protocol), `affected.affected_task_steps`
(a protocol diff -> the task steps it affects).
"""

from __future__ import annotations

from lablang.exports import lazy_exports

__all__ = ["affected_task_steps", "check_trace", "traced_tasks"]

_WHERE = {
    "affected_task_steps": "lablang.trace.affected",
    "check_trace": "lablang.trace.steps",
    "traced_tasks": "lablang.trace.check",
}

__getattr__ = lazy_exports("lablang.trace", _WHERE)
