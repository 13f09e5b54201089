"""Locating and building the Lark parser (the only place, with `parser.py`, that imports lark)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path

import lark


def grammar_text() -> str:
    """The grammar, from the installed wheel's package data or the source tree."""
    packaged = resources.files("lablang") / "_data" / "grammar" / "lablang.lark"
    if packaged.is_file():
        return packaged.read_text("utf-8")
    source_tree = Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark"
    return source_tree.read_text("utf-8")


def _cache_path(text: str) -> str:
    # The analysed LALR tables are cached per grammar and Lark version: loading them
    # takes a few milliseconds instead of building them (~0.3 s) at every start.
    digest = hashlib.sha256((text + lark.__version__).encode()).hexdigest()[:16]
    folder = os.environ.get("LABLANG_CACHE") or os.path.join(tempfile.gettempdir(), "lablang-cache")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return ""
    return os.path.join(folder, f"grammar-{digest}.lark.cache")


def build_parser(transformer: lark.Transformer | None, lexer_callbacks: dict) -> lark.Lark:
    text = grammar_text()
    options = dict(
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        transformer=transformer,
        lexer_callbacks=lexer_callbacks,
    )
    cache = _cache_path(text)
    if cache:
        try:
            return lark.Lark(text, cache=cache, **options)
        except (OSError, EOFError, ValueError):
            pass  # an unreadable or unwritable cache: build without it
    return lark.Lark(text, **options)


def raw_parser() -> lark.Lark:
    """A plain Lark parser producing parse trees (for benchmarks and grammar tools)."""
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True)
