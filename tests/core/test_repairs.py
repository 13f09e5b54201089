"""Repairs in one pass: every independent error of a file in one run, each with its fix."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.source import Source
from lablang.syntax import parse

# Seven declarations, one mistake in each (none caused by another).
SEVEN_MISTAKES = """\
oligo TSO { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACAT rG rG rG-3'  rol: template_switch }
oligo dT { seq: 5'-(T)30 VN-3'
oligo spare { seq: 5'-ACGTACGTACGTACGT-3' }
state s1 : single_stranded {
  strand a: DNA 5'-ACGT-3'
  strand b: DNA 5'-ACGT-3'
}
state s2 : single_stranded { strand a: DNA 5'-ACGT-3'  final: gene_expression }
transition t1 : cleanup { substrates: [s1]  product: [s2]  carried: [s2] }
protocol amp {
  materials: [mix]
  step a { add: 50 uL of mix  to: tube1 }
  step b { incubate: 37 C for 20 sec }
  step c { incubate: 37 C  duration: 20 min }
}
protocol other {
  materials: [mix]
  step a { add: 50 uL of mixx  to: tube1 }
}
"""


def _apply(text: str, diagnostics: list[dict]) -> str:
    edits = [e for d in diagnostics if d["fix"] for e in d["fix"]["edits"]]
    for edit in sorted(edits, key=lambda e: e["offset"], reverse=True):
        text = text[: edit["offset"]] + edit["replacement"] + text[edit["end_offset"] :]
    return text


def test_a_file_with_seven_independent_mistakes_reports_seven_errors_in_one_run() -> None:
    """Each of seven independent mistakes (a misspelt field, an unclosed block, a wrong
    architecture, a misspelt list field, a spelled-out unit, `duration:` on `incubate`, an
    undeclared material) is reported once, in one run, and nothing else is."""
    result = check_text(SEVEN_MISTAKES, "seven.lab")
    codes = sorted(d.code for d in result.report.errors)
    assert codes == sorted(["E0070", "E0101", "E0410", "E0070", "E0104", "E0807", "E0804"])
    lines = sorted(d.start[0] for d in result.report.errors)
    assert lines == [1, 3, 4, 9, 13, 14, 18]


def test_applying_every_fix_of_one_run_leaves_only_the_errors_without_one(tmp_path: Path) -> None:
    """The fixes of one `check --json` run, applied in reverse order of offset, repair every
    mistake that has a mechanical repair; what is left are the two that need a decision."""
    runner = CliRunner()
    path = tmp_path / "seven.lab"
    path.write_text(SEVEN_MISTAKES, "utf-8")
    first = json.loads(runner.invoke(main, ["check", "--json", str(path)]).output)
    path.write_text(_apply(SEVEN_MISTAKES, first["diagnostics"]), "utf-8")
    second = json.loads(runner.invoke(main, ["check", "--json", str(path)]).output)
    assert sorted(d["code"] for d in second["diagnostics"]) == ["E0410", "E0804"]


def test_a_missing_token_gets_an_insertion_fix() -> None:
    """A comma missing between two call arguments is reported with the comma as its fix."""
    text = "oligo a { seq: 5'-ACGTACGTACGTACGT-3' }\nworkflow w {\n  input m: DNA 5'-[CDNA]-3'\n  p = pcr(m primers: [a])\n}\n"
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0101"
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    assert (edit.span.start, edit.span.end, edit.replacement) == (text.index(" primers"),) * 2 + (
        ",",
    )
    assert diagnostic.help == "insert `,` before `primers`"


def test_a_spelled_out_unit_is_reported_with_its_symbol_and_read_as_that_quantity() -> None:
    """`20 sec` is E0104 with the fix `s`, and the step's duration is read as 20 s (no
    follow-on error about a number without a unit)."""
    result = check_text("protocol p { step b { incubate: 37 C for 20 sec } }")
    (diagnostic,) = result.report.errors
    assert diagnostic.code == "E0104"
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].replacement == "s"


def test_a_misspelt_field_gets_did_you_mean_over_that_kinds_fields_only() -> None:
    """In a `library` `read`, `primers:` is suggested as `primer` (a read's field), and in a
    `transition`, `oligo_ids:` as `oligos`."""
    text = (
        "oligo R1 { seq: 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT-3' }\n"
        "library l { seq: 5'-{R1} [CDNA]-3'  read r { primers: R1  strand: bottom } }\n"
        "state s : single_stranded { strand a: DNA 5'-ACGT-3' }\n"
        "transition t : cleanup { substrates: [s]  products: [s]  carried: [s]  oligo_ids: [R1] }\n"
    )
    helps = sorted(d.help for d in check_text(text).report.errors if d.code == "E0070")
    assert helps == ["did you mean `oligos`?", "did you mean `primer`?"]


def test_duration_on_incubate_names_the_field_it_wants() -> None:
    """`duration:` on an `incubate` step says the duration goes after `for` or in `time:`,
    with the rename to `time` as the fix."""
    result = check_text("protocol p { step c { incubate: 37 C  duration: 20 min } }")
    (diagnostic,) = result.report.errors
    assert diagnostic.code == "E0807"
    assert "`incubate: 37 C for 30 min`" in (diagnostic.help or "")
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].replacement == "time"


def test_uses_of_a_dropped_declaration_are_not_reported_as_undeclared() -> None:
    """A state whose block never closes is one syntax error; the transition naming it gets
    no follow-on `not declared` error."""
    text = (
        "state a : single_stranded { strand x: RNA 5'-[CDNA]-3' }\n"
        "transition t : reverse_transcription { substrates: [a]  products: [b]  carried: [b] }\n"
        "state b : single_stranded { strand x: DNA 5'-[CDNA']-3'\n"
    )
    assert [d.code for d in check_text(text).report.errors] == ["E0102"]


def test_json_diagnostics_give_offsets_in_code_points_and_utf16_units(tmp_path: Path) -> None:
    """After a character outside the BMP, UTF-16 offsets and columns run one ahead."""
    text = "# 🧪 bench\nprotocol p { step b { incubate: 37 C for 20 sec } }\n"
    path = tmp_path / "u.lab"
    path.write_text(text, "utf-8")
    data = json.loads(CliRunner().invoke(main, ["check", "--json", str(path)]).output)
    (d,) = data["diagnostics"]
    assert text[d["offset"] : d["end_offset"]] == "sec"
    assert d["offset_utf16"] == d["offset"] + 1
    assert d["end_offset_utf16"] == d["end_offset"] + 1
    assert d["column_utf16"] == d["column"]  # the emoji is on the line before
    edit = d["fix"]["edits"][0]
    assert edit["offset_utf16"] == d["offset_utf16"]


def test_syntax_recovery_reports_at_most_its_bound_of_errors() -> None:
    """Thirty declarations left open give exactly `MAX_SYNTAX_ERRORS` syntax errors, one
    per declaration, each with the closing brace as its fix."""
    from lablang.syntax.recover import MAX_SYNTAX_ERRORS

    broken = "".join(
        f"oligo bad{i} {{ seq: 5'-ACGT-3'  role: capture\noligo good{i} {{ seq: 5'-ACGT-3' }}\n"
        for i in range(30)
    )
    errors = check_text(broken).report.errors
    assert [d.code for d in errors] == ["E0101"] * MAX_SYNTAX_ERRORS
    assert len({d.start[0] for d in errors}) == MAX_SYNTAX_ERRORS
    assert all(d.fix is not None and d.fix.edits[0].replacement == " }" for d in errors)


def test_a_repeated_module_line_is_reported_as_such_with_its_removal_as_the_fix() -> None:
    """A second `module` line gets E0101 whose help says a file has one `module` line and
    whose fix removes it (never "insert `,` before `module`"); the fixed text checks clean."""
    text = 'module a "A"\nmodule b "B"\noligo x { seq: 5\'-ACGTACGTACGTACGT-3\' }\n'
    (diagnostic,) = check_text(text).report.errors
    assert diagnostic.code == "E0101"
    assert "one `module` line" in (diagnostic.help or "")
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    fixed = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    assert fixed == "module a \"A\"\noligo x { seq: 5'-ACGTACGTACGTACGT-3' }\n"
    assert not check_text(fixed).report.errors


def test_no_insertion_is_offered_before_a_keyword_that_follows_a_whole_declaration() -> None:
    """After any declaration that parses on its own, a misplaced keyword at a line start
    gets no "insert ..." help or fix: an insertion that only keeps the declaration before
    it parsing repairs nothing (the class behind "insert `,` before `module`"); and the
    recovery drops the misplaced line, not the whole declaration before it (it dropped
    the first `module` line, so the file lost its name)."""
    wholes = (
        'module a "A"\n',
        "oligo x { seq: 5'-ACGTACGTACGTACGT-3' }\n",
        "protocol p { materials: [mix]  step a { add: 50 uL of mix  to: tube1 } }\n",
        "segment U = umi(12)\n",
    )
    for whole in wholes:
        (diagnostic,) = check_text(whole + 'module b "B"\n').report.errors
        assert diagnostic.code == "E0101", whole
        assert not (diagnostic.help or "").startswith("insert"), (whole, diagnostic.help)
        assert diagnostic.fix is not None and diagnostic.fix.description.startswith("remove")
    text = "module a \"A\"\noligo x { seq: 5'-ACGTACGTACGTACGT-3' }\nmodule b\n"
    module = parse(Source(text), Report())
    assert module.name == "a" and [d.name for d in module.decls] == ["x"]
