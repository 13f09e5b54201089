"""Locating and building the Lark parser (the only place, with `parser.py`, that imports lark).

The analysed LALR tables are cached between runs in a private folder
(`$LABLANG_CACHE`, else `$XDG_CACHE_HOME/lablang`, else `~/.cache/lablang`, mode 0700)
as `marshal` data (plain ints, strings, tuples and dicts: loading it cannot run code),
with the parse table in a compact form (one pair of int tuples per state) and each context
lexer's derived layout (terminal order, keyword-vs-name splits), so that neither the
table nor the lexers are re-derived at start-up. Compiled regex programs are not cached:
`_sre` trusts the programs it is given, so a planted cache could crash every run; regexes
are compiled by `re`. A cache file is used only when it belongs to the current user, is
not group- or world-writable, its checksum matches and its tables are structurally sound
(every reference resolves); anything else is ignored and the parser is built from the
grammar (and the cache rewritten). A cached parser that fails while parsing is also
discarded and rebuilt (`parser.py`). What the checks cannot detect is a same-user edit
that keeps the tables consistent but changes a pattern: such a user can equally edit
the installed package.
"""

from __future__ import annotations

import copy
import hashlib
import marshal
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import lark
from lark.grammar import Rule
from lark.lexer import (
    BasicLexer,
    CallChain,
    ContextualLexer,
    Scanner,
    TerminalDef,
    UnlessCallback,
    _create_unless,
)
from lark.parsers.lalr_analysis import IntParseTable, Reduce, Shift
from lark.parsers.lalr_parser import LALR_Parser, _Parser

_FORMAT = b"lablang-lalr-4\n"
_OPTIONS: dict[str, Any] = dict(
    parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True
)


def grammar_text() -> str:
    """The grammar, from the installed wheel's package data or the source tree."""
    # the package's folder, not `importlib.resources` (as `lablang.resolve.stdlib_root`)
    packaged = Path(__file__).resolve().parents[1] / "_data" / "grammar" / "lablang.lark"
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
    """A regular file of the current user that no group or other user may write."""
    info = os.fstat(fd)
    getuid = getattr(os, "getuid", None)  # absent on Windows: no owner to compare
    return (
        stat.S_ISREG(info.st_mode)
        and (getuid is None or info.st_uid == getuid())
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


class _Regexes:
    """Stands in for `re` in the lexers, compiling each pattern once per process.

    Compiled regex programs are never read from the cache: `_sre.compile` trusts the
    program it is given, so a planted cache file could crash the interpreter. Patterns
    are compiled by `re` from the terminal definitions, which the loader has checked
    against the grammar.
    """

    error = re.error

    def __init__(self) -> None:
        self.compiled: dict[tuple[str, int], re.Pattern[str]] = {}

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        key = (pattern, flags)
        found = self.compiled.get(key)
        if found is None:
            found = self.compiled[key] = re.compile(pattern, flags)
        return found

    def match(self, pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
        return self.compile(pattern, flags).match(string)


def _layout(lexer: BasicLexer) -> tuple[Any, ...]:
    """What a context lexer derives from its terminals, as names (recorded at cache time)."""
    kept, callbacks = _create_unless(
        lexer.terminals, lexer.g_regex_flags, lexer.re, lexer.use_bytes
    )
    kept_names = {t.name for t in kept}
    return (
        tuple(t.name for t in lexer.terminals),
        tuple(sorted(lexer.newline_types)),
        tuple(t.name for t in lexer.terminals if t.name not in kept_names),
        {name: tuple(t.name for t in cb.scanner.terminals) for name, cb in callbacks.items()},
    )


def _key(terminals: Any) -> str:
    return "\0".join(sorted(t.name for t in terminals))


def _contextual_lexer(regexes: _Regexes, layouts: dict[str, Any]) -> type[ContextualLexer]:
    """Lark's contextual lexer, rebuilt from the recorded layouts."""

    class Basic(BasicLexer):
        def __init__(self, conf: Any, comparator: Any = None) -> None:
            layout = layouts.get(_key(conf.terminals))
            self._layout = layout
            if layout is None:
                super().__init__(conf, comparator)
            else:  # what BasicLexer.__init__ computes, read from the cache
                order, newline, _, _ = layout
                by_name = {t.name: t for t in conf.terminals}
                self.terminals = [by_name[name] for name in order]
                self.newline_types = frozenset(newline)
                self.ignore_types = frozenset(conf.ignore)
                self.user_callbacks = conf.callbacks
                self.g_regex_flags = conf.g_regex_flags
                self.use_bytes = conf.use_bytes
                self.terminals_by_name = conf.terminals_by_name
                self._scanner = None
            self.re = regexes  # type: ignore[assignment]

        def _build_scanner(self) -> Scanner:
            if self._layout is None:
                return super()._build_scanner()
            _, _, embedded, unless = self._layout
            by_name = self.terminals_by_name
            terminals = [t for t in self.terminals if t.name not in embedded]
            self.callback = {
                name: UnlessCallback(
                    Scanner([by_name[n] for n in strs], self.g_regex_flags, self.re, self.use_bytes)
                )
                for name, strs in unless.items()
            }
            for type_, f in self.user_callbacks.items():  # as in BasicLexer._build_scanner
                if type_ in self.callback:
                    self.callback[type_] = CallChain(
                        self.callback[type_], f, lambda t, type_=type_: t.type == type_
                    )
                else:
                    self.callback[type_] = f
            return Scanner(terminals, self.g_regex_flags, self.re, self.use_bytes)

    class Contextual(ContextualLexer):
        BasicLexer = Basic

        def __init__(self, conf: Any, states: Any, always_accept: Any = ()) -> None:
            conf = copy.copy(conf)
            conf.skip_validation = True  # validated when the cache was written
            super().__init__(conf, states, always_accept)

    return Contextual


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
    saved = {"data": data, "memo": memo, "lexers": {}}
    probe = _from_saved(marshal.loads(marshal.dumps(saved)), None, {}, _Regexes(), {})
    lexer = probe.parser.lexer
    layouts = {}
    for basic in [*lexer.lexers.values(), lexer.root_lexer]:
        basic._build_scanner()
        layouts[_key(basic.terminals)] = _layout(basic)
    saved["lexers"] = layouts
    payload = marshal.dumps(saved)
    return _FORMAT + hashlib.sha256(payload).digest() + payload


def _from_saved(
    saved: Any, transformer: Any, lexer_callbacks: dict, regexes: _Regexes, layouts: Any
) -> Any:
    return lark.Lark.__new__(lark.Lark)._load(
        saved,
        transformer=transformer,
        lexer_callbacks=lexer_callbacks,
        propagate_positions=True,
        _plugins={
            "LALR_Parser": _CompactLALR,
            "ContextualLexer": _contextual_lexer(regexes, layouts),
        },
    )


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
        layouts = saved.pop("lexers")
        _validate(saved, layouts)
        loaded = _from_saved(saved, transformer, lexer_callbacks, _Regexes(), layouts)
    except Exception:  # any damage to the cache means: rebuild
        return None
    return loaded


def _validate(saved: Any, layouts: Any) -> None:
    """Raise unless the cached tables are structurally sound: every terminal pattern a
    string (compiled later by `re`, which validates it), every reference (token, state, rule, terminal name) to something that
    exists, so that a damaged cache fails here (and is rebuilt), not while parsing."""
    memo = saved["memo"]
    terminals = set()
    for entry in memo.values():
        if isinstance(entry, dict) and entry.get("__type__") == "TerminalDef":
            pattern = entry["pattern"]
            if pattern.get("__type__") not in ("PatternRE", "PatternStr") or not isinstance(
                pattern.get("value"), str
            ):
                raise ValueError("a terminal of unknown kind")
            terminals.add(entry["name"])
    table = saved["data"]["parser"]["parser"]
    tokens, states = table["tokens"], table["states"]
    if not isinstance(states, dict) or not isinstance(tokens, dict):
        raise ValueError("malformed parse table")
    for state, (toks, codes) in states.items():
        if not isinstance(state, int) or len(toks) != len(codes):
            raise ValueError("malformed parse table row")
        for tok, code in zip(toks, codes, strict=True):
            if tok not in tokens or not isinstance(code, int) or code < 0:
                raise ValueError("malformed parse table entry")
            if code & 1:
                rule = memo.get(code >> 1)
                if not isinstance(rule, dict) or rule.get("__type__") != "Rule":
                    raise ValueError("a reduction names no rule")
            elif code >> 1 not in states:
                raise ValueError("a shift names no state")
    for group in (table["start_states"], table["end_states"]):
        if not all(state in states for state in group.values()):
            raise ValueError("a start or end state does not exist")
    for key, (order, newline, embedded, unless) in layouts.items():
        names = set(key.split("\0")) if key else set()
        if not names <= terminals or set(order) != names:
            raise ValueError("a lexer layout names unknown terminals")
        if not (set(newline) | set(embedded)) <= names:
            raise ValueError("a lexer layout names unknown terminals")
        for strs in unless.values():
            if not set(strs) <= names:
                raise ValueError("a lexer layout names unknown terminals")


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
    except Exception:  # a cache that cannot be written never stops parsing
        pass


def build_parser(
    transformer: lark.Transformer | None, lexer_callbacks: dict, use_cache: bool = True
) -> lark.Lark:
    """The parser, from the cache when it loads soundly, else built (and the cache rewritten)."""
    text = grammar_text()
    path = cache_file(text)
    cached = _load(path, transformer, lexer_callbacks) if use_cache else None
    if cached is not None:
        cached.lablang_cached = True  # type: ignore[attr-defined]
        return cached
    parser = lark.Lark(text, transformer=transformer, lexer_callbacks=lexer_callbacks, **_OPTIONS)
    _store(path, parser)
    return parser


def raw_parser() -> lark.Lark:
    """A plain Lark parser producing parse trees (for benchmarks and grammar tools)."""
    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True)
