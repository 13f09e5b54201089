"""Data written into `.lab` by a generator stays data: every string goes through one quoting
function (`lablang.syntax.strings`), so no value can end its string or comment and start a
declaration, and every value reads back equal."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.libstruct import import_libstruct
from lablang.molecular.seqspec import import_seqspec, load_seqspec_yaml
from lablang.molecular.seqspec_export import export_seqspec, seqspec_yaml
from lablang.protocols.diff import semantic_diff
from lablang.protocols.task import draft_task
from lablang.source import Source
from lablang.syntax import parse
from lablang.syntax.strings import escape, quote, unquote
from tests.hostile.bounded import ROOT, run_bounded

INJECTION = "10.1/x)\nuse illumina.{P5}\nsegment INJECTED = umi(3)\n# "
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# every code point (lone surrogates and NUL included), with the line breaks made common
ANY_TEXT = st.text(st.characters(categories=None) | st.sampled_from(LINE_BREAKS + '"\\#'))


def _decls(text: str) -> tuple[list[tuple[str, str | None, str | None]], list[str]]:
    report = Report()
    module = parse(Source(text, "generated.lab"), report)
    return [(d.kind, d.name, d.title) for d in module.decls], [d.code for d in report]


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_any_string_reads_back_equal_as_one_title(value: str) -> None:
    """A quoted string parses back to the same value and the file still has one declaration."""
    decls, codes = _decls(f"oligo p {quote(value)} {{ seq: 5'-ACGT-3' }}\n")
    assert codes == []
    assert decls == [("oligo", "p", value)]
    assert unquote(quote(value)) == value


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_an_escaped_comment_never_ends_its_line(value: str) -> None:
    """Any text escaped into a `#` comment is one printable line: the next line is the only code."""
    inside = escape(value)
    assert not any(break_ in inside for break_ in LINE_BREAKS)
    assert all(c.isprintable() or c in " " for c in inside if ord(c) < 0x80)
    decls, codes = _decls(f"# imported from ({inside})\noligo p {{ seq: 5'-ACGT-3' }}\n")
    assert codes == []
    assert decls == [("oligo", "p", None)]


@functools.cache
def _exported() -> str:
    program = check_file(ROOT / "examples" / "tenx_3p_v3.lab").program
    return seqspec_yaml(export_seqspec(program, "0.4.0"))


def _seqspec(doi: str, name: str) -> dict[str, object]:
    spec: dict[str, object] = load_seqspec_yaml(_exported())
    spec["doi"] = doi
    spec["name"] = name
    return spec


@settings(max_examples=25, deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_a_seqspec_doi_and_name_stay_data(doi: str, name: str) -> None:
    """Any seqspec `doi` and `name` import as one comment line and the module's title."""
    plain = import_seqspec(_seqspec("", "assay")).text
    text = import_seqspec(_seqspec(INJECTION + doi, name)).text
    decls, codes = _decls(text)
    assert codes == []
    assert decls == _decls(plain)[0]
    report = Report()
    assert parse(Source(text, "x.lab"), report).title == (name or "tenx_3p_v3")


def test_the_injected_doi_is_a_comment_on_the_command_line(tmp_path: Path) -> None:
    """`lablang import` of the audit's seqspec (a newline in `doi`) exits 0 and `check` of its
    output declares no `INJECTED` segment and imports no `illumina`."""
    spec = tmp_path / "evil.spec.yaml"
    spec.write_text(seqspec_yaml(_seqspec(INJECTION, "a\x00b\u2028c")))
    out = tmp_path / "evil.lab"
    run = run_bounded(["import", str(spec), "-o", str(out)], cpu_seconds=60, memory_mb=1024)
    run.assert_clean()
    assert run.returncode == 0, run.output
    text = out.read_text("utf-8")
    assert "(10.1/x)\\nuse illumina.{P5}\\nsegment INJECTED = umi(3)\\n# )" in text
    assert 'module tenx_3p_v3 "a\\u{0}b\\u{2028}c"' in text
    checked = run_bounded(["check", "--json", str(out)], cpu_seconds=60, memory_mb=1024)
    checked.assert_clean()
    assert "INJECTED" not in checked.stdout
    assert "illumina" not in checked.stdout


@settings(max_examples=50, deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_libstruct_titles_and_roles_stay_data(title: str, role: str) -> None:
    """Any oligo title and role from LibStructBench JSON read back equal, one oligo declared."""
    data = {
        "protocol_id": "p",
        "protocol_name": INJECTION,
        "oligos": [{"oligo_id": "o1", "name": title, "role": role, "sequence": "ACGT"}],
    }
    text = import_libstruct(data)
    decls, codes = _decls(text)
    assert codes == []
    kinds = [(kind, name) for kind, name, _ in decls]
    assert kinds == [("oligo", "o1")]
    report = Report()
    module = parse(Source(text, "x.lab"), report)
    assert module.title == INJECTION
    assert json.dumps(decls[0][2]) == json.dumps(title if title and title != "o1" else None)


def test_diff_task_quotes_a_title_with_line_breaks() -> None:
    """`diff --task` writes a published protocol's title holding a newline, NUL and U+2028
    into the question as one string (the draft's only place for a title: the modified
    protocol's title would give the answer away)."""
    from tests.protocols.helpers import protocol, rubric

    folder = ROOT / "examples" / "protocols"
    published = (folder / "pcr_published.lab").read_text()
    before = '"Illumina library amplification (KAPA HiFi)"'
    assert before in published
    old, _ = protocol(published.replace(before, '"GC\\n}\\nrubric evil {\\u{0}\\u{2028}"'))
    new, _ = protocol((folder / "pcr_gc_rich.lab").read_text())
    text = draft_task(semantic_diff(old, new), old, new)
    decls, codes = _decls(text)
    assert codes == []
    assert [kind for kind, _, _ in decls] == ["rubric"]
    drafted, _ = rubric(text)
    assert drafted.question is not None
    assert "(GC\n}\nrubric evil {\x00\u2028)" in drafted.question
