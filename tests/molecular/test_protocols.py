"""Derived workflows of three more reference protocols reproduce their final libraries.

Oligos are declared from the reference files' own sequences; each workflow is written
as the protocol runs. The derived final library, written as the reference writes it
(placeholders without orientation, `N` of an anchor folded into the payload, oligo-dT
as `[POLY_T]`), must equal the reference's `library_sequence_placeholders`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.front import build_model
from lablang.molecular.molecule import top_strand
from lablang.molecular.sequence import render_libstruct, unflag

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent.parent / "shared" / "data" / "libstructs"
if not DATA.is_dir():
    DATA = ROOT.parent / "shared" / "data" / "libstructs"

WORKFLOWS = {
    "drop_seq": (
        "rna",
        """
workflow dropseq {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: bead_oligo_seqA, switch: tso)
  amp = pcr(rt, primers: [ispcr], cycles: 14)
  tn = tagment(amp, adapters: [tn5_s5_me, tn5_s7_me])
  lib = pcr(tn, primers: [lib_pcr_1, lib_pcr_2], cycles: 12)
  output lib as gene_expression
}
""",
    ),
    "smart_seq2": (
        "smartseq2_rna",
        """
workflow ss2 {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: oligo_dT30VN, switch: tso)
  amp = pcr(rt, primers: [ispcr], cycles: 18)
  tn = tagment(amp, adapters: [tn5_s5_me, tn5_s7_me])
  lib = pcr(tn, primers: [nxt_i5, nxt_i7], cycles: 12)
  output lib as gene_expression
}
""",
    ),
    "sci_rna_seq": (
        "sci_rna_seq",
        """
workflow sci {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: rt_primer, nontemplated: "")
  ds = second_strand(rt)
  tn = tagment(ds, adapters: [tn5_s5_me, tn5_s7_me])
  lib = pcr(tn, primers: [p5_primer, p7_primer], cycles: 16)
  output lib as gene_expression
}
""",
    ),
    "split_seq": (
        "split_seq",
        """
workflow splitseq {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  r1 = reverse_transcribe(mrna, primer: r1_dT)
  r2 = barcode_round(r1, barcode: r2_bc, end: 5', splint: r2_linker)
  r3 = barcode_round(r2, barcode: r3_bc, end: 5', splint: r3_linker)
  cap = capture(r3, probe: "5Biosg")
  ts = template_switch(cap, tso: tso)
  amp = pcr(ts, primers: [cdna_p1, cdna_p2], cycles: 12)
  tn = tagment(amp, adapters: [tn5_s5_me, tn5_s7_me])
  lib = pcr(tn, primers: [lib_pcr_p5, lib_pcr_i7], cycles: 12)
  output lib as gene_expression
}
""",
    ),
    "10x_chromium_scatac": (
        "atac",
        """
workflow atac {
  input gdna: DNA 5'-[GDNA]-3' as duplex
  tn = tagment(gdna, adapters: [tn5_s5_me, tn5_s7_me])
  lin = linear_amplify(tn, primer: bead_oligo)
  lib = pcr(lin, primers: [si_pcr_b, i7_index_primer], cycles: 12)
  output lib as chromatin_accessibility
}
""",
    ),
}


def program_text(protocol: str, workflow: str) -> str:
    data = json.loads((DATA / f"{protocol}.json").read_text())
    lines = [f"module derived_{protocol}"]
    for oligo in data["oligos"]:
        if oligo.get("sequence_5to3") and not oligo.get("variant", "").startswith(
            ("seqB", "Smart-seq3", "FLASH")
        ):
            seq = re.sub(r"(r[ACGU]|\+[ACGT])", r" \1 ", oligo["sequence_5to3"])
            lines.append(f"oligo {oligo['id']} {{ seq: 5'-{seq}-3' }}")
    return "\n".join(lines) + "\n" + workflow


@pytest.mark.skipif(not DATA.is_dir(), reason="reference data not beside the repo")
@pytest.mark.parametrize("protocol", sorted(WORKFLOWS))
def test_derived_library_equals_the_reference(protocol: str) -> None:
    """The derived final library of the protocol is the reference's, base for base."""
    library_id, workflow = WORKFLOWS[protocol]
    result = check_text(program_text(protocol, workflow), f"{protocol}.lab")
    assert [d.message for d in result.report] == []
    built = build_model(result.program, Report())
    graph = next(g for g in built.model.graphs if g.derived)
    ((final_name, _),) = graph.finals
    final = graph.state(final_name)
    assert final is not None and final.molecule is not None
    text = render_libstruct(unflag(top_strand(final.molecule)), fold_n=True)
    text = re.sub("T{30}", "[POLY_T]", text)
    if protocol == "split_seq":  # the reference writes the oligo-dT's template as [POLY_A]
        text = text.replace("]B" + "A" * 15, "][POLY_A]")
    reference = next(
        lib
        for lib in json.loads((DATA / f"{protocol}.json").read_text())["final_libraries"]
        if lib["library_id"] == library_id
    )
    assert text == reference["library_sequence_placeholders"]


def test_tagmentation_products_that_cannot_amplify_are_discarded_with_reasons() -> None:
    """In Drop-seq's library PCR only the bead-end fragment with an s7 end amplifies."""
    library_id, workflow = WORKFLOWS["drop_seq"]
    built = build_model(check_text(program_text("drop_seq", workflow), "d.lab").program, Report())
    graph = next(g for g in built.model.graphs if g.derived)
    lib = next(t for t in graph.transitions if t.name == "lib")
    assert len(lib.carried) == 1
    reasons = {graph.state(s).disposition_reason.split(":")[0] for s in lib.discarded}  # type: ignore[union-attr]
    assert any("suppression PCR" in r or "same primer" in r for r in reasons)
    assert any("linear copies" in (graph.state(s).disposition_reason or "") for s in lib.discarded)  # type: ignore[union-attr]
    del library_id


@pytest.mark.skipif(not DATA.is_dir(), reason="reference data not beside the repo")
@pytest.mark.parametrize(
    "path", sorted(DATA.glob("*.json")) if DATA.is_dir() else [], ids=lambda p: p.stem
)
def test_every_reference_read_is_primed_by_its_primer(path: Path) -> None:
    """Imported reference files check without errors: each of their reads anneals to its
    template strand (sci-RNA-seq's `[HAIRPIN_BARCODE:10]` is W0406, a role LibStructBench's
    grader does not expand)."""
    from lablang.molecular.libstruct import import_libstruct

    data = json.loads(path.read_text())
    text = import_libstruct(data)
    assert text.count(" read R") == sum(
        len(lib.get("reads", [])) for lib in data["final_libraries"]
    )
    codes = [d.code for d in check_text(text, f"{path.stem}.lab").report]
    assert [c for c in codes if c != "W0406"] == []


@pytest.mark.skipif(not DATA.is_dir(), reason="reference data not beside the repo")
def test_a_read_on_the_wrong_strand_is_reported() -> None:
    """Flipping Read 1 of 10x 3' v3 to the top strand makes it unsequenceable (E0411)."""
    from lablang.molecular.libstruct import import_libstruct

    data = json.loads((DATA / "10x_chromium_3p_v3.json").read_text())
    data["final_libraries"][0]["reads"][0]["template_strand"] = "top"
    codes = [d.code for d in check_text(import_libstruct(data), "flipped.lab").report]
    assert codes == ["E0411"]
