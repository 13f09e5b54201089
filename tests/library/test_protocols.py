"""The six reference protocols as `.lab` examples: derived workflows that reproduce the
reference final libraries, sequenceable reads, and declared answers that score 1.0."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lablang.molecular import export_libstruct
from lablang.molecular.molecule import top_strand
from lablang.molecular.sequence import render_libstruct, unflag
from lablang.scoring import score_documents

from ._data import EXAMPLES, PROTOCOLS, checked, model_of, needs_data, reference_libraries

pytestmark = needs_data


# SPLiT-seq's rounds as the example writes them (roles LibStructBench's grader expands)
# and as the reference file names them (ROUND1/2/3_BARCODE, which the grader does not)
SPLIT_SEQ_ROUNDS = {"RT_BARCODE": "ROUND1_BARCODE", "LIGATION_BARCODE": "ROUND2_BARCODE"}


def as_reference_writes_it(text: str, protocol: str) -> str:
    """The reference's own writing conventions: `[POLY_T]` for the oligo-dT (length not
    restated), and SPLiT-seq's `[POLY_A]` for the template of the primer's `VN` + 15 T and
    its round names."""
    text = re.sub("T{30}", "[POLY_T]", text)
    if protocol == "split_seq":
        text = text.replace("]B" + "A" * 15, "][POLY_A]")
        text = re.sub(r"\[LIGATION:", "[ROUND3_BARCODE:", text)
        for ours, theirs in SPLIT_SEQ_ROUNDS.items():
            text = text.replace(f"[{ours}:", f"[{theirs}:")
    return text


def derived_finals(protocol: str) -> list[Any]:
    """The molecules the example's derived workflow carries to its output."""
    model = model_of(EXAMPLES / f"{protocol}.lab")
    (graph,) = [g for g in model.graphs if g.derived]
    out = []
    for final, _ in graph.finals:
        state = graph.state(final)
        assert state is not None and state.molecule is not None
        out.append(state.molecule)
    return out


def segment_text(segment: dict[str, Any]) -> str:
    """A reference segment as its library string writes it (`kind: poly_T` is `[POLY_T]`)."""
    kind = {"poly_T": "[POLY_T]", "poly_A": "[POLY_A]"}
    return segment.get("sequence") or segment.get("placeholder") or kind[segment["kind"]]


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_example_checks_clean(protocol: str) -> None:
    """The example (oligos, derived workflow, library with reads) has no diagnostic: the
    declared library equals the derived one (else E0405), every read is primed on its
    template strand (else E0411) and every placeholder role is one LibStructBench's grader
    expands (else W0406; SPLiT-seq writes its rounds so)."""
    result = checked(EXAMPLES / f"{protocol}.lab")
    assert [f"{d.code} {d.message}" for d in result.report] == []


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_derived_final_library_equals_the_reference_segment_for_segment(protocol: str) -> None:
    """The interpreter's final libraries, walked segment by segment, are the reference's:
    each reference library is derived, and nothing else reaches the output."""
    derived = sorted(
        as_reference_writes_it(render_libstruct(unflag(top_strand(m)), fold_n=True), protocol)
        for m in derived_finals(protocol)
    )
    wanted = reference_libraries(protocol)
    assert derived == sorted(lib["library_sequence_placeholders"] for lib in wanted)
    for library in wanted:
        rest = library["library_sequence_placeholders"]
        for segment in library["segments"]:
            text = segment_text(segment)
            assert rest.startswith(text), f"{segment['name']!r}: {rest[:60]!r} != {text!r}"
            rest = rest[len(text) :]
        assert rest == ""


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_declared_libraries_have_the_reference_reads(protocol: str) -> None:
    """Each library the example declares has the reference's reads, each on the
    reference's template strand (the check proves each primer anneals there)."""
    model = model_of(EXAMPLES / f"{protocol}.lab")
    assert len(model.libraries) == len(reference_libraries(protocol))
    for library, reference in zip(model.libraries, reference_libraries(protocol), strict=True):
        want = [(r["primer"], r["template_strand"]) for r in reference["reads"]]
        assert [(read.primer, read.strand) for read in library.reads] == want


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_declared_answer_scores_one_against_the_derived_workflow(protocol: str) -> None:
    """The declared LibStructBench-style answer, exported like the derived workflow, gets
    reward 1.0 and F1 1.0 for oligo families, transitions and typed edges."""
    from lablang.molecular.libstruct import workflow_record

    derived = checked(EXAMPLES / f"{protocol}.lab")
    answer = checked(EXAMPLES / "answers" / f"{protocol}.lab")
    assert [f"{d.code} {d.message}" for d in answer.report] == []
    graphs = [g for g in model_of(EXAMPLES / f"{protocol}.lab").graphs if g.derived]
    truth = {
        "t2": export_libstruct(derived.program, "t2"),
        # the derived graph (10x 3' v3 also declares one, which export would prefer)
        "t3": {"protocol_id": protocol, "workflows": [workflow_record(g) for g in graphs]},
    }
    prediction = {task: export_libstruct(answer.program, task) for task in ("t2", "t3")}
    for document in (*truth.values(), *prediction.values()):
        document["protocol_id"] = protocol  # the answer module has its own name
    metrics = score_documents(prediction, truth).metrics
    for metric in (
        "reward",
        "t2_required_family_f1",
        "t3_molecular_transition_f1",
        "t3_typed_edge_f1",
    ):
        assert metrics[metric] == pytest.approx(1.0), metric


def test_answers_are_what_the_make_answers_script_writes() -> None:
    """The committed answers equal `scripts/make_answers.py`'s output (export + import)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_answers", EXAMPLES.parent / "scripts" / "make_answers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for protocol in PROTOCOLS:
        path = EXAMPLES / "answers" / f"{protocol}.lab"
        assert path.read_text(encoding="utf-8") == module.answer(protocol), protocol
