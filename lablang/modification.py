"""Protocol modification tasks: the protocols and rubrics backends meet here.

`draft_verified_task(old, new)` drafts the task of a protocol change
(`lablang.protocols.task.draft_task`) and keeps only the machine checks that tell the
two protocols apart: a positive item's check must hold on the modified protocol and fail
on the published one, a penalty's the other way round. Every other drafted check is left
out of the draft with a note, so no drafted check is already met by the published protocol.
"""

from __future__ import annotations

from lablang.diagnostics import Report
from lablang.protocols.model import Protocol


def draft_verified_task(old: Protocol, new: Protocol) -> str:
    """The drafted task text, every machine check in it verified on both protocols.

    >>> from lablang.protocols.model import Step, Wait
    >>> from lablang.protocols.quantities import Amount
    >>> def rest(t): return Protocol(name="p", steps=(Step(name="rest",
    ...     action=Wait(duration=Amount.parse(t, "min"))),))
    >>> [line.strip() for line in draft_verified_task(rest("5"), rest("10")).splitlines()
    ...  if "check:" in line]
    ['check: answer.step(rest).duration == 10 min', 'check: answer.step(rest).duration == 5 min']
    """
    from lablang.protocols.diff import semantic_diff
    from lablang.protocols.task import candidate_checks, draft_task

    diff = semantic_diff(old, new)
    verdicts = check_verdicts(candidate_checks(diff, old, new), old, new)
    return draft_task(
        diff, old, new, verify=lambda check, penalty: verdicts.get((check, penalty), False)
    )


def check_verdicts(
    checks: list[tuple[str, bool]], old: Protocol, new: Protocol
) -> dict[tuple[str, bool], bool]:
    """For each (check text, is a penalty's): whether it holds on exactly the protocol it
    should, the modified one for an item and the published one for a penalty."""
    from lablang.protocols.model import answer_view
    from lablang.protocols.quantities import Amount
    from lablang.rubrics.evaluate import evaluate_check
    from lablang.rubrics.front import build_rubrics
    from lablang.source import Source
    from lablang.syntax import parse

    if not checks:
        return {}
    # one item per check, so that each is parsed and validated as a rubric check is
    body = "".join(f'  item c{n} "" {{ check: {text} }}\n' for n, (text, _) in enumerate(checks))
    report = Report()
    source = Source("rubric verify {\n" + body + "}\n", "checks.lab")
    rubrics = build_rubrics(parse(source, report), source, report)
    parsed = {item.id: item.check for item in rubrics[0].leaves()} if rubrics else {}
    before, after = answer_view(old), answer_view(new)
    verdicts: dict[tuple[str, bool], bool] = {}
    for n, (text, penalty) in enumerate(checks):
        expr = parsed.get(f"c{n}")
        if expr is None:
            verdicts[(text, penalty)] = False
            continue
        on_old = evaluate_check(expr, before, Amount.parse).passed
        on_new = evaluate_check(expr, after, Amount.parse).passed
        verdicts[(text, penalty)] = (on_old, on_new) == (
            (True, False) if penalty else (False, True)
        )
    return verdicts
