"""A file being edited keeps its hover, outline, completion and definitions: a check error
numbered like a syntax one (`50 ul`, E0104) leaves the tree whole, and a real syntax error
leaves the declarations that parse on their own and, inside the broken one, the fields
and members that parse."""

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
    """With `role: }` broken, TSO and B are still there for hover, outline and definition,
    and so is X with the field that parses; the diagnostics are the full check's."""
    analysis = analyze(BROKEN, "/tmp/broken.lab")
    assert [d.code for d in analysis.diagnostics] == ["E0101"]
    assert analysis.usable
    assert [item.name for item in outline(analysis.module)] == ["TSO", "X", "B"]
    assert [c.name for c in outline(analysis.module)[1].children] == ["seq"]
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
    assert [s["name"] for s in symbols] == ["TSO", "X", "B"]


UNFINISHED_STEP = (
    "material mix\n\n"
    "protocol p {\n"
    "  materials: [mix]\n"
    "  step a { add: 5 uL of mix to: tube1 }\n"
    "  step b { wait 1 s }\n"
    "  step c { add: 5 uL of mix to: \n"
    "}\n"
)
UNCLOSED = "oligo Y {\n  seq: 5'-ACGT-3'\n  role: primer\n"


def test_inside_a_broken_declaration_the_members_that_parse_are_kept() -> None:
    """A protocol whose last step is unfinished keeps its materials and all three steps
    (step c without its unfinished `to:`) in the outline; hover answers on a field of an
    intact step inside it."""
    analysis = analyze(UNFINISHED_STEP, "/tmp/unfinished.lab")
    assert [d.code for d in analysis.diagnostics] == ["E0101"]
    items = outline(analysis.module)
    assert [item.name for item in items] == ["mix", "p"]
    assert [c.name for c in items[1].children] == ["materials", "a", "b", "c"]
    assert [c.name for c in items[1].children[3].children] == ["add"]
    assert hover(analysis, UNFINISHED_STEP.index("add:")) is not None


def test_an_unclosed_declaration_keeps_its_fields_with_their_own_spans() -> None:
    """An oligo left open at the end of the file keeps both fields, each span on the
    text as written (the closing brace the repair inserted is mapped away)."""
    analysis = analyze(UNCLOSED, "/tmp/unclosed.lab")
    (decl,) = analysis.module.decls
    assert decl.name == "Y" and decl.span.end <= len(UNCLOSED)
    fields = [m for m in decl.body.members]
    assert [UNCLOSED[f.span.start : f.span.end] for f in fields] == [
        "seq: 5'-ACGT-3'",
        "role: primer",
    ]


def test_completion_in_a_broken_file_offers_what_the_current_text_declares(
    lsp: LspClient, tmp_path: Path
) -> None:
    """After an edit that declares a new segment and leaves a declaration broken,
    completion inside a sequence offers the new segment (the last version that parsed
    did not declare it)."""
    uri = lsp.open(tmp_path / "editing.lab", TSO)
    lsp.diagnostics(uri, version=1)
    text = TSO + "segment NEW = umi(8)\n\noligo Z { seq: 5'-{N-3' role: }\n"
    lsp.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]},
    )
    lsp.diagnostics(uri, version=2)
    line = text.count("\n", 0, text.index("{N"))
    column = text.index("{N") - (text.rfind("\n", 0, text.index("{N")) + 1) + 2
    found = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": column}},
    )
    labels = {item["label"] for item in found["items"]}
    assert {"NEW", "TSO"} <= labels
