""" "Did you mean": the closest name among the candidates of the right kind."""

from __future__ import annotations

from collections.abc import Iterable

from lablang import ast


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to `name`, if one is close enough to be a likely typo.

    >>> did_you_mean("TS0", ["TSO", "bead_dT"])
    'TSO'
    >>> did_you_mean("zzz", ["TSO"]) is None
    True
    """
    pool = [c for c in candidates if c != name]
    if not pool:
        return None
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    best = process.extractOne(name, pool, scorer=Levenshtein.normalized_similarity)
    if best is None:
        return None
    choice, score, _ = best
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered:
        return lowered[name.lower()]
    return str(choice) if score >= 0.5 else None


def reserved_name(
    members: tuple[ast.Member, ...], index: int, source_text: str
) -> tuple[str, ast.Member, int] | None:
    """The reserved word that `members[index]`, a nameless `step` (of a task or a protocol) or `event`, was meant to
    be named by, the member it opens and the index of the first member past it. The
    grammar reads `step hold { ... }` as a `step` without a name followed by a `hold`
    entry, since `hold` is a keyword (so is every word `reserved_words` lists), and the
    rest of that line (`at 2 s { ... }` of an event) as further members."""
    member = members[index]
    if not isinstance(member, ast.Entry) or member.name is not None or member.body is not None:
        return None
    if index + 1 >= len(members):
        return None
    after = members[index + 1]
    if not isinstance(after, ast.Entry | ast.ExprEntry):
        return None
    if source_text[member.span.end : after.span.start].strip():
        return None
    line_end = source_text.find("\n", after.span.start)
    line_end = len(source_text) if line_end < 0 else line_end
    past = index + 2
    while past < len(members) and members[past].span.start < line_end:
        past += 1
    return after.keyword, after, past
