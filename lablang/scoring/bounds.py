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
    counts: list[tuple[int, str, str]] = []  # (count, what, limit)
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
            counts.append((count, f"{key} over its workflows", "max_scored_states"))
        counts.append((len(workflows), "workflows", "max_scored_states"))
    if task == "t2":
        oligos = document.get("oligos")
        if not isinstance(oligos, list):
            return None
        counts.append((len(oligos), "oligos", "max_scored_oligos"))
        bases = _text_length(oligos, "sequence")
        counts.append((bases, "characters of oligo sequence", "max_scored_oligo_bases"))
    if task == "t1":
        libraries = document.get("libraries")
        entries = libraries if isinstance(libraries, list) else [document]
        bases = _text_length(entries, "library_sequence")
        counts.append((bases, "bases of library sequence", "max_scored_sequence_bases"))
    for count, what, name in counts:
        bound = getattr(limits, name)
        if count > bound:
            return f"{task.upper()} has {count} {what}, more than {bound} (the limit is `{name}`)"
    return None


def _text_length(items: list[Any], key: str) -> int:
    """Characters of the string field `key`, summed over the records that have one."""
    return sum(
        len(item[key])
        for item in items
        if isinstance(item, dict) and isinstance(item.get(key), str)
    )
