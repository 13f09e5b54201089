"""Locating the grammar and its parser tables, and building lablang's LALR runtime.

Lark analyses the grammar (`tables.py`) into tables (the LALR table in a compact form,
each context lexer's layout, each rule's tree shaping) that lablang's own runtime
(`lalr.py`) parses with, so that a check never imports lark. The tables come from, in
order:

1. the file the wheel ships (`lablang/_data/tables.lalr`, or `$LABLANG_TABLES`; made by
   the build hook `hatch_build.py` with the lark `[build-system].requires` pins; an
   editable install writes it into the checkout), used when it was made from this
   grammar text: a check after an install never analyses the grammar;
2. the parser cache, for a grammar edited since the install: a private folder
   (`$LABLANG_CACHE`, else `$XDG_CACHE_HOME/lablang`, else `~/.cache/lablang`, mode 0700);
3. lark's analysis now (lark must be installed: `TablesUnavailable` says so otherwise),
   written to the cache.

Both files are `marshal` data (plain ints, strings, tuples and dicts: loading it cannot
run code), checksummed and checked for the grammar they were made from. Compiled regex
programs are not stored: `_sre.compile` checks a program's structure, not its every
value, so a planted program can crash the interpreter (CPython 3.11.7, fuzzed with
altered copies of the lexers' own programs: an altered INFO prefix skip passes the check
and `search` then crashes; other alterations crash `_sre.compile` itself). Regexes are
compiled by `re`, and few: most tokens are matched by the alternation over all terminals
(`lalr.py`). A cache file is used only when it belongs to the current user, is not group-
or world-writable, its checksum matches and its tables are structurally sound (every
reference resolves); anything else is ignored and the tables are analysed again by lark
(and the cache rewritten). Either file is opened without following a symlink and without
blocking (`O_NONBLOCK`: a FIFO planted in its place must not hang `check`), checked on the
open descriptor (a regular file), and read only up to `MAX_CACHE_BYTES`. A cache folder
that is writable by other users, belongs to another user or is not a folder is not used
at all: lablang says so once on stderr and parses without the cache. The shipped file is
part of the package, trusted as its code is, but checked alike (checksum, grammar,
soundness). A runtime from either file that
fails while parsing is discarded and rebuilt by lark (`parser.py`). What the checks
cannot detect is a same-user edit that keeps the tables consistent but changes a
pattern: such a user can equally edit the installed package.
"""

from __future__ import annotations

import marshal
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from lablang.syntax.lalr import Runtime
from lablang.syntax.tables import FORMAT as _FORMAT

# SHA-256 from CPython's own module (`_sha2` from 3.12, `_sha256` before): hashlib loads
# OpenSSL, ~4 ms of a check's start-up, to hash a few hundred kilobytes
try:
    from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment, unused-ignore]


# the tables take about 330 KB; a larger file is not ours
MAX_CACHE_BYTES = 16 * 1024 * 1024
_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        sys.stderr.write(f"warning: {message}\n")


def usable_cache_folder(folder: Path) -> bool:
    """Whether the cache may live in `folder`: absent (it is created private), or a folder
    of the current user that no other user may write (else says why, once, on stderr)."""
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        return True
    except OSError as error:
        reason = f"cannot be read ({error.strerror})"
    else:
        getuid = getattr(os, "getuid", None)
        if not stat.S_ISDIR(info.st_mode):
            reason = "is not a folder"
        elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            reason = "is writable by other users"
        elif getuid is not None and info.st_uid != getuid():
            reason = "belongs to another user"
        else:
            return True
    _warn_once(f"the parser cache folder `{folder}` {reason}; parsing without the cache")
    return False


class TablesUnavailable(RuntimeError):
    """No parser tables were made from this grammar text, and lark, which makes them, is
    not installed (a broken install, or a checkout's grammar edited since its install).
    `help` holds the fix."""

    def __init__(self, message: str, help: str) -> None:
        super().__init__(message)
        self.help = help


def grammar_text() -> str:
    """The grammar, from the installed wheel's package data or the source tree."""
    # the package's folder, not `importlib.resources` (as `lablang.resolve.stdlib_root`)
    packaged = Path(__file__).resolve().parents[1] / "_data" / "grammar" / "lablang.lark"
    if packaged.is_file():
        return packaged.read_text("utf-8")
    source_tree = Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark"
    return source_tree.read_text("utf-8")


def shipped_file() -> Path:
    """The tables file the wheel ships (or an editable install wrote into the checkout);
    `$LABLANG_TABLES` names another (the tests point it at none to use the cache)."""
    explicit = os.environ.get("LABLANG_TABLES")
    if explicit:
        return Path(explicit)
    return Path(__file__).resolve().parents[1] / "_data" / "tables.lalr"


def cache_folder() -> Path:
    """The private folder holding the parser cache (not created here)."""
    explicit = os.environ.get("LABLANG_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lablang"


def cache_file(text: str) -> Path:
    """The cache file for this grammar text, Lark version and Python version."""
    key = "\0".join((text, _lark_version(), sys.version, _FORMAT.decode()))
    digest = sha256(key.encode()).hexdigest()[:24]
    return cache_folder() / f"grammar-{digest}.lalr"


def _lark_version() -> str:
    """Lark's version, read from its package without importing it (that import is what
    the cache spares a check)."""
    loaded = sys.modules.get("lark")
    if loaded is not None:
        return str(loaded.__version__)
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("lark")
    try:
        head = Path(spec.origin).read_text("utf-8")  # type: ignore[union-attr, arg-type]
    except (AttributeError, TypeError, OSError):
        return "unknown"
    found = re.search(r"^__version__\b[^=]*=\s*[\"']([^\"']+)", head, re.M)
    return found.group(1) if found else "unknown"


def _trusted(fd: int) -> bool:
    """A regular file of the current user that no group or other user may write."""
    info = os.fstat(fd)
    getuid = getattr(os, "getuid", None)  # absent on Windows: no owner to compare
    return (
        stat.S_ISREG(info.st_mode)
        and info.st_size <= MAX_CACHE_BYTES
        and (getuid is None or info.st_uid == getuid())
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _load(
    path: Path,
    transformer: Any,
    lexer_callbacks: dict,
    text: str | None = None,
    owned: bool = True,
) -> Runtime | None:
    """The runtime over the tables in `path`, or None when the file is absent, unreadable,
    untrusted (`owned`: it must be the current user's and writable by no one else),
    damaged, made from another grammar than `text`, or unsound."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            _warn_once(f"the parser cache file `{path}` is not a regular file; ignored")
            return None
        if owned and not _trusted(fd):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            blob = handle.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    head = len(_FORMAT) + 32
    if not blob.startswith(_FORMAT) or sha256(blob[head:]).digest() != blob[len(_FORMAT) : head]:
        return None
    try:
        saved = marshal.loads(blob[head:])
        if text is not None and saved["grammar"] != sha256(text.encode()).hexdigest():
            return None
        return Runtime(saved, transformer, lexer_callbacks)
    except Exception:  # any damage to the file means: not these tables
        return None


def _store(path: Path, blob: bytes) -> None:
    """Writes the cache atomically in the private folder; failures are ignored."""
    import tempfile

    try:
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


def build_parser(transformer: Any, lexer_callbacks: dict, use_cache: bool = True) -> Runtime:
    """The runtime, over the shipped tables or the cached ones when they load soundly for
    this grammar, else over tables lark analyses now (and the cache rewritten).
    `runtime.lablang_tables` says which: "shipped", "cache" or "analysed"."""
    text = grammar_text()
    if use_cache:
        loaded = _load(shipped_file(), transformer, lexer_callbacks, text, owned=False)
        if loaded is not None:
            loaded.lablang_tables = "shipped"
            return loaded
    # the cache's name is looked up only when needed: it asks where lark is installed
    cache = cache_file(text)
    usable = usable_cache_folder(cache.parent)
    if use_cache and usable:
        loaded = _load(cache, transformer, lexer_callbacks, text, owned=True)
        if loaded is not None:
            loaded.lablang_tables = "cache"
            return loaded
    try:
        import lark  # noqa: F401  (a missing lark is a missing install step, said so)
    except ImportError as error:
        from lablang.syntax.tables import LARK_VERSION

        raise TablesUnavailable(
            f"no parser tables for this grammar in {shipped_file().parent}, "
            "and lark is not installed to make them",
            "reinstall lablang (`pip install -e .` in a checkout rebuilds the tables), or "
            f"install lark to analyse the grammar at run time: `pip install lark=={LARK_VERSION}`",
        ) from error
    from lablang.syntax.tables import tables_file

    blob = tables_file(text)
    if usable:
        _store(cache, blob)
    # the tables as a cached run reads them back, so both runs parse alike
    runtime = Runtime(marshal.loads(blob[len(_FORMAT) + 32 :]), transformer, lexer_callbacks)
    runtime.lablang_tables = "analysed"
    return runtime


def lark_parser(transformer: Any = None, lexer_callbacks: dict | None = None) -> Any:
    """Lark's own LALR parser with the runtime's options (for the differential tests)."""
    import lark

    from lablang.syntax.tables import OPTIONS

    return lark.Lark(
        grammar_text(), transformer=transformer, lexer_callbacks=lexer_callbacks or {}, **OPTIONS
    )


def raw_parser() -> Any:
    """A plain Lark parser producing parse trees (for benchmarks and grammar tools)."""
    import lark

    return lark.Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True)
