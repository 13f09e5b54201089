"""Weighted rubrics: items graded 0/1/2, machine checks, judge prompts and grading.

Stages: `frontend.build_rubrics` (AST -> model), `evaluate.evaluate_check` (an item's
check against an answer), `prompts.judge_prompts` (one prompt per item) and
`grading` (`read_judgments` -> `collect_grades` -> `grade`).
"""

from lablang.rubrics.grading import (
    best_of_k,
    cluster_bootstrap,
    collect_grades,
    grade,
    read_judgments,
)
from lablang.rubrics.model import Item, Rubric, node_value
from lablang.rubrics.prompts import judge_prompts

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
