""" "Did you mean": the closest name among the candidates of the right kind."""

from __future__ import annotations

from collections.abc import Iterable


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
