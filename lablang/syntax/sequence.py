"""The inside of a sequence literal `5'-...-3'`, read into located parts."""

from __future__ import annotations

import re

from lablang import ast
from lablang.diagnostics import Edit, Fix, Report
from lablang.limits import Limits
from lablang.source import Source, Span

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<mod>/[0-9A-Za-z_-]+/)
  | (?P<ph>\[(?P<role>[A-Za-z_][A-Za-z0-9_]*)(?::(?P<min>\d+)(?:-(?P<max>\d+))?)?(?P<phrc>')?
      (?:\s*"(?P<pattern>[^"\]\n]*)")?\])
  | (?P<homo>\((?P<hbase>[ACGTUNRYSWKMBDHV])\)(?P<count>\d+))
  | (?P<ref>\{(?P<path>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?P<refrc>')?\})
  | (?P<ribo>r[ACGUN])
  | (?P<lna>\+[ACGTUN])
  | (?P<thio>\*)
  | (?P<bases>[ACGTUNRYSWKMBDHV]+)
    """,
    re.VERBOSE,
)

IUPAC = "ACGTUNRYSWKMBDHV"
_IUPAC_SET = frozenset(IUPAC)  # one code per character (`"SS" in IUPAC` is a substring test)
# `[ROLE':LEN]`: the reverse-complement mark written before the length
_MISPLACED_RC = re.compile(r"\[([A-Za-z_][A-Za-z0-9_]*)'(:\d+(?:-\d+)?)\]")


# A count with more digits than this is out of every bound: it is not converted at all
# (int() of thousands of digits is slow and, past 4,300, refused by Python).
_MAX_COUNT_DIGITS = 9
_HUGE = 10**_MAX_COUNT_DIGITS


def _count(digits: str) -> int:
    """The value of a repeat count or length, saturated at `_HUGE` (never converted whole)."""
    stripped = digits.lstrip("0")
    return _HUGE if len(stripped) > _MAX_COUNT_DIGITS else int(digits)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def read_sequence(
    text: str, offset: int, source: Source, report: Report, limits: Limits
) -> tuple[ast.SeqPart, ...]:
    """Split the inside of a sequence literal (without `5'-` and `-3'`) into parts.

    `offset` is the position of `text[0]` in the source, so every part is located.
    """
    parts: list[ast.SeqPart] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            _bad_character(text, pos, offset, source, report)
            return tuple(parts)
        span = Span(offset + match.start(), offset + match.end())
        kind = match.lastgroup
        if kind == "ph":
            kind = "ph"
        group = match.groupdict()
        if group["ws"]:
            pass
        elif group["mod"]:
            parts.append(ast.Modification(code=group["mod"][1:-1], span=span))
        elif group["ph"]:
            low = _count(group["min"]) if group["min"] else None
            high = _count(group["max"]) if group["max"] else low
            if high is not None and (high > limits.max_placeholder_length or (low or 0) > high):
                report.add(
                    "E0003",
                    f"placeholder length `{_clip(group['ph'])}` is out of range",
                    source,
                    span,
                    label="length must be at most "
                    f"{limits.max_placeholder_length} and a range must be low-high",
                    help="write a length such as `[CB:16]` or a range such as `[BC:8-11]`",
                )
                return tuple(parts)
            pattern = group["pattern"]
            if pattern is not None and not _pattern_fits(group, low, high, span, source, report):
                return tuple(parts)
            parts.append(
                ast.Placeholder(
                    role=group["role"],
                    min_len=low,
                    max_len=high,
                    revcomp=bool(group["phrc"]),
                    span=span,
                    pattern=pattern,
                )
            )
        elif group["homo"]:
            count = _count(group["count"])
            if count > limits.max_homopolymer or count == 0:
                report.add(
                    "E0003",
                    f"homopolymer `{_clip(group['homo'])}` has "
                    f"{count if count < _HUGE else 'too many'} bases",
                    source,
                    span,
                    label=f"between 1 and {limits.max_homopolymer} bases allowed",
                    help="check the repeat count; long payloads are written as placeholders "
                    "such as `[CDNA]`",
                )
                return tuple(parts)
            parts.append(ast.Homopolymer(base=group["hbase"], count=count, span=span))
        elif group["ref"]:
            parts.append(
                ast.SeqRef(
                    path=tuple(group["path"].split(".")), revcomp=bool(group["refrc"]), span=span
                )
            )
        elif group["ribo"]:
            parts.append(ast.Ribo(base=group["ribo"][1], span=span))
        elif group["lna"]:
            parts.append(ast.LNA(base=group["lna"][1], span=span))
        elif group["thio"]:
            parts.append(ast.Thioate(span=span))
        else:
            parts.append(ast.Bases(text=group["bases"], span=span))
        if len(parts) > limits.max_sequence_parts:
            report.add(
                "E0003",
                f"sequence literal has more than {limits.max_sequence_parts} parts",
                source,
                span,
                help="split the sequence into named segments and refer to them with `{name}`",
            )
            return tuple(parts)
        pos = match.end()
    return tuple(parts)


def _pattern_fits(
    group: dict[str, str | None],
    low: int | None,
    high: int | None,
    span: Span,
    source: Source,
    report: Report,
) -> bool:
    """Whether a placeholder's pattern gives one IUPAC code per position of its fixed
    length; E0106 (with the fix when it is mechanical) otherwise."""
    pattern, role, mark = group["pattern"] or "", group["role"], group["phrc"] or ""
    text = group["ph"] or ""
    if low is None or low != high:
        written = "no length" if low is None else f"the range {low}-{high}"
        fixed = f'[{role}:{len(pattern)}{mark} "{pattern}"]'
        report.add(
            "E0106",
            f"placeholder `{_clip(text)}` has a pattern but {written}",
            source,
            span,
            label="a pattern gives the positions of a fixed length",
            help=f"write `{fixed}`"
            if low is None
            else "leave the pattern out of a range, or give one length",
            fix=Fix(f"write `{fixed}`", (Edit(span, fixed),)) if low is None and pattern else None,
        )
        return False
    bad = sorted({c for c in pattern if c.upper() not in _IUPAC_SET})
    if bad or not pattern:
        report.add(
            "E0106",
            f"pattern `{_clip(pattern)}` of `[{role}]` is not IUPAC codes"
            + (f" (`{bad[0]}`)" if bad else ""),
            source,
            span,
            label="one of ACGTUNRYSWKMBDHV per position",
            help=f"give {low} codes such as `{'N' * (low - 1)}S`",
        )
        return False
    if len(pattern) != low:
        fixed = f'[{role}:{len(pattern)}{mark} "{pattern}"]'
        report.add(
            "E0106",
            f"pattern `{_clip(pattern)}` of `[{role}:{low}]` gives {len(pattern)} positions, "
            f"not {low}",
            source,
            span,
            label=f"{len(pattern)} codes for {low} positions",
            help=f"give {low} codes, or write `{fixed}` if the pattern is right",
        )
        return False
    if pattern != pattern.upper():
        fixed = text.replace(f'"{pattern}"', f'"{pattern.upper()}"')
        report.add(
            "E0106",
            f"pattern `{_clip(pattern)}` of `[{role}]` is written in lower case",
            source,
            span,
            label="bases are upper case",
            help=f"write `{fixed}`",
            fix=Fix(f"write `{fixed}`", (Edit(span, fixed),)),
        )
        return False
    return True


def _bad_character(text: str, pos: int, offset: int, source: Source, report: Report) -> None:
    char = text[pos]
    span = Span(offset + pos, offset + pos + 1)
    misplaced = _MISPLACED_RC.match(text, pos)
    if misplaced:
        fixed = f"[{misplaced.group(1)}{misplaced.group(2)}']"
        whole = Span(offset + pos, offset + misplaced.end())
        report.add(
            "E0105",
            f"`{misplaced.group(0)}`: the reverse-complement mark comes after the length",
            source,
            whole,
            label="written as `[ROLE':LEN]`",
            help=f"write `{fixed}`",
            fix=Fix(f"write `{fixed}`", (Edit(whole, fixed),)),
        )
        return
    if char.upper() in IUPAC and char.islower():
        help_text = f"bases are written in upper case: `{char.upper()}`"
    elif char in "[":
        help_text = (
            "a placeholder is `[ROLE:LEN]`, `[ROLE:MIN-MAX]` or `[ROLE]`, e.g. `[UMI:12]`; "
            'its reverse complement `[ROLE:LEN\']`; a pattern `[ROLE:LEN "NNNNNNS"]`'
        )
    elif char == "(":
        help_text = "a homopolymer is `(BASE)COUNT`, e.g. `(T)30`"
    elif char == "{":
        help_text = "a reference is `{name}` or `{name'}` for its reverse complement"
    elif char == "/":
        help_text = "a modification is written between slashes, e.g. `/5Phos/`"
    else:
        help_text = (
            "a sequence holds IUPAC bases, `[ROLE:LEN]`, `(T)30`, `{name}`, `/mod/`, "
            "`rG`, `+G` and `*`"
        )
    report.add(
        "E0105",
        f"unexpected `{char}` in a sequence literal",
        source,
        span,
        label="not part of the sequence notation",
        help=help_text,
    )
