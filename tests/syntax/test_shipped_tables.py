"""The parser tables made when lablang is built (`hatch_build.py`): what the pinned lark
makes of the grammar, the same bytes on every build, used only for the grammar they were
made from, and when they cannot be used and lark is absent, a message with the fix."""

from __future__ import annotations

import hashlib
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_source
from lablang.limits import Limits
from lablang.source import Source
from lablang.syntax import grammar, tables
from lablang.syntax.parser import Parser

ROOT = Path(__file__).resolve().parents[2]
TEXT = "segment UMI = umi(12)\noligo p1 \"Primer\" {\n  seq: 5'-ACGT {UMI}-3'\n}\n"
HEAD = len(tables.FORMAT) + 32


def _payload(blob: bytes) -> dict:
    saved: dict = marshal.loads(blob[HEAD:])
    return saved


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder and a shipped-tables path the test writes (or leaves absent)."""
    monkeypatch.setenv("LABLANG_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "tables.lalr"
    monkeypatch.setenv("LABLANG_TABLES", str(path))
    return path


def _tables_of_a_new_parser() -> str:
    parser = Parser()
    report = Report()
    assert parser.parse(Source(TEXT, "t.lab"), report, Limits()) is not None
    return parser._runtime.lablang_tables


def test_the_installed_tables_are_what_the_pinned_lark_makes_of_the_grammar() -> None:
    """The tables file the install wrote holds what `tables_file` makes of the grammar
    now with lark `LARK_VERSION` (a stale file means: reinstall, `pip install -e .`)."""
    import lark

    assert lark.__version__ == tables.LARK_VERSION
    path = Path(grammar.__file__).resolve().parents[1] / "_data" / "tables.lalr"
    assert path.is_file(), f"{path} is missing: install lablang (`pip install -e .`)"
    shipped = _payload(path.read_bytes())
    assert shipped["grammar"] == tables.grammar_digest(grammar.grammar_text())
    assert shipped == _payload(tables.tables_file(grammar.grammar_text()))


_DIGEST = """
import hashlib, sys
if sys.argv[1] == "interned":  # strings another module's constants interned (lark's, ours)
    [sys.intern(chr(c)) for c in range(32, 127)]
from lablang.syntax import grammar, tables
print(hashlib.sha256(tables.tables_file(grammar.grammar_text())).hexdigest())
"""


def test_the_tables_file_is_the_same_bytes_whatever_the_hash_seed_or_interning() -> None:
    """Two builds with different hash seeds (lark numbers its states differently in
    each), and a build in a process that interned more strings beforehand (marshal
    records interning), write byte-identical tables files: wheels are reproducible."""
    digests = {
        subprocess.run(
            [sys.executable, "-c", _DIGEST, interned],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout.strip()
        for seed, interned in (("1", "plain"), ("2", "plain"), ("1", "interned"))
    }
    assert len(digests) == 1 and len(next(iter(digests))) == 64, digests


def test_shipped_tables_are_read_when_made_from_this_grammar(elsewhere: Path) -> None:
    """A tables file made from the grammar being parsed is used as it is, unanalysed."""
    elsewhere.write_bytes(tables.tables_file(grammar.grammar_text()))
    assert _tables_of_a_new_parser() == "shipped"


def test_tables_made_from_another_grammar_text_are_not_used(elsewhere: Path) -> None:
    """Tables of an edited grammar (one comment more) are not used: lark analyses the
    grammar being parsed instead."""
    elsewhere.write_bytes(tables.tables_file(grammar.grammar_text() + "\n// edited\n"))
    assert _tables_of_a_new_parser() == "analysed"


def test_a_damaged_tables_file_is_not_used(elsewhere: Path) -> None:
    """A shipped file with one byte changed fails its checksum and is not used."""
    blob = bytearray(tables.tables_file(grammar.grammar_text()))
    blob[HEAD + 1000] ^= 0xFF
    elsewhere.write_bytes(bytes(blob))
    assert _tables_of_a_new_parser() == "analysed"


def test_without_tables_or_lark_a_check_reports_the_install_step(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no tables for the grammar and lark not importable, building the parser says
    so, and a check reports it with the fix (reinstall, or install the pinned lark)."""
    monkeypatch.setitem(sys.modules, "lark", None)  # `import lark` raises ImportError
    with pytest.raises(grammar.TablesUnavailable) as raised:
        Parser()
    assert f"pip install lark=={tables.LARK_VERSION}" in raised.value.help
    result = check_source(Source(TEXT, "t.lab"), parser=lambda s, r, x: Parser().parse(s, r, x))
    (diagnostic,) = list(result.report)
    assert diagnostic.code == "E0000" and "lark is not installed" in diagnostic.message
    assert diagnostic.help is not None and "pip install -e ." in diagnostic.help


def test_the_tables_file_names_its_grammar_and_lark() -> None:
    """A tables file records the SHA-256 of the grammar text and the lark version."""
    saved = _payload(tables.tables_file('start: A\nA: "a"\n'))
    assert saved["grammar"] == hashlib.sha256(b'start: A\nA: "a"\n').hexdigest()
    assert saved["lark"] == tables.LARK_VERSION
