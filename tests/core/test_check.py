"""The core checker: units in expressions, provenance, imports that stay inside their roots."""

from __future__ import annotations

import os
from pathlib import Path

from lablang.driver import check_file, check_text


def codes(text: str) -> list[str]:
    return [d.code for d in check_text(text).report]


def test_comparing_quantities_of_different_dimensions_is_an_error() -> None:
    """`98 C >= 5 uL` can never hold: E0301 names both dimensions."""
    result = check_text(
        "rubric r { item i { check: answer.temperature >= 98 C and 98 C >= 5 uL } }"
    )
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0301"
    assert "temperature and a volume" in diagnostic.message


def test_converted_units_of_one_dimension_are_fine() -> None:
    """`1000 uL == 1 mL` is a valid comparison."""
    assert codes("rubric r { item i { check: 1000 uL == 1 mL } }") == []


def test_temperature_below_absolute_zero_is_impossible() -> None:
    """`-300 C` is reported as E0303."""
    assert "E0303" in codes("protocol p { step s { incubate: -300 C for 5 min } }")


def test_provenance_on_declarations_and_steps_is_checked() -> None:
    """`source:` and `support:` are checked wherever they appear, including inside steps."""
    text = (
        "oligo X { seq: 5'-ACGT-3'  source: doc(\"CG000204\", page: 12)  support: explicit }\n"
        'protocol p { step s { note: "x"  support: guessed  source: doc("a", pg: 2) } }\n'
    )
    assert codes(text) == ["E0308", "E0308"]


def test_imports_cannot_follow_a_symlink_out_of_the_root(tmp_path: Path) -> None:
    """A module reached through a symlink that points outside the root is refused (E0201),
    and the message names the symlink and its root instead of saying "not found"."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.lab").write_text("oligo S { seq: 5'-ACGT-3' }\n")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside / "secret.lab", root / "secret.lab")
    (root / "main.lab").write_text("use secret.{S}\n")
    result = check_file(root / "main.lab")
    assert [d.code for d in result.report] == ["E0201"]
    (diagnostic,) = result.report.diagnostics
    assert "symlink leading outside its root" in diagnostic.message
    assert "not found" not in diagnostic.message


def test_module_paths_cannot_climb_out_of_a_root() -> None:
    """`use ..x` and `use /etc/passwd` are not module paths: the grammar rejects them."""
    assert codes("use ..x.{A}") == ["E0101"]
    assert codes("use /etc/passwd") == ["E0100"] or codes("use /etc/passwd") == ["E0101"]


def test_imported_modules_are_checked_and_resolved_with_their_own_imports(tmp_path: Path) -> None:
    """`use a.{X}` where `a` uses `b` resolves transitively and reports errors in `b` at `b`."""
    (tmp_path / "a.lab").write_text("use b.{Y}\noligo X { seq: 5'-{Y}-3' }\n")
    (tmp_path / "b.lab").write_text("oligo Y { seq: 5'-ACGT-3'  support: sure }\n")
    (tmp_path / "main.lab").write_text("use a.{X}\noligo Z { seq: 5'-{X}-3' }\n")
    result = check_file(tmp_path / "main.lab")
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0308"
    assert diagnostic.file.endswith("b.lab")


def test_whole_module_imports_are_reached_by_qualified_names(tmp_path: Path) -> None:
    """`use parts` makes `{parts.P}` resolvable and `{parts.Q}` an error with a suggestion."""
    (tmp_path / "parts.lab").write_text("oligo P { seq: 5'-ACGT-3' }\n")
    (tmp_path / "main.lab").write_text("use parts\noligo Z { seq: 5'-{parts.P} {parts.Q}-3' }\n")
    result = check_file(tmp_path / "main.lab")
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0203"
    assert diagnostic.help == "did you mean `parts.P`?"


def test_a_misspelt_keyword_is_suggested_before_a_missing_colon() -> None:
    """`gaol lid` suggests the keyword `goal`, with an edit that replaces the word."""
    (diagnostic,) = check_text("contract c { var lid: bool  gaol lid }").report.diagnostics
    assert diagnostic.code == "E0310"
    assert diagnostic.label == "did you mean the keyword `goal`?"
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].replacement == "goal"


def test_an_unknown_unit_before_of_is_reported_as_a_unit() -> None:
    """`add: 20 ul of mix` reads `ul` as an unknown unit with the fix `uL`."""
    result = check_text("protocol p { materials: [mix]  step a { add: 20 ul of mix  to: t } }")
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0104"
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].replacement == "uL"
