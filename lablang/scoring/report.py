"""A self-contained HTML report with inline SVG plots drawn here (no plotting library).

It draws a `BatchResult` it is given and imports nothing from the scorer (`batch`)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from statistics import mean

from lablang.scoring.attempts import HEADLINE, BatchResult

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}h2{margin-top:2em}.plots{display:flex;flex-wrap:wrap;gap:1em}
figure{margin:0}figcaption{font-size:12px;text-align:center}
.scroll{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}
"""


def render_html(result: BatchResult) -> str:
    metrics = list(headline_metrics(result))
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>lablang score report</title>",
        f"<style>{_STYLE}</style></head><body><h1>LibStructBench scores</h1>",
        f"<p>{len(result.rows)} attempts, {len({r.protocol for r in result.rows})} protocols; "
        f"bootstrap CIs over protocols (seed {result.seed}).</p>",
        "<h2>Summary</h2>",
        _summary_table(result, metrics),
        "<h2>Per protocol (mean over attempts)</h2>",
        # a table wider than the window scrolls inside its box instead of widening the page
        f"<div class='scroll'>{_protocol_table(result, metrics)}</div>",
        "<h2>Per-protocol bars</h2><div class='plots'>",
        *(
            f"<figure>{_bar_chart(protocol_means(result, m))}<figcaption>{html.escape(m)}</figcaption></figure>"
            for m in metrics
        ),
        "</div><h2>Distributions over attempts</h2><div class='plots'>",
        *(
            f"<figure>{_histogram([v for vs in protocol_means(result, m).values() for v in vs])}"
            f"<figcaption>{html.escape(m)}</figcaption></figure>"
            for m in metrics
        ),
        "</div>",
    ]
    if result.skipped:
        parts.append("<h2>Skipped</h2><ul>")
        parts += [
            f"<li>{html.escape(d['code'])}: {html.escape(d['message'])}</li>"
            for d in result.skipped
        ]
        parts.append("</ul>")
    invalid = [r for r in result.rows if r.diagnostics]
    if invalid:
        parts.append("<h2>Diagnostics</h2><ul>")
        for row in invalid:
            for d in row.diagnostics:
                parts.append(
                    f"<li>{html.escape(row.protocol)}/{html.escape(row.attempt)} "
                    f"{html.escape(d['code'])}: {html.escape(d['message'])}</li>"
                )
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def protocol_means(result: BatchResult, metric: str) -> dict[str, list[float]]:
    """Each protocol's attempt scores on `metric` (attempts without it left out)."""
    values: dict[str, list[float]] = {}
    for row in result.rows:
        if metric in row.metrics:
            values.setdefault(row.protocol, []).append(row.metrics[metric])
    return values


def headline_metrics(result: BatchResult) -> Iterable[str]:
    """The headline metrics some attempt of the batch has, in `HEADLINE` order."""
    present = {name for row in result.rows for name in row.metrics}
    return [name for name in HEADLINE if name in present]


def _summary_table(result: BatchResult, metrics: list[str]) -> str:
    ks = sorted({k for m in metrics for k in result.summary[m].best_of_k})
    head = "".join(f"<th>best-of-{k}</th>" for k in ks)
    rows = []
    for m in metrics:
        s = result.summary[m]
        cells = "".join(
            f"<td>{s.best_of_k[k]:.4f}</td>" if k in s.best_of_k else "<td></td>" for k in ks
        )
        rows.append(
            f"<tr><td>{html.escape(m)}</td><td>{s.mean:.4f}</td>"
            f"<td>[{s.ci_low:.4f}, {s.ci_high:.4f}]</td>{cells}</tr>"
        )
    return (
        f"<table><tr><th>metric</th><th>mean</th><th>95% CI</th>{head}</tr>{''.join(rows)}</table>"
    )


def _protocol_table(result: BatchResult, metrics: list[str]) -> str:
    protocols = sorted({r.protocol for r in result.rows})
    head = "".join(f"<th>{html.escape(m)}</th>" for m in metrics)
    rows = []
    for p in protocols:
        attempts = [r for r in result.rows if r.protocol == p]
        cells = "".join(
            f"<td>{mean(r.metrics[m] for r in attempts if m in r.metrics):.4f}</td>"
            if any(m in r.metrics for r in attempts)
            else "<td></td>"
            for m in metrics
        )
        rows.append(f"<tr><td>{html.escape(p)}</td><td>{len(attempts)}</td>{cells}</tr>")
    return f"<table><tr><th>protocol</th><th>attempts</th>{head}</tr>{''.join(rows)}</table>"


def _bar_chart(values: dict[str, list[float]], width: int = 360) -> str:
    """Horizontal bars of the attempt mean per protocol, with a min-max whisker."""
    row, left = 18, 120
    height = row * len(values) + 24
    span = width - left - 10
    items = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>"
    ]
    for i, (protocol, scores) in enumerate(sorted(values.items())):
        y = 4 + i * row
        m, lo, hi = mean(scores), min(scores), max(scores)
        items.append(
            f"<text x='{left - 4}' y='{y + 12}' font-size='11' text-anchor='end'>"
            f"{html.escape(protocol[:18])}</text>"
            f"<rect x='{left}' y='{y + 2}' width='{m * span:.1f}' height='{row - 6}' fill='#4a7ab5'>"
            f"<title>{html.escape(protocol)}: {m:.4f}</title></rect>"
            f"<line x1='{left + lo * span:.1f}' x2='{left + hi * span:.1f}' y1='{y + row / 2:.1f}' "
            f"y2='{y + row / 2:.1f}' stroke='#222'/>"
        )
    axis_y = height - 18
    items.append(
        f"<line x1='{left}' x2='{left + span}' y1='{axis_y}' y2='{axis_y}' stroke='#888'/>"
    )
    for tick in (0.0, 0.5, 1.0):
        x = left + tick * span
        items.append(
            f"<text x='{x:.1f}' y='{axis_y + 12}' font-size='10' text-anchor='middle'>{tick:g}</text>"
        )
    items.append("</svg>")
    return "".join(items)


def _histogram(values: list[float], width: int = 300, height: int = 140, bins: int = 10) -> str:
    """Counts of attempt scores in ten bins over [0, 1], with a y-axis of attempt counts."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    top = max(counts) or 1
    left = 34  # room for the count axis
    plot_h, bar_w = height - 24, (width - left - 10) / bins
    items = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>"
    ]
    for i, c in enumerate(counts):
        h = plot_h * c / top
        items.append(
            f"<rect x='{left + i * bar_w:.1f}' y='{4 + plot_h - h:.1f}' width='{bar_w - 2:.1f}' "
            f"height='{h:.1f}' fill='#7aa95c'><title>{i / bins:.1f}-{(i + 1) / bins:.1f}: {c}</title></rect>"
        )
    base = 4 + plot_h
    items.append(
        f"<line x1='{left}' x2='{width - 10}' y1='{base:.1f}' y2='{base:.1f}' stroke='#888'/>"
        f"<line x1='{left}' x2='{left}' y1='4' y2='{base:.1f}' stroke='#888'/>"
    )
    for tick in (0.0, 0.5, 1.0):
        x = left + tick * (width - left - 10)
        items.append(
            f"<text x='{x:.1f}' y='{base + 14:.1f}' font-size='10' text-anchor='middle'>{tick:g}</text>"
        )
    for count in sorted({0, top // 2, top}):
        y = 4 + plot_h - plot_h * count / top
        items.append(
            f"<line x1='{left - 3}' x2='{left}' y1='{y:.1f}' y2='{y:.1f}' stroke='#888'/>"
            f"<text x='{left - 5}' y='{y + 3.5:.1f}' font-size='10' text-anchor='end'>{count}</text>"
        )
    items.append(
        f"<text x='9' y='{4 + plot_h / 2:.1f}' font-size='10' text-anchor='middle' "
        f"transform='rotate(-90 9 {4 + plot_h / 2:.1f})'>attempts</text>"
    )
    items.append("</svg>")
    return "".join(items)
