"""The one guarded opener for every file lablang reads on a user's behalf.

Answers and replay files (`bench`), episode records (`replay`), demonstrations (HDF5),
imported modules (`use`), the paths `serve` is asked for and data files all come from
agents or from folders an agent could write into. Each is opened here, so one set of
checks holds everywhere:

- inside its roots after symlinks are resolved (the roots per command are in
  docs/limits.md; `roots=None` means the named file itself, which the user chose);
- a regular file, checked with `fstat` on the open descriptor, which is opened with
  `O_NONBLOCK` so a FIFO never blocks the open (and `O_NOCTTY`: a terminal never
  becomes the controlling one);
- bounded by size before anything is read (the limit is named in the message), and read
  at most one byte past the bound, so a file that grows while read is refused too.

Every refusal is a `Refused` (a `ValueError`) whose `reason` is one of `REASONS` and
whose message names the file and, for a size, the limit; the caller reports it under
its own diagnostic code. On Linux the descriptor's own path (`/proc/self/fd/N`) is
checked against the roots again after the open, so a symlink swapped in between the
check and the open is refused as well.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.lab").write_text("segment U = umi(8)")
>>> read_guarded(folder / "a.lab", [folder], max_bytes=100, limit="max_file_bytes")
b'segment U = umi(8)'
>>> read_guarded(folder / "a.lab", [folder], max_bytes=4, limit="max_file_bytes")
Traceback (most recent call last):
...
lablang.guarded.Refused: `a.lab` is 18 bytes, more than the 4 allowed (the limit is `max_file_bytes`)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

__all__ = ["REASONS", "Refused", "confine", "open_guarded", "read_guarded"]

# why a file is refused: absent or unreadable, resolving outside every root, not a
# regular file, or past its size limit
REASONS = ("unreadable", "outside", "special", "too-big")

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX; Windows has no FIFOs to block on
_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_NOCTTY", 0)
_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class Refused(ValueError):
    """A file the guarded opener will not read; `reason` is one of `REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def confine(path: str | Path, roots: Sequence[str | Path] | None) -> Path:
    """The real path of `path` (symlinks resolved), which must lie inside one of `roots`
    (also resolved); `roots=None` confines nothing (the named file itself).

    >>> confine("/etc/passwd", ["/tmp"])
    Traceback (most recent call last):
    ...
    lablang.guarded.Refused: `/etc/passwd` is outside `/tmp` (it resolves to `/etc/passwd`)
    """
    try:
        real = Path(path).resolve(strict=True)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop (Python < 3.13)
        raise Refused("unreadable", f"cannot read `{path}`: {_why(error)}") from None
    if roots is not None and not _inside(real, roots):
        raise Refused("outside", f"`{path}` is outside {_named(roots)} (it resolves to `{real}`)")
    return real


def open_guarded(
    path: str | Path,
    roots: Sequence[str | Path] | None = None,
    *,
    max_bytes: int,
    limit: str,
) -> BinaryIO:
    """`path` opened for binary reading after every check of the module docstring
    (`limit` is the name of the limit `max_bytes` comes from, for the message)."""
    real = confine(path, roots)
    try:
        fd = os.open(real, _FLAGS)
    except OSError as error:
        raise Refused("unreadable", f"cannot read `{path}`: {_why(error)}") from None
    try:
        info = os.fstat(fd)
        for test, kind in _KINDS:
            if test(info.st_mode):
                raise Refused("special", f"`{path}` is not a regular file (it is {kind})")
        if not stat.S_ISREG(info.st_mode):
            raise Refused("special", f"`{path}` is not a regular file")
        if roots is not None:
            _recheck(fd, path, roots)
        if info.st_size > max_bytes:
            raise Refused("too-big", _too_big(path, info.st_size, max_bytes, limit))
        if _NONBLOCK:
            os.set_blocking(fd, True)  # a regular file: reads as usual from here
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_guarded(
    path: str | Path,
    roots: Sequence[str | Path] | None = None,
    *,
    max_bytes: int,
    limit: str,
) -> bytes:
    """The bytes of `path`, opened by `open_guarded`, read at most to the limit."""
    with open_guarded(path, roots, max_bytes=max_bytes, limit=limit) as handle:
        try:
            # as much as fstat says (a 4 MB buffer per small module costs more than the
            # read), then on to the bound if there is more: grown, or /proc's size 0
            want = min(os.fstat(handle.fileno()).st_size, max_bytes) + 1
            data = handle.read(want)
            if len(data) == want:
                data += handle.read(max_bytes + 1 - want)
        except OSError as error:
            raise Refused("unreadable", f"cannot read `{path}`: {_why(error)}") from None
    if len(data) > max_bytes:  # grew while read, or a file whose size says 0 (/proc)
        raise Refused("too-big", _too_big(path, len(data), max_bytes, limit, at_least=True))
    return data


def _inside(real: Path, roots: Sequence[str | Path]) -> bool:
    target = str(real)
    for root in roots:
        base = os.path.realpath(root)
        # an existing file cannot lie under a root that does not exist, so no check of that
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _recheck(fd: int, path: str | Path, roots: Sequence[str | Path]) -> None:
    """The descriptor's own path is inside the roots (closes the window between the
    path check and the open, where a folder could be swapped for a symlink)."""
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc (not Linux): the path check before the open stands
        return
    if not _inside(Path(opened), roots):
        raise Refused("outside", f"`{path}` is outside {_named(roots)} (it opened `{opened}`)")


def _named(roots: Sequence[str | Path]) -> str:
    names = [f"`{root}`" for root in roots]
    if not names:
        return "every allowed folder (none is given)"
    return names[0] if len(names) == 1 else "each of " + ", ".join(names)


def _too_big(
    path: str | Path, size: int, max_bytes: int, limit: str, at_least: bool = False
) -> str:
    name, bound = Path(path).name, f"(the limit is `{limit}`)"
    if at_least:  # read past the bound: the real size is unknown
        return f"`{name}` has more than the {max_bytes} bytes allowed {bound}"
    return f"`{name}` is {size} bytes, more than the {max_bytes} allowed {bound}"


def _why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
