"""Writing outputs atomically: a failed run never leaves a half-written file.

Every output goes through `write_atomic`, which also refuses what a command must not do:
replace one of its own inputs (`export x.lab -o x.lab`), write a read-only file, or
write through a path that cannot hold a file. Each refusal is an `OutputError` that the
command line reports as E0023. A symlink is written through (its target is replaced, the
link kept), a hardlinked file is rewritten in place (every link keeps the new text), and
the mode of a replaced file is kept. In a folder other users can write (world-writable,
like `/tmp`, or group-writable by a group that is not the user's own) the final name is
not followed: a symlink there is refused (someone else may have planted it to make the
command overwrite a file of the user's), a FIFO or device is refused rather than opened,
and a hardlinked file is replaced, not rewritten in place. Temporary files left behind by a killed run (our own
`.NAME.*.tmp`, older than a minute) are removed on the next write beside them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from pathlib import Path

_STALE_SECONDS = 60.0
# (device, inode, mtime_ns) of every file read as an input in this process
_INPUTS: set[tuple[int, int, int]] = set()


class OutputError(Exception):
    """An output that cannot or must not be written; the message says why (E0023)."""


def remember_input(path: str | Path) -> None:
    """Record `path` as an input: `write_atomic` will refuse to replace it."""
    with contextlib.suppress(OSError):
        info = os.stat(path)
        _INPUTS.add((info.st_dev, info.st_ino, info.st_mtime_ns))


def forget_inputs() -> None:
    """Start a new command: nothing read so far is an input of it."""
    _INPUTS.clear()


def _temporary_prefix(name: str) -> str:
    # a long name must still leave room for the temporary name (NAME_MAX is 255)
    return f".{name[:120]}."


def write_atomic(path: str | Path, data: str | bytes, *, replaces_input: bool = False) -> None:
    """Write `data` to `path` through a temporary file in the same directory.

    `replaces_input` is for a command whose job is to rewrite its input (`fmt`).
    """
    path = Path(path)
    payload = data if isinstance(data, bytes) else data.encode("utf-8")
    shared = _writable_by_others(path.parent)
    if shared and os.path.islink(path):
        raise OutputError(
            f"`{path}` is a symlink in a folder other users can write; it is not written through"
        )
    if shared:  # the folder resolved, the name itself never followed
        target = Path(os.path.realpath(path.parent)) / path.name
    else:
        target = Path(os.path.realpath(path))  # write through a symlink, keep the link
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        info = os.lstat(target) if os.path.lexists(target) else None
        if info is not None and stat.S_ISLNK(info.st_mode):  # planted since the check
            raise OutputError(f"`{path}` became a symlink while it was written; not followed")
    except OSError as error:
        raise OutputError(_why(path, error)) from None
    if info is not None and (stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        if shared:
            raise OutputError(f"`{path}` is not a regular file in a folder other users can write")
        _write_stream(path, target, payload)  # `-o /dev/null`, `-o /dev/stdout`, a pipe
        return
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"`{path}` exists and is not a regular file")
        if not replaces_input and (info.st_dev, info.st_ino, info.st_mtime_ns) in _INPUTS:
            raise OutputError(f"`{path}` is an input of this command; it is not overwritten")
        if not info.st_mode & stat.S_IWUSR:
            raise OutputError(f"`{path}` is read-only; it is not overwritten")
    _remove_stale(target)
    import tempfile  # here, not at the top: `lablang check` reads inputs and writes nothing

    try:
        fd, temporary = tempfile.mkstemp(
            prefix=_temporary_prefix(target.name), suffix=".tmp", dir=target.parent
        )
    except OSError as error:
        raise OutputError(_why(path, error)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        if info is not None and info.st_nlink > 1 and not shared:
            _rewrite_in_place(target, payload)
            os.unlink(temporary)
            return
        os.chmod(temporary, info.st_mode & 0o7777 if info is not None else _new_file_mode())
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OutputError(_why(path, error)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _writable_by_others(folder: Path) -> bool:
    """Whether users other than this one may create names in `folder`."""
    try:
        info = os.stat(folder if str(folder) else ".")
    except OSError:
        return False  # absent: it is created below, by this user
    if info.st_mode & stat.S_IWOTH:
        return True
    getgid = getattr(os, "getgid", None)
    return bool(info.st_mode & stat.S_IWGRP) and getgid is not None and info.st_gid != getgid()


def _write_stream(path: Path, target: Path, payload: bytes) -> None:
    # a device or a pipe is written as it is: there is no file to replace atomically
    try:
        with open(target, "wb") as handle:
            handle.write(payload)
    except OSError as error:
        raise OutputError(_why(path, error)) from None


def _new_file_mode() -> int:
    # what open() would give a new file (mkstemp's own files are 0600)
    return 0o666 & ~_umask()


def _rewrite_in_place(target: Path, payload: bytes) -> None:
    # A replace would give this name a new inode and leave the other links with the old
    # text; the complete new text is already on disk in the temporary file meanwhile.
    with open(target, "r+b") as handle:
        handle.write(payload)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def _remove_stale(target: Path) -> None:
    prefix = _temporary_prefix(target.name)
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(".tmp")):
                continue
            if len(name) - len(prefix) - len(".tmp") != 8:  # mkstemp's 8 random characters
                continue
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False) and (
                    now - entry.stat(follow_symlinks=False).st_mtime > _STALE_SECONDS
                ):
                    os.unlink(entry.path)


def _why(path: Path, error: OSError) -> str:
    reasons = {
        errno.ENOENT: "its folder does not exist",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EEXIST: "a part of the path is a file, not a folder",
        errno.ENAMETOOLONG: "the name is too long",
        errno.EACCES: "the folder is not writable",
        errno.EPERM: "the folder is not writable",
        errno.EROFS: "the file system is read-only",
        errno.ENOSPC: "the disk is full",
        errno.EISDIR: "it is a folder",
    }
    reason = reasons.get(error.errno or 0, error.strerror or str(error))
    return f"cannot write `{path}`: {reason}"


def _umask() -> int:
    """The process's umask (read without changing it where /proc tells it)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
