"""LibStructBench segments: a sequence split by provenance into the segments the schemas write.

Shared by the Task 1-3 export (`libstruct.py`, `workflow_export.py`), the pictures and
the seqspec export, so that a segment is cut the same way everywhere.

>>> from lablang.molecular.sequence import parse_notation
>>> [s["placeholder"] for s in segments_of(parse_notation("ACGT [CB:16] [CDNA']"))[1:]]
['[CB:16]', '[CDNA]']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from lablang.molecular.sequence import (
    Bases,
    Homopolymer,
    Modification,
    Part,
    Seq,
    Symbol,
    Thioate,
    plain,
    render_libstruct,
    unflag,
)
from lablang.syntax import reserved_words

if TYPE_CHECKING:
    from lablang.molecular.model import OligoDef

# structural roles a LibStructBench paired region may include
PAIRED_ROLES = frozenset({"paired_region", "mixed", "unknown"})


def library_sequence(seq: Seq) -> str:
    """A library as LibStructBench writes it: placeholders without orientation marks."""
    return render_libstruct(unflag(plain(seq)))


def segments_of(
    seq: Seq,
    token_roles: list[str] | None = None,
    oligos: AbstractSet[str] | None = None,
    sources: Mapping[str, tuple[str, ...]] | None = None,
) -> list[dict[str, Any]]:
    """Split a sequence into LibStructBench segments by provenance label.

    Parts that came from one named segment or oligo stay together; unlabelled parts
    (a literal anchor, a payload) are segments of their own. With `oligos` (the Task 2
    ids), a segment's `oligo_derivations` name only those: a label naming a `segment`
    declaration is no oligo, and the grader rejects a derivation of an id Task 2 lacks.
    With `sources` (a part's label -> the oligos a step incorporated it with, for parts
    an oligo took from a segment or another oligo), the provenance is those oligos: a
    bead oligo's Read 1 part derives from the bead oligo, not from the sequencing primer
    its sequence was written with.
    """
    groups: list[tuple[str | None, list[Part]]] = []
    for part in seq.parts:
        if isinstance(part, Modification | Thioate):
            if groups:
                groups[-1][1].append(part)
            else:
                groups.append((None, [part]))
            continue
        label = getattr(part, "label", None)
        if groups and label is not None and groups[-1][0] == label:
            groups[-1][1].append(part)
        else:
            groups.append((label, [part]))
    out: list[dict[str, Any]] = []
    position = 0
    for label, parts in groups:
        piece = Seq.of(parts)
        width = len(piece)
        role = _role_of(label, parts)
        runs: list[tuple[int, int, str | None]] = [(0, width, None)]
        if token_roles is not None:
            # a segment is cut where its structural role changes (paired, overhang), so
            # each exported segment has one role: the grader's pairing rules need it
            # a modification alone takes no position: it has the role of the base it sits on
            # (the next one; the last one at a 3' end), so a 5' phosphate is not "unknown",
            # which would put it in a paired region beside an overhang
            beside = token_roles[min(position, len(token_roles) - 1)] if token_roles else "unknown"
            runs = list(_runs(token_roles[position : position + width])) or [(0, width, beside)]
            whole = isinstance(parts[0], Symbol) or (
                isinstance(parts[0], Homopolymer) and parts[0].count is None
            )
            if len(runs) > 1 and len(parts) == 1 and whole:
                runs = [(0, width, "mixed")]  # a placeholder cannot be cut
        position += width
        for start, stop, structural in runs:
            sub = piece if (start, stop) == (0, width) else piece.slice(start, stop)
            record: dict[str, Any] = {"segment_id": f"seg{len(out) + 1}", "role": role}
            if structural is not None:
                record["structural_role"] = structural
            sub_parts = sub.parts
            if len(sub_parts) == 1 and isinstance(sub_parts[0], Symbol):
                record["placeholder"] = render_libstruct(unflag(sub))
            elif (
                len(sub_parts) == 1
                and isinstance(sub_parts[0], Homopolymer)
                and sub_parts[0].count is None
            ):
                record["placeholder"] = render_libstruct(sub)
            else:
                record["sequence"] = render_libstruct(unflag(sub))
            derivations = _derivations(label, sources)
            if oligos is not None:
                derivations = [d for d in derivations if d["oligo_id"] in oligos]
            if derivations:
                record["oligo_derivations"] = derivations
            out.append(record)
    return out


def _runs(roles: list[str]) -> list[tuple[int, int, str | None]]:
    """Maximal runs of equal roles as (start, stop, role).

    >>> _runs(["paired_region", "paired_region", "three_prime_overhang"])
    [(0, 2, 'paired_region'), (2, 3, 'three_prime_overhang')]
    """
    runs: list[tuple[int, int, str | None]] = []
    for index, role in enumerate(roles):
        if runs and runs[-1][2] == role:
            runs[-1] = (runs[-1][0], index + 1, role)
        else:
            runs.append((index, index + 1, role))
    return runs


def _role_of(label: str | None, parts: list[Part]) -> str:
    if label:
        return label.rstrip("'")
    part = parts[0]
    match part:
        case Symbol(role=role):
            return role.lower().replace("_", " ")
        case Homopolymer(base=base):
            return f"poly({base})"
        case Bases(text=text) if set(text) <= set("NVBDH"):
            return "anchor"
        case Bases(text="A"):
            return "A-tail"  # the 1-nt overhang `a_tail` adds, as LibStructBench names it
        case Bases(text=text) if len(set(text)) == 1 and len(text) >= 8:
            return f"poly({text[0]})"
        case _:
            return "sequence"


def _derivations(
    label: str | None, sources: Mapping[str, tuple[str, ...]] | None
) -> list[dict[str, str]]:
    if label and sources and label.rstrip("'") in sources:
        orientation = "reverse_complement" if label.endswith("'") else "same_orientation"
        return [
            {"oligo_id": oligo, "orientation_to_source": orientation}
            for oligo in sources[label.rstrip("'")]
        ]
    derivation = _derivation(label)
    return [derivation] if derivation else []


def incorporating_oligos(
    oligos: Iterable[OligoDef], used: AbstractSet[str]
) -> dict[str, tuple[str, ...]]:
    """Per part label, the oligos among `used` (those a step adds) whose sequence holds a
    part with that label taken from a segment or an oligo no step adds (a sequencing
    primer), or an oligo no step adds whose sequence a step's oligo holds (a state that
    writes `{p7'}` where the indexing primer put P7): the sources `segments_of` cites
    for it, in the oligos' order."""
    sources: dict[str, tuple[str, ...]] = {}
    oligos = list(oligos)
    texts = {o.name: library_sequence(o.strands[0]) for o in oligos if o.strands}
    for oligo in oligos:
        if oligo.name not in used:
            if texts.get(oligo.name):
                holders = tuple(
                    o.name for o in oligos if o.name in used and texts[oligo.name] in texts[o.name]
                )
                if holders:
                    sources[oligo.name] = holders
            continue
        for strand in oligo.strands:
            for part in strand.parts:
                label = getattr(part, "label", None)
                if not label or label.split(".")[0].rstrip("'") in used:
                    continue
                key = label.rstrip("'")
                if oligo.name not in sources.get(key, ()):
                    sources[key] = (*sources.get(key, ()), oligo.name)
    return sources


def _derivation(label: str | None) -> dict[str, str] | None:
    if not label or label.startswith(("copy of", "non-templated", "anchor", "A-tail")):
        return None
    oligo = label.split(".")[0].rstrip("'")
    orientation = "reverse_complement" if label.endswith("'") else "same_orientation"
    return {"oligo_id": oligo, "orientation_to_source": orientation}


def _ident(text: str) -> str:
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text.strip()) or "unnamed"
    if ident[0].isdigit():
        ident = "x" + ident
    if ident in reserved_words():
        ident += "_"
    return ident
