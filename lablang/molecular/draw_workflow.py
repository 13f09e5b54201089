"""The workflow picture: states (rounded boxes with their strands as strips of segment
colours) and transitions (hexagons with the step, operation and oligos) in rows by
topological order, every text whole."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from lablang.molecular.draw_common import COLOURS, FONT, PAYLOAD_BASES, _bases, _kind, _legend
from lablang.molecular.libstruct import segments_of
from lablang.molecular.model import Graph, OligoDef
from lablang.molecular.sequence import Seq, plain


def _mini_strip(seq: Seq, x: float, y: float, width: float) -> list[str]:
    """A strand as a thin strip of segment colours (lengths proportional, payload fixed)."""
    records = segments_of(plain(seq))
    sizes = [max(2.0, min(_bases(r), PAYLOAD_BASES)) for r in records]
    total = sum(sizes) or 1.0
    out = []
    for record, size in zip(records, sizes, strict=True):
        w = width * size / total
        out.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="5" '
            f'fill="{COLOURS[_kind(record)]}" stroke="none"/>'
        )
        x += w
    return out


BOX_MIN_W, BOX_MAX_W = 190.0, 300.0  # a workflow box's width, by its longest line
LINE_H = 12.0  # one more line of wrapped text in a workflow box
CHAR_W = 6.0  # an 11 px character, about


def workflow_svg(graph: Graph, oligos: Mapping[str, OligoDef] | None = None) -> str:
    """An SVG of the workflow, read top to bottom: states (rounded boxes, each with its
    strands drawn as strips of segment colours) and transitions (hexagons with the step,
    operation and oligos) in rows by topological order; discarded products grey and
    dashed with the reason, final states bold. Given the `oligos`, a PCR step names each
    primer with its Tm at its site, the conditions stated once under the picture. Every
    text is whole: the boxes widen to the longest line (up to BOX_MAX_W) and wrap the
    rest onto more lines."""
    import networkx as nx

    from lablang.molecular.graph import to_networkx

    g = to_networkx(graph)
    primers, conditions = _pcr_primers(graph, oligos) if oligos is not None else ({}, "")
    try:
        layers = list(nx.topological_generations(g))
    except nx.NetworkXUnfeasible:
        layers = [list(g.nodes)]
    order = {node: k for k, node in enumerate(g.nodes)}
    states = {s.name: s for s in graph.states}
    texts = {node: _node_texts(data, states, graph.derived) for node, data in g.nodes(data=True)}
    for node, data in g.nodes(data=True):
        if data["kind"] != "state" and data["name"] in primers:
            texts[node]["oligos"] = primers[data["name"]]
    longest = max((len(line) for t in texts.values() for line in t.values()), default=20)
    box_w = min(BOX_MAX_W, max(BOX_MIN_W, longest * CHAR_W + 24))
    chars = int((box_w - 24) / CHAR_W)
    lines = {node: {k: _wrap(v, chars) for k, v in t.items()} for node, t in texts.items()}
    extra = max((sum(len(v) - 1 for v in t.values()) for t in lines.values()), default=0)
    box_h = 60.0 + LINE_H * extra
    col_w, row_h = box_w + 16, box_h + 32
    widest = max((len(layer) for layer in layers), default=1)
    width = 40 + widest * col_w
    kinds = {
        _kind(record)
        for state in graph.states
        for strand in state.strands[:2]
        for record in segments_of(plain(strand.seq))
    }
    y_legend = 48 + len(layers) * row_h + 4
    caption = f'<text x="20" y="{y_legend + 10:.0f}" fill="#444">strand colours:</text>'
    legend, legend_end = _legend(kinds, 116, y_legend)
    width = max(width, legend_end + 20)
    tm_caption = f"primer Tm at its paired part: {conditions}" if conditions else ""
    width = max(width, 40 + len(tm_caption) * CHAR_W)
    pos: dict[str, tuple[float, float]] = {}
    for r, layer in enumerate(layers):
        offset = (width - len(layer) * col_w) / 2
        for c, node in enumerate(sorted(layer, key=order.__getitem__)):
            pos[node] = (offset + c * col_w + (col_w - box_w) / 2, 48 + r * row_h)
    height = y_legend + 26  # the last row, then the strands' legend
    if tm_caption:  # the conditions of the temperatures in the PCR steps' boxes, once
        caption += f'<text x="20" y="{height - 2:.0f}" fill="#444">{html.escape(tm_caption)}</text>'
        height += 16
    kind = "derived" if graph.derived else "declared"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" font-size="11">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#666"/></marker></defs>',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        f'<text x="20" y="26" font-size="15" font-weight="bold">{html.escape(graph.name)}'
        f'<tspan font-size="11" font-weight="normal" fill="#666" dx="10">{kind} workflow; '
        "bold: final library, dashed: discarded</tspan></text>",
    ]
    for a, b, data in g.edges(data=True):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        x1 += box_w / 2
        x2 += box_w / 2
        y1 += box_h
        mid = (y1 + y2) / 2
        discarded = data["kind"] == "discarded_product"
        style = ' stroke-dasharray="4 3" stroke="#aaa"' if discarded else ' stroke="#666"'
        out.append(
            f'<path d="M{x1:.0f},{y1:.0f} C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} {x2:.0f},{y2 - 2:.0f}" '
            f'fill="none"{style} marker-end="url(#arrow)"/>'
        )
    for node, data in g.nodes(data=True):
        x, y = pos[node]
        if data["kind"] == "state":
            out += _state_box(states[data["name"]], data, lines[node], x, y, box_w, box_h)
        else:
            out += _transition_box(data["name"], lines[node], x, y, box_w, box_h)
    out.append(caption)
    out += legend
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _pcr_primers(graph: Graph, oligos: Mapping[str, OligoDef]) -> tuple[dict[str, str], str]:
    """Each PCR step's primers with their Tm at their sites (`fwd Tm 61.9 °C, rev ...`),
    and the conditions of the first step shown, stated once; a step in another buffer
    states its own in its box."""
    from lablang.molecular.primer_sites import primer_sites, step_conditions

    out: dict[str, str] = {}
    first = ""
    for transition in graph.transitions:
        if transition.operation != "pcr":
            continue
        sites = {site.primer: site for site in primer_sites(oligos, graph, transition)}
        if not any(site.tm is not None for site in sites.values()):
            continue
        words = []
        for name in transition.oligos:
            tm = sites[name].tm if name in sites else None
            words.append(f"{name} Tm {tm:.1f} \u00b0C" if tm is not None else name)
        text = step_conditions(transition).text()
        first = first or text
        out[transition.name] = ", ".join(words) + ("" if text == first else f" ({text})")
    return out, first


def _node_texts(data: dict[str, Any], states: dict[str, Any], derived: bool) -> dict[str, str]:
    """A node's texts, whole: the heading (name and title or operation) and its detail."""
    if data["kind"] != "state":
        detail = data["detail"] if data["detail"] != data["name"] else ""
        return {
            "head": f"{data['name']}  {_operation_label(data, derived)}",
            "oligos": data["oligos"].replace(",", ", "),
            "detail": detail if "|>" in detail else "",
        }
    state = states[data["name"]]
    title = data["title"] if data["title"] and data["title"] != data["name"] else ""
    sub = data["architecture"].replace("_", " ")
    if state.circular:
        sub = "circular " + sub
    if state.status == "unknown":
        sub = "unknown: not derived"  # the reason is the tooltip's
    elif data["discarded"]:
        sub = data["caption"]  # the reason's first clause; the rest is the tooltip's
    elif data["final"]:
        sub += ", final library"
    return {"head": f"{data['name']}  {title}".strip(), "sub": sub}


def _wrap(text: str, chars: int) -> list[str]:
    """`text` in lines of at most `chars` characters, broken at spaces (a longer word on
    its own lines); never shortened."""
    import textwrap

    if not text:
        return []
    return textwrap.wrap(text, max(8, chars), break_on_hyphens=False) or [text]


def _tspans(lines: list[str], x: float, y: float, bold: str = "", **attrs: str) -> str:
    """Lines of text as one `<text>` with a `<tspan>` per line; `bold` starts the first."""
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    spans = []
    for k, line in enumerate(lines):
        head = ""
        if k == 0 and bold and line.startswith(bold):
            head = f'<tspan font-weight="bold" fill="#111">{html.escape(bold)}</tspan>'
            line = line[len(bold) :]
        spans.append(
            f'<tspan x="{x:.0f}" y="{y + k * LINE_H:.0f}">{head}{html.escape(line)}</tspan>'
        )
    return f"<text{extra}>{''.join(spans)}</text>"


def _transition_box(
    name: str, lines: dict[str, list[str]], x: float, y: float, box_w: float, box_h: float
) -> list[str]:
    out = [
        '<g class="node">',
        f'<polygon points="{x + 14:.0f},{y:.0f} {x + box_w - 14:.0f},{y:.0f} '
        f"{x + box_w:.0f},{y + box_h / 2:.0f} {x + box_w - 14:.0f},{y + box_h:.0f} "
        f'{x + 14:.0f},{y + box_h:.0f} {x:.0f},{y + box_h / 2:.0f}" '
        'fill="#fff5eb" stroke="#e6550d"/>',
    ]
    centre = x + box_w / 2
    head = lines["head"]
    used = len(head) + len(lines["oligos"]) + len(lines["detail"])
    top = y + box_h / 2 - (used - 1) * LINE_H / 2 + 3
    out.append(_tspans(head, centre, top, name, text_anchor="middle", fill="#a63603"))
    top += LINE_H * len(head)
    if lines["oligos"]:
        out.append(
            _tspans(lines["oligos"], centre, top, text_anchor="middle", fill="#555", font_size="10")
        )
        top += LINE_H * len(lines["oligos"])
    if lines["detail"]:
        out.append(
            _tspans(lines["detail"], centre, top, text_anchor="middle", fill="#888", font_size="10")
        )
    out.append("</g>")
    return out


def _operation_label(data: dict[str, Any], derived: bool) -> str:
    """What a transition does: in a derived workflow the lablang operation it ran
    (`template switch`, not LibStructBench's `extension` category), else the declared kind."""
    detail = str(data["detail"])
    if derived and detail and "|>" not in detail and " " not in detail:
        return detail.replace("_", " ")
    return str(data["operation"]).replace("_", " ")


def _state_box(
    state: Any,
    data: dict[str, Any],
    lines: dict[str, list[str]],
    x: float,
    y: float,
    box_w: float,
    box_h: float,
) -> list[str]:
    discarded = bool(data["discarded"])
    # a product of a step that failed, or of one after it: not derived, drawn as unknown
    unknown = state.status == "unknown"
    stroke = 2.8 if data["final"] else 1
    fill, line = ("#f4f4f4", "#aaa") if discarded or unknown else ("#eef5fb", "#3182bd")
    dash = ' stroke-dasharray="4 3"' if discarded or unknown else ""
    tip = (
        f"unknown: {state.status_reason}"
        if unknown
        else state.disposition_reason or state.title or state.name
    )
    out = [
        f'<g class="node"><title>{html.escape(tip)}</title>',
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{box_w:.0f}" height="{box_h:.0f}" rx="9" '
        f'fill="{fill}" stroke="{line}" stroke-width="{stroke}"{dash}/>',
    ]
    ink = "#888" if discarded or unknown else "#111"
    head = lines["head"]
    out.append(_tspans(head, x + 8, y + 14, data["name"], fill="#555" if ink == "#111" else ink))
    strips = y + 9 + LINE_H * len(head)
    for k, strand in enumerate(state.strands[:2]):
        out += _mini_strip(strand.seq, x + 8, strips + 8 * k, box_w - 16)
    out.append(_tspans(lines["sub"], x + 8, strips + 31, fill="#666", font_size="10"))
    out.append("</g>")
    return out
