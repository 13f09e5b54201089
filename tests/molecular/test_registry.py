"""The operation registry: one place per operation, read by the checker, spec, explain
and the docs."""

from __future__ import annotations

import ast as pyast
from pathlib import Path

import pytest
from click.testing import CliRunner

from lablang.cli import main
from lablang.driver import check_text
from lablang.molecular.ops import REGISTRY
from lablang.molecular.ops.registry import KINDS, with_table
from lablang.spec import spec_text

ROOT = Path(__file__).resolve().parents[2]
DNA = "5'-ACGTACGTACGTACGT [GDNA] TTTTGGGGCCCCAAAA-3'"


def test_docs_operation_table_is_generated_from_the_registry() -> None:
    """docs/molecular.md's operation table equals the one the registry generates now."""
    doc = (ROOT / "docs" / "molecular.md").read_text("utf-8")
    assert with_table(doc) == doc, "run `python scripts/molecular_docs.py`"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_operation_documents_its_rule_and_arguments(name: str) -> None:
    """Each operation has a rule line, a docstring stating its Rule, and a meaning and a
    known kind for every argument."""
    op = REGISTRY[name]
    assert op.rule and "Rule:" in op.doc, name
    for param in op.params:
        assert param.doc and param.kind in KINDS, (name, param.name)


def test_spec_and_explain_list_every_operation() -> None:
    """`lablang spec` lists each operation's signature and `lablang explain OP` prints its
    arguments, both from the registry."""
    text = spec_text()
    for name, op in REGISTRY.items():
        assert f"`{op.signature()}`" in text, name
    result = CliRunner().invoke(main, ["explain", "pcr"])
    assert result.exit_code == 0
    assert "- `primers` (a list of oligos; required)" in result.output


def test_missing_required_argument_is_located_and_named() -> None:
    """`amplify(ds)` is E0418 naming `primers`, at the call, never a Python TypeError."""
    text = f"workflow w {{\n  input d: DNA {DNA} as duplex\n  x = amplify(d)\n}}\n"
    (diag,) = list(check_text(text, "case.lab").report)
    assert diag.code == "E0418" and "`primers`" in diag.message
    assert "positional" not in diag.message and "amplify(molecule, primers:" in (diag.help or "")
    assert text[diag.span.start : diag.span.end] == "amplify(d)"


def test_unknown_argument_lists_the_operation_s_arguments() -> None:
    """An argument the operation does not take is E0412 with its argument list."""
    text = f"workflow w {{\n  input d: DNA {DNA} as duplex\n  x = fragment(d, size: 300)\n}}\n"
    (diag,) = list(check_text(text, "case.lab").report)
    assert diag.code == "E0412" and "no argument `size`" in diag.message


def test_argument_choices_are_checked() -> None:
    """A value outside an argument's documented choices is E0412 naming them."""
    text = f"workflow w {{\n  input d: DNA {DNA} as duplex\n  x = denature(d, keep: middle)\n}}\n"
    (diag,) = list(check_text(text, "case.lab").report)
    assert diag.code == "E0412" and "top, bottom, DNA, RNA" in diag.message


def _sizes(path: Path) -> tuple[int, int]:
    text = path.read_text("utf-8")
    classes = [
        node.end_lineno - node.lineno + 1  # type: ignore[operator]
        for node in pyast.walk(pyast.parse(text))
        if isinstance(node, pyast.ClassDef)
    ]
    return len(text.splitlines()), max(classes, default=0)


def test_molecular_builder_and_operations_are_split_by_meaning() -> None:
    """No module of the molecular front end or operations passes 800 lines, no class 300."""
    folders = ("lablang/molecular/builder", "lablang/molecular/ops")
    paths = [ROOT / "lablang/molecular/front.py"] + [
        p for f in folders for p in sorted((ROOT / f).glob("*.py"))
    ]
    for path in paths:
        lines, longest = _sizes(path)
        assert lines <= 800 and longest <= 300, (path.name, lines, longest)


def test_docs_ivt_example_checks_clean_and_derives_its_library() -> None:
    """The MARS-seq-like example in docs/molecular.md checks clean and derives the library
    the docs give: P5-Read 1, ligation barcode, cDNA, poly(A), UMI, cell barcode, Read 2, P7."""
    from lablang.molecular.interchange import export_t1_text

    doc = (ROOT / "docs" / "molecular.md").read_text("utf-8")
    section = doc.split("### Worked example: an IVT method", 1)[1]
    block = section.split("```lab\n", 1)[1].split("```", 1)[0]
    result = check_text(block, "mars.lab")
    assert list(result.report) == []
    exported, _ = export_t1_text(result)
    assert exported is not None
    assert (
        '"AATGATACGGCGACCACCGAGATCTACACTCTTTCCCTACACGACGCTCTTCCGATCT[LIGATION_BARCODE:7][CDNA]'
        "AAAAAAAAAAAAAAAAAAAA[UMI:4][CELL_BARCODE:6]AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC"
        'ATCTCGTATGCCGTCTTCTGCTTG"'
    ) in exported
