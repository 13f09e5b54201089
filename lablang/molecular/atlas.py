"""Compare a derived library with a library drawn on a scg_lib_structs page.

The pages draw a final library as two strands of coloured segments (see
`scripts/extract_atlas.py`, which stores them in `tests/data/atlas/`): concrete bases,
runs of `N` for barcodes, UMIs and indexes, `XXX...XXX` for the insert, `(dT)` / `(pA)`
for an oligo-dT and its poly(A), the top strand 5'->3' and the bottom strand under it,
3'->5'. A derived library matches a drawn one when, on each strand, position for
position:

- a concrete base equals the drawn letter (an `N` drawn for a designed `N` matches);
- a barcode, UMI or index of length L (or a range) is drawn as that many `N`s; `N`s
  the page tags `cbc` are not a UMI, and `N`s it tags `umi` are not a cell barcode;
- a payload is drawn as `X` (or as `N...N`, a run of unknown length; a few bases drawn
  between two stretches of `X` show a context inside it and are part of it); degenerate bases
  touching it (an anchor's `VN`, a random primer's `N`s) may be drawn inside the `X` or
  beside it, and a `V` or `B` drawn beside it may be the insert's own first base;
- `(dT)`/`(pA)` is any run of T/A (a homopolymer or six or more letters); `(T)30` is
  exactly thirty.

`difference(molecule, drawn)` gives the first place they differ, or None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import evolve, frozen

from lablang.molecular.molecule import Duplex, Molecule, Single
from lablang.molecular.sequence import (
    COMPLEMENT,
    DEGENERATE,
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Ribo,
    Seq,
    Symbol,
    Thioate,
)

__all__ = ["bench_sequence", "difference", "drawing_errors", "drawn_tokens", "strand_tokens"]

MIN_DRAWN_RUN = 6  # a homopolymer drawn as `(dT)` is at least this many bases
UMI_ROLES = ("UMI",)


@frozen
class Drawn:
    """One position of a drawn strand: a letter, a payload `X`, or a run `(dT)`/`(T)30`."""

    kind: str  # "base" | "payload" | "run" | "vrun" (`N.NNN`: unknown bases, any number)
    text: str  # the letter, or the run's base
    tag: str = ""  # the page's segment tag (`cbc`, `umi`, `s5`, ...)
    count: int | None = None  # a run's length when drawn (`(T)30`)


@frozen
class Have:
    """One position of a derived strand: a base, a payload, a run or a symbol."""

    kind: str  # "base" | "payload" | "run" | "symbol"
    text: str  # base letter, run base, or the symbol's role
    low: int = 1
    high: int | None = 1


RUN = re.compile(r"\((d|p)?([ACGTU])\)(\d*)")


def drawn_tokens(segments: Sequence[Mapping[str, str]]) -> tuple[Drawn, ...]:
    """The positions of a drawn strand, from its segments as the extractor stores them."""
    out: list[Drawn] = []
    for segment in segments:
        tag, text = segment.get("tag") or "", segment["text"]
        i = 0
        while i < len(text):
            char = text[i]
            run = RUN.match(text, i)
            if run:
                base = run.group(2).replace("U", "T")
                count = int(run.group(3)) if run.group(3) else None
                out.append(Drawn("run", base, tag, count))
                i = run.end()
            elif char == "[":
                close = text.find("]", i)
                close = len(text) if close < 0 else close
                out.extend(_bracket(text[i + 1 : close], tag))
                i = close + 1
            elif char == "N" and _dotted_n_run(text, i) > i:
                out.append(Drawn("vrun", "N", tag))  # `N.NNNN`: a run of unknown length
                i = _dotted_n_run(text, i)
            elif char in "X.":
                j = i
                while j < len(text) and text[j] in "X.":
                    j += 1
                out.append(Drawn("payload", "X", tag))
                i = j
            elif char.isalpha():
                base = char.upper().replace("U", "T")
                out.append(Drawn("base", base, tag))
                i += 1
            else:
                i += 1  # `*` (a drawn thioate or nick), `-`, `|`: no position
    return _join_insert(out)


MAX_DRAWN_CONTEXT = 3  # bases a page draws inside an insert to show a context (`XXXCGXXX`)


def _join_insert(drawn: list[Drawn]) -> tuple[Drawn, ...]:
    """`XXX...XXXCGXXX...XXX`: a few bases drawn between two stretches of insert show a
    sequence context inside it (a methylated CpG, a converted C); they are the insert."""
    out: list[Drawn] = []
    for token in drawn:
        if token.kind == "payload" and out:
            k = len(out) - 1
            while k >= 0 and out[k].kind == "base" and len(out) - 1 - k < MAX_DRAWN_CONTEXT:
                k -= 1
            if k >= 0 and out[k].kind == "payload" and k < len(out) - 1:
                del out[k + 1 :]
                continue
        out.append(token)
    return tuple(out)


def _dotted_n_run(text: str, i: int) -> int:
    """The end of an `N` run with dots in it (`N.NNNN`, `N...NN`), or `i` if it has none."""
    j = i
    while j < len(text) and text[j] in "N.":
        j += 1
    while j > i and text[j - 1] == ".":
        j -= 1
    return j if "." in text[i:j] else i


def _bracket(words: str, tag: str) -> list[Drawn]:
    """`[16-bp cell barcode]` is sixteen N positions; `[sgRNA-Spacer]` is a payload."""
    m = re.match(r"\s*(\d+)\s*-?\s*(?:bp|nt)", words)
    if not m:
        return [Drawn("payload", "X", tag)]
    role = "umi" if "UMI" in words.upper() else (tag or "cbc")
    return [Drawn("base", "N", role)] * int(m.group(1))


def strand_tokens(seq: Seq) -> tuple[Have, ...]:
    """The positions of a derived strand 5'->3' (modifications take none)."""
    out: list[Have] = []
    for part in seq.parts:
        match part:
            case Bases(text=text):
                out.extend(Have("base", b) for b in text)
            case Homopolymer(base=base, count=count):
                if count is None:
                    out.append(Have("run", base, MIN_DRAWN_RUN, None))
                else:
                    out.extend(Have("base", base) for _ in range(count))
            case Symbol():
                if part.is_payload:
                    out.append(Have("payload", part.role, 0, None))
                else:
                    low = part.min_len or 0
                    out.append(Have("symbol", part.role, low, part.max_len))
            case Ribo(base=base) | LNA(base=base):
                out.append(Have("base", base))
            case Modification() | Thioate():
                pass
            case _:  # pragma: no cover - Part is a closed union
                raise AssertionError(part)
    return tuple(out)


def _drawn_strands(drawn: Mapping[str, Any]) -> tuple[tuple[Drawn, ...], tuple[Drawn, ...]]:
    """The drawn strands; where the page draws a bottom base that does not pair with the
    top base over it (a drawing slip, see `drawing_errors`), the complement of the top."""
    top = drawn_tokens(drawn["top"]["segments"])
    bottom = list(drawn_tokens(drawn["bottom"]["segments"]))
    for i, _ in _slips(top, tuple(bottom)):
        bottom[i] = evolve(bottom[i], text=COMPLEMENT[top[i].text])
    return top, tuple(bottom)


def _slips(top: tuple[Drawn, ...], bottom: tuple[Drawn, ...]) -> list[tuple[int, str]]:
    if len(top) != len(bottom):
        return []
    out = []
    for i, (t, b) in enumerate(zip(top, bottom, strict=True)):
        pairs = t.text in COMPLEMENT and COMPLEMENT[t.text] == b.text
        if t.kind == b.kind == "base" and "N" not in (t.text, b.text) and not pairs:
            out.append((i, f"position {i}: {b.text} drawn under {t.text}"))
    return out


def drawing_errors(drawn: Mapping[str, Any]) -> list[str]:
    """Bases the page draws on the bottom strand that do not pair with the top strand."""
    top = drawn_tokens(drawn["top"]["segments"])
    bottom = drawn_tokens(drawn["bottom"]["segments"])
    return [text for _, text in _slips(top, bottom)]


def difference(molecule: Molecule, drawn: Mapping[str, Any]) -> str | None:
    """Where `molecule` differs from the page's drawn library, or None when it equals it.

    The bottom strand is compared as the page draws it, 3'->5' under the top, except
    where the page's two strands do not pair (`drawing_errors`): there the top decides.
    """
    top_drawn, bottom_drawn = _drawn_strands(drawn)
    match molecule:
        case Duplex():
            top, bottom = molecule.top, molecule.bottom
        case Single(strand=strand):
            return f"the derived library is single-stranded ({strand.name or 'one strand'})"
        case _:  # pragma: no cover - Molecule is a closed union
            raise AssertionError(molecule)
    problem = match_strand(strand_tokens(top), top_drawn)
    if problem is not None:
        return f"top strand: {problem}"
    problem = match_strand(tuple(reversed(strand_tokens(bottom))), bottom_drawn)
    if problem is not None:
        return f"bottom strand (3'->5' as drawn): {problem}"
    return None


def match_strand(have: tuple[Have, ...], drawn: tuple[Drawn, ...]) -> str | None:
    """None when the derived positions realise the drawn ones, else the first mismatch."""
    best = _align(have, drawn)
    if best[0] == len(drawn) and best[1] == len(have):
        return None
    i, j = best
    shown = "".join(_show(d) for d in drawn[max(0, i - 8) : i + 12])
    got = "".join(_show_have(h) for h in have[max(0, j - 8) : j + 12])
    page = f"`{_show(drawn[i])}`" if i < len(drawn) else "its 3' end"
    ours = f"`{_show_have(have[j])}`" if j < len(have) else "its 3' end"
    # one count, the drawing's (from 1 at the 5' end; a payload or a run is one position):
    # the derived strand's own count differs wherever a run or a placeholder is written out
    return (
        f"the page draws {page} where the derived strand has {ours} (drawn position "
        f"{i + 1}): `...{shown}...` vs `...{got}...`"
    )


def _show(d: Drawn) -> str:
    if d.kind == "payload":
        return "X"
    if d.kind == "run":
        return f"({d.text}){d.count or ''}"
    if d.kind == "vrun":
        return "N.N"
    return d.text


def _show_have(h: Have) -> str:
    if h.kind == "payload":
        return "[X]"
    if h.kind == "run":
        return f"({h.text})"
    if h.kind == "symbol":
        return f"[{h.text}:{h.low}]"
    return h.text


def _align(have: tuple[Have, ...], drawn: tuple[Drawn, ...]) -> tuple[int, int]:
    """The furthest (drawn, derived) positions a consistent reading reaches (depth first)."""
    furthest = (0, 0)
    stack = [(0, 0)]
    seen = {(0, 0)}
    while stack:
        i, j = stack.pop()
        furthest = max(furthest, (i, j))
        if i == len(drawn) and j == len(have):
            return i, j
        for step in reversed(_steps(have, drawn, i, j)):
            if step not in seen:
                seen.add(step)
                stack.append(step)
    return furthest


def _steps(
    have: tuple[Have, ...], drawn: tuple[Drawn, ...], i: int, j: int
) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    d = drawn[i] if i < len(drawn) else None
    h = have[j] if j < len(have) else None
    # degenerate derived bases beside a payload may be drawn inside the X
    beside = (d is not None and d.kind == "payload") or (i > 0 and drawn[i - 1].kind == "payload")
    degenerate = h is not None and h.kind == "base" and h.text in DEGENERATE
    if degenerate and beside and _near_payload(have, j):
        out.append((i, j + 1))
    # and a degenerate base drawn beside the X (`(dT)VXXX`) may be the insert's own
    drawn_degenerate = d is not None and d.kind == "base" and d.text in DEGENERATE - {"N"}
    if drawn_degenerate and h is not None and h.kind == "payload" and _drawn_near_payload(drawn, i):
        out.append((i + 1, j))
    if d is None or h is None:
        return out
    match d.kind:
        case "payload":
            if h.kind == "payload":
                out.append((i + 1, j + 1))
                # several derived payload pieces (cDNA and a random primer's copy) in one X
                if j + 1 < len(have) and have[j + 1].kind == "payload":
                    out.append((i, j + 1))
        case "run":
            if h.kind == "run" and h.text == d.text and d.count is None:
                out.append((i + 1, j + 1))
            elif h.kind == "base" and h.text == d.text:
                k = j
                while k < len(have) and have[k].kind == "base" and have[k].text == d.text:
                    k += 1
                if d.count is not None and k - j >= d.count:
                    out.append((i + 1, j + d.count))
                elif d.count is None and k - j >= MIN_DRAWN_RUN:
                    out.extend((i + 1, n) for n in range(k, j + MIN_DRAWN_RUN - 1, -1))
        case "vrun":
            # any run of barcodes, UMIs, spacers or unknown bases
            k = j
            while k < len(have) and (
                (have[k].kind == "symbol" and _tag_fits(d.tag, have[k].text))
                or (have[k].kind == "base" and have[k].text == "N")
                or have[k].kind == "payload"
            ):
                k += 1
                out.append((i + 1, k))
        case "base":
            if h.kind == "base" and (h.text == d.text or (d.text == "N" and d.tag != "umi")):
                out.append((i + 1, j + 1))
            elif h.kind == "symbol" and d.text == "N" and _tag_fits(d.tag, h.text):
                k = i
                while k < len(drawn) and drawn[k].kind == "base" and drawn[k].text == "N":
                    k += 1
                high = h.high if h.high is not None else k - i
                for n in range(min(k - i, high), h.low - 1, -1):
                    if n > 0 and all(_tag_fits(x.tag, h.text) for x in drawn[i : i + n]):
                        out.append((i + n, j + 1))
            elif h.kind == "payload" and h.low == 0 and d.text == "N":
                pass
        case _:  # pragma: no cover
            raise AssertionError(d.kind)
    return out


def _drawn_near_payload(drawn: tuple[Drawn, ...], i: int) -> bool:
    return any(0 <= k < len(drawn) and drawn[k].kind == "payload" for k in (i - 1, i + 1))


def _near_payload(have: tuple[Have, ...], j: int) -> bool:
    """A degenerate base in a run of degenerate bases that touches a payload."""
    for step in (-1, 1):
        k = j + step
        while 0 <= k < len(have) and have[k].kind == "base" and have[k].text in DEGENERATE:
            k += step
        if 0 <= k < len(have) and have[k].kind == "payload":
            return True
    return False


def _tag_fits(tag: str, role: str) -> bool:
    """`N`s tagged `cbc` are not a UMI; `N`s tagged `umi` are not a cell barcode (pages
    reuse the UMI colour for other random or feature barcodes, never for cell barcodes)."""
    upper = role.upper()
    if tag == "umi":
        return "CELL_BARCODE" not in upper
    if tag == "cbc":
        return not any(r in upper for r in UMI_ROLES)
    return True


# ------------------------------------------------ libstruct-bench's older Task 1 convention

# The letter each symbolic role is written as in libstruct-bench's public truths
# (`library_sequence` with a `placeholder_key`): cell barcodes B, UMIs U, sample
# indexes I, RT barcodes R, ligation barcodes L. Roles are matched by prefix.
BENCH_LETTERS: tuple[tuple[str, str], ...] = (
    ("UMI", "U"),
    ("ROUND1_BARCODE", "R"),
    ("RT_BARCODE", "R"),
    ("ROUND", "L"),
    ("LIGATION", "L"),  # LIGATION_BARCODE, and LIGATION (SPLiT-seq's round 3)
    ("PLATE_BARCODE", "L"),
    ("HAIRPIN_BARCODE", "L"),
    ("I5", "I"),
    ("I7", "I"),
    ("INDEX", "I"),
    ("", "B"),
)
MIN_DROPPED_RUN = 8  # an oligo-dT written out as letters is at least this long


def bench_sequence(
    seq: Seq, letters: Sequence[tuple[str, str]] = BENCH_LETTERS, *, a_tail: bool = True
) -> str:
    """A library's top strand in libstruct-bench's older convention.

    Concrete bases as they are; each barcode, UMI or index as its letter repeated
    (its length); the insert (payloads), the oligo-dT or poly(A) next to it and the
    degenerate bases touching either (an anchor's `VN`, a random primer's `N`s) left
    out, as the benchmark's truths leave them out. Most truths keep the A-tail base after
    the insert; `a_tail=False` leaves it out too (as the Quartz-seq2 truth does).

    >>> from lablang.molecular.sequence import parse_notation
    >>> bench_sequence(parse_notation("5'-ACGT [CELL_BARCODE:3] [UMI:2] (T)30 VN [CDNA] AGATC-3'"))
    'ACGTBBBUUAGATC'
    """
    tokens: list[tuple[str, str]] = []  # (kind, text): base | run | payload | symbol
    for part in seq.parts:
        match part:
            case Bases(text=text):
                tokens.extend(("base", b) for b in text)
            case Homopolymer():
                tokens.append(("run", part.base))
            case Ribo(base=base) | LNA(base=base):
                tokens.append(("base", base))
            case Symbol():
                if part.is_payload:
                    tokens.append(("payload", ""))
                else:
                    letter = next(c for prefix, c in letters if part.role.startswith(prefix))
                    tokens.append(("symbol", letter * (part.max_len or part.min_len or 0)))
            case Modification() | Thioate():
                pass
            case _:  # pragma: no cover - Part is a closed union
                raise AssertionError(part)
    keep = [True] * len(tokens)
    for i, (kind, _) in enumerate(tokens):
        if kind in ("payload", "run"):
            keep[i] = False
    # letters written out for an oligo-dT / poly(A) run: a run of one base that touches
    # the insert (through degenerate bases) and is at least MIN_DROPPED_RUN long
    for i, (kind, _) in enumerate(tokens):
        if kind != "payload":
            continue
        for step in (-1, 1):
            k = i + step
            while 0 <= k < len(tokens) and tokens[k][0] == "base" and tokens[k][1] in DEGENERATE:
                keep[k] = False
                k += step
            if 0 <= k < len(tokens) and tokens[k][0] == "run":
                k += step
                while (
                    0 <= k < len(tokens) and tokens[k][0] == "base" and tokens[k][1] in DEGENERATE
                ):
                    keep[k] = False
                    k += step
            start, base = k, tokens[k][1] if 0 <= k < len(tokens) else ""
            while 0 <= k < len(tokens) and tokens[k] == ("base", base) and base in "AT":
                k += step
            if abs(k - start) >= MIN_DROPPED_RUN:
                for n in range(start, k, step):
                    keep[n] = False
                while (
                    0 <= k < len(tokens) and tokens[k][0] == "base" and tokens[k][1] in DEGENERATE
                ):
                    keep[k] = False
                    k += step
        after = i + 1
        if not a_tail and after < len(tokens) and tokens[after] == ("base", "A"):
            keep[after] = False
    return "".join(text for (kind, text), kept in zip(tokens, keep, strict=True) if kept)
