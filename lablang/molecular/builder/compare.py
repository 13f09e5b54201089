"""Comparing declared and derived sequences and states; LibStructBench's graph rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lablang import ast
from lablang.molecular.builder.common import (
    modality_of,
    word_of,
)
from lablang.molecular.model import (
    Graph,
    StateDef,
    TransitionDef,
)
from lablang.molecular.molecule import (
    MolType,
)
from lablang.molecular.sequence import (
    Seq,
    fold_anchors,
    kept_positions,
    plain,
    render,
)

# ---------------------------------------------------------------------- comparisons


def segment_at(seq: Seq, token: int) -> str:
    """The segment (label, or the part as written) at a token position."""
    pos = 0
    for part in seq.parts:
        width = len(Seq((part,)))
        if width and pos <= token < pos + width:
            label = getattr(part, "label", None)
            return label or render(Seq((part,)))[3:-3]
        pos += width
    return "end of sequence"


def sequence_difference(want: Seq, got: Seq) -> str | None:
    """None when equal (up to chemistry and degenerate bases folded into payloads);
    otherwise the first differing segment of `want`."""
    full = plain(want).tokens()
    kept = kept_positions(full)
    a = tuple(full[i] for i in kept)
    b = fold_anchors(plain(got).tokens())
    if a == b:
        return None
    index = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    position = kept[index] if index < len(kept) else len(full)
    return segment_at(plain(want), position)


def compare_state(state: StateDef, molecule: Any) -> tuple[str, list[str]] | None:
    """None when every declared strand is a strand of the derived molecule."""
    from lablang.molecular.molecule import strands as molecule_strands

    derived = molecule_strands(molecule)
    for strand in state.strands:
        if any(sequence_difference(strand.seq, d.seq) is None for d in derived):
            continue
        best = max(derived, key=lambda d: _common_prefix(strand.seq, d.seq))
        diff = sequence_difference(strand.seq, best.seq) or "?"
        rna = strand.moltype is MolType.RNA
        return (
            f"strand `{strand.name}` first differs at segment `{diff}`",
            [
                f"declared: {render(strand.seq, rna=rna)}",
                f"derived:  {render(best.seq, rna=best.moltype is MolType.RNA)}",
            ],
        )
    return None


def closeness(state: StateDef, molecule: Any) -> int:
    """How far the declared strands agree with the molecule's, position by position."""
    from lablang.molecular.molecule import strands as molecule_strands

    derived = molecule_strands(molecule)
    return sum(
        max((_common_prefix(s.seq, d.seq) for d in derived), default=0) for s in state.strands
    )


def _common_prefix(a: Seq, b: Seq) -> int:
    ta, tb = fold_anchors(plain(a).tokens()), fold_anchors(plain(b).tokens())
    n = 0
    for x, y in zip(ta, tb, strict=False):
        if x != y:
            break
        n += 1
    return n


# ---------------------------------------------------------------------- graph rules

GRAPH_HELP = {
    "E0406": "a molecular workflow is a DAG: a product cannot be a substrate of an earlier step",
    "E0407": "list every product of a transition under `carried` or `discarded`",
    "E0408": "use the product as a substrate of a later transition, mark it final, or discard it",
    "E0409": "connect the final state to an initial state through transitions",
    "E0450": "carry the product forward in the step that makes it, or use the product it carried",
}


def graph_problems(graph: Graph) -> list[tuple[str, str, str]]:
    """LibStructBench's modelling rules, as (code, message, entity name) triples.

    Rules: acyclic; every product carried or discarded; no discarded product is a later
    substrate; every carried product that is not final is a later substrate; every final
    state reachable from an initial state.
    Plain graph search (no networkx), so `lablang check` stays light.
    """
    problems: list[tuple[str, str, str]] = []
    edges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for state in graph.states:
        edges.setdefault(("s", state.name), [])
    known = {state.name for state in graph.states}
    finals = {f for f, _ in graph.finals}
    for t in graph.transitions:
        node = ("t", t.name)
        edges.setdefault(node, [])
        for s in t.substrates:
            edges.setdefault(("s", s), []).append(node)
        for s in t.products:
            edges[node].append(("s", s))
            edges.setdefault(("s", s), [])
        for s in (*t.substrates, *t.products, *t.carried, *t.discarded):
            if s not in known:
                problems.append(
                    (
                        "E0409",
                        f"transition `{t.name}` names `{s}`, which is not a declared state",
                        t.name,
                    )
                )
        for s in t.products:
            if s not in t.carried and s not in t.discarded:
                problems.append(
                    (
                        "E0407",
                        f"product `{s}` of `{t.name}` is neither carried nor discarded",
                        t.name,
                    )
                )
        for s in (*t.carried, *t.discarded):
            if s not in t.products:
                problems.append(
                    (
                        "E0407",
                        f"`{s}` is carried or discarded by `{t.name}` but is not its product",
                        t.name,
                    )
                )
    discarded_by: dict[str, str] = {}
    for t in graph.transitions:
        for s in t.discarded:
            discarded_by.setdefault(s, t.name)
    for t in graph.transitions:
        for s in t.substrates:
            if s in discarded_by and discarded_by[s] != t.name:
                problems.append(
                    ("E0450", f"`{t.name}` uses `{s}`, which `{discarded_by[s]}` discarded", t.name)
                )
    cycle = _find_cycle(edges)
    if cycle:
        names = " -> ".join(f"`{n[1]}`" for n in cycle)
        problems.append(("E0406", f"the workflow has a cycle: {names}", cycle[0][1]))
    used = {s for t in graph.transitions for s in t.substrates}
    # a step whose discarded product is used later has its dispositions the wrong way
    # round: its unused carried product is the same mistake, reported once (E0450)
    swapped = {
        discarded_by[s] for t in graph.transitions for s in t.substrates if s in discarded_by
    }
    # a derived step naming one product of an earlier step (`d_2`, a band cut from a gel)
    # leaves the others behind: they are not unused mistakes
    picked = {
        t.name
        for t in graph.transitions
        if graph.derived and len(t.carried) > 1 and any(s in used for s in t.carried)
    }
    for t in graph.transitions:
        for s in t.carried:
            if s not in used and s not in finals and t.name not in swapped | picked:
                problems.append(
                    (
                        "E0408",
                        f"`{s}` is carried forward by `{t.name}` but no later step uses it "
                        "and it is not final",
                        s if s in known else t.name,
                    )
                )
    initial = set(graph.initial) or {
        s.name
        for s in graph.states
        if not any(s.name in t.products for t in graph.transitions) and s.name in used
    }
    reachable = _reachable(edges, [("s", i) for i in sorted(initial)])
    for f in sorted(finals):
        if ("s", f) not in edges:
            problems.append(("E0409", f"final state `{f}` is not declared", f))
        elif f not in initial and ("s", f) not in reachable:
            problems.append(
                ("E0409", f"final state `{f}` is not reachable from an initial state", f)
            )
    return problems


def _find_cycle(edges: dict[tuple[str, str], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """One cycle as a node list (empty when acyclic); iterative DFS with colours."""
    colour: dict[tuple[str, str], int] = {}
    for root in sorted(edges):
        if colour.get(root):
            continue
        stack = [(root, iter(edges[root]))]
        path = [root]
        colour[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            state = colour.get(child, 0)
            if state == 1:
                return [*path[path.index(child) :], child]
            if state == 0:
                colour[child] = 1
                stack.append((child, iter(edges.get(child, []))))
                path.append(child)
    return []


def _reachable(
    edges: dict[tuple[str, str], list[tuple[str, str]]], roots: list[tuple[str, str]]
) -> set[tuple[str, str]]:
    seen = set(roots)
    todo = list(roots)
    while todo:
        for child in edges.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def declared_graph(
    name: str, states: list[StateDef], transitions: list[TransitionDef], decls: Sequence[ast.Decl]
) -> Graph:
    finals: list[tuple[str, str]] = []
    for decl in decls:
        if decl.kind == "state" and decl.body:
            for member in decl.body.members:
                if isinstance(member, ast.Field) and member.key == "final":
                    finals.append(
                        (decl.name, modality_of(word_of(member.value) or "gene expression"))
                    )
    products = {p for t in transitions for p in t.products}
    substrates = {s for t in transitions for s in t.substrates}
    initial = tuple(s.name for s in states if s.name not in products and s.name in substrates)
    if not finals:
        substrates = {s for t in transitions for s in t.substrates}
        finals = [
            (s.name, "gene expression")
            for s in states
            if s.name in products
            and s.name not in substrates
            and any(s.name in t.carried for t in transitions)
        ]
    return Graph(name, tuple(states), tuple(transitions), initial, tuple(finals))
