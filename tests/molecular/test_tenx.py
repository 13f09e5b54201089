"""The 10x Chromium 3' v3 example against the reference data, and the stdlib oligos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_file, check_text
from lablang.molecular.front import build_model
from lablang.molecular.libstruct import (
    export_libstruct,
    import_libstruct,
    library_sequence,
    segments_of,
)
from lablang.molecular.molecule import top_strand
from lablang.molecular.sequence import Homopolymer, Symbol, parse_notation, render_libstruct, unflag

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent.parent / "shared" / "data"
if not DATA.is_dir():  # a clean clone of main has ../shared beside it
    DATA = ROOT.parent / "shared" / "data"
EXAMPLE = ROOT / "examples" / "tenx_3p_v3.lab"
REFERENCE = DATA / "libstructs" / "10x_chromium_3p_v3.json"

pytestmark = pytest.mark.skipif(
    not REFERENCE.is_file(), reason="reference data not beside the repo"
)


@pytest.fixture(scope="module")
def built():  # type: ignore[no-untyped-def]
    result = check_file(EXAMPLE)
    assert [d.code for d in result.report] == []
    return build_model(result.program, Report())


def reference_library() -> dict:  # type: ignore[type-arg]
    return json.loads(REFERENCE.read_text())["final_libraries"][0]


def test_example_checks_clean() -> None:
    """The example (derived workflow, declared states, library with reads) has no diagnostics."""
    assert [d.code for d in check_file(EXAMPLE).report] == []


def test_derived_final_library_equals_reference_placeholder_string(built) -> None:  # type: ignore[no-untyped-def]
    """The derived library's top strand, written as the reference writes it, is identical.

    The reference folds the anchor's `N` into `[CDNA]` and writes the oligo-dT as
    `[POLY_T]` ("length not restated"); both are applied to the derived string.
    """
    derived = top_strand(built.derived["gex.lib"].carried[0].molecule)
    text = render_libstruct(unflag(derived), fold_n=True).replace("T" * 30, "[POLY_T]")
    assert text == reference_library()["library_sequence_placeholders"]


def test_declared_library_matches_reference_segment_for_segment(built) -> None:  # type: ignore[no-untyped-def]
    """Each segment of the declared library equals the reference segment at its position."""
    (library,) = built.model.libraries
    ours = segments_of(library.seq)
    ref = reference_library()["segments"]
    assert len(ours) == len(ref)
    for mine, theirs in zip(ours, ref, strict=True):
        kind = theirs["kind"]
        if kind in ("fixed", "anchor"):
            assert mine.get("sequence") == theirs["sequence"], theirs["name"]
        elif kind == "poly_T":
            assert set(mine["sequence"]) == {"T"}, theirs["name"]
        else:
            assert mine.get("placeholder") == theirs["placeholder"], theirs["name"]


def test_declared_and_derived_library_agree(built) -> None:  # type: ignore[no-untyped-def]
    """The declared library and the derived one differ only by the folded anchor `N`."""
    (library,) = built.model.libraries
    derived = top_strand(built.derived["gex.lib"].carried[0].molecule)
    assert library_sequence(derived).replace("VN[", "V[") == library_sequence(library.seq)


def test_reads_cover_the_barcode_and_the_insert(built) -> None:  # type: ignore[no-untyped-def]
    """The three reads of the reference are declared with its primers and template strands."""
    (library,) = built.model.libraries
    ref = {r["primer"]: r["template_strand"] for r in reference_library()["reads"]}
    assert {r.primer: r.strand for r in library.reads} == ref


def test_derived_graph_discards_non_amplifiable_fragments(built) -> None:  # type: ignore[no-untyped-def]
    """Index PCR carries one product; the TSO-end and internal fragments are discarded."""
    graph = next(g for g in built.model.graphs if g.derived)
    lib = next(t for t in graph.transitions if t.name == "lib")
    assert len(lib.carried) == 1
    assert len(lib.discarded) == 2
    reasons = [graph.state(s).disposition_reason for s in lib.discarded]  # type: ignore[union-attr]
    assert all("linear copies" in r for r in reasons)


def test_declared_answer_exports_as_libstructbench_t3(built) -> None:  # type: ignore[no-untyped-def]
    """The declared states and transitions export with the reference's operations and edges."""
    t3 = export_libstruct(built.model, "t3")
    (workflow,) = t3["workflows"]
    truth = json.loads(
        (DATA / "scoring_cases" / "10x_chromium_3p_v3" / "truth_t3.json").read_text()
    )
    (truth_wf,) = truth["workflows"]
    ours = [
        (
            t["operation"],
            t["oligo_ids"],
            len(t["carried_forward_product_ids"]),
            len(t["discarded_product_ids"]),
        )
        for t in workflow["transitions"]
    ]
    theirs = [
        (
            t["operation"],
            t["oligo_ids"],
            len(t["carried_forward_product_ids"]),
            len(t["discarded_product_ids"]),
        )
        for t in truth_wf["transitions"]
    ]
    assert ours == theirs
    assert [s["strand_architecture"] for s in workflow["states"]] == [
        s["strand_architecture"] for s in truth_wf["states"]
    ]
    assert workflow["final_outputs"] == [{"state_id": "st_final", "modality": "gene expression"}]


def _without_segmentation(data: dict) -> dict:  # type: ignore[type-arg]
    """T3 with per-segment splits removed: an imported file has no provenance labels,
    so its segments are re-split; the sequences themselves must survive."""
    text = json.dumps(data)
    copy = json.loads(text)
    for workflow in copy.get("workflows", []):
        for state in workflow["states"]:
            for strand in state["strands"]:
                strand.pop("segments")
            for region in state["paired_regions"]:
                region["side_1"].pop("segment_ids")
                region["side_2"].pop("segment_ids")
    return copy


def test_libstruct_export_import_round_trip(built) -> None:  # type: ignore[no-untyped-def]
    """Exporting T1, T2+T3, importing the JSON as .lab and exporting again gives the same
    JSON (T3 up to how strands are split into segments)."""
    for tasks in (("t1",), ("t2", "t3")):
        data: dict = {}  # type: ignore[type-arg]
        for task in tasks:
            data.update(export_libstruct(built.model, task))
        result = check_text(import_libstruct(data), "imported.lab")
        assert [d.code for d in result.report] == []
        again: dict = {}  # type: ignore[type-arg]
        for task in tasks:
            again.update(export_libstruct(result.program, task))
        assert _without_segmentation(again) == _without_segmentation(data)


def test_stdlib_oligos_equal_the_reference_list() -> None:
    """Every stdlib oligo named like an entry of stdlib_oligos.json has exactly its sequence."""
    reference = {
        o["id"]: o["sequence_5to3"]
        for o in json.loads((DATA / "stdlib_oligos.json").read_text())["oligos"]
    }
    checked = set()
    for path in sorted((ROOT / "stdlib").glob("*.lab")):
        source = path.read_text()
        result = check_text(source, path.name, roots=[ROOT / "stdlib"])
        assert [d.code for d in result.report] == []
        for oligo in build_model(result.program, Report()).model.oligos:
            if oligo.name in reference:
                want = parse_notation(reference[oligo.name])
                assert render_libstruct(oligo.seq.without_modifications()) == render_libstruct(
                    want
                ), oligo.name
                checked.add(oligo.name)
    assert checked == set(reference)


def test_bead_oligo_in_stdlib_uses_symbolic_barcode_and_umi() -> None:
    """The 10x bead oligo's barcode and UMI are symbolic segments, its dT a homopolymer."""
    source = (ROOT / "stdlib" / "tenx.lab").read_text()
    result = check_text(source, "tenx.lab", roots=[ROOT / "stdlib"])
    bead = build_model(result.program, Report()).model.oligo("tenx_3p_bead_oligo_v3")
    assert bead is not None
    kinds = [type(p) for p in bead.seq.parts]
    assert kinds.count(Symbol) == 2 and Homopolymer in kinds


@pytest.mark.parametrize(
    ("protocol", "case", "flagged"),
    [
        ("10x_chromium_3p_v3", "truth", False),
        ("10x_chromium_3p_v3", "pred_identical", False),
        ("10x_chromium_3p_v3", "pred_swapped_disposition", True),
        ("10x_chromium_3p_v3", "pred_revcomp_oligo", True),
        ("drop_seq", "truth", False),
        ("drop_seq", "pred_missing_transition", True),
    ],
)
def test_imported_answers_are_checked_by_the_interpreter(
    protocol: str, case: str, flagged: bool
) -> None:
    """Imported LibStructBench answers: the truth checks clean; answers whose declared PCR
    cannot amplify its substrate (swapped disposition, reverse-complemented primer,
    PCR before template switching) get W0402."""
    folder = DATA / "scoring_cases" / protocol
    data: dict = {}  # type: ignore[type-arg]
    for task in ("t2", "t3"):
        data.update(json.loads((folder / f"{case}_{task}.json").read_text()))
    result = check_text(import_libstruct(data), f"{case}.lab")
    codes = [d.code for d in result.report]
    assert [c for c in codes if c != "W0402"] == []
    assert ("W0402" in codes) is flagged


def test_declared_hybrid_exports_structural_roles_like_the_reference(built) -> None:  # type: ignore[no-untyped-def]
    """The declared RT hybrid's cDNA strand: barcode side 5' overhang, dT and cDNA paired,
    CCC a 3' overhang, as in the reference answer."""
    (workflow,) = export_libstruct(built.model, "t3")["workflows"]
    hybrid = next(s for s in workflow["states"] if s["state_id"] == "st_rt_hybrid")
    dna = next(s for s in hybrid["strands"] if s["molecule_type"] == "DNA")
    assert [seg["structural_role"] for seg in dna["segments"]] == [
        "five_prime_overhang", "five_prime_overhang", "five_prime_overhang",
        "paired_region", "paired_region", "paired_region", "three_prime_overhang",
    ]  # fmt: skip


def test_mismatch_against_a_fragment_mix_names_the_closest_fragment() -> None:
    """A declared TSO-end fragment missing `ATGTA` is compared with the TSO-end product of
    the derived fragment mix, and E0405 names the segment where it goes wrong."""
    text = EXAMPLE.read_text().replace(
        "strand top: DNA 5'-[CDNA'] {tso'} A-3'",
        "strand top: DNA 5'-[CDNA'] CCC {cdna_rev_v3'} A-3'",
        1,
    )
    result = check_text(text, "tenx_3p_v3.lab", roots=[ROOT / "stdlib"])
    (diag,) = result.report
    assert diag.code == "E0405" and "st_frag_other" in diag.message
    assert "first differs at segment `cdna_rev_v3'`" in diag.message
    assert diag.notes[1] == "derived:  5'-[CDNA'] CCCATGTACTCTGCGTTGATACCACTGCTTA-3'"
