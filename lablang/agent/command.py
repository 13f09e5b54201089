"""Running an agent command: in its own process group, its output read up to a limit.

The agent (`bench --agent CMD`) is started without a shell in a new session, so that it
and every process it starts form one process group. Its stdout is read as it comes, up to
`limit` bytes: past that nothing more is read and buffered, the group is killed and the
output is marked cut. On the time limit, and also once the agent has exited (a background
process it left must not outlive its answer), the whole group is killed with SIGKILL.
Only the last `STDERR_TAIL` bytes of stderr are kept.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from attrs import frozen

__all__ = ["CommandRun", "run_command"]

STDERR_TAIL = 4096
_CHUNK = 65536
_POLL_SECONDS = 0.02


@frozen
class CommandRun:
    stdout: bytes
    stderr_tail: bytes
    returncode: int | None  # None: killed on the time limit or after the output limit
    timed_out: bool
    cut: bool  # the output reached `limit` bytes and the rest was not read
    seconds: float


class _Reader(threading.Thread):
    """Reads a pipe to its end, keeping at most `limit` bytes (the head, or the tail)."""

    def __init__(self, pipe: IO[bytes], limit: int, tail: bool = False) -> None:
        super().__init__(daemon=True)
        self.pipe, self.limit, self.tail = pipe, limit, tail
        self.data = bytearray()
        self.full = threading.Event()

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = self.pipe.read1(_CHUNK)  # type: ignore[attr-defined]
                if not chunk:
                    return
                self.data += chunk
                if len(self.data) > self.limit:
                    if self.tail:
                        del self.data[: len(self.data) - self.limit]
                        continue
                    del self.data[self.limit :]
                    self.full.set()
                    return  # stop reading: the writer blocks until its group is killed


def _feed(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(OSError, ValueError):  # an agent that reads no stdin
        pipe.write(data)
    with contextlib.suppress(OSError, ValueError):
        pipe.close()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            killpg(process.pid, signal.SIGKILL)  # the session's group id is the leader's pid
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def run_command(
    argv: Sequence[str],
    stdin: bytes,
    *,
    env: Mapping[str, str],
    timeout: float,
    limit: int,
) -> CommandRun:
    """Run `argv` with `stdin`, at most `timeout` seconds and `limit` bytes of stdout.

    Raises OSError when the command cannot be started.
    """
    start = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    out = _Reader(process.stdout, limit)
    err = _Reader(process.stderr, STDERR_TAIL, tail=True)
    feeder = threading.Thread(target=_feed, args=(process.stdin, stdin), daemon=True)
    for thread in (out, err, feeder):
        thread.start()
    deadline = start + timeout
    timed_out = False
    returncode: int | None = None
    while True:
        returncode = process.poll()
        if returncode is not None or out.full.is_set():
            break
        if time.perf_counter() >= deadline:
            timed_out = True
            break
        out.full.wait(_POLL_SECONDS)
    if returncode is None:
        _kill_group(process)
        process.wait()
    else:
        _kill_group(process)  # what the agent left running holds its pipes open
    for thread in (out, err, feeder):
        thread.join(timeout=5.0)
    for pipe in (process.stdout, process.stderr):
        with contextlib.suppress(OSError):
            pipe.close()
    return CommandRun(
        bytes(out.data),
        bytes(err.data),
        returncode,
        timed_out,
        out.full.is_set(),
        time.perf_counter() - start,
    )
