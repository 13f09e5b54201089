"""The official grader's semantic validity rules for Task 2/3 predictions.

The LibStructBench grader (libgen 4.5.0) checks a prediction's schema, then the
semantics of its molecular graph and states with the contract it shows the agent
(`libgen/prediction_validation.py`, which `libgen/validation.py` calls for predictions);
a prediction that breaks any rule is *invalid* and scores 0 on every libgen metric. Its
ground-truth validator (`audit/groundtruth.py`) is stricter (a Y-shaped duplex needs an
unpaired arm on each strand, a paired region only `paired_region` segments, a derived
segment agrees with its oligo), but it runs on the truth only: a prediction that breaks
one of those rules is scored, and the state it mislabels scores lower (`NOT_RULES`). `validate.py` checks the shapes the
scorer reads; this module applies the semantic rules, each one small function named
in `RULES` (the table in docs/scoring.md is generated from it). Each rule takes an
already shape-checked workflow (or state) and returns its problems as
`"/json/pointer: message"` strings, in document order, so the same prediction always
gives the same first reason.

Rules the grader has and lablang does not apply are listed in `NOT_APPLIED`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

Workflow = Mapping[str, Any]
State = Mapping[str, Any]

ARCHITECTURES = frozenset(
    {
        "single_stranded",
        "double_stranded",
        "partially_duplex",
        "rna_dna_hybrid",
        "y_shaped_duplex",
        "mixed_population",
        "unknown",
    }
)
TWO_STRANDED = frozenset({"double_stranded", "rna_dna_hybrid", "y_shaped_duplex"})
ORIENTATIONS_TO_SOURCE = frozenset({"same_orientation", "reverse_complement", "unknown"})
_IUPAC = frozenset("ACGTRYSWKMBDHVN")
_COMPLEMENT = str.maketrans("ACGTRYSWKMBDHVN", "TGCAYRSWMKVHDBN")


def _ids(items: Iterable[Any], key: str) -> list[str]:
    return [
        item[key] for item in items if isinstance(item, Mapping) and isinstance(item.get(key), str)
    ]


def _transitions(workflow: Workflow) -> list[Mapping[str, Any]]:
    return [t for t in workflow["transitions"] if isinstance(t, Mapping)]


def _list(transition: Mapping[str, Any], key: str) -> list[str]:
    value = transition.get(key, [])
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _listed(workflow: Workflow, key: str) -> Iterator[tuple[int, str]]:
    """(transition index, state id) for each state id a transition lists under `key`."""
    for index, t in enumerate(workflow["transitions"]):
        if isinstance(t, Mapping):
            for state_id in _list(t, key):
                yield index, state_id


# ------------------------------------------------------------------ workflow rules


def unique_terminal_states(workflow: Workflow, where: str) -> list[str]:
    """`final_outputs` names each terminal state once."""
    seen: set[str] = set()
    problems = []
    for index, state_id in enumerate(_ids(workflow["final_outputs"], "state_id")):
        if state_id in seen:
            problems.append(
                f"{where}/final_outputs/{index}: terminal state `{state_id}` is listed twice"
            )
        seen.add(state_id)
    return problems


def carried_or_discarded_not_both(workflow: Workflow, where: str) -> list[str]:
    """No product is both carried forward and discarded by one transition."""
    discarded = set(_listed(workflow, "discarded_product_ids"))
    return [
        f"{where}/transitions/{index}: `{state_id}` is both carried forward and discarded"
        for index, state_id in sorted(set(_listed(workflow, "carried_forward_product_ids")))
        if (index, state_id) in discarded
    ]


def discarded_products_stay_unused(workflow: Workflow, where: str) -> list[str]:
    """A product a transition discards is never a substrate of any transition."""
    discarded_by: dict[str, str] = {}
    for t in _transitions(workflow):
        for state_id in _list(t, "discarded_product_ids"):
            discarded_by.setdefault(state_id, str(t.get("transition_id")))
    return [
        f"{where}/transitions/{index}/substrate_state_ids: `{state_id}` was discarded "
        f"by `{discarded_by[state_id]}` and cannot be a downstream substrate"
        for index, state_id in _listed(workflow, "substrate_state_ids")
        if state_id in discarded_by
    ]


def substrates_are_initial_or_carried(workflow: Workflow, where: str) -> list[str]:
    """Every substrate is an initial state or a product some transition carries forward."""
    available = {s for s in workflow["initial_state_ids"] if isinstance(s, str)}
    discarded: set[str] = set()
    for t in _transitions(workflow):
        available.update(_list(t, "carried_forward_product_ids"))
        discarded.update(_list(t, "discarded_product_ids"))
    return [
        f"{where}/transitions/{index}/substrate_state_ids: `{state_id}` is neither an "
        "initial state nor carried forward by a transition"
        for index, state_id in _listed(workflow, "substrate_state_ids")
        if state_id not in available and state_id not in discarded
    ]


def carried_products_are_used(workflow: Workflow, where: str) -> list[str]:
    """A carried-forward product is a later substrate or a terminal state."""
    finals = set(_ids(workflow["final_outputs"], "state_id"))
    substrates = {s for t in _transitions(workflow) for s in _list(t, "substrate_state_ids")}
    return [
        f"{where}/transitions/{index}/carried_forward_product_ids: `{state_id}` is "
        "carried forward but is neither a downstream substrate nor a terminal state"
        for index, state_id in _listed(workflow, "carried_forward_product_ids")
        if state_id not in finals and state_id not in substrates
    ]


def workflow_is_connected(workflow: Workflow, where: str) -> list[str]:
    """States and transitions form one weakly connected graph (one molecular process)."""
    state_ids = _ids(workflow["states"], "state_id")
    if not state_ids:
        return []
    neighbours: dict[str, set[str]] = defaultdict(set)
    for t in _transitions(workflow):
        node = f"t:{t.get('transition_id')}"
        for key in ("substrate_state_ids", "product_state_ids"):
            for state_id in _list(t, key):
                neighbours[node].add(f"s:{state_id}")
                neighbours[f"s:{state_id}"].add(node)
    nodes = {f"s:{s}" for s in state_ids} | set(neighbours)
    start = f"s:{state_ids[0]}"
    seen, stack = {start}, [start]
    while stack:
        for nxt in neighbours[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    apart = sorted(node[2:] for node in nodes - seen if node.startswith("s:"))
    if apart:
        return [
            f"{where}: the workflow is not one connected process: "
            f"{', '.join(f'`{s}`' for s in apart)} are not connected to `{state_ids[0]}`"
        ]
    return []


def terminal_states_reachable(workflow: Workflow, where: str) -> list[str]:
    """Every terminal state is reached from an initial state through carried-forward products."""
    reached = {s for s in workflow["initial_state_ids"] if isinstance(s, str)}
    carried_from: dict[str, set[str]] = defaultdict(set)
    for t in _transitions(workflow):
        for substrate in _list(t, "substrate_state_ids"):
            carried_from[substrate].update(_list(t, "carried_forward_product_ids"))
    stack = list(reached)
    while stack:
        for nxt in carried_from[stack.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                stack.append(nxt)
    problems = []
    for index, state_id in enumerate(_ids(workflow["final_outputs"], "state_id")):
        if state_id not in reached:
            problems.append(
                f"{where}/final_outputs/{index}: terminal state `{state_id}` is not reached from "
                "an initial state through carried-forward products"
            )
    return problems


# --------------------------------------------------------------------- state rules


def _segments(state: State) -> dict[str, tuple[str, int, Mapping[str, Any]]]:
    """Segment id -> (strand id, position on the strand, segment), first occurrence."""
    located: dict[str, tuple[str, int, Mapping[str, Any]]] = {}
    for strand in state.get("strands", []):
        if not isinstance(strand, Mapping):
            continue
        for position, segment in enumerate(strand.get("segments", [])):
            if isinstance(segment, Mapping) and isinstance(segment.get("segment_id"), str):
                located.setdefault(segment["segment_id"], (strand["strand_id"], position, segment))
    return located


def strands_are_well_formed(state: State, where: str) -> list[str]:
    """Strands are recorded 5'->3' with a molecule type, segment ids are unique in the
    state, and `reference_strand_id` names one of its strands."""
    problems = []
    strand_ids = _ids(state.get("strands", []), "strand_id")
    if len(strand_ids) != len(set(strand_ids)):
        problems.append(f"{where}/strands: strand ids are not unique")
    if state.get("reference_strand_id") not in strand_ids:
        problems.append(
            f"{where}/reference_strand_id: {state.get('reference_strand_id')!r} is not one of "
            "the state's strands"
        )
    seen: set[str] = set()
    for index, strand in enumerate(state.get("strands", [])):
        if not isinstance(strand, Mapping):
            continue
        if strand.get("orientation") != "5_to_3":
            problems.append(f"{where}/strands/{index}/orientation: strands are recorded 5_to_3")
        if "molecule_type" not in strand:
            problems.append(f"{where}/strands/{index}/molecule_type: required")
        for s_index, segment in enumerate(strand.get("segments", [])):
            if not isinstance(segment, Mapping):
                continue
            if "structural_role" not in segment:
                problems.append(
                    f"{where}/strands/{index}/segments/{s_index}/structural_role: required"
                )
            sid = segment.get("segment_id")
            if sid in seen:
                problems.append(
                    f"{where}/strands/{index}/segments/{s_index}: segment id `{sid}` is used twice in the state"
                )
            seen.add(str(sid))
    return problems


def _side(
    state: State, side: Any, located: Mapping[str, tuple[str, int, Mapping[str, Any]]]
) -> tuple[list[Mapping[str, Any]], str | None]:
    """The segments of one side of a paired region, or why the side is malformed."""
    strand_id = side.get("strand_id") if isinstance(side, Mapping) else None
    ids = side.get("segment_ids") if isinstance(side, Mapping) else None
    if not isinstance(ids, list) or not ids:
        return [], "must name at least one segment"
    positions, segments = [], []
    for segment_id in ids:
        place = located.get(segment_id) if isinstance(segment_id, str) else None
        if place is None or place[0] != strand_id:
            return [], f"names segment `{segment_id}` outside strand `{strand_id}`"
        positions.append(place[1])
        segments.append(place[2])
    if positions != list(range(positions[0], positions[0] + len(positions))):
        return [], "segment ids must be contiguous and ordered 5'->3'"
    return segments, None


def _explicit(segments: list[Mapping[str, Any]]) -> str | None:
    parts = [segment.get("sequence") for segment in segments]
    if not all(isinstance(part, str) for part in parts):
        return None
    text = "".join("".join(str(part).split()) for part in parts).upper().replace("U", "T")
    return text if text and all(base in _IUPAC for base in text) else None


def pairings_are_consistent(state: State, where: str) -> list[str]:
    """Paired regions have unique ids and pair contiguous segments of declared strands,
    each segment at most once (except in a mixed population), and reverse-complementary
    sides really are."""
    located = _segments(state)
    architecture = state.get("strand_architecture")
    problems: list[str] = []
    paired: set[str] = set()
    region_ids: set[str] = set()
    for index, region in enumerate(state.get("paired_regions", [])):
        at = f"{where}/paired_regions/{index}"
        if not isinstance(region, Mapping):
            continue
        region_id = region.get("paired_region_id")
        if isinstance(region_id, str) and region_id in region_ids:
            problems.append(f"{at}/paired_region_id: `{region_id}` is declared twice")
        region_ids.add(str(region_id))
        sides = []
        for name in ("side_1", "side_2"):
            segments, why = _side(state, region.get(name), located)
            if why:
                problems.append(f"{at}/{name}: {why}")
            sides.append(segments)
        if len(sides[0]) == 0 or len(sides[1]) == 0:
            continue
        one, two = ({s["segment_id"] for s in side} for side in sides)
        if one & two:
            problems.append(f"{at}: its sides overlap ({', '.join(sorted(one & two))})")
        if architecture != "mixed_population" and paired & (one | two):
            problems.append(
                f"{at}: pairs segments already paired ({', '.join(sorted(paired & (one | two)))})"
            )
        paired |= one | two
        if region.get("relationship") == "reverse_complementary":
            a, b = _explicit(sides[0]), _explicit(sides[1])
            if a is not None and b is not None and a.translate(_COMPLEMENT)[::-1] != b:
                problems.append(f"{at}: its sides are not reverse-complementary")
    return problems


def discontinuities_lie_between_neighbours(state: State, where: str) -> list[str]:
    """A nick or gap lies between two adjacent segments of the strand it names."""
    located = _segments(state)
    problems = []
    for index, item in enumerate(state.get("discontinuities", [])):
        at = f"{where}/discontinuities/{index}"
        if not isinstance(item, Mapping):
            continue
        strand_id = item.get("strand_id")
        after = located.get(str(item.get("after_segment_id")))
        before = located.get(str(item.get("before_segment_id")))
        if after is None or before is None:
            problems.append(f"{at}: names a segment the state does not have")
        elif after[0] != strand_id or before[0] != strand_id:
            problems.append(f"{at}: its segments are not on strand `{strand_id}`")
        elif before[1] != after[1] + 1:
            problems.append(f"{at}: must lie between adjacent segments")
    return problems


def architecture_fits_strands(state: State, where: str) -> list[str]:
    """`strand_architecture` is a known class and fits the strands: single_stranded is one
    unpaired strand; double_stranded, rna_dna_hybrid and y_shaped_duplex are exactly two
    strands with a paired region (double_stranded fully paired, a hybrid one DNA and one
    RNA); partially_duplex has a paired and an unpaired region."""
    architecture = state.get("strand_architecture")
    if architecture not in ARCHITECTURES:
        return [f"{where}/strand_architecture: {architecture!r} is not a strand architecture"]
    strands = [s for s in state.get("strands", []) if isinstance(s, Mapping)]
    regions = [r for r in state.get("paired_regions", []) if isinstance(r, Mapping)]
    located = _segments(state)
    paired = {
        sid
        for region in regions
        for name in ("side_1", "side_2")
        if isinstance(region.get(name), Mapping)
        for sid in region[name].get("segment_ids", []) or []
        if isinstance(sid, str)
    }
    at = f"{where}/strand_architecture"
    if architecture == "single_stranded":
        return (
            []
            if len(strands) == 1 and not regions
            else [f"{at}: single_stranded needs one unpaired strand"]
        )
    if architecture in TWO_STRANDED and (len(strands) != 2 or not regions):
        return [f"{at}: {architecture} needs exactly two strands and a paired region"]
    if architecture == "double_stranded" and paired != set(located):
        return [f"{at}: double_stranded cannot have unpaired or overhanging segments"]
    if architecture == "partially_duplex":
        if not regions:
            return [f"{at}: partially_duplex needs a paired region"]
        if paired == set(located):
            return [f"{at}: partially_duplex needs an unpaired region"]
    if architecture == "rna_dna_hybrid" and {s.get("molecule_type") for s in strands} != {
        "DNA",
        "RNA",
    }:
        return [f"{at}: rna_dna_hybrid needs one DNA and one RNA strand"]
    return []


def derivations_are_consistent(
    state: State, where: str, oligos: Mapping[str, Mapping[str, Any]] | None
) -> list[str]:
    """A segment derives from each oligo at most once, from an oligo of the Task 2
    prediction (when it is given), with a known `orientation_to_source`."""
    problems = []
    for index, strand in enumerate(state.get("strands", [])):
        if not isinstance(strand, Mapping):
            continue
        for s_index, segment in enumerate(strand.get("segments", [])):
            if not isinstance(segment, Mapping):
                continue
            at = f"{where}/strands/{index}/segments/{s_index}/oligo_derivations"
            derivations = [
                d for d in segment.get("oligo_derivations", []) if isinstance(d, Mapping)
            ]
            ids = [d.get("oligo_id") for d in derivations]
            if len(ids) != len(set(ids)):
                problems.append(f"{at}: derives from the same oligo more than once")
            for derivation in derivations:
                orientation = derivation.get("orientation_to_source")
                if orientation not in ORIENTATIONS_TO_SOURCE:
                    problems.append(
                        f"{at}: orientation_to_source {orientation!r} is not one of {', '.join(sorted(ORIENTATIONS_TO_SOURCE))}"
                    )
                if oligos is not None and str(derivation.get("oligo_id")) not in oligos:
                    problems.append(
                        f"{at}: oligo `{derivation.get('oligo_id')}` is not in the Task 2 prediction"
                    )
    return problems


def semantic_problems(
    workflow: Workflow, where: str, oligos: Mapping[str, Mapping[str, Any]] | None
) -> list[str]:
    """Every semantic rule on one shape-checked workflow, workflow rules first."""
    problems = [p for rule in WORKFLOW_RULES for p in rule(workflow, where)]
    for index, state in enumerate(workflow["states"]):
        if not isinstance(state, Mapping):
            continue
        at = f"{where}/states/{index}"
        problems += [p for rule in STATE_RULES for p in rule(state, at)]
        problems += derivations_are_consistent(state, at, oligos)
    return problems


def unique_workflows(workflows: list[Any]) -> list[str]:
    """Workflow ids are unique in a Task 3 document."""
    seen: set[str] = set()
    problems = []
    for index, workflow_id in enumerate(_ids(workflows, "workflow_id")):
        if workflow_id in seen:
            problems.append(f"/workflows/{index}/workflow_id: `{workflow_id}` is declared twice")
        seen.add(workflow_id)
    return problems


WORKFLOW_RULES: tuple[Callable[[Workflow, str], list[str]], ...] = (
    unique_terminal_states,
    carried_or_discarded_not_both,
    discarded_products_stay_unused,
    substrates_are_initial_or_carried,
    carried_products_are_used,
    workflow_is_connected,
    terminal_states_reachable,
)
STATE_RULES: tuple[Callable[[State, str], list[str]], ...] = (
    strands_are_well_formed,
    pairings_are_consistent,
    discontinuities_lie_between_neighbours,
    architecture_fits_strands,
)
RULES = (unique_workflows, *WORKFLOW_RULES, *STATE_RULES, derivations_are_consistent)
# rules of the grader's ground-truth validator that it does not apply to predictions
# (so neither does lablang): a prediction breaking one is scored, not rejected
NOT_RULES = (
    "a y_shaped_duplex has an unpaired arm on both strands (a fully paired state labelled "
    "`y_shaped_duplex` is an architecture mismatch: that state scores lower)",
    "a paired region includes only segments whose `structural_role` says paired, and a "
    "segment marked `paired_region` is in a paired region",
    "a strand pairs with itself only in a partially_duplex state",
    "an explicit segment agrees with the sequence of the oligo it derives from, read in its "
    "`orientation_to_source`",
    "a strand's `sequence_architecture` agrees with its ordered segment projection",
    "protocol-scope (version and variant) compatibility, which predictions do not carry",
)
NOT_APPLIED = (
    "the full JSON Schemas of the prediction documents (lablang checks the fields the scorer reads)",
)
