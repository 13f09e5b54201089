"""One failing step gives one error: what depends on it is unknown, not wrong; and
`check --json` / `export --to json` say what was derived, declared, unknown or partial."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lablang.cli import main
from lablang.driver import check_text
from lablang.molecular.interchange import provenance

OLIGOS = """
oligo dT { seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT (T)30 VN-3' }
oligo fwd { seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT-3' }
oligo blunt { kind: double_stranded  strand a: 5'-/5Phos/ACGTCCGGTTAAGGCC-3'  strand b: 5'-/5Phos/GGCCTTAACCGGACGT-3' }
oligo p7 { seq: 5'-CAAGCAGAAGACGGCATACGAGATGGCCTTAACCGGACGT-3' }
"""
FAILING = (
    OLIGOS
    + """
workflow w {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: dT, nontemplated: "")
  ds = second_strand(rt)
  frag = fragment(ds) |> end_repair |> a_tail
  lig = ligate(frag, adapter: blunt)
  lib = pcr(lig, primers: [fwd, p7])
  output lib as gene_expression
  expect lib.top == 5'-ACGT-3'
}
state s_ds : double_stranded realizes w.ds {
  strand a: DNA 5'-{dT} [CDNA']-3'
  strand b: DNA 5'-[CDNA] NB (A)30 AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGT-3'
  pair a ~ b
}
state s_lig : double_stranded realizes w.lig {
  strand a: DNA 5'-ACGT-3'
  strand b: DNA 5'-ACGT-3'
  pair a ~ b
}
library gex { from: w.lib  seq: 5'-ACGT-3' }
"""
)


def test_one_failing_step_gives_exactly_one_error() -> None:
    """A ligation that fails (E0402) is the only diagnostic: no E0405 for the later
    step, the state realizing it or the library from it, no E0408 for what it left
    unused, no error for the `expect` and `output` of the step that was not derived."""
    result = check_text(FAILING, "case.lab")
    assert [d.code for d in result.report] == ["E0402"]


def test_what_depends_on_a_failure_is_unknown_and_what_succeeded_is_derived() -> None:
    """The state realizing the step before the failure is derived (verified); the state
    realizing the failed step and the library from the last step are unknown, with the
    reason naming the failure."""
    record = provenance(check_text(FAILING, "case.lab"))
    assert record is not None
    declared, derived = record["graphs"]
    status = {s["name"]: (s["status"], s["reason"]) for s in declared["states"]}
    assert status["s_ds"][0] == "derived"
    assert status["s_lig"][0] == "unknown" and "E0402" in status["s_lig"][1]
    assert derived["unknown_steps"] == ["lig", "lib"]
    (library,) = record["libraries"]
    assert library["status"] == "unknown" and "`lig`" in library["reason"]


def test_an_independent_branch_still_derives_after_a_failure() -> None:
    """A step that does not depend on the failed one is derived as usual."""
    text = (
        OLIGOS
        + """
workflow w {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  input gdna: DNA 5'-[GDNA]-3' as duplex
  bad = ligate(gdna |> fragment, adapter: blunt)
  rt = reverse_transcribe(mrna, primer: dT, nontemplated: "")
  expect rt.top == 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT (T)30 VN [CDNA']-3'
}
"""
    )
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == ["E0412"]


def test_partial_library_is_reported_with_its_reason() -> None:
    """`partial: "reason"` marks a library the interpreter cannot derive: no E0405, and
    its status is partial with that reason; a partial library that does derive and
    equal its declaration is W0405."""
    text = (
        OLIGOS
        + """
workflow w {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: dT, nontemplated: "")
}
library lib { from: w.rt  seq: 5'-ACGT [CDNA']-3'  partial: "the page's second RT is not modelled" }
library same { from: w.rt  seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT (T)30 VN [CDNA']-3'  partial: "x" }
library plain { seq: 5'-ACGT [CDNA']-3' }
"""
    )
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == ["W0405"]
    record = provenance(result)
    assert record is not None
    libs = {lib["name"]: (lib["status"], lib["reason"]) for lib in record["libraries"]}
    assert libs["lib"] == ("partial", "the page's second RT is not modelled")
    assert libs["plain"] == ("declared", "")


def test_check_json_and_export_json_carry_the_status(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`lablang check --json` and `lablang export --to json` both report, per file, the
    derived/declared/unknown/partial status of states and libraries."""
    path = tmp_path / "case.lab"
    path.write_text(FAILING, encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", "--json", str(path)])
    data = json.loads(checked.output)
    assert data["molecular"][str(path)]["libraries"][0]["status"] == "unknown"
    good = tmp_path / "good.lab"
    good.write_text("library lib { seq: 5'-ACGT [UMI:8]-3' }\n", encoding="utf-8")
    exported = CliRunner().invoke(main, ["export", str(good), "--to", "json"])
    assert json.loads(exported.output)["molecular"]["libraries"][0]["status"] == "declared"


def test_a_library_only_from_a_step_that_failed_is_unknown_not_a_second_error() -> None:
    """A library that gives only `from:` a step downstream of the failure has no
    sequence to show: it is unknown (with the reason), not E0413 "neither seq nor from"."""
    text = (
        OLIGOS
        + """
workflow w {
  input gdna: DNA 5'-[GDNA]-3' as duplex
  lig = ligate(gdna, adapter: fwd, ends: right)
  lib = pcr(lig, primers: [fwd, p7])
  output lib as gene_expression
}
library gex { from: w.lib  read R1 { primer: fwd } }
"""
    )
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == ["E0402"]
    record = provenance(result)
    assert record is not None
    (library,) = record["libraries"]
    assert library["status"] == "unknown" and "`w.lib`" in library["reason"]


PCR_FAILS = """
oligo dT { seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT (T)30 VN-3' }
oligo fwd { seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT-3' }
oligo bad { seq: 5'-GGGGGGGGGGGGGGGGGGGGCCCC-3' }
oligo r1 { seq: 5'-ACGTACGTACGTTTTTTTT-3' }
workflow w {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(mrna, primer: dT, nontemplated: "")
  ds = second_strand(rt)
  lib = pcr(ds, primers: [fwd, bad])
  output lib as gene_expression
}
library gex { from: w.lib
  read R1 { primer: r1  length: 28 nt }
  read R2 { primer: bad  length: 200 nt }
}
"""


def test_the_products_of_a_step_that_failed_are_unknown_and_its_reads_unchecked() -> None:
    """A PCR that amplifies nothing (E0404) is the only error: its product state and the
    library `from:` it are unknown, not derived, and the library's reads are not checked
    against the discarded linear copies (no E0411 or W0403 on top)."""
    result = check_text(PCR_FAILS, "case.lab")
    assert [d.code for d in result.report] == ["E0404"]
    record = provenance(result)
    assert record is not None
    (graph,) = record["graphs"]
    status = {s["name"]: (s["status"], s["reason"]) for s in graph["states"]}
    assert status["ds"] == ("derived", "")
    assert status["lib"] == ("unknown", "step failed with E0404")
    (library,) = record["libraries"]
    assert library["status"] == "unknown" and "`w.lib`" in library["reason"]


def test_pictures_draw_what_depends_on_a_failed_step_as_unknown() -> None:
    """The workflow picture marks the failed step's product `unknown`, and the library
    picture and the HTML page name the library's status."""
    from lablang.diagnostics import Report
    from lablang.molecular.draw import html_page, library_svg, workflow_svg
    from lablang.molecular.front import build_model

    text = PCR_FAILS.replace(
        "library gex { from: w.lib", "library gex { from: w.lib seq: 5'-ACGT-3'"
    )
    model = build_model(check_text(text, "case.lab").program, Report()).model
    (graph,) = model.graphs
    assert "unknown: step failed with E0404" in workflow_svg(graph)
    (library,) = model.libraries
    assert "unknown: `w.lib` not derived" in library_svg(library)
    assert "<h2>Library gex (unknown)</h2>" in html_page(model)


def test_export_json_carries_each_derived_product_strand_by_strand(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`export --to json` gives a derived PCR product's two strands 5'->3' (pydna's
    comparison needs them), none for a state that is unknown, and validates against
    `lablang schema`."""
    jsonschema = pytest.importorskip("jsonschema")
    path = tmp_path / "case.lab"
    path.write_text(
        "oligo f { seq: 5'-GATTACAGATTACAGG-3' }\noligo r { seq: 5'-TTTTGGGGCCCCAAAA-3' }\n"
        "workflow w {\n  input d: DNA 5'-GATTACAGATTACAGG [GDNA] TTTTGGGGCCCCAAAA-3' as duplex\n"
        "  x = pcr(d, primers: [f, r])\n}\n",
        encoding="utf-8",
    )
    exported = json.loads(CliRunner().invoke(main, ["export", str(path), "--to", "json"]).output)
    (graph,) = exported["molecular"]["graphs"]
    (product,) = [s for s in graph["states"] if s["name"] == "x"]
    assert [s["seq"] for s in product["strands"]] == [
        "5'-GATTACAGATTACAGG [GDNA] TTTTGGGGCCCCAAAA-3'",
        "5'-TTTTGGGGCCCCAAAA [GDNA'] CCTGTAATCTGTAATC-3'",
    ]
    schema = json.loads(CliRunner().invoke(main, ["schema"]).output)
    jsonschema.validate(exported, schema)
    record = provenance(check_text(PCR_FAILS, "case.lab"))
    assert record is not None
    (failed,) = [s for s in record["graphs"][0]["states"] if s["name"] == "lib"]
    assert failed["strands"] == []
