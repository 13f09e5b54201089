"""LibStructBench Task 3 export: a graph's states and transitions as the prediction schema writes them.

States keep their strands 5'->3', split into segments by provenance and cut where the
structural role changes (paired, 5'/3' overhang), with the paired regions and
discontinuities the grader reads; transitions list their substrates, products and
dispositions. `libstruct.export_libstruct` calls it for `t3`.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from lablang.molecular.libstruct_segments import (
    PAIRED_ROLES,
    _ident,
    library_sequence,
    segments_of,
)
from lablang.molecular.model import Graph, StateDef, TransitionDef
from lablang.molecular.molecule import Duplex, MolType
from lablang.molecular.sequence import SymbolToken, plain


def workflow_record(graph: Graph, oligos: AbstractSet[str] | None = None) -> dict[str, Any]:
    return {
        "workflow_id": graph.name,
        "states": [state_record(s, oligos) for s in graph.states],
        "transitions": [transition_record(t) for t in graph.transitions],
        "initial_state_ids": list(graph.initial),
        "final_outputs": [{"state_id": s, "modality": m} for s, m in graph.finals],
    }


def state_record(state: StateDef, oligos: AbstractSet[str] | None = None) -> dict[str, Any]:
    types = sorted({s.moltype.value for s in state.strands})
    strands: list[dict[str, Any]] = []
    roles = _structural_roles(state)
    for index, strand in enumerate(state.strands):
        strand_id = f"{state.name}_{_ident(strand.name)}"
        segments = segments_of(strand.seq, roles[index], oligos)
        for k, seg in enumerate(segments):
            seg["segment_id"] = f"{strand_id}_s{k + 1}"
        strands.append(
            {
                "strand_id": strand_id,
                "name": strand.name,
                # LibStructBench's strand types are DNA, RNA, other, unknown
                "molecule_type": "other"
                if strand.moltype is MolType.CHIMERA
                else strand.moltype.value,
                "orientation": "5_to_3",
                "sequence_architecture": library_sequence(strand.seq),
                "segments": segments,
                "support_status": state.support_status,
            }
        )
    ids = {s.name: f"{state.name}_{_ident(s.name)}" for s in state.strands}
    # a paired region names only the segments that pair (the grader rejects a region
    # that includes an overhang); they are contiguous: 5' overhang, paired, 3' overhang
    segment_ids = {
        st["strand_id"]: [
            seg["segment_id"]
            for seg in st["segments"]
            if seg.get("structural_role", "unknown") in PAIRED_ROLES
        ]
        for st in strands
    }
    paired = []
    for n, (a, b) in enumerate(state.pairs):
        if a in ids and b in ids and segment_ids[ids[a]] and segment_ids[ids[b]]:
            paired.append(
                {
                    "paired_region_id": f"{state.name}_pr{n + 1}",
                    "side_1": {"strand_id": ids[a], "segment_ids": segment_ids[ids[a]]},
                    "side_2": {"strand_id": ids[b], "segment_ids": segment_ids[ids[b]]},
                    "relationship": "reverse_complementary",
                    "support_status": state.support_status,
                }
            )
    return {
        "state_id": state.name,
        "name": state.title or state.name,
        "molecule_type": "/".join(reversed(types))
        if len(types) > 1
        else (types[0] if types else "unknown"),
        "strand_architecture": _architecture(state.architecture.value, strands, paired),
        "reference_strand_id": strands[0]["strand_id"] if strands else "",
        "physical_state": "",
        "strands": strands,
        "paired_regions": paired,
        "discontinuities": [
            {
                "discontinuity_id": f"{state.name}_d{i + 1}",
                "strand_id": ids.get(d.strand, d.strand),
                "after_segment_id": d.after,
                "before_segment_id": d.before,
                "kind": d.kind,
            }
            for i, d in enumerate(state.discontinuities)
        ],
        "properties": [],
        "support_status": state.support_status,
    }


def _architecture(
    declared: str, strands: list[dict[str, Any]], paired: list[dict[str, Any]]
) -> str:
    """The architecture as the exported pairing shows it, for a two-strand duplex.

    A `double_stranded` state whose strands have overhangs (an A-tail, a ligated Y arm)
    is `partially_duplex` in LibStructBench's terms, and a `partially_duplex` one whose
    segments all pair is `double_stranded`: the grader rejects an architecture that
    contradicts the pairing. Other architectures are kept as declared.

    >>> _architecture("single_stranded", [], [])
    'single_stranded'
    """
    if declared not in ("double_stranded", "partially_duplex") or len(strands) != 2 or not paired:
        return declared
    roles = {seg.get("structural_role", "unknown") for st in strands for seg in st["segments"]}
    if roles <= PAIRED_ROLES - {"unknown"}:
        return "double_stranded"
    if roles & {"five_prime_overhang", "three_prime_overhang", "unpaired"}:
        return "partially_duplex"
    return declared


def _structural_roles(state: StateDef) -> list[list[str]]:
    """Per strand, the structural role of each token position: paired, 5'/3' overhang.

    Derived states know their pairing; for a declared two-strand state the paired
    region is the longest stretch where one strand is the reverse complement of the
    other (at least 6 positions), found with difflib's longest-match.
    """
    molecule = state.molecule
    if isinstance(molecule, Duplex):
        return [
            ["five_prime_overhang"] * len(molecule.left.top)
            + ["paired_region"] * len(molecule.core)
            + ["three_prime_overhang"] * len(molecule.right.top),
            ["five_prime_overhang"] * len(molecule.right.bottom)
            + ["paired_region"] * len(molecule.core)
            + ["three_prime_overhang"] * len(molecule.left.bottom),
        ]
    if len(state.strands) == 1:
        return [["unpaired"] * len(state.strands[0].seq)]
    roles = [["unknown"] * len(s.seq) for s in state.strands]
    if len(state.strands) == 2 and state.pairs:
        import difflib

        from lablang.molecular.sequence import kept_positions, reverse_complement, unflag

        # compare with degenerate bases beside payloads folded away (an anchor's `VN`
        # pairs inside the payload), then map the match back to every position; symbolic
        # segments compare without orientation marks, which LibStructBench strings (and
        # so imported answers) do not carry: `[CDNA]` on both strands of a pair
        a = unflag(plain(state.strands[0].seq)).tokens()
        rb = unflag(reverse_complement(plain(state.strands[1].seq))).tokens()
        keep_a, keep_rb = kept_positions(a), kept_positions(rb)
        fa, frb = [a[i] for i in keep_a], [rb[i] for i in keep_rb]
        match = difflib.SequenceMatcher(None, fa, frb, autojunk=False).find_longest_match(
            0, len(fa), 0, len(frb)
        )
        whole = 0 < match.size == len(fa) == len(frb)  # e.g. a bare `[GDNA]` duplex
        # a shared payload (`[CDNA]` on both strands) pairs whatever the match's length:
        # six bases guard against chance matches of literal bases, not of named payloads
        payload = any(
            isinstance(token, SymbolToken) for token in fa[match.a : match.a + match.size]
        )
        if match.size >= 6 or whole or payload:
            a_lo, a_hi = keep_a[match.a], keep_a[match.a + match.size - 1] + 1
            r_lo, r_hi = keep_rb[match.b], keep_rb[match.b + match.size - 1] + 1
            b_lo, b_hi = len(rb) - r_hi, len(rb) - r_lo
            roles[0] = (
                ["five_prime_overhang"] * a_lo
                + ["paired_region"] * (a_hi - a_lo)
                + ["three_prime_overhang"] * (len(a) - a_hi)
            )
            roles[1] = (
                ["five_prime_overhang"] * b_lo
                + ["paired_region"] * (b_hi - b_lo)
                + ["three_prime_overhang"] * (len(rb) - b_hi)
            )
    return roles


def transition_record(transition: TransitionDef) -> dict[str, Any]:
    return {
        "transition_id": transition.name,
        "substrate_state_ids": list(transition.substrates),
        "operation": transition.operation,
        "operation_detail": transition.detail,
        "oligo_ids": list(transition.oligos),
        "major_reagents": [
            {"name": n, "role": r} if r else {"name": n} for n, r in transition.reagents
        ],
        "product_state_ids": list(transition.products),
        "carried_forward_product_ids": list(transition.carried),
        "discarded_product_ids": list(transition.discarded),
        "support_status": transition.support_status,
    }
