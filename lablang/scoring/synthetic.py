"""Synthetic LibStructBench truth/prediction pairs of a chosen size (benchmarks and tests).

`make_truth` builds a valid T1-T3 bundle: a chain of states with discarded side
products, transitions that use oligos, segments derived from oligos, and a final
library read off the last state. `perturb` applies agent-like errors that keep the
prediction valid (mutated bases, a changed operation, a missing oligo, a spurious
state, a wrong architecture).
"""

from __future__ import annotations

import copy
import random
from typing import Any

_ROLES = (
    "PCR amplification primer",
    "reverse transcription primer",
    "template switching oligo",
    "ligation adapter",
    "sample index PCR primer",
    "sequencing primer for read 1",
    "tagmentation adapter strand",
)
_OPERATIONS = ("reverse_transcription", "pcr", "ligation", "extension", "tagmentation",
               "fragmentation", "cleanup", "indexing")  # fmt: skip
# wrong but still valid architectures, by strand count (the grader rejects an
# architecture that contradicts the strands, e.g. a hybrid of two DNA strands)
_ARCHITECTURES = {
    1: ("single_stranded", "unknown", "mixed_population"),
    2: ("double_stranded", "unknown", "mixed_population"),
}


def _bases(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("ACGT") for _ in range(n))


def make_truth(
    rng: random.Random,
    *,
    oligos: int = 30,
    states: int = 25,
    transitions: int = 20,
    protocol: str = "synthetic",
) -> dict[str, dict[str, Any]]:
    """A valid truth bundle `{"t1", "t2", "t3"}` with the given entity counts."""
    transitions = max(1, min(transitions, states - 1))
    oligo_records = []
    for i in range(oligos):
        length = 18 + i  # distinct lengths keep every oligo its own family
        sequence = _bases(rng, length)
        if i % 5 == 0:
            cut = length // 2
            sequence = f"{sequence[:cut]}[UMI:{8 + i % 4}]{sequence[cut:]}"
        oligo_records.append({
            "oligo_id": f"o{i}", "name": f"oligo {i}", "aliases": [], "role": _ROLES[i % len(_ROLES)],
            "kind": "single", "sequence": sequence, "orientation": "5_to_3", "components": [],
            "modifications": ["5' phosphate"] if i % 7 == 3 else [], "support_status": "explicit",
        })  # fmt: skip
    state_records: list[dict[str, Any]] = []
    for s in range(states):
        strand_count = 1 if s % 3 == 0 else 2
        strands: list[dict[str, Any]] = []
        for k in range(strand_count):
            segments: list[dict[str, Any]] = []
            for g in range(3 + (s + k) % 4):
                source = (s * 3 + g) % max(oligos, 1)
                segment: dict[str, Any]
                if g % 3 == 1:
                    segment = {"placeholder": f"[CELL_BARCODE:{10 + g}]"}
                else:
                    # shorter than every oligo (18 nt and up), so no segment claims to be a
                    # whole oligo it does not equal (the grader checks full-length claims)
                    segment = {"sequence": _bases(rng, 12 + (s + g) % 6)}
                segment.update({
                    "segment_id": f"s{s}_{k}_{g}", "role": f"segment {g}",
                    "structural_role": "paired_region" if strand_count == 2 else "unpaired",
                    "oligo_derivations": [{"oligo_id": f"o{source}", "orientation_to_source": "same_orientation"}]
                    if oligos else [],
                })  # fmt: skip
                segments.append(segment)
            strands.append({
                "strand_id": f"st{s}_{k}", "name": f"strand {k}", "molecule_type": "DNA",
                "orientation": "5_to_3", "segments": segments,
                "sequence_architecture": "".join(seg.get("sequence") or seg["placeholder"] for seg in segments),
                "support_status": "explicit",
            })  # fmt: skip
        paired: list[dict[str, Any]] = []
        if strand_count == 2:
            paired.append({
                "paired_region_id": f"pr{s}",
                "side_1": {"strand_id": strands[0]["strand_id"], "segment_ids": [x["segment_id"] for x in strands[0]["segments"]]},
                "side_2": {"strand_id": strands[1]["strand_id"], "segment_ids": [x["segment_id"] for x in strands[1]["segments"]]},
                "relationship": "reverse_complementary", "support_status": "explicit",
            })  # fmt: skip
        state_records.append({
            "state_id": f"s{s}", "name": f"state {s}", "molecule_type": "DNA",
            "strand_architecture": "single_stranded" if strand_count == 1 else "double_stranded",
            "reference_strand_id": strands[0]["strand_id"], "physical_state": "in solution",
            "strands": strands, "paired_regions": paired, "discontinuities": [], "properties": [],
            "support_status": "explicit",
        })  # fmt: skip
    extra = list(range(transitions + 1, states))
    transition_records = []
    for t in range(transitions):
        discarded = [f"s{x}" for x in extra if x % transitions == t]
        transition_records.append({
            "transition_id": f"t{t}", "substrate_state_ids": [f"s{t}"],
            "operation": _OPERATIONS[t % len(_OPERATIONS)], "operation_detail": "",
            "oligo_ids": [f"o{(2 * t + j) % oligos}" for j in range(2)] if oligos else [],
            "major_reagents": [{"name": f"reagent {t}", "role": "enzyme"}],
            "product_state_ids": [f"s{t + 1}", *discarded],
            "carried_forward_product_ids": [f"s{t + 1}"], "discarded_product_ids": discarded,
            "support_status": "explicit",
        })  # fmt: skip
    final = state_records[transitions]
    t3 = {"protocol_id": protocol, "protocol_name": protocol, "workflows": [{
        "workflow_id": "wf", "states": state_records, "transitions": transition_records,
        "initial_state_ids": ["s0"], "final_outputs": [{"state_id": final["state_id"], "modality": "gene expression"}],
    }]}  # fmt: skip
    t1 = {"protocol_id": protocol, "libraries": [{
        "modality": "gene expression", "library_sequence": final["strands"][0]["sequence_architecture"],
    }]}  # fmt: skip
    t2 = {"protocol_id": protocol, "protocol_name": protocol, "oligos": oligo_records}
    return {"t1": t1, "t2": t2, "t3": t3}


def as_prediction(truth: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The truth copied into the agent-visible contracts (audit fields dropped)."""
    pred = copy.deepcopy(truth)
    pred["t1"] = {"schema_version": "libstruct.library_structure.v0", "protocol_id": truth["t1"]["protocol_id"],
                  "libraries": [{"library_id": "rna", **lib} for lib in pred["t1"]["libraries"]]}  # fmt: skip
    for task in ("t2", "t3"):
        pred[task].pop("protocol_name", None)
    for oligo in pred["t2"]["oligos"]:
        oligo.pop("support_status", None)
    for workflow in pred["t3"]["workflows"]:
        for item in [*workflow["states"], *workflow["transitions"]]:
            item.pop("support_status", None)
        for state in workflow["states"]:
            for strand in state["strands"]:
                strand.pop("support_status", None)
            for region in state["paired_regions"]:
                region.pop("support_status", None)
    return pred


def perturb(
    truth: dict[str, dict[str, Any]], rng: random.Random, errors: int = 3
) -> dict[str, dict[str, Any]]:
    """A prediction with `errors` agent-like mistakes that keep it valid."""
    pred = as_prediction(truth)
    workflow = pred["t3"]["workflows"][0]
    for _ in range(errors):
        kind = rng.randrange(6)
        if kind == 0 and pred["t2"]["oligos"]:
            oligo = rng.choice(pred["t2"]["oligos"])
            seq = oligo["sequence"]
            i = rng.randrange(len(seq))
            if seq[i] in "ACGT":
                oligo["sequence"] = seq[:i] + rng.choice("ACGT".replace(seq[i], "")) + seq[i + 1 :]
        elif kind == 1:
            rng.choice(workflow["transitions"])["operation"] = rng.choice(_OPERATIONS)
        elif kind == 2 and len(pred["t2"]["oligos"]) > 1:
            gone = pred["t2"]["oligos"].pop(rng.randrange(len(pred["t2"]["oligos"])))["oligo_id"]
            for transition in workflow["transitions"]:
                transition["oligo_ids"] = [o for o in transition["oligo_ids"] if o != gone]
            for state in workflow["states"]:
                for strand in state["strands"]:
                    for segment in strand["segments"]:
                        segment["oligo_derivations"] = [
                            d for d in segment["oligo_derivations"] if d["oligo_id"] != gone
                        ]
        elif kind == 3:
            state = rng.choice(workflow["states"])
            state["strand_architecture"] = rng.choice(_ARCHITECTURES[len(state["strands"])])
        elif kind == 4:
            state = copy.deepcopy(rng.choice(workflow["states"]))
            state["state_id"] = f"spurious{len(workflow['states'])}"
            # a partial copy (an unextended or truncated product), not an exact duplicate:
            # exact duplicates tie, and the grader breaks ties by order
            strand = state["strands"][0]
            strand["segments"] = strand["segments"][:-1] or strand["segments"]
            kept = {segment["segment_id"] for segment in strand["segments"]}
            for region in state["paired_regions"]:
                side = region["side_1"]
                side["segment_ids"] = [sid for sid in side["segment_ids"] if sid in kept]
            strand["sequence_architecture"] = _bases(rng, 6) + strand["sequence_architecture"]
            workflow["states"].append(state)
            transition = rng.choice(workflow["transitions"])
            transition["product_state_ids"].append(state["state_id"])
            transition["discarded_product_ids"].append(state["state_id"])
        else:
            library = pred["t1"]["libraries"][0]
            seq = library["library_sequence"]
            i = rng.randrange(len(seq))
            if seq[i] in "ACGT":
                library["library_sequence"] = seq[:i] + seq[i + 1 :]
    return pred
