"""Editing help that follows the language's registries: completion offers field keys where
a member starts (a declaration's fields from the checker's registry, a read's fields, a
protocol step's actions), each inserting `key: `; range formatting touches only the
selected lines."""

from __future__ import annotations

from pathlib import Path

from lablang.check.fields import DECL_FIELDS
from lablang.lsp.client import LspClient
from lablang.lsp.complete import complete
from lablang.protocols.front import ACTION_FIELDS


def _fields(text: str, marker: str = "|") -> dict[str, str | None]:
    offset = text.index(marker)
    items = complete(text.replace(marker, ""), offset, None)
    return {c.label: c.insert for c in items if c.kind == "field"}


def test_an_oligo_body_offers_the_oligo_fields_and_provenance() -> None:
    """Inside `oligo X { ... }` the keys are the registry's oligo fields plus `source`, `support`."""
    found = _fields("oligo X {\n  seq: 5'-ACGT-3'\n  |\n}\n")
    assert set(found) == set(DECL_FIELDS["oligo"].fields) | {"source", "support"}
    assert found["role"] == "role: "


def test_a_protocol_step_offers_its_actions() -> None:
    """Inside `step s { }` every step action (`add`, `transfer`, ...) is offered."""
    found = _fields("protocol p {\n  materials: [m]\n  step s { | }\n}\n")
    assert set(ACTION_FIELDS) <= set(found) and "add" in found


def test_a_read_offers_primer_strand_and_length() -> None:
    """Inside a library's `read R1 { }` the read fields are offered, not the library's."""
    found = _fields("library l {\n  seq: 5'-A-3'\n  read R1 { | }\n}\n")
    assert {"primer", "strand", "length"} <= set(found) and "modality" not in found


def test_no_field_keys_after_a_key_or_in_a_value() -> None:
    """After `role: ` the cursor is in a value: no field keys are offered."""
    assert _fields("oligo X {\n  role: |\n}\n") == {}


def test_the_server_sends_field_completions_with_their_insert_text(lsp: LspClient, tmp_path: Path):
    """Over LSP, `role` comes with `insertText` `role: `."""
    text = "oligo X {\n  seq: 5'-ACGT-3'\n  \n}\n"
    uri = lsp.open(tmp_path / "a.lab", text)
    lsp.diagnostics(uri)
    result = lsp.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 2}},
    )
    role = next(item for item in result["items"] if item["label"] == "role")
    assert role["insertText"] == "role: "


def test_range_formatting_changes_only_the_selected_declaration(lsp: LspClient, tmp_path: Path):
    """Formatting line 0 rewrites the first (unformatted) oligo and leaves the second, also
    unformatted, as it is."""
    text = "oligo A{seq:5'-ACGT-3'}\n\noligo B{seq:5'-TTTT-3'}\n"
    uri = lsp.open(tmp_path / "r.lab", text)
    edits = lsp.request(
        "textDocument/rangeFormatting",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
            "options": {"tabSize": 2, "insertSpaces": True},
        },
    )
    assert len(edits) == 1
    assert edits[0]["range"]["start"]["line"] == 0 and edits[0]["range"]["end"]["line"] == 1
    assert edits[0]["newText"] == "oligo A {\n  seq: 5'-ACGT-3'\n}\n"


def test_hovering_a_field_key_tells_its_meaning_from_the_registries() -> None:
    """`role:` in an oligo, `add:` and `to:` in a step and `primer:` in a read hover with
    the registry's one-line documentation."""
    from lablang.lsp.analysis import analyze
    from lablang.lsp.hover import hover

    text = (
        "oligo X {\n  seq: 5'-ACGT-3'\n  role: primer\n}\n\n"
        'protocol p "x" {\n  materials: [m]\n  step a { add: 50 uL of m  to: tube1 }\n}\n\n'
        "library l {\n  seq: 5'-ACGT-3'\n  read R1 { primer: X  strand: top  length: 4 nt }\n}\n"
    )
    analysis = analyze(text, "/tmp/keys.lab")

    def at(key: str) -> str:
        return hover(analysis, text.index(key) + 1) or ""

    assert at("role:").startswith("`role:` — a field of `oligo`: free text")
    assert at("add:").startswith("`add:` — step action: Add")
    assert at("to:") == "`to:` — a field of `add:`, `transfer:`"
    assert at("primer:").startswith("`primer:` — a field of `read`: the sequencing primer")


def test_a_task_step_offers_and_explains_its_fields_from_the_simulators_registry() -> None:
    """Inside a task's `step s { }` the keys are the registry's step fields (`unchecked`,
    `may_already_hold`, ...), and hovering `unchecked:` shows that registry's doc."""
    from lablang.lsp.analysis import analyze
    from lablang.lsp.hover import hover
    from lablang.sim.catalog import TASK_STEP_FIELDS

    found = _fields("task t in s {\n  step a { | }\n}\n")
    assert set(found) == set(TASK_STEP_FIELDS) and found["unchecked"] == "unchecked: "
    text = (
        "scene s { tube: tube_1_5ml() on table at (0.2 m, 0.1 m) }\n"
        'task t in s {\n  step a { do { pick(tube) } success: true  unchecked: "why" }\n}\n'
    )
    shown = hover(analyze(text, "/tmp/step.lab"), text.index("unchecked:") + 1) or ""
    assert shown == f"`unchecked:` — a field of a task's `step`: {TASK_STEP_FIELDS['unchecked']}"
