"""The private LALR parser cache: used when sound, ignored (parser rebuilt) otherwise."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.limits import Limits
from lablang.source import Source
from lablang.syntax import grammar
from lablang.syntax.parser import Parser

TEXT = "segment UMI = umi(12)\noligo p1 \"Primer\" {\n  seq: 5'-ACGT {UMI}-3'\n}\n"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder, and no shipped tables: the cache is what the parser reads."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LABLANG_CACHE", str(folder))
    monkeypatch.setenv("LABLANG_TABLES", str(tmp_path / "none.lalr"))
    return folder


def _parse_with_new_parser() -> tuple[str, int]:
    report = Report()
    module = Parser().parse(Source(TEXT, "t.lab"), report, Limits())
    assert module is not None
    return repr(module), len(list(report))


def _cache_path() -> Path:
    return grammar.cache_file(grammar.grammar_text())


def _loads(cache_dir: Path) -> bool:
    """Whether the cache file, as it is now, is accepted by the loader."""
    return grammar._load(_cache_path(), None, {}) is not None


def test_parser_from_cache_gives_same_ast_as_freshly_built(cache_dir: Path) -> None:
    """A parser loaded from the cache produces exactly the AST of a freshly built one."""
    fresh = _parse_with_new_parser()
    path = _cache_path()
    assert path.is_file() and path.parent == cache_dir
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700
    assert not os.stat(path).st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    assert _loads(cache_dir)
    assert _parse_with_new_parser() == fresh


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[:-100],
        lambda blob: blob[:60] + bytes([blob[60] ^ 0xFF]) + blob[61:],
        lambda blob: b"not a cache at all",
        lambda blob: b"",
    ],
    ids=["truncated", "flipped-byte", "garbage", "empty"],
)
def test_corrupt_cache_is_ignored_and_rebuilt(cache_dir: Path, damage) -> None:  # type: ignore[no-untyped-def]
    """A truncated, altered or foreign cache file is not loaded; the parser is rebuilt and works."""
    fresh = _parse_with_new_parser()
    path = _cache_path()
    path.write_bytes(damage(path.read_bytes()))
    assert not _loads(cache_dir)
    assert _parse_with_new_parser() == fresh
    assert _loads(cache_dir)  # the rebuild rewrote a sound cache


def test_tampered_cache_with_valid_checksum_falls_back(cache_dir: Path) -> None:
    """A well-formed marshal payload of the wrong shape (checksum recomputed) is ignored."""
    import hashlib
    import marshal

    fresh = _parse_with_new_parser()
    payload = marshal.dumps({"data": {"parser": 1}, "memo": {}})
    path = _cache_path()
    path.write_bytes(grammar._FORMAT + hashlib.sha256(payload).digest() + payload)
    assert not _loads(cache_dir)
    assert _parse_with_new_parser() == fresh


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666], ids=["group", "world", "both"])
def test_group_or_world_writable_cache_is_not_loaded(cache_dir: Path, mode: int) -> None:
    """A cache file that other users could have written is never loaded."""
    _parse_with_new_parser()
    path = _cache_path()
    assert _loads(cache_dir)
    os.chmod(path, mode)
    assert not _loads(cache_dir)


def test_unwritable_cache_folder_still_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the cache folder cannot be created the parser is built and parses normally."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("LABLANG_CACHE", str(blocker / "sub"))
    monkeypatch.setenv("LABLANG_TABLES", str(tmp_path / "none.lalr"))
    report = Report()
    assert Parser().parse(Source(TEXT, "t.lab"), report, Limits()) is not None


@pytest.mark.parametrize(
    "bad",
    [
        "oligo p1 {\n  seq: 5'-ACGT-3'\n  role: ?\n}\n",
        "segment = umi(12)\n",
        'oligo p "x" { seq: "\n',
    ],
    ids=["unexpected-char", "missing-name", "unterminated"],
)
def test_cached_parser_reports_syntax_errors_like_fresh_one(cache_dir: Path, bad: str) -> None:
    """Syntax errors found by the cached lexers and table read exactly as the fresh parser's."""

    def diagnostics() -> list[tuple[str, str]]:
        report = Report()
        Parser().parse(Source(bad, "bad.lab"), report, Limits())
        return [(d.code, d.message) for d in report]

    fresh = diagnostics()
    assert fresh and _loads(cache_dir)
    assert diagnostics() == fresh
