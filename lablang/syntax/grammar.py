"""Locating and building the Lark parser (the only place, with `parser.py`, that imports lark).

The analysed LALR tables are cached between runs in a private folder
(`$LABLANG_CACHE`, else `$XDG_CACHE_HOME/lablang`, else `~/.cache/lablang`, mode 0700)
as `marshal` data (plain ints, strings, tuples and dicts: loading it cannot run code),
with the parse table in a compact form (one pair of int tuples per state) that loads
far faster than Lark's own pickle cache. A cache file is used only when it belongs to
the current user, is not group- or world-writable and its checksum matches; anything
else is ignored and the parser is built from the grammar (and the cache rewritten).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark.grammar import Rule
from lark.lexer import TerminalDef
from lark.parsers.lalr_analysis import IntParseTable, Reduce, Shift
from lark.parsers.lalr_parser import LALR_Parser, _Parser

_FORMAT = b"lablang-lalr-1\n"
_OPTIONS: dict[str, Any] = dict(
    parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True
)


def grammar_text() -> str:
    """The grammar, from the installed wheel's package data or the source tree."""
    packaged = resources.files("lablang") / "_data" / "grammar" / "lablang.lark"
    if packaged.is_file():
        return packaged.read_text("utf-8")
    source_tree = Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark"
    return source_tree.read_text("utf-8")


def cache_folder() -> Path:
    """The private folder holding the parser cache (not created here)."""
    explicit = os.environ.get("LABLANG_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lablang"


def cache_file(text: str) -> Path:
    """The cache file for this grammar text, Lark version and Python version."""
    key = "\0".join((text, lark.__version__, sys.version, _FORMAT.decode()))
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return cache_folder() / f"grammar-{digest}.lalr"


def _trusted(fd: int) -> bool:
    info = os.fstat(fd)
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


class _CompactLALR(LALR_Parser):
    """An LALR parser whose table is read from the compact cached form."""

    @classmethod
    def deserialize(  # type: ignore[override]
        cls, data: Any, memo: Any, callbacks: Any, debug: bool = False
    ) -> Any:
        tokens = data["tokens"]
        names = [tokens[i] for i in range(len(tokens))]
        actions: dict[int, tuple[Any, Any]] = {}
        states = {}
        for state, (toks, codes) in data["states"].items():
            row = {}
            for tok, code in zip(toks, codes, strict=True):
                action = actions.get(code)
                if action is None:
                    action = (Reduce, memo[code >> 1]) if code & 1 else (Shift, code >> 1)
                    if code & 1 and not isinstance(action[1], Rule):
                        raise ValueError("corrupt parser cache")
                    actions[code] = action
                row[names[tok]] = action
            states[state] = row
        table = IntParseTable(states, data["start_states"], data["end_states"])
        inst = cls.__new__(cls)
        inst._parse_table = table  # type: ignore[assignment]
        inst.parser = _Parser(table, callbacks, debug)
        return inst


def _dump(parser: lark.Lark) -> bytes:
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    allowed = lark.lark._LOAD_ALLOWED_OPTIONS
    data["options"] = {k: v for k, v in data["options"].items() if k not in allowed}
    table = data["parser"]["parser"]
    compact = {}
    for state, row in table["states"].items():
        toks, codes = [], []
        for tok, (action, arg) in row.items():
            toks.append(tok)
            codes.append(2 * arg["@"] + 1 if action == 1 else 2 * arg)
        compact[state] = (tuple(toks), tuple(codes))
    table["states"] = compact
    payload = marshal.dumps({"data": data, "memo": memo})
    return _FORMAT + hashlib.sha256(payload).digest() + payload


def _load(path: Path, transformer: Any, lexer_callbacks: dict) -> lark.Lark | None:
    """The cached parser, or None when the cache is absent, untrusted or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not _trusted(fd):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            blob = handle.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    head = len(_FORMAT) + 32
    if (
        not blob.startswith(_FORMAT)
        or hashlib.sha256(blob[head:]).digest() != blob[len(_FORMAT) : head]
    ):
        return None
    try:
        saved = marshal.loads(blob[head:])
        loaded = lark.Lark.__new__(lark.Lark)._load(
            saved,
            transformer=transformer,
            lexer_callbacks=lexer_callbacks,
            propagate_positions=True,
            _plugins={"LALR_Parser": _CompactLALR},
        )
    except Exception:  # any damage to the cache means: rebuild
        return None
    return loaded


def _store(path: Path, parser: lark.Lark) -> None:
    """Writes the cache atomically in the private folder; failures are ignored."""
    try:
        blob = _dump(parser)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".grammar-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.chmod(temp, 0o600)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except (OSError, ValueError, TypeError):
        pass


def build_parser(transformer: lark.Transformer | None, lexer_callbacks: dict) -> lark.Lark:
    text = grammar_text()
    path = cache_file(text)
    cached = _load(path, transformer, lexer_callbacks)
    if cached is not None:
        return cached
    parser = lark.Lark(text, transformer=transformer, lexer_callbacks=lexer_callbacks, **_OPTIONS)
    _store(path, parser)
    return parser


def raw_parser() -> lark.Lark:
    """A plain Lark parser producing parse trees (for benchmarks and grammar tools)."""
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True)
