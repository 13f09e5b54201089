"""Weighted rubrics: items graded 0/1/2, machine checks, judge prompts and grading.

Stages: `frontend.build_rubrics` (AST -> model), `evaluate.evaluate_check` (an item's
check against an answer), `prompts.judge_prompts` (one prompt per item) and
`grading` (`read_judgments` -> `collect_grades` -> `grade`).

The names are imported when first used, so `lablang check` does not pay for grading.
"""

from __future__ import annotations

from lablang.exports import lazy_exports

__all__ = [
    "Item",
    "Rubric",
    "best_of_k",
    "cluster_bootstrap",
    "collect_grades",
    "grade",
    "judge_prompts",
    "node_value",
    "read_judgments",
]

_WHERE = {
    "Item": "lablang.rubrics.model",
    "Rubric": "lablang.rubrics.model",
    "best_of_k": "lablang.rubrics.grading",
    "cluster_bootstrap": "lablang.rubrics.grading",
    "collect_grades": "lablang.rubrics.grading",
    "grade": "lablang.rubrics.grading",
    "judge_prompts": "lablang.rubrics.prompts",
    "node_value": "lablang.rubrics.model",
    "read_judgments": "lablang.rubrics.grading",
}


__getattr__ = lazy_exports("lablang.rubrics", _WHERE)
