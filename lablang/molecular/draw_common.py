"""What the pictures share: the segment colours and their legend, a segment's kind (from
what its role means to the Task 1 grader) and the bases it stands for."""

from __future__ import annotations

from typing import Any

from lablang.scoring.library_chars import LIBRARY_SCORE_CHARS

COLOURS = {
    "fixed": "#9ecae1",
    "barcode": "#fdae6b",
    "umi": "#bcbddc",
    "index": "#a1d99b",
    "payload": "#e5e5e5",
    "poly": "#fee391",
    "anchor": "#fdd0a2",
}
LEGEND = {
    "fixed": "fixed sequence",
    "barcode": "cell / round barcode",
    "umi": "UMI",
    "index": "sample index",
    "payload": "insert (cDNA, gDNA)",
    "poly": "homopolymer",
    "anchor": "anchor / degenerate",
}
ROW = 22  # height of one strand's boxes
BASE_W = 7.0  # pixels per base: wide enough to print each base
PAYLOAD_WIDTH = 170.0
PAYLOAD_BASES = 60  # bases a payload of unknown length stands for when reads cross it
FONT = "Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
READ_COLOURS = {"bottom": "#2166ac", "top": "#b2182b"}


# A placeholder's colour from what its role means to the Task 1 grader (its one copy,
# `lablang/scoring/library_chars.py`): every barcode role (round, RT, ligation, Tn5,
# feature) is a barcode, whatever its name says.
_SCORE_KIND = {
    "#": "barcode", "&": "barcode", "=": "barcode", "%": "barcode", "$": "barcode",
    "~": "umi", "@": "index", "?": "anchor",
}  # fmt: skip


def _role(text: str) -> str:
    """`[LIGATION_BARCODE:8]'` -> `LIGATION_BARCODE`."""
    return text.strip("'").strip("[]").split(":")[0].upper()


def _kind(record: dict[str, Any]) -> str:
    text = str(record.get("placeholder") or "")
    if text:
        role = _role(text)
        if role in LIBRARY_SCORE_CHARS:
            return _SCORE_KIND[LIBRARY_SCORE_CHARS[role]]
        if role.startswith("POLY"):
            return "poly"
        if "UMI" in role:
            return "umi"
        if "INDEX" in role:
            return "index"
        if "BARCODE" in role or role.endswith("BC"):
            return "barcode"
        return "payload"
    seq = str(record.get("sequence") or "")
    if len(set(seq)) == 1 and len(seq) >= 8:
        return "poly"
    if set(seq) <= set("NVBDH"):
        return "anchor"
    return "fixed"


def _placeholder_length(text: str) -> int | None:
    """The largest length a `[ROLE:LEN]` / `[ROLE:MIN-MAX]` placeholder states."""
    if ":" not in text:
        return None
    digits = "".join(ch if ch.isdigit() else " " for ch in text.split(":")[-1]).split()
    return int(digits[-1]) if digits else None


def _bases(record: dict[str, Any]) -> int:
    """How many bases a segment stands for (a payload of unknown length: PAYLOAD_BASES)."""
    if record.get("placeholder"):
        return _placeholder_length(str(record["placeholder"])) or PAYLOAD_BASES
    return len(str(record.get("sequence") or ""))


def _legend(kinds: set[str], x: float, y: float) -> tuple[list[str], float]:
    """Colour swatches with their meaning, left to right from `x`; returns the end."""
    out = []
    for kind in sorted(kinds, key=list(COLOURS).index):
        out.append(
            f'<rect x="{x:.0f}" y="{y:.0f}" width="14" height="12" fill="{COLOURS[kind]}" '
            'stroke="#4d4d4d" stroke-width="0.6"/>'
            f'<text x="{x + 19:.0f}" y="{y + 10:.0f}" fill="#444">{LEGEND[kind]}</text>'
        )
        x += 32 + len(LEGEND[kind]) * 6.6
    return out, x
