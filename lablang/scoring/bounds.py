"""How much one scoring run compares, bounded before any comparison starts.

Scoring is quadratic or worse in what it compares: every predicted state against every
truth state (then an assignment), every oligo against every oligo (the grader's family
collapse: 600 oligos took 10 s), and edit distances whose cost is the product of two
sequence lengths (a library, or an oligo against every truth oligo). A 10 MB Task 3
pair once ran past 300 s and 3.8 GB. Documents past these bounds are refused with E0530
naming the limit (`max_scored_states`, `max_scored_oligos`, `max_scored_oligo_bases`,
`max_scored_sequence_bases` in docs/limits.md): a prediction scores 0 on that task, a
truth leaves the task unscored.
"""

from __future__ import annotations

from typing import Any

from lablang.limits import DEFAULT_LIMITS, Limits


def oversized(task: str, document: Any, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """Why a task document is too large to score, or None.

    >>> oversized("t3", {"workflows": [{"states": [{}] * 300, "transitions": []}]})
    'T3 has 300 states over its workflows, more than 200 (the limit is `max_scored_states`)'
    """
    if not isinstance(document, dict):
        return None
    if task == "t3":
        workflows = document.get("workflows")
        if not isinstance(workflows, list):
            return None
        for key in ("states", "transitions"):
            count = sum(
                len(w[key])
                for w in workflows
                if isinstance(w, dict) and isinstance(w.get(key), list)
            )
            if count > limits.max_scored_states:
                return (
                    f"T3 has {count} {key} over its workflows, more than "
                    f"{limits.max_scored_states} (the limit is `max_scored_states`)"
                )
        if len(workflows) > limits.max_scored_states:
            return f"T3 has {len(workflows)} workflows (the limit is `max_scored_states`)"
    if task == "t2":
        oligos = document.get("oligos")
        if not isinstance(oligos, list):
            return None
        if len(oligos) > limits.max_scored_oligos:
            return (
                f"T2 has {len(oligos)} oligos, more than {limits.max_scored_oligos} "
                "(the limit is `max_scored_oligos`)"
            )
        bases = sum(
            len(o["sequence"])
            for o in oligos
            if isinstance(o, dict) and isinstance(o.get("sequence"), str)
        )
        if bases > limits.max_scored_oligo_bases:
            return (
                f"T2 has {bases} characters of oligo sequence, more than "
                f"{limits.max_scored_oligo_bases} (the limit is `max_scored_oligo_bases`)"
            )
    if task == "t1":
        libraries = document.get("libraries")
        entries = libraries if isinstance(libraries, list) else [document]
        total = sum(
            len(e.get("library_sequence") or "")
            for e in entries
            if isinstance(e, dict) and isinstance(e.get("library_sequence"), str)
        )
        if total > limits.max_scored_sequence_bases:
            return (
                f"T1 has {total} bases of library sequence, more than "
                f"{limits.max_scored_sequence_bases} (the limit is `max_scored_sequence_bases`)"
            )
    return None
