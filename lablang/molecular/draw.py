"""Pictures: a library as coloured, labelled segments on both strands with read arrows,
and a workflow as a layered graph (`draw_workflow`). Output is SVG (and a standalone HTML
page).

>>> from lablang.molecular.model import LibraryDef
>>> from lablang.molecular.sequence import parse_notation
>>> svg = library_svg(LibraryDef("lib", parse_notation("ACGTACGTACGT [CB:16] [CDNA]")))
>>> svg.startswith("<svg") and "CB" in svg
True
"""

from __future__ import annotations

import html
from typing import Any

from lablang.molecular.draw_common import (
    BASE_W,
    COLOURS,
    FONT,
    LEGEND,
    MONO,
    PAYLOAD_WIDTH,
    READ_COLOURS,
    ROW,
    _bases,
    _kind,
    _legend,
    _placeholder_length,
    _role,
)
from lablang.molecular.draw_workflow import workflow_svg
from lablang.molecular.libstruct import segments_of
from lablang.molecular.model import LibraryDef, MolecularModel, OligoDef
from lablang.molecular.operations import anneal_sites
from lablang.molecular.sequence import Seq, plain, reverse_complement
from lablang.molecular.thermo import tm_at_site

__all__ = ["COLOURS", "LEGEND", "html_page", "library_svg", "workflow_svg"]


def _width(record: dict[str, Any]) -> float:
    if record.get("placeholder"):
        length = _placeholder_length(str(record["placeholder"]))
        if length is None:
            return PAYLOAD_WIDTH
        return max(46.0, length * BASE_W)
    return max(10.0, len(str(record.get("sequence") or "")) * BASE_W)


def _labels(seq: Seq, oligos: dict[str, OligoDef]) -> list[str]:
    """Each segment's name as a person reads it: the declared segment or oligo it comes
    from (`(rc)` when reverse-complemented), else its role. A placeholder inside an oligo
    (a round's barcode between its linkers) is named by that oligo, so the oligo's name
    stands once over all of its parts."""
    out = []
    records = segments_of(seq)
    labels = _provenance(records, _group_labels(seq), oligos)
    for record, label in zip(records, labels, strict=True):
        if label:
            name = label.rstrip("'").replace("_", " ")
            out.append(name + (" (rc)" if label.endswith("'") else ""))
        else:
            out.append(_oligo_name(record, oligos) or str(record["role"]))
    return out


def _provenance(
    records: list[dict[str, Any]], labels: list[str | None], oligos: dict[str, OligoDef]
) -> list[str | None]:
    """The group labels, with a placeholder that has none given its neighbour's label when
    that neighbour's oligo holds a placeholder of the same role (nearest neighbour first)."""
    out = list(labels)
    for k, record in enumerate(records):
        text = record.get("placeholder")
        if not text or out[k]:
            continue
        role = _role(str(text))
        blocked = {-1: False, 1: False}
        for step in range(1, len(records)):
            for side in (-1, 1):
                j = k + side * step
                if blocked[side] or not 0 <= j < len(records):
                    blocked[side] = True
                    continue
                label = labels[j]
                if label is None and records[j].get("placeholder"):
                    continue  # another placeholder of the same oligo, perhaps: look past it
                oligo = oligos.get(label.rstrip("'")) if label else None
                if oligo is not None and role in _oligo_roles(oligo):
                    out[k] = label
                    break
                blocked[side] = True
            if out[k] or all(blocked.values()):
                break
    return out


def _oligo_roles(oligo: OligoDef) -> set[str]:
    return {
        _role(str(r["placeholder"])) for r in segments_of(plain(oligo.seq)) if r.get("placeholder")
    }


def _oligo_name(record: dict[str, Any], oligos: dict[str, OligoDef]) -> str | None:
    """The oligo a literal fixed segment comes from, found by sequence: the whole oligo,
    its reverse complement, or (10 bases or more) a part of either."""
    text = str(record.get("sequence") or "")
    if record.get("placeholder") or len(text) < 6 or _kind(record) != "fixed":
        return None
    from lablang.molecular.sequence import render_libstruct

    best: tuple[int, str] | None = None
    for oligo in oligos.values():
        if oligo.kind != "single" or len(oligo.strands) != 1:
            continue
        forward = render_libstruct(plain(oligo.seq))
        backward = render_libstruct(reverse_complement(plain(oligo.seq)))
        for candidate, suffix in ((forward, ""), (backward, " (rc)")):
            if candidate == text:
                rank = 0
            elif len(text) >= 10 and text in candidate:
                rank = 1 + len(candidate) - len(text)
            else:
                continue
            name = oligo.name.replace("_", " ") + suffix + ("" if rank == 0 else " (part)")
            if best is None or rank < best[0]:
                best = (rank, name)
    return best[1] if best else None


def _group_labels(seq: Seq) -> list[str | None]:
    """The provenance label of each group `segments_of` makes (same grouping rule)."""
    from lablang.molecular.sequence import Modification, Thioate

    labels: list[str | None] = []
    for part in seq.parts:
        if isinstance(part, Modification | Thioate):
            if not labels:
                labels.append(None)
            continue
        label = getattr(part, "label", None)
        if labels and label is not None and labels[-1] == label:
            continue
        labels.append(label)
    return labels


def _short(text: str) -> str:
    """A placeholder as it fits in its box: `[CELL_BARCODE:16]` -> `CB 16`."""
    if not text.startswith("["):
        return text
    body = text.strip("[]").rstrip("'")
    role, _, length = body.partition(":")
    words = {"CELL_BARCODE": "CB", "I7_INDEX": "i7", "I5_INDEX": "i5", "RT_BARCODE": "RT BC"}
    if role in words:
        role = words[role]
    elif role.startswith("ROUND") and role.endswith("_BARCODE"):
        role = "BC" + role[5:-8]
    return f"{role} {length}".strip() if length else role


def _box_text(record: dict[str, Any], width: float) -> str:
    """What a placeholder's box says, the longest form that fits: `CB 16`, then its kind
    and length (`BC 8`), then the length alone. A box is never left blank."""
    text = str(record["placeholder"])
    length = _placeholder_length(text)
    size = f" {length}" if length else ""
    kind = {"barcode": "BC", "umi": "UMI", "index": "idx", "anchor": "N"}.get(_kind(record), "")
    for shown in (_short(text), f"{kind}{size}".strip(), size.strip()):
        if shown and len(shown) * 6.0 <= width - 4:
            return shown
    return size.strip() or _short(text)


def _runs(names: list[str]) -> list[tuple[str, int, int]]:
    """Consecutive equal names as (name, first index, last index)."""
    runs: list[tuple[str, int, int]] = []
    for k, name in enumerate(names):
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1], k)
        else:
            runs.append((name, k, k))
    return runs


def library_svg(library: LibraryDef, oligos: dict[str, OligoDef] | None = None) -> str:
    """An SVG of the library: top strand 5'->3' above, bottom strand 3'<-5' below, one
    coloured box per segment with its bases printed, the segment names above, and one
    lane per read: the sequencing primer where it anneals (with its paired part's melting
    temperature) and an arrow for the bases it reads, with the segments those bases cover."""
    seq = plain(library.seq)
    records = segments_of(seq)
    names = _labels(seq, oligos or {})
    widths = [_width(r) for r in records]
    x0 = 46.0
    xs = [x0]
    for w in widths:
        xs.append(xs[-1] + w)
    # names above the top strand, one per run of segments with the same name (an oligo's
    # linkers and the barcode between them), staggered into rows so none overlap
    groups = _runs(names)
    label_rows: list[int] = []
    row_ends: list[float] = []
    for name, first, last in groups:
        left, right = xs[first], xs[last + 1]
        text_w = len(name) * 6.4 + 8
        centre = (left + right) / 2
        lo = centre - text_w / 2  # (a run's bracket is drawn on the strand, not in a row)
        for row, end in enumerate(row_ends):
            if lo > end:
                row_ends[row] = centre + text_w / 2
                label_rows.append(row)
                break
        else:
            row_ends.append(centre + text_w / 2)
            label_rows.append(len(row_ends) - 1)
    title_h = 34.0
    label_h = 16.0 * max(1, len(row_ends))
    y_top = title_h + label_h + 14
    y_bottom = y_top + ROW + 4
    spans = _token_spans(library.seq, len(records))
    lanes = [
        _read_lane(library, read, oligos or {}, spans, records, names, xs) for read in library.reads
    ]
    y_reads = y_bottom + ROW + 26
    lane_h = 34.0
    y_legend = y_reads + lane_h * len(lanes) + 10
    right = max([xs[-1] + 40] + [lane["right"] + 10 for lane in lanes if lane])
    height = y_legend + 30
    tm_caption = _tm_caption(lanes)
    if tm_caption:  # the conditions of the lanes' temperatures, stated once
        height += 16
        right = max(right, x0 + len(tm_caption) * 6.0 + 20)
    title = library.title or library.name
    if library.modality and library.modality.lower() not in title.lower():
        title += f" ({library.modality})"
    if library.circular:
        title += ", circular (read from its origin)"
    if library.status == "unknown":
        title += f" \u2014 unknown: {library.status_reason}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{right:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {right:.0f} {height:.0f}" font-family="{FONT}" font-size="11">',
        '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="context-stroke"/></marker></defs>',
        f'<rect x="0" y="0" width="{right:.0f}" height="{height:.0f}" fill="white"/>',
        f'<text x="{x0}" y="22" font-size="15" font-weight="bold">{html.escape(title)}</text>',
    ]
    for side, y in (("top", y_top), ("bottom", y_bottom)):
        left_end, right_end = ("5'", "3'") if side == "top" else ("3'", "5'")
        out.append(
            f'<text x="{x0 - 8}" y="{y + 15}" text-anchor="end" font-weight="bold">{left_end}</text>'
            f'<text x="{xs[-1] + 8:.0f}" y="{y + 15}" font-weight="bold">{right_end}</text>'
        )
    for record, left, width in zip(records, xs, widths, strict=False):
        kind = _kind(record)
        colour = COLOURS[kind]
        text = str(record.get("placeholder") or record.get("sequence") or "")
        for side, y in (("top", y_top), ("bottom", y_bottom)):
            out.append(
                f'<rect x="{left:.1f}" y="{y:.1f}" width="{width:.1f}" height="{ROW}" '
                f'fill="{colour}" stroke="#4d4d4d" stroke-width="0.6"/>'
            )
            if record.get("placeholder"):
                shown = _box_text(record, width)
                out.append(
                    f'<text x="{left + width / 2:.1f}" y="{y + 15:.1f}" text-anchor="middle" '
                    f'font-size="10.5">{html.escape(shown)}</text>'
                )
            else:
                shown = text if side == "top" else _complement_text(text)
                out.append(
                    f'<text x="{left:.1f}" y="{y + 15:.1f}" font-family="{MONO}" font-size="10.5" '
                    f'textLength="{width - 1:.1f}" lengthAdjust="spacing">{html.escape(shown)}</text>'
                )
    for (name, first, last), row in zip(groups, label_rows, strict=True):
        left, right = xs[first], xs[last + 1]
        centre = (left + right) / 2
        ly = y_top - 8 - 16.0 * (len(row_ends) - 1 - row)
        if last > first:  # a bracket over the run's segments
            out.append(
                f'<path d="M{left + 1:.1f},{y_top - 2:.1f} V{y_top - 5:.1f} H{right - 1:.1f} '
                f'V{y_top - 2:.1f}" fill="none" stroke="#777" stroke-width="0.8"/>'
            )
        if row != len(row_ends) - 1:
            out.append(
                f'<line x1="{centre:.1f}" y1="{ly + 3:.1f}" x2="{centre:.1f}" '
                f'y2="{y_top - (5 if last > first else 0):.1f}" stroke="#999" stroke-width="0.6"/>'
            )
        out.append(
            f'<text x="{centre:.1f}" y="{ly:.1f}" text-anchor="middle">{html.escape(name)}</text>'
        )
    y = y_reads
    for read, lane in zip(library.reads, lanes, strict=True):
        if not lane:
            out.append(
                f'<text x="{x0}" y="{y + 12}" fill="#b00">{html.escape(read.name)}: primer '
                f"{html.escape(read.primer)} has no site on the {read.strand} strand</text>"
            )
            y += lane_h
            continue
        colour = READ_COLOURS.get(read.strand, "#333")
        out.append(
            f'<rect x="{lane["primer"][0]:.1f}" y="{y:.1f}" width="{lane["primer"][1] - lane["primer"][0]:.1f}" '
            f'height="7" fill="{colour}" fill-opacity="0.35" stroke="{colour}" stroke-width="0.8"/>'
        )
        out.append(
            f'<line x1="{lane["start"]:.1f}" y1="{y + 3.5:.1f}" x2="{lane["end"]:.1f}" '
            f'y2="{y + 3.5:.1f}" stroke="{colour}" stroke-width="2.2" marker-end="url(#head)"/>'
        )
        out.append(
            f'<text x="{lane["text_x"]:.1f}" y="{y + 20:.1f}" fill="{colour}" '
            f'text-anchor="{lane["anchor"]}">{html.escape(lane["text"])}</text>'
        )
        y += lane_h
    legend, x = _legend({_kind(r) for r in records}, x0, y_legend)
    out += legend
    out.append(
        f'<text x="{x + 10:.0f}" y="{y_legend + 10:.0f}" fill="#444">bar: sequencing primer, '
        "arrow: bases read</text>"
    )
    if tm_caption:
        out.append(
            f'<text x="{x0}" y="{y_legend + 28:.0f}" fill="#444">{html.escape(tm_caption)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _tm_caption(lanes: list[dict[str, Any]]) -> str:
    """The conditions of the read lanes' melting temperatures (primer3's defaults: a
    library's reads belong to no workflow step's buffer), when a lane shows one."""
    from lablang.molecular.thermo import DEFAULT_CONDITIONS

    if not any(", Tm " in lane.get("text", "") for lane in lanes):
        return ""
    return f"primer Tm at its paired part: {DEFAULT_CONDITIONS.text()}"


def _complement_text(text: str) -> str:
    if text.startswith("["):
        return text
    table = str.maketrans("ACGTRYKMBVDHN", "TGCAYRMKVBHDN")
    return text.translate(table)


def _token_spans(seq: Seq, count: int) -> list[tuple[int, int]]:
    """Token positions of each segment (bases are one token each, a placeholder one)."""
    spans = []
    pos = 0
    for record in segments_of(plain(seq)):
        text = str(record.get("sequence") or "")
        width = len(text) if text else 1
        spans.append((pos, pos + width))
        pos += width
    return spans[:count]


def _base_of(token: int, spans: list[tuple[int, int]], records: list[dict[str, Any]]) -> float:
    """The base coordinate (payloads counted as their drawn length) of a token boundary."""
    base = 0.0
    for (a, b), record in zip(spans, records, strict=False):
        if token <= a:
            return base
        if token < b:
            return base + _bases(record) * (token - a) / (b - a)
        base += _bases(record)
    return base


def _x_of_base(
    base: float, records: list[dict[str, Any]], xs: list[float]
) -> tuple[float, list[int]]:
    """The x of a base coordinate, and the segments up to it."""
    start = 0.0
    for k, record in enumerate(records):
        n = _bases(record)
        if base <= start + n:
            return xs[k] + (xs[k + 1] - xs[k]) * (base - start) / max(1, n), [k]
        start += n
    return xs[-1], [len(records) - 1]


def _covered(lo: float, hi: float, records: list[dict[str, Any]], names: list[str]) -> list[str]:
    """What a read's bases cover, each segment that is not fixed once: `UMI 12`, or a
    barcode inside an oligo as `BC 8 of <oligo>`."""
    out: list[str] = []
    start = 0.0
    for record, name in zip(records, names, strict=True):
        n = _bases(record)
        if start < hi and start + n > lo and _kind(record) != "fixed":
            text = _cover_name(record, name)
            if text not in out:
                out.append(text)
        start += n
    return out


def _cover_name(record: dict[str, Any], name: str) -> str:
    if not record.get("placeholder") or _kind(record) == "payload":
        return name
    shown = _box_text(record, 46.0)  # `CB 16`, `RT BC 8`; a long role as `BC 8`
    owner = name.removesuffix(" (rc)")
    words = shown.lower().split()
    return (
        shown
        if owner.lower() in words or owner.lower() == str(record.get("role"))
        else (f"{shown} of {owner}")
    )


def _read_lane(
    library: LibraryDef,
    read: Any,
    oligos: dict[str, OligoDef],
    spans: list[tuple[int, int]],
    records: list[dict[str, Any]],
    names: list[str],
    xs: list[float],
) -> dict[str, Any]:
    """Where a read's primer anneals and which bases it reads, in picture coordinates."""
    oligo = oligos.get(read.primer)
    if oligo is None:
        return {}
    top = plain(library.seq)
    n = len(top)
    primer = plain(oligo.seq)
    total = _base_of(n, spans, records)
    if read.strand == "bottom":  # the primer has top-strand sense and reads rightwards
        sites = anneal_sites(primer, reverse_complement(top), primer.min_length)
        if not sites:
            return {}
        lo_t, hi_t = n - sites[0].stop, n - sites[0].start
        p_lo, p_hi = _base_of(lo_t, spans, records), _base_of(hi_t, spans, records)
        r_lo, r_hi = p_hi, min(total, p_hi + (read.length or 50))
        start, end = _x_of_base(r_lo, records, xs)[0], _x_of_base(r_hi, records, xs)[0]
    else:  # the primer has bottom-strand sense and reads leftwards
        sites = anneal_sites(primer, top, primer.min_length)
        if not sites:
            return {}
        lo_t, hi_t = sites[0].start, sites[0].stop
        p_lo, p_hi = _base_of(lo_t, spans, records), _base_of(hi_t, spans, records)
        r_lo, r_hi = max(0.0, p_lo - (read.length or 50)), p_lo
        start, end = _x_of_base(r_hi, records, xs)[0], _x_of_base(r_lo, records, xs)[0]
    # an insert of unknown length is longer than the read: the read ends inside it
    begin = 0.0
    for record in records:
        n = _bases(record)
        unknown = (
            record.get("placeholder") and _placeholder_length(str(record["placeholder"])) is None
        )
        if unknown and read.strand == "bottom" and r_lo <= begin < r_hi < begin + n + 1e9:
            r_hi = min(r_hi, begin + 0.8 * n)
        if unknown and read.strand != "bottom" and r_lo < begin + n <= r_hi:
            r_lo = max(r_lo, begin + 0.2 * n)
        begin += n
    if read.strand == "bottom":
        end = _x_of_base(r_hi, records, xs)[0]
    else:
        end = _x_of_base(r_lo, records, xs)[0]
    primer_x = (_x_of_base(p_lo, records, xs)[0], _x_of_base(p_hi, records, xs)[0])
    covers = _covered(r_lo, r_hi, records, names)
    length = f"{read.length} nt" if read.length else "length not stated"
    tm = tm_at_site(primer, sites[0])
    if tm is not None:  # the primer's paired part at its site (lablang.molecular.thermo)
        length += f", Tm {tm:.1f} \u00b0C"
    text = f"{read.name}: {read.primer}, {length}" + (
        " \u2192 " + ", ".join(covers) if covers else ""
    )
    text_w = len(text) * 6.0
    if read.strand == "bottom":
        text_x, anchor = primer_x[0], "start"
        right = max(end, text_x + text_w)
    else:
        text_x, anchor = primer_x[1], "end"
        right = max(primer_x[1], end)
    return {
        "primer": primer_x,
        "start": start,
        "end": end,
        "text": text,
        "text_x": text_x,
        "anchor": anchor,
        "right": right,
    }


def html_page(model: MolecularModel) -> str:
    """A standalone HTML page with every library and workflow of the model."""
    from lablang.molecular.libstruct import library_sequence

    oligos = {o.name: o for o in model.oligos}
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(model.title or model.name or 'lablang')}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # the pictures scale down to the window (their viewBox keeps the proportions), but
        # not below MIN_SCALE of their size: a narrower window (a phone) scrolls the picture
        "<style>body{font-family:Helvetica,Arial,sans-serif;margin:24px}"
        ".fig{overflow-x:auto}svg{max-width:100%;height:auto}"
        "code{word-break:break-all}</style></head><body>",
        f"<h1>{html.escape(model.title or model.name or 'lablang')}</h1>",
    ]
    for library in model.libraries:
        parts += [
            f"<h2>Library {html.escape(library.name)} ({library.status}"
            f"{', circular' if library.circular else ''})</h2>",
            _figure(library_svg(library, oligos)),
            f"<p><code>{html.escape(library_sequence(library.seq))}</code></p>",
        ]
    for graph in model.graphs:
        kind = "derived" if graph.derived else "declared"
        parts += [
            f"<h2>Workflow {html.escape(graph.name)} ({kind})</h2>",
            _figure(workflow_svg(graph, oligos)),
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


MIN_SCALE = 0.8  # the smallest a page shows a picture: its 10 px text stays 8 px


def _figure(svg: str) -> str:
    """A picture in a scrolling box, shown at no less than MIN_SCALE of its width."""
    width = float(svg.split('width="', 1)[1].split('"', 1)[0])
    tag_end = svg.index(">")
    styled = svg[:tag_end] + f' style="min-width:{width * MIN_SCALE:.0f}px"' + svg[tag_end:]
    return f'<div class="fig">{styled}</div>'
