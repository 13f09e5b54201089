"""Pictures: a library as coloured, labelled segments on both strands with read arrows,
and a workflow as a layered graph. Output is SVG (and a standalone HTML page).

>>> from lablang.molecular.model import LibraryDef
>>> from lablang.molecular.sequence import parse_notation
>>> svg = library_svg(LibraryDef("lib", parse_notation("ACGTACGTACGT [CB:16] [CDNA]")))
>>> svg.startswith("<svg") and "CB" in svg
True
"""

from __future__ import annotations

import html
from typing import Any

from lablang.molecular.libstruct import segments_of
from lablang.molecular.model import Graph, LibraryDef, MolecularModel, OligoDef
from lablang.molecular.operations import anneal_sites
from lablang.molecular.sequence import Seq, plain, reverse_complement

COLOURS = {
    "fixed": "#9ecae1",
    "barcode": "#fdae6b",
    "umi": "#bcbddc",
    "index": "#a1d99b",
    "payload": "#e5e5e5",
    "poly": "#fee391",
    "anchor": "#fdd0a2",
}
ROW = 34
SCALE = 3.2  # pixels per base
PAYLOAD_WIDTH = 150


def _kind(record: dict[str, Any]) -> str:
    text = str(record.get("placeholder") or "")
    if text:
        if "UMI" in text:
            return "umi"
        if "INDEX" in text:
            return "index"
        if "BARCODE" in text or "BC" in text:
            return "barcode"
        if text.startswith("[POLY"):
            return "poly"
        return "payload"
    seq = str(record.get("sequence") or "")
    if len(set(seq)) == 1 and len(seq) >= 8:
        return "poly"
    if set(seq) <= set("NVBDH"):
        return "anchor"
    return "fixed"


def _width(record: dict[str, Any]) -> float:
    if record.get("placeholder"):
        text = str(record["placeholder"])
        digits = "".join(ch if ch.isdigit() else " " for ch in text.split(":")[-1]).split()
        if ":" in text and digits:
            return max(40.0, int(digits[-1]) * SCALE)
        return PAYLOAD_WIDTH
    return max(24.0, len(str(record.get("sequence") or "")) * SCALE)


def library_svg(library: LibraryDef, oligos: dict[str, OligoDef] | None = None) -> str:
    """An SVG of the library: top strand 5'->3' above, bottom strand 3'<-5' below,
    one coloured box per segment, and an arrow per read from its primer."""
    records = segments_of(plain(library.seq))
    widths = [_width(r) for r in records]
    x0, y_top = 40.0, 60.0
    xs = [x0]
    for w in widths:
        xs.append(xs[-1] + w)
    total_width = xs[-1] + 40
    spans = _token_spans(library.seq, len(records))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_width:.0f}" height="{220 + 26 * len(library.reads)}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<text x="{x0}" y="22" font-size="14" font-weight="bold">{html.escape(library.title or library.name)}'
        f" ({html.escape(library.modality)})</text>",
        f'<text x="8" y="{y_top + 21}">5\'</text><text x="{xs[-1] + 6:.0f}" y="{y_top + 21}">3\'</text>',
        f'<text x="8" y="{y_top + ROW + 27}">3\'</text><text x="{xs[-1] + 6:.0f}" y="{y_top + ROW + 27}">5\'</text>',
    ]
    for record, left, width in zip(records, xs, widths, strict=False):
        colour = COLOURS[_kind(record)]
        label = html.escape(str(record["role"]))
        text = str(record.get("placeholder") or record.get("sequence") or "")
        for row, y in ((0, y_top), (1, y_top + ROW + 6)):
            out.append(
                f'<rect x="{left:.1f}" y="{y:.1f}" width="{width:.1f}" height="{ROW - 4}" '
                f'fill="{colour}" stroke="#555" stroke-width="0.6"/>'
            )
            shown = text if row == 0 else _complement_text(text)
            if len(shown) * 6.2 < width:
                out.append(
                    f'<text x="{left + width / 2:.1f}" y="{y + 19:.1f}" text-anchor="middle" '
                    f'font-family="monospace" font-size="9">{html.escape(shown)}</text>'
                )
        out.append(
            f'<text x="{left + width / 2:.1f}" y="{y_top - 6:.1f}" text-anchor="middle" '
            f'transform="rotate(-20 {left + width / 2:.1f} {y_top - 6:.1f})">{label}</text>'
        )
    y = y_top + 2 * ROW + 40
    for read in library.reads:
        arrow = _read_arrow(library, read.primer, read.strand, oligos or {}, spans, xs)
        if arrow is None:
            out.append(
                f'<text x="{x0}" y="{y}" fill="#b00">read {html.escape(read.name)}: primer '
                f"{html.escape(read.primer)} has no site</text>"
            )
        else:
            start, direction = arrow
            length = (read.length or 50) * SCALE
            end = start + direction * length
            colour = "#3182bd" if direction > 0 else "#e6550d"
            out.append(
                f'<line x1="{start:.1f}" y1="{y}" x2="{end:.1f}" y2="{y}" stroke="{colour}" '
                f'stroke-width="2" marker-end="url(#head)"/>'
            )
            out.append(
                f'<text x="{min(start, end):.1f}" y="{y - 4}" fill="{colour}">'
                f"{html.escape(read.name)} ({html.escape(read.primer)}, {read.length or '?'} nt)</text>"
            )
        y += 26
    out.insert(
        1,
        '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>',
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _complement_text(text: str) -> str:
    if text.startswith("["):
        return text
    table = str.maketrans("ACGTRYKMBVDHN", "TGCAYRMKVBHDN")
    return text.translate(table)


def _token_spans(seq: Seq, count: int) -> list[tuple[int, int]]:
    from lablang.molecular.libstruct import segments_of as split

    spans = []
    pos = 0
    for record in split(plain(seq)):
        text = str(record.get("sequence") or "")
        width = len(text) if text else 1
        spans.append((pos, pos + width))
        pos += width
    return spans[:count]


def _x_of(token: int, spans: list[tuple[int, int]], xs: list[float]) -> float:
    for k, (a, b) in enumerate(spans):
        if a <= token < b:
            return xs[k] + (xs[k + 1] - xs[k]) * (token - a) / max(1, b - a)
    return xs[-1]


def _read_arrow(
    library: LibraryDef,
    primer_name: str,
    strand: str,
    oligos: dict[str, OligoDef],
    spans: list[tuple[int, int]],
    xs: list[float],
) -> tuple[float, int] | None:
    oligo = oligos.get(primer_name)
    if oligo is None:
        return None
    top = plain(library.seq)
    n = len(top)
    primer = plain(oligo.seq)
    if strand == "bottom":
        sites = anneal_sites(primer, reverse_complement(top), primer.min_length)
        if not sites:
            return None
        return _x_of(n - sites[0].start, spans, xs), 1
    sites = anneal_sites(primer, top, primer.min_length)
    if not sites:
        return None
    return _x_of(sites[0].start, spans, xs), -1


def workflow_svg(graph: Graph) -> str:
    """An SVG of the workflow: states (rounded boxes) and transitions (hexagons) in
    columns by topological order; discarded products dashed, finals bold."""
    import networkx as nx

    from lablang.molecular.graph import to_networkx

    g = to_networkx(graph)
    try:
        layers = list(nx.topological_generations(g))
    except nx.NetworkXUnfeasible:
        layers = [list(g.nodes)]
    pos: dict[str, tuple[float, float]] = {}
    col_w, row_h = 190.0, 64.0
    for c, layer in enumerate(layers):
        for r, node in enumerate(sorted(layer)):
            pos[node] = (30 + c * col_w, 40 + r * row_h)
    width = 60 + len(layers) * col_w
    height = 80 + max((len(layer) for layer in layers), default=1) * row_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>',
        f'<text x="30" y="20" font-size="14" font-weight="bold">{html.escape(graph.name)}</text>',
    ]
    for a, b, data in g.edges(data=True):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dash = ' stroke-dasharray="4 3"' if data["kind"] == "discarded_product" else ""
        out.append(
            f'<line x1="{x1 + 150:.0f}" y1="{y1 + 18:.0f}" x2="{x2:.0f}" y2="{y2 + 18:.0f}" '
            f'stroke="#555"{dash} marker-end="url(#arrow)"/>'
        )
    for node, data in g.nodes(data=True):
        x, y = pos[node]
        if data["kind"] == "state":
            stroke = 3 if data["final"] else 1
            dash = ' stroke-dasharray="4 3"' if data["discarded"] else ""
            out.append(
                f'<rect x="{x:.0f}" y="{y:.0f}" width="150" height="36" rx="10" fill="#eef5fb" '
                f'stroke="#3182bd" stroke-width="{stroke}"{dash}/>'
            )
            sub = data["architecture"]
        else:
            out.append(
                f'<polygon points="{x + 12:.0f},{y:.0f} {x + 138:.0f},{y:.0f} {x + 150:.0f},{y + 18:.0f} '
                f'{x + 138:.0f},{y + 36:.0f} {x + 12:.0f},{y + 36:.0f} {x:.0f},{y + 18:.0f}" '
                'fill="#fff5eb" stroke="#e6550d"/>'
            )
            sub = data["operation"]
        out.append(
            f'<text x="{x + 75:.0f}" y="{y + 15:.0f}" text-anchor="middle">{html.escape(data["name"][:24])}</text>'
        )
        out.append(
            f'<text x="{x + 75:.0f}" y="{y + 29:.0f}" text-anchor="middle" fill="#666">{html.escape(sub)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def html_page(model: MolecularModel) -> str:
    """A standalone HTML page with every library and workflow of the model."""
    from lablang.molecular.libstruct import library_sequence

    oligos = {o.name: o for o in model.oligos}
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(model.title or model.name or 'lablang')}</title>",
        "<style>body{font-family:Helvetica,Arial,sans-serif;margin:24px}"
        "code{word-break:break-all}</style></head><body>",
        f"<h1>{html.escape(model.title or model.name or 'lablang')}</h1>",
    ]
    for library in model.libraries:
        parts += [
            f"<h2>Library {html.escape(library.name)}</h2>",
            library_svg(library, oligos),
            f"<p><code>{html.escape(library_sequence(library.seq))}</code></p>",
        ]
    for graph in model.graphs:
        kind = "derived" if graph.derived else "declared"
        parts += [f"<h2>Workflow {html.escape(graph.name)} ({kind})</h2>", workflow_svg(graph)]
    legend = " ".join(
        f'<span style="background:{c};padding:2px 6px;margin-right:4px">{k}</span>'
        for k, c in COLOURS.items()
    )
    parts += [f"<p>{legend}</p>", "</body></html>"]
    return "\n".join(parts) + "\n"
