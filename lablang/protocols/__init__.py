"""Protocol procedures with exact quantities, their checks and the semantic diff.

Stages: `frontend.build_protocols` (AST -> model), `checks.check_protocol` (values,
ranges, materials, volume ledger), `diff.semantic_diff` (old, new -> changes) and
`task.draft_task` (diff -> a BenchBench-style task with a rubric skeleton).
"""

from lablang.protocols.checks import check_protocol
from lablang.protocols.diff import ProtocolDiff, semantic_diff
from lablang.protocols.model import Protocol, Step, step_parameters
from lablang.protocols.task import draft_task

__all__ = [
    "Protocol",
    "ProtocolDiff",
    "Step",
    "check_protocol",
    "draft_task",
    "semantic_diff",
    "step_parameters",
]
