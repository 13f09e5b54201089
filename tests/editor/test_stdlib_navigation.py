"""Definition, hover and completion reach into the bundled standard library."""

from __future__ import annotations

from pathlib import Path

import pytest

import lablang.resolve
from lablang.lsp.analysis import analyze
from lablang.lsp.complete import complete
from lablang.lsp.hover import hover
from lablang.lsp.navigate import definition

ILLUMINA = """\
module illumina "Illumina adapter sequences"
segment P5 = 5'-AATGATACGGCGACCACCGAGATCTACAC-3'
segment TruSeq_R1 = 5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT-3'
"""


@pytest.fixture
def stdlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "stdlib"
    root.mkdir()
    (root / "illumina.lab").write_text(ILLUMINA, "utf-8")
    monkeypatch.setattr(lablang.resolve, "stdlib_root", lambda: root)
    return root


def test_definition_of_a_stdlib_name_lands_in_the_stdlib_file(stdlib: Path, tmp_path: Path):
    """`use illumina.{P5}`: P5, in a sequence or in the import, resolves to its line in
    stdlib/illumina.lab."""
    text = "use illumina.{P5}\noligo fwd { seq: 5'-{P5} ACGT-3' }\n"
    analysis = analyze(text, str(tmp_path / "main.lab"))
    assert analysis.diagnostics == []
    for offset in (text.index("{P5}") + 2, text.index("P5}")):  # the reference, the import
        location = definition(analysis, offset)
        assert location is not None
        assert Path(location.path) == (stdlib / "illumina.lab").resolve()
        assert location.range()[0] == (1, 8)


def test_hover_on_a_stdlib_reference_counts_its_bases(stdlib: Path, tmp_path: Path):
    """A sequence built from a stdlib segment has that segment's 29 bases in its length."""
    text = "use illumina.{P5}\noligo fwd { seq: 5'-{P5} ACGT-3' }\n"
    analysis = analyze(text, str(tmp_path / "main.lab"))
    shown = hover(analysis, text.index("fwd"))
    assert shown is not None and "length: 33 nt" in shown
    imported = hover(analysis, text.index("{P5}") + 2)
    assert imported is not None and "from module `illumina`" in imported


def test_use_completes_stdlib_modules_and_their_members(stdlib: Path, tmp_path: Path):
    """After `use ` the stdlib modules are offered, inside `use m.{` their declarations."""
    analysis = analyze("", str(tmp_path / "main.lab"))
    modules = {c.label for c in complete("use ", 4, analysis)}
    assert "illumina" in modules
    members = {c.label for c in complete("use illumina.{", 14, analysis)}
    assert members == {"P5", "TruSeq_R1"}


def test_hover_on_built_in_operations_shows_their_backend_documentation(tmp_path: Path):
    """A molecular operation and a skill each hover with their backend's documentation."""
    text = (
        "workflow w {\n  amp = pcr(x, primers: [a, b])\n}\n"
        "task t { step s { do { pick(tube) } } }\n"
        "protocol p { step s { add: 5 uL of m  to: t } }\n"
    )
    analysis = analyze(text, str(tmp_path / "ops.lab"))
    operation = hover(analysis, text.index("pcr("))
    assert operation is not None and "`pcr(molecule, primers: [oligo], cycles: number" in operation
    assert "amplif" in operation
    skill = hover(analysis, text.index("pick("))
    assert skill is not None and "`pick(object)` — skill" in skill
