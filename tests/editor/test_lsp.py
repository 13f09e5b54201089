"""`lablang lsp` spoken to over JSON-RPC, as an editor would."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.fmt import format_source
from lablang.lsp.client import LspClient
from lablang.resolve import stdlib_root
from lablang.source import Source

from .conftest import ROOT

PRIMERS = """\
oligo TSO "template switch oligo" {
  seq: 5'-AAGCAGTGGTATCAACGCAGAGTACAT rG rG rG-3'
  role: template_switch
}
segment CB = barcode(16)
"""
TYPO = PRIMERS + "transition rt : reverse_transcription { oligos: [TS0] }\n"


def _position(text: str, needle: str, shift: int = 0) -> dict[str, int]:
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def test_initialize_advertises_every_feature(tmp_path: Path):
    """The server's capabilities list diagnostics sync, hover, completion, definition,
    symbols, formatting and quick fixes."""
    client = LspClient(pythonpath=ROOT)
    try:
        capabilities = client.initialize(tmp_path)["capabilities"]
    finally:
        assert client.close() == 0
    assert capabilities["textDocumentSync"]
    for name in (
        "hoverProvider",
        "completionProvider",
        "definitionProvider",
        "documentSymbolProvider",
        "documentFormattingProvider",
        "codeActionProvider",
    ):
        assert capabilities.get(name), name


def test_undeclared_name_is_published_with_its_range_code_and_quick_fix(
    lsp: LspClient, tmp_path: Path
):
    """An unknown oligo is reported as E0203 on exactly its characters, with a fix."""
    uri = lsp.open(tmp_path / "typo.lab", TYPO)
    [diagnostic] = lsp.diagnostics(uri)
    start = _position(TYPO, "TS0]")
    assert diagnostic["code"] == "E0203"
    assert diagnostic["severity"] == 1
    assert diagnostic["range"] == {
        "start": start,
        "end": {"line": start["line"], "character": start["character"] + 3},
    }
    assert "did you mean `TSO`" in diagnostic["message"]

    actions = lsp.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic]},
        },
    )
    [action] = actions
    [edit] = action["edit"]["changes"][uri]
    assert edit == {"range": diagnostic["range"], "newText": "TSO"}


def test_syntax_error_is_located_and_a_later_fix_clears_it(lsp: LspClient, tmp_path: Path):
    """A missing value is a syntax diagnostic on its line; after didChange the
    debounced check publishes an empty list for the new version."""
    broken = "segment CB = barcode(16)\noligo X { seq: }\n"
    uri = lsp.open(tmp_path / "broken.lab", broken)
    [diagnostic] = lsp.diagnostics(uri, version=1)
    assert diagnostic["code"].startswith("E01")
    assert diagnostic["range"]["start"]["line"] == 1

    fixed = "segment CB = barcode(16)\noligo X { seq: 5'-ACGT-3' }\n"
    for version, text in ((2, broken.replace("}", "")), (3, fixed)):
        lsp.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
    assert lsp.diagnostics(uri, version=3) == []


def test_hover_shows_an_oligo_sequence_and_length_and_a_normalized_quantity(
    lsp: LspClient, tmp_path: Path
):
    """Hovering an oligo reference shows its sequence and length; a quantity shows its
    dimension and its value in the base unit."""
    text = PRIMERS + "material buffer { volume: 50 uL  primer: TSO }\n"
    uri = lsp.open(tmp_path / "hover.lab", text)
    assert lsp.diagnostics(uri) == []
    oligo = lsp.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": _position(text, "TSO }", 1)},
    )
    value = oligo["contents"]["value"]
    assert "**oligo** `TSO`" in value
    assert "AAGCAGTGGTATCAACGCAGAGTACAT" in value
    assert "length: 30 nt" in value
    assert "role: template_switch" in value

    amount = lsp.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": _position(text, "50 uL")},
    )
    assert amount["contents"]["value"] == "**50 uL** — volume\n\n= 5e-05 L"

    segment = lsp.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": _position(text, "CB =")},
    )
    assert "role: barcode" in segment["contents"]["value"]
    assert "length: 16 nt" in segment["contents"]["value"]


def _labels(result: dict) -> set[str]:
    return {item["label"] for item in result["items"]}


def test_completion_offers_keywords_units_and_names_in_context(lsp: LspClient, tmp_path: Path):
    """At top level the declaration keywords, after a number the units, inside a
    contract its entry keywords and the declared names."""
    text = PRIMERS + "contract c {\n  \n}\nprotocol p { step s { add: 50 } }\n"
    uri = lsp.open(tmp_path / "complete.lab", text)
    lsp.diagnostics(uri)

    top = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    assert {"segment", "oligo", "contract", "rubric", "use", "module"} <= _labels(top)

    inside = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": _position(text, "  \n}", 2)},
    )
    assert {"var", "op", "goal", "invariant", "pair", "TSO", "CB"} <= _labels(inside)
    assert "segment" not in _labels(inside)

    units = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": _position(text, "50 }", 3)},
    )
    assert {"uL", "mL", "min", "C", "rpm", "xg"} <= _labels(units)


def test_definition_follows_a_use_import_into_another_module(lsp: LspClient, tmp_path: Path):
    """Go to definition on an imported name lands on its declaration in the module file."""
    (tmp_path / "kit").mkdir()
    library = tmp_path / "kit" / "primers.lab"
    library.write_text(PRIMERS, "utf-8")
    text = "use kit.primers.{TSO}\nmaterial rt_mix { primer: TSO }\n"
    uri = lsp.open(tmp_path / "main.lab", text)
    assert lsp.diagnostics(uri) == []
    location = lsp.request(
        "textDocument/definition",
        {"textDocument": {"uri": uri}, "position": _position(text, "TSO }")},
    )
    assert location["uri"] == library.resolve().as_uri()
    assert location["range"]["start"] == {"line": 0, "character": 6}

    module = lsp.request(
        "textDocument/definition",
        {"textDocument": {"uri": uri}, "position": _position(text, "primers")},
    )
    assert module["uri"] == library.resolve().as_uri()


def _a_stdlib_declaration() -> tuple[str, str, Path] | None:
    from lablang.syntax import parse

    root = stdlib_root()
    for file in sorted(root.rglob("*.lab")) if root.is_dir() else []:
        module = parse(Source(file.read_text("utf-8"), str(file)), Report())
        if module.decls:
            dotted = ".".join(file.relative_to(root).with_suffix("").parts)
            return dotted, module.decls[0].name, file
    return None


def test_definition_and_completion_reach_into_the_stdlib(lsp: LspClient, tmp_path: Path):
    """A name imported from the bundled stdlib resolves to its file, and `use ` offers
    the stdlib's modules."""
    found = _a_stdlib_declaration()
    if found is None:
        pytest.skip("partial: the bundled stdlib has no modules yet on this branch")
    dotted, name, file = found
    text = f"use {dotted}.{{{name}}}\nmaterial m {{ uses: [{name}] }}\n"
    uri = lsp.open(tmp_path / "std.lab", text)
    lsp.diagnostics(uri)
    location = lsp.request(
        "textDocument/definition",
        {"textDocument": {"uri": uri}, "position": _position(text, f"{name}]")},
    )
    assert location["uri"] == file.resolve().as_uri()

    modules = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}},
    )
    assert dotted.split(".")[0] in _labels(modules)


def test_formatting_returns_the_lablang_fmt_layout(lsp: LspClient, tmp_path: Path):
    """The formatting edit replaces the document by exactly what `lablang fmt` prints."""
    messy = "oligo X{seq:5'-ACGT-3' # primer\nrole:primer}\nsegment   CB=barcode( 16 )\n"
    uri = lsp.open(tmp_path / "messy.lab", messy)
    lsp.diagnostics(uri)
    [edit] = lsp.request(
        "textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}},
    )
    assert edit["range"]["start"] == {"line": 0, "character": 0}
    assert edit["newText"] == format_source(Source(messy, "messy.lab"), Report())


def test_document_symbols_list_declarations_and_their_named_entries(lsp: LspClient, tmp_path: Path):
    """The outline holds each declaration with its ops and variables as children."""
    text = (
        PRIMERS
        + "contract c {\n  var lid: bool\n  op close requires not lid effect lid = true\n}\n"
    )
    uri = lsp.open(tmp_path / "outline.lab", text)
    lsp.diagnostics(uri)
    symbols = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["TSO", "CB", "c"]
    contract = symbols[2]
    assert [c["name"] for c in contract["children"]] == ["lid", "close"]
    assert contract["selectionRange"]["start"] == _position(text, "c {")


def test_after_a_change_fast_diagnostics_come_first_then_the_full_check(
    lsp: LspClient, tmp_path: Path
):
    """A change publishes twice: first the changed declaration's syntax error together
    with the unchanged declarations' earlier diagnostics (moved with their text), then
    the full check's result: the syntax error and, since the checker goes on after it,
    the unchanged declaration's own error."""
    uri = lsp.open(tmp_path / "typing.lab", TYPO)
    [unknown] = lsp.diagnostics(uri, version=1)
    assert unknown["code"] == "E0203"

    edited = "segment UMI = umi(\n" + TYPO
    lsp.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]},
    )
    fast = lsp.diagnostics(uri, version=2)
    assert [d["code"][:3] for d in fast] == ["E01", "E02"]
    assert fast[0]["range"]["start"]["line"] <= 1
    moved = fast[1]["range"]
    assert moved["start"] == {
        "line": unknown["range"]["start"]["line"] + 1,
        "character": unknown["range"]["start"]["character"],
    }
    full = lsp.diagnostics(uri, version=2)
    assert [d["code"][:3] for d in full] == ["E01", "E02"]


def test_an_error_inside_an_imported_module_is_shown_at_its_use(lsp: LspClient, tmp_path: Path):
    """A diagnostic located in another file is published on the `use` that imports it,
    naming the file, line and column where it is."""
    (tmp_path / "kit.lab").write_text(PRIMERS + "material Bad { volume: 5 }\n")
    text = "use kit.{TSO}\nmaterial rt_mix { primer: TSO }\n"
    uri = lsp.open(tmp_path / "uses_kit.lab", text)
    [diagnostic] = lsp.diagnostics(uri)
    assert diagnostic["code"] == "E0302"
    assert diagnostic["range"]["start"] == {"line": 0, "character": 0}
    assert "in imported module" in diagnostic["message"]
    assert "kit.lab:6:" in diagnostic["message"]


def test_completion_while_the_text_does_not_parse_uses_the_last_good_version(
    lsp: LspClient, tmp_path: Path
):
    """Half-typed text (an open block) still completes the names declared before."""
    uri = lsp.open(tmp_path / "typing.lab", PRIMERS)
    assert lsp.diagnostics(uri, version=1) == []
    typing = PRIMERS + "transition rt : reverse_transcription {\n  oligos: [T"
    lsp.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": typing}]},
    )
    lsp.diagnostics(uri, version=2)
    lsp.diagnostics(uri, version=2)
    end = {"line": typing.count("\n"), "character": len(typing.rsplit("\n", 1)[1])}
    result = lsp.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": end})
    assert {"TSO", "CB"} <= _labels(result)


def test_a_module_changed_on_disk_rechecks_the_documents_that_use_it(
    lsp: LspClient, tmp_path: Path
):
    """After didChangeWatchedFiles, open documents are checked again against the new
    module: a name removed from it is reported at the `use`."""
    library = tmp_path / "kit.lab"
    library.write_text(PRIMERS, "utf-8")
    text = "use kit.{TSO}\nmaterial rt_mix { primer: TSO }\n"
    uri = lsp.open(tmp_path / "main.lab", text)
    assert lsp.diagnostics(uri) == []
    library.write_text(PRIMERS.replace("TSO", "TSO2"), "utf-8")
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        {"changes": [{"uri": library.as_uri(), "type": 2}]},
    )
    codes = [d["code"] for d in lsp.diagnostics(uri)]
    assert "E0207" in codes


def test_hover_on_a_local_name_shows_where_it_is_bound(lsp: LspClient, tmp_path: Path):
    """A name bound in the same workflow hovers with the line that binds it."""
    text = (
        PRIMERS
        + "workflow w {\n  rt = reverse_transcribe(x, switch: TSO)\n  output rt as cdna\n}\n"
    )
    uri = lsp.open(tmp_path / "local.lab", text)
    lsp.diagnostics(uri)
    result = lsp.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": _position(text, "rt as")},
    )
    assert "rt = reverse_transcribe(x, switch: TSO)" in result["contents"]["value"]
    location = lsp.request(
        "textDocument/definition",
        {"textDocument": {"uri": uri}, "position": _position(text, "rt as")},
    )
    assert location["range"]["start"] == _position(text, "rt =")
