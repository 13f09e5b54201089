"""A workflow's molecular graph as a typed networkx graph, and its text formats.

Nodes are `state` or `transition` (attribute `kind`); edges are `substrate`
(state -> transition), `carried_product` and `discarded_product` (transition ->
state), the typed edges LibStructBench scores. Formats: DOT, GraphML, Mermaid, JSON.

>>> from lablang.molecular.model import Graph, StateDef, TransitionDef
>>> g = Graph("w", (StateDef("a", ()), StateDef("b", ())),
...           (TransitionDef("t", "pcr", ("a",), ("b",), ("b",)),), ("a",), (("b", "gene expression"),))
>>> print(to_mermaid(g))
flowchart LR
  s_a(["a"])
  s_b(["b"]):::final
  t_t{{"t: pcr"}}
  s_a --> t_t
  t_t --> s_b
  classDef final stroke-width:3px
  classDef discarded stroke-dasharray: 4 4
"""

from __future__ import annotations

import io
import json
from typing import Any

from lablang.molecular.libstruct import library_sequence
from lablang.molecular.model import Graph

FORMATS = ("dot", "graphml", "mermaid", "json")


def to_networkx(graph: Graph) -> Any:
    """A `networkx.DiGraph` with typed nodes (`kind`) and edges (`kind`)."""
    import networkx as nx

    g = nx.DiGraph(name=graph.name, derived=graph.derived)
    finals = dict(graph.finals)
    discarded = {s for t in graph.transitions for s in t.discarded}
    for state in graph.states:
        g.add_node(
            f"s:{state.name}",
            kind="state",
            name=state.name,
            title=state.title,
            architecture=state.architecture.value,
            strands=len(state.strands),
            reference=library_sequence(state.strands[0].seq) if state.strands else "",
            initial=state.name in graph.initial,
            final=finals.get(state.name, ""),
            discarded=state.name in discarded,
            reason=state.disposition_reason,
            status=state.status,
            status_reason=state.status_reason,
            caption=state_caption(state, state.name in discarded),
        )
    for transition in graph.transitions:
        g.add_node(
            f"t:{transition.name}",
            kind="transition",
            name=transition.name,
            operation=transition.operation,
            detail=transition.detail,
            oligos=",".join(transition.oligos),
        )
        for s in transition.substrates:
            g.add_edge(f"s:{s}", f"t:{transition.name}", kind="substrate")
        for s in transition.products:
            kind = "discarded_product" if s in transition.discarded else "carried_product"
            g.add_edge(f"t:{transition.name}", f"s:{s}", kind=kind)
    return g


def state_caption(state: Any, discarded: bool) -> str:
    """Why a state is not a plain product, in a few words (empty when it is one): a
    discarded product's reason's first clause after its "who" (`not amplified`), or
    `unknown: <reason>` for a product of a step that failed. The pictures and every text
    format show this one caption."""
    if state.status == "unknown":
        return f"unknown: {state.status_reason}" if state.status_reason else "unknown"
    if discarded:
        reason = str(state.disposition_reason or "")
        return reason.split(";")[0].split(":")[-1].strip() or "discarded"
    return ""


def typed_edges(graph: Graph) -> set[tuple[str, str, str]]:
    """LibStructBench's typed edges: (kind, from, to) by entity name."""
    g = to_networkx(graph)
    return {
        (data["kind"], a.split(":", 1)[1], b.split(":", 1)[1]) for a, b, data in g.edges(data=True)
    }


def to_dot(graph: Graph) -> str:
    lines = [f"digraph {_dot_id(graph.name)} {{", "  rankdir=LR;", "  node [fontname=Helvetica];"]
    g = to_networkx(graph)
    for node, data in g.nodes(data=True):
        if data["kind"] == "state":
            style = ["shape=box", "style=rounded"]
            if data["final"]:
                style.append("penwidth=3")
            if data["discarded"]:
                style.append('style="rounded,dashed"')
            label = f"{data['name']}\\n{data['architecture']}"
            if data["caption"]:
                label += f"\\n{data['caption']}"
                style.append(f"tooltip={_dot_string(data['reason'] or data['status_reason'])}")
        else:
            style = ["shape=hexagon"]
            label = f"{data['name']}\\n{data['operation']}"
        lines.append(f"  {_dot_id(node)} [label={_dot_string(label)}, {', '.join(style)}];")
    for a, b, data in g.edges(data=True):
        extra = ", style=dashed" if data["kind"] == "discarded_product" else ""
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)} [label={_dot_string(data['kind'])}{extra}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(graph: Graph) -> str:
    import networkx as nx

    buffer = io.BytesIO()
    nx.write_graphml(to_networkx(graph), buffer)
    return buffer.getvalue().decode("utf-8")


def to_mermaid(graph: Graph) -> str:
    lines = ["flowchart LR"]
    finals = dict(graph.finals)
    discarded = {s for t in graph.transitions for s in t.discarded}
    for state in graph.states:
        cls = (
            ":::final"
            if state.name in finals
            else ":::discarded"
            if state.name in discarded
            else ""
        )
        caption = state_caption(state, state.name in discarded)
        text = _mermaid_text(state.name) + (f"<br/>{_mermaid_text(caption)}" if caption else "")
        lines.append(f'  {_mid("s", state.name)}(["{text}"]){cls}')
    for transition in graph.transitions:
        lines.append(
            f'  {_mid("t", transition.name)}{{{{"{_mermaid_text(transition.name)}: '
            f'{transition.operation}"}}}}'
        )
    for transition in graph.transitions:
        for s in transition.substrates:
            lines.append(f"  {_mid('s', s)} --> {_mid('t', transition.name)}")
        for s in transition.products:
            arrow = "-.->" if s in transition.discarded else "-->"
            lines.append(f"  {_mid('t', transition.name)} {arrow} {_mid('s', s)}")
    lines += ["  classDef final stroke-width:3px", "  classDef discarded stroke-dasharray: 4 4"]
    return "\n".join(lines)


def to_json(graph: Graph) -> str:
    import networkx as nx

    data = nx.node_link_data(to_networkx(graph), edges="edges")
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def render_graph(graph: Graph, fmt: str) -> str:
    """The graph in one of `FORMATS`."""
    match fmt:
        case "dot":
            return to_dot(graph)
        case "graphml":
            return to_graphml(graph)
        case "mermaid":
            return to_mermaid(graph) + "\n"
        case "json":
            return to_json(graph)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}")


def _dot_id(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _dot_string(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _mid(prefix: str, name: str) -> str:
    return f"{prefix}_" + "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


def _mermaid_text(text: str) -> str:
    """Text for a quoted Mermaid label: quotes as `'`, angle brackets as Mermaid's entity
    codes (a label is HTML to Mermaid)."""
    return text.replace('"', "'").replace("<", "#lt;").replace(">", "#gt;")
