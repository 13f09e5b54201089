"""Judge prompts: one prompt per leaf item, each item judged alone (as HealthBench does).

lablang calls no model: it writes the prompts; a harness sends them to a judge and
collects one judgment line per prompt for `lablang grade`.
"""

from __future__ import annotations

from lablang.rubrics.model import Item, Rubric

_LEVELS = {2: "fully met", 1: "partly met", 0: "not met"}


def judge_prompts(
    rubric: Rubric,
    answer: str,
    *,
    protocol: str = "",
    attempt: str = "",
    published: str | None = None,
) -> list[dict[str, object]]:
    """One record per leaf item: its id, weight, machine check (if any) and the prompt.

    `published` is the published protocol the task modifies; the prompt then carries it
    before the answer, so a free-text answer can be judged against what it changes.

    >>> from fractions import Fraction
    >>> r = Rubric(name="r", question="Q?", items=(Item(id="a", criterion="does A",
    ...                                                  weight=Fraction(2)),))
    >>> [p["item"] for p in judge_prompts(r, "answer text")]
    ['a']
    """
    records = []
    for item, ancestors in rubric.walk():
        if not item.is_leaf:
            continue
        records.append(
            {
                "rubric": rubric.name,
                "protocol": protocol,
                "attempt": attempt,
                "item": item.id,
                "weight": _number(item.weight),
                "tags": list(item.tags),
                "machine_check": item.check_text,
                "prompt": _prompt(rubric, item, ancestors, answer, published),
                "response_format": {"item": item.id, "score": "0|1|2", "explanation": "string"},
            }
        )
    return records


def _prompt(
    rubric: Rubric, item: Item, ancestors: tuple[Item, ...], answer: str, published: str | None
) -> str:
    levels = dict(item.levels)
    level_lines = [f"  {g}: {levels.get(g, _LEVELS[g])}" for g in (2, 1, 0)]
    penalty = item.weight < 0
    parts = [
        "You are grading one criterion of a rubric for a laboratory protocol answer.",
        "Judge only this criterion; ignore everything else about the answer.",
        "",
    ]
    if rubric.question:
        parts += ["The task given to the answerer:", rubric.question, ""]
    if ancestors:
        parts += [
            "This criterion is part of: " + " > ".join(f"{a.criterion or a.id}" for a in ancestors),
            "",
        ]
    parts += [
        f"Criterion `{item.id}`: {item.criterion or item.id}",
    ]
    if penalty:
        parts.append(
            "This criterion describes a mistake. Grade how far the answer makes the "
            "mistake: 2 if it clearly does, 0 if it does not."
        )
    parts += ["Grades:", *level_lines, ""]
    if published is not None:
        parts += [
            f"The published protocol{f' `{rubric.source}`' if rubric.source else ''}, "
            "which the answer modifies:",
            "<<<",
            published.rstrip("\n"),
            ">>>",
            "",
        ]
    parts += [
        "The answer:",
        "<<<",
        answer.rstrip("\n"),
        ">>>",
        "",
        'Reply with JSON only: {"item": "' + item.id + '", "score": 0 or 1 or 2, '
        '"explanation": "one or two sentences"}',
    ]
    return "\n".join(parts)


def _number(value: object) -> object:
    from fractions import Fraction

    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value
