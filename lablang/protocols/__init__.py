"""Protocol procedures with exact quantities, their checks and the semantic diff.

Stages: `frontend.build_protocols` (AST -> model), `checks.check_protocol` (values,
ranges, materials, volume ledger), `diff.semantic_diff` (old, new -> changes) and
`task.draft_task` (diff -> a BenchBench-style task with a rubric skeleton).

The names are imported when first used, so `lablang check` (which needs only the
checks) does not pay for the diff, the task drafter and the formatter it uses.
"""

from __future__ import annotations

from lablang.exports import lazy_exports

__all__ = [
    "Protocol",
    "ProtocolDiff",
    "Step",
    "check_protocol",
    "draft_task",
    "semantic_diff",
    "step_parameters",
]

_WHERE = {
    "Protocol": "lablang.protocols.model",
    "ProtocolDiff": "lablang.protocols.diff",
    "Step": "lablang.protocols.model",
    "check_protocol": "lablang.protocols.checks",
    "draft_task": "lablang.protocols.task",
    "semantic_diff": "lablang.protocols.diff",
    "step_parameters": "lablang.protocols.model",
}


__getattr__ = lazy_exports("lablang.protocols", _WHERE)
