"""Placeholder notation: the reverse-complement mark, lengths carried to `[ROLE']`, and
roles LibStructBench's Task 1 grader does not expand."""

from __future__ import annotations

from lablang.driver import check_text
from lablang.molecular.interchange import export_t1_text


def test_misplaced_reverse_complement_mark_gets_a_located_fix() -> None:
    """`[CB':16]` is E0105 at the placeholder with a fix that rewrites it `[CB:16']`."""
    text = "oligo x { seq: 5'-ACGT [CELL_BARCODE':16] ACGT-3' }\n"
    (diag,) = list(check_text(text, "case.lab").report)
    assert diag.code == "E0105" and diag.fix is not None
    assert text[diag.span.start : diag.span.end] == "[CELL_BARCODE':16]"
    (edit,) = diag.fix.edits
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert "[CELL_BARCODE:16']" in fixed and list(check_text(fixed, "case.lab").report) == []


def test_reverse_complement_placeholder_exports_with_its_length() -> None:
    """`[UMI']` in a library takes the length `[UMI:12]` has in the oligo, in the export."""
    text = (
        "oligo bead { seq: 5'-ACGTACGTACGT [CELL_BARCODE:16] [UMI:12] (T)30-3' }\n"
        "library lib { seq: 5'-ACGT [UMI'] [CELL_BARCODE'] ACGT-3' }\n"
    )
    exported, _ = export_t1_text(check_text(text, "case.lab"))
    assert exported is not None and '"ACGT[UMI:12][CELL_BARCODE:16]ACGT"' in exported


def test_unknown_grader_role_warns_and_lists_the_known_ones() -> None:
    """A `[ROUND1_BARCODE:8]` in a library is W0406 naming it and listing CELL_BARCODE."""
    text = "library lib { seq: 5'-ACGT [ROUND1_BARCODE:8] [UMI:10] [CDNA]-3' }\n"
    (diag,) = list(check_text(text, "case.lab").report)
    assert diag.code == "W0406" and "ROUND1_BARCODE" in diag.message
    assert "CELL_BARCODE" in diag.notes[0] and "UMI" not in diag.message
