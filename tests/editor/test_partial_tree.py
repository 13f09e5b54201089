"""A file being edited keeps its hover, outline and definitions: a check error numbered
like a syntax one (`50 ul`, E0104) leaves the tree whole, and a real syntax error leaves
the declarations that parse on their own."""

from __future__ import annotations

from pathlib import Path

from lablang.lsp.analysis import analyze
from lablang.lsp.client import LspClient
from lablang.lsp.hover import hover
from lablang.lsp.navigate import definition, outline

TSO = "oligo TSO { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACATrGrGrG-3' }\n\n"
UNKNOWN_UNIT = TSO + "protocol p {\n  step s { add: 50 ul }\n}\n"
BROKEN = TSO + "oligo X { seq: 5'-ACGT-3' role: }\n\noligo B { seq: 5'-{TSO}-3' }\n"


def test_an_unknown_unit_keeps_the_whole_tree() -> None:
    """`50 ul` is reported (E0104, beside the step's own missing destination) and the tree
    is whole: hover and outline answer."""
    analysis = analyze(UNKNOWN_UNIT, "/tmp/unit.lab")
    assert sorted(d.code for d in analysis.diagnostics) == ["E0104", "E0806"]
    assert analysis.parsed
    assert hover(analysis, UNKNOWN_UNIT.index("TSO")) is not None
    assert [item.name for item in outline(analysis.module)] == ["TSO", "p"]


def test_a_syntax_error_keeps_the_declarations_that_parse_alone() -> None:
    """With `role: }` broken, TSO and B are still there for hover, outline and definition;
    the diagnostics are the full check's."""
    analysis = analyze(BROKEN, "/tmp/broken.lab")
    assert [d.code for d in analysis.diagnostics] == ["E0101"]
    assert analysis.usable
    assert [item.name for item in outline(analysis.module)] == ["TSO", "B"]
    assert "30 nt" in (hover(analysis, BROKEN.index("TSO")) or "")
    target = definition(analysis, BROKEN.index("{TSO}") + 1)
    assert target is not None and target.range()[0] == (0, 6)


def test_the_server_hovers_and_outlines_a_file_with_a_syntax_error(lsp: LspClient, tmp_path: Path):
    """Over LSP, hover and document symbols answer for a file that does not parse."""
    uri = lsp.open(tmp_path / "broken.lab", BROKEN)
    lsp.diagnostics(uri)
    found = lsp.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 7}},
    )
    assert found is not None and "TSO" in found["contents"]["value"]
    symbols = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["TSO", "B"]
