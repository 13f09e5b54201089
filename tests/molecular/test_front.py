"""The molecular front end: each E04xx code on its registered bad/good examples, and
checks on derived and declared workflows."""

from __future__ import annotations

import pytest

from lablang.diagnostics.codes import CODES
from lablang.driver import check_text

MOLECULAR_CODES = sorted(c for c, entry in CODES.items() if entry.area == "molecular" and entry.bad)


def codes_of(text: str) -> list[str]:
    return [d.code for d in check_text(text, "case.lab").report]


@pytest.mark.parametrize("code", MOLECULAR_CODES)
def test_registered_bad_example_raises_its_code(code: str) -> None:
    """Each molecular code's `bad` example produces that code; its `good` example is clean."""
    entry = CODES[code]
    assert code in codes_of(entry.bad)
    assert codes_of(entry.good) == []


def test_closest_match_note_in_check_output() -> None:
    """The E0401 diagnostic carries where the closest site is and how many bases pair."""
    result = check_text(CODES["E0401"].bad, "case.lab")
    (diag,) = [d for d in result.report if d.code == "E0401"]
    assert any("bases pair from the primer's 3' end" in n for n in diag.notes)
    assert diag.start[0] == 4  # the workflow step that asked for the extension


def test_declared_state_mismatch_names_segment_and_both_sequences() -> None:
    """E0405 names the first differing segment and shows declared and derived sequences."""
    result = check_text(CODES["E0405"].bad, "case.lab")
    (diag,) = [d for d in result.report if d.code == "E0405"]
    assert "first differs at segment" in diag.message
    assert diag.notes[0].startswith("declared: 5'-GTACGTACGTAAAACCCCAAAATTTT")
    assert diag.notes[1].startswith("derived:  5'-GTACGTACGTAAAACCCCGGGGTTTT")


def test_library_read_from_a_primer_of_the_wrong_strand_is_an_error() -> None:
    """A Read 1 primer declared on the top strand cannot prime: E0411 with the closest site."""
    text = CODES["E0411"].good.replace("strand: bottom", "strand: top")
    result = check_text(text, "case.lab")
    (diag,) = [d for d in result.report if d.code == "E0411"]
    assert "does not anneal to the library's top strand" in diag.message


def test_tagmentation_workflow_derives_nextera_library_and_reports_suppressed_products() -> None:
    """A derived Nextera workflow carries only the A-B product through index PCR."""
    text = """
use illumina.{nextera_tn5_adapter_read1, nextera_tn5_adapter_read2, nextera_index1_primer, nextera_index2_primer}
workflow atac {
  input gdna: DNA 5'-[GDNA]-3' as duplex
  tn = tagment(gdna, adapters: [nextera_tn5_adapter_read1, nextera_tn5_adapter_read2])
  lib = pcr(tn, primers: [nextera_index2_primer, nextera_index1_primer])
  output lib as chromatin_accessibility
  expect lib.top == 5'-AATGATACGGCGACCACCGAGATCTACAC [I5_INDEX:8] TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG [GDNA] CTGTCTCTTATACACATCTCCGAGCCCACGAGAC [I7_INDEX:8'] ATCTCGTATGCCGTCTTCTGCTTG-3'
}
"""
    assert codes_of(text) == []
    from lablang.diagnostics import Report
    from lablang.molecular.front import build_model

    result = check_text(text, "case.lab")
    built = build_model(result.program, Report())
    (graph,) = built.model.graphs
    lib = next(t for t in graph.transitions if t.name == "lib")
    assert len(lib.carried) == 1 and len(lib.discarded) == 2
    assert graph.finals == ((lib.carried[0], "chromatin accessibility"),)


def test_expectation_failure_names_the_segment() -> None:
    """A wrong `expect` reports E0416 naming the first differing segment."""
    result = check_text(CODES["E0416"].bad, "case.lab")
    (diag,) = [d for d in result.report if d.code == "E0416"]
    assert "differs from the expected sequence at segment" in diag.message


def test_unknown_operation_lists_the_known_ones() -> None:
    """A call to an unknown operation is E0412 with the list of operations in its help."""
    text = "workflow w {\n input d: DNA 5'-ACGT-3'\n x = transmogrify(d)\n}\n"
    result = check_text(text, "case.lab")
    (diag,) = [d for d in result.report if d.code == "E0412"]
    assert "pcr" in (diag.help or "")


def test_declared_graph_rules_each_fire() -> None:
    """Cycle, undisposed product, unused carried product and unreachable final are each reported."""
    for code in ("E0406", "E0407", "E0408", "E0409"):
        assert code in codes_of(CODES[code].bad), code
