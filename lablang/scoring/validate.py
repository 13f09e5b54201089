"""Structural and link checks of Task 2/3 predictions before they are scored.

The official grader validates predictions against its JSON Schemas and its graph
rules, and scores an invalid Task 2/3 prediction 0 on all six libgen metrics. This is
lablang's own reading of those rules (partial: it checks what the scorer reads and the
graph rules the task states, not every schema keyword): required fields and their
types, non-empty `workflows`, unique ids, references to declared states and oligos,
every product carried or discarded, and an acyclic graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

from lablang.scoring.validity import semantic_problems, unique_workflows

OLIGO_KINDS = frozenset({"single", "assembled", "double_stranded", "hairpin", "unknown"})
ORIENTATIONS = frozenset({"5_to_3", "3_to_5", "unknown"})


def t2_problems(document: Any) -> list[str]:
    """What makes a Task 2 prediction unscorable (empty when it is valid)."""
    if not isinstance(document, dict):
        return ["/: the document must be a JSON object"]
    problems = []
    if not isinstance(document.get("protocol_id"), str):
        problems.append("/protocol_id: a string is required")
    oligos = document.get("oligos")
    if not isinstance(oligos, list):
        return [*problems, "/oligos: an array is required"]
    seen: set[str] = set()
    for index, oligo in enumerate(oligos):
        where = f"/oligos/{index}"
        if not isinstance(oligo, dict):
            problems.append(f"{where}: an object is required")
            continue
        oligo_id = oligo.get("oligo_id")
        if not isinstance(oligo_id, str) or not oligo_id:
            problems.append(f"{where}/oligo_id: a non-empty string is required")
        elif oligo_id in seen:
            problems.append(f"{where}/oligo_id: `{oligo_id}` is declared twice")
        else:
            seen.add(oligo_id)
        for key in ("name", "role"):
            if not isinstance(oligo.get(key), str):
                problems.append(f"{where}/{key}: a string is required")
        if oligo.get("kind") not in OLIGO_KINDS:
            problems.append(f"{where}/kind: must be one of {', '.join(sorted(OLIGO_KINDS))}")
        if oligo.get("orientation") not in ORIENTATIONS:
            problems.append(
                f"{where}/orientation: must be one of {', '.join(sorted(ORIENTATIONS))}"
            )
        if (
            "sequence" in oligo
            and oligo["sequence"] is not None
            and not isinstance(oligo["sequence"], str)
        ):
            problems.append(f"{where}/sequence: a string is required")
        components = oligo.get("components", [])
        if not isinstance(components, list) or not all(isinstance(c, dict) for c in components):
            problems.append(f"{where}/components: an array of objects is required")
        for key in ("modifications", "aliases"):
            value = oligo.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.append(f"{where}/{key}: an array of strings is required")
        sequence = oligo.get("sequence")
        if not (isinstance(sequence, str) and sequence) and not (
            isinstance(components, list)
            and any(
                isinstance(c, dict) and (c.get("sequence") or c.get("placeholder"))
                for c in components
            )
        ):
            problems.append(f"{where}: a sequence or a component with a sequence is required")
    return problems


def t3_problems(document: Any, oligos: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """What makes a Task 3 prediction unscorable; `oligos` are the Task 2 oligos by id, if known.

    Shapes first; a workflow whose shapes are sound is then held to the grader's
    semantic rules (`validity.py`).
    """
    if not isinstance(document, dict):
        return ["/: the document must be a JSON object"]
    problems = []
    if not isinstance(document.get("protocol_id"), str):
        problems.append("/protocol_id: a string is required")
    workflows = document.get("workflows")
    if not isinstance(workflows, list):
        return [*problems, "/workflows: an array is required"]
    if not workflows:
        return [*problems, "/workflows: [] should be non-empty"]
    problems.extend(unique_workflows(workflows))
    for w_index, workflow in enumerate(workflows):
        where = f"/workflows/{w_index}"
        shape = _workflow_problems(workflow, where, None if oligos is None else set(oligos))
        problems.extend(shape or semantic_problems(workflow, where, oligos))
    return problems


def _workflow_problems(workflow: Any, where: str, oligo_ids: set[str] | None) -> list[str]:
    if not isinstance(workflow, dict):
        return [f"{where}: an object is required"]
    problems = []
    if not isinstance(workflow.get("workflow_id"), str):
        problems.append(f"{where}/workflow_id: a string is required")
    for key in ("states", "transitions", "initial_state_ids", "final_outputs"):
        if not isinstance(workflow.get(key), list):
            problems.append(f"{where}/{key}: an array is required")
    if problems:
        return problems
    state_ids: set[str] = set()
    for index, state in enumerate(workflow["states"]):
        problems.extend(_state_problems(state, f"{where}/states/{index}", state_ids))
    transition_ids: set[str] = set()
    graph: nx.DiGraph[str] = nx.DiGraph()
    for index, transition in enumerate(workflow["transitions"]):
        at = f"{where}/transitions/{index}"
        if not isinstance(transition, dict):
            problems.append(f"{at}: an object is required")
            continue
        tid = transition.get("transition_id")
        if not isinstance(tid, str) or not tid:
            problems.append(f"{at}/transition_id: a non-empty string is required")
            continue
        if tid in transition_ids:
            problems.append(f"{at}/transition_id: `{tid}` is declared twice")
        transition_ids.add(tid)
        if not isinstance(transition.get("operation"), str):
            problems.append(f"{at}/operation: a string is required")
        lists = {}
        for key in (
            "substrate_state_ids", "product_state_ids", "carried_forward_product_ids",
            "discarded_product_ids", "oligo_ids",
        ):  # fmt: skip
            value = transition.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.append(f"{at}/{key}: an array of strings is required")
                value = []
            lists[key] = value
        for key in ("substrate_state_ids", "product_state_ids", "carried_forward_product_ids",
                    "discarded_product_ids"):  # fmt: skip
            for sid in lists[key]:
                if sid not in state_ids:
                    problems.append(f"{at}/{key}: state `{sid}` is not declared")
        if oligo_ids is not None:
            for oid in lists["oligo_ids"]:
                if oid not in oligo_ids:
                    problems.append(
                        f"{at}/oligo_ids: oligo `{oid}` is not in the Task 2 prediction"
                    )
        products = set(lists["product_state_ids"])
        disposed = set(lists["carried_forward_product_ids"]) | set(lists["discarded_product_ids"])
        for sid in sorted(products - disposed):
            problems.append(f"{at}: product `{sid}` is neither carried forward nor discarded")
        for sid in sorted(disposed - products):
            problems.append(f"{at}: `{sid}` is carried or discarded but is not a product")
        for sid in lists["substrate_state_ids"]:
            graph.add_edge(f"s:{sid}", f"t:{tid}")
        for sid in lists["product_state_ids"]:
            graph.add_edge(f"t:{tid}", f"s:{sid}")
    if graph.number_of_nodes() and not nx.is_directed_acyclic_graph(graph):
        cycle = " -> ".join(node[2:] for node, _ in nx.find_cycle(graph))
        problems.append(f"{where}: the graph has a cycle ({cycle})")
    for sid in workflow["initial_state_ids"]:
        if sid not in state_ids:
            problems.append(f"{where}/initial_state_ids: state `{sid}` is not declared")
    for index, output in enumerate(workflow["final_outputs"]):
        if not isinstance(output, dict) or output.get("state_id") not in state_ids:
            problems.append(f"{where}/final_outputs/{index}: a declared `state_id` is required")
    return problems


def _state_problems(state: Any, where: str, state_ids: set[str]) -> list[str]:
    if not isinstance(state, dict):
        return [f"{where}: an object is required"]
    problems = []
    sid = state.get("state_id")
    if not isinstance(sid, str) or not sid:
        return [f"{where}/state_id: a non-empty string is required"]
    if sid in state_ids:
        problems.append(f"{where}/state_id: `{sid}` is declared twice")
    state_ids.add(sid)
    for key in ("strands", "paired_regions", "discontinuities"):
        if not isinstance(state.get(key, []), list):
            problems.append(f"{where}/{key}: an array is required")
    if problems:
        return problems
    segment_ids: set[str] = set()
    strand_ids: set[str] = set()
    for index, strand in enumerate(state.get("strands", [])):
        at = f"{where}/strands/{index}"
        if not isinstance(strand, dict) or not isinstance(strand.get("strand_id"), str):
            problems.append(f"{at}/strand_id: a string is required")
            continue
        strand_ids.add(strand["strand_id"])
        segments = strand.get("segments", [])
        if not isinstance(segments, list):
            problems.append(f"{at}/segments: an array is required")
            continue
        for s_index, segment in enumerate(segments):
            if not isinstance(segment, dict) or not isinstance(segment.get("segment_id"), str):
                problems.append(f"{at}/segments/{s_index}/segment_id: a string is required")
                continue
            segment_ids.add(segment["segment_id"])
            derivations = segment.get("oligo_derivations", [])
            if not isinstance(derivations, list) or not all(
                isinstance(d, dict) and isinstance(d.get("oligo_id"), str) for d in derivations
            ):
                problems.append(
                    f"{at}/segments/{s_index}/oligo_derivations: objects with `oligo_id` are required"
                )
    for index, region in enumerate(state.get("paired_regions", [])):
        at = f"{where}/paired_regions/{index}"
        for side in ("side_1", "side_2"):
            value = region.get(side) if isinstance(region, dict) else None
            if (
                not isinstance(value, Mapping)
                or value.get("strand_id") not in strand_ids
                or not isinstance(value.get("segment_ids"), list)
            ):
                problems.append(
                    f"{at}/{side}: a declared `strand_id` and `segment_ids` are required"
                )
    for index, item in enumerate(state.get("discontinuities", [])):
        if not isinstance(item, dict):
            problems.append(f"{where}/discontinuities/{index}: an object is required")
    return problems
