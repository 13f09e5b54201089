"""A planted parser cache (same user, valid checksum) can neither crash nor wedge lablang:
regex programs are never taken from it, unsound tables are refused, and a cached parser
that fails while parsing is rebuilt from the grammar."""

from __future__ import annotations

import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

import pytest

from lablang.diagnostics import Report
from lablang.limits import Limits
from lablang.source import Source
from lablang.syntax import grammar
from lablang.syntax.parser import Parser
from tests.hostile.bounded import run_bounded

TEXT = "segment UMI = umi(12)\noligo p1 \"Primer\" {\n  seq: 5'-ACGT {UMI}-3'\n}\n"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder, and no shipped tables: the cache is what the parser reads."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LABLANG_CACHE", str(folder))
    monkeypatch.setenv("LABLANG_TABLES", str(tmp_path / "none.lalr"))
    return folder


def _parse() -> tuple[str, list[str]]:
    report = Report()
    module = Parser().parse(Source(TEXT, "t.lab"), report, Limits())
    return repr(module), [d.code for d in report]


def _saved() -> dict[str, Any]:
    blob = grammar.cache_file(grammar.grammar_text()).read_bytes()
    saved: dict[str, Any] = marshal.loads(blob[len(grammar._FORMAT) + 32 :])
    return saved


def _plant(saved: dict[str, Any]) -> Path:
    payload = marshal.dumps(saved)
    path = grammar.cache_file(grammar.grammar_text())
    path.write_bytes(grammar._FORMAT + hashlib.sha256(payload).digest() + payload)
    return path


def test_planted_regex_programs_are_never_run(cache_dir: Path, tmp_path: Path) -> None:
    """A cache carrying garbage SRE programs (once a segfault every run) parses normally."""
    _parse()
    saved = _saved()
    garbage = (0, [17, 4, 0, 0, 4294967295, 255, 255, 1], 0, {}, (None,))
    saved["regex"] = {(str(i), 0): garbage for i in range(64)}
    _plant(saved)
    program = tmp_path / "x.lab"
    program.write_text(TEXT)
    run = run_bounded(["check", str(program)], env={"LABLANG_CACHE": str(cache_dir)})
    run.assert_clean()
    assert run.returncode == 0, run.output


@pytest.mark.parametrize(
    "damage",
    ["shift-to-nowhere", "reduce-to-nothing", "unknown-token", "layout-renamed"],
)
def test_structurally_unsound_tables_are_refused(cache_dir: Path, damage: str) -> None:
    """A table whose references do not resolve is not loaded (no KeyError at parse time)."""
    fresh = _parse()
    saved = _saved()
    table = saved["data"]["parser"]["parser"]
    state, (toks, codes) = next(iter(table["states"].items()))
    if damage == "shift-to-nowhere":
        codes = (2 * 10**6, *tuple(codes[1:]))
    elif damage == "reduce-to-nothing":
        codes = (2 * 10**6 + 1, *tuple(codes[1:]))
    elif damage == "unknown-token":
        toks = (10**6, *tuple(toks[1:]))
    if damage == "layout-renamed":
        layouts = saved["lexers"]
        key = next(iter(layouts))
        order, newline, embedded, unless = layouts[key]
        layouts[key] = (("NOPE", *order[1:]), newline, embedded, unless)
    else:
        table["states"][state] = (toks, codes)
    path = _plant(saved)
    assert grammar._load(path, None, {}) is None
    assert _parse() == fresh
    assert grammar._load(path, None, {}) is not None  # rebuilt and rewritten


def test_a_cached_parser_that_fails_while_parsing_is_rebuilt(cache_dir: Path) -> None:
    """A cache that loads but breaks the lexer is discarded and rebuilt, not a permanent E0000."""
    fresh = _parse()
    saved = _saved()
    for entry in saved["memo"].values():
        if isinstance(entry, dict) and entry.get("name") == "NAME":
            entry["pattern"]["value"] = "(["  # not a regex: fails when the lexer compiles it
    path = _plant(saved)
    assert grammar._load(path, None, {}) is not None  # structurally fine
    assert _parse() == fresh
    assert _parse() == fresh
    assert b"([" not in path.read_bytes()


def _check_twice(tmp_path: Path, folder: Path) -> str:
    """`check` of one program given twice, with `folder` as the cache (and no shipped
    tables, which would be read first): its stderr."""
    program = tmp_path / "x.lab"
    program.write_text(TEXT)
    run = run_bounded(
        ["check", str(program), str(program)],
        env={"LABLANG_CACHE": str(folder), "LABLANG_TABLES": str(tmp_path / "none.lalr")},
        cpu_seconds=60,
        memory_mb=1024,
        hang_seconds=120,
    )
    run.assert_clean()
    assert run.returncode == 0, run.output
    return run.stderr


def test_a_fifo_in_place_of_the_cache_file_does_not_block(tmp_path: Path) -> None:
    """A FIFO where the cache file would be is refused on its descriptor (opened
    non-blocking), said once, and `check` runs without it (it once hung in `open`)."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LABLANG_CACHE", str(folder))
        fifo = grammar.cache_file(grammar.grammar_text())
    os.mkfifo(fifo, 0o600)
    stderr = _check_twice(tmp_path, folder)
    warning = f"warning: the parser cache file `{fifo}` is not a regular file; ignored"
    assert stderr.count(warning) == 1, stderr


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_cache_folder_writable_by_others_is_not_used(tmp_path: Path, mode: int) -> None:
    """A cache folder others may write is neither read nor written; lablang says so once."""
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    stderr = _check_twice(tmp_path, folder)
    warning = (
        f"warning: the parser cache folder `{folder}` is writable by other users; "
        "parsing without the cache"
    )
    assert stderr.count(warning) == 1, stderr
    assert list(folder.iterdir()) == []


def test_a_private_cache_folder_is_used_without_a_warning(tmp_path: Path) -> None:
    """A 0700 folder of the user holds the cache and `check` prints no warning about it."""
    folder = tmp_path / "private"
    for _ in range(2):  # writes the cache, then reads it
        stderr = _check_twice(tmp_path, folder)
        assert "warning:" not in stderr, stderr
    assert [p.suffix for p in folder.iterdir()] == [".lalr"]
