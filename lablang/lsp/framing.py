"""The server's message loop over stdio, with bounded and recoverable framing.

pygls's own loop trusts the `Content-Length` header: a length of 99999999999999 makes it
allocate that much (MemoryError: the server exits), a negative or missing length leaves
it reading the body as headers forever, and a request whose parameters do not fit the
protocol's types (a negative position) is logged and never answered. Here a frame is at
most `MAX_FRAME_BYTES` and a header line is read at most `MAX_HEADER_BYTES` at a time (a
header line with no end, once 400 MiB buffered whole, is skipped piece by piece); a bad
header block is skipped and the reader resynchronises on
the next `Content-Length:` even in the middle of a line; and a request that cannot be
read gets a JSON-RPC error response (InvalidParams), so every request is answered.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Awaitable
from concurrent.futures import Executor
from typing import Any

MAX_FRAME_BYTES = 64 * 1024 * 1024  # a 4 MiB document, JSON-escaped, fits many times over
MAX_HEADER_BYTES = 64 * 1024  # an LSP header line is some 30 bytes
_LENGTH = re.compile(rb"Content-Length:[ \t]*(\S*)[ \t]*\r?\n?$", re.IGNORECASE)
_INVALID_PARAMS = -32602
_PARSE_ERROR = -32700


def frame_length(header: bytes) -> int | None:
    """The length a header line declares: an int in bounds, -1 when invalid, None if
    the line is no length header (a length header may follow junk on the same line).

    >>> frame_length(b"Content-Length: 12\\r\\n"), frame_length(b"Content-Length: -5\\r\\n")
    (12, -1)
    >>> frame_length(b'{"junk": 1}Content-Length: 7\\r\\n'), frame_length(b"X: 1\\r\\n")
    (7, None)
    """
    at = header.lower().rfind(b"content-length:")
    if at < 0:
        return None
    match = _LENGTH.match(header, at)
    if match is None:
        return -1
    value = match.group(1)
    if not value.isdigit() or len(value) > 12:
        return -1
    length = int(value)
    return length if 0 < length <= MAX_FRAME_BYTES else -1


class BoundedReader:
    """A blocking binary stream read on an executor: lines of at most `MAX_HEADER_BYTES`."""

    def __init__(self, stream: Any, executor: Executor | None = None) -> None:
        self.stream, self.executor = stream, executor

    def readline(self) -> Awaitable[bytes]:
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self.executor, self.stream.readline, MAX_HEADER_BYTES)

    def readexactly(self, n: int) -> Awaitable[bytes]:
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self.executor, self.stream.read, n)


async def _header_line(reader: Any, logger: logging.Logger) -> bytes:
    """The next header line; of an over-long one, only its last piece (a `Content-Length`
    at the end of a long junk line still resynchronises)."""
    header: bytes = await reader.readline()
    if len(header) < MAX_HEADER_BYTES or header.endswith(b"\n"):
        return header
    skipped = 0
    while header and not header.endswith(b"\n"):
        skipped += len(header)
        header = await reader.readline()
    logger.error("a header line over %d bytes was skipped (%d bytes)", MAX_HEADER_BYTES, skipped)
    return header


async def run_bounded(
    stop_event: threading.Event, reader: Any, protocol: Any, logger: logging.Logger
) -> None:
    """Read frames from `reader` and hand each message to `protocol` until EOF or stop."""
    length: int | None = None
    while not stop_event.is_set():
        header = await _header_line(reader, logger)
        if not header:
            break
        declared = frame_length(header)
        if declared is not None:
            length = declared
            if declared < 0:
                logger.error("bad Content-Length header %r: frame skipped", header[:80])
            continue
        if header.strip():
            continue  # another header (Content-Type) or junk between frames
        if length is None:
            continue  # a blank line outside any frame
        if length < 0:
            length = None  # the bad frame's header block ends here: resynchronise
            continue
        body = await reader.readexactly(length)
        length = None
        if not body:
            break
        _handle(body, protocol, logger)


def _handle(body: bytes, protocol: Any, logger: logging.Logger) -> None:
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        logger.error("a frame that is not JSON was skipped")
        return
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
        protocol.handle_message(message)
    except Exception as error:  # a request whose parameters do not fit: answer it anyway
        logger.error("unable to handle message: %s", error)
        if isinstance(raw, dict) and "id" in raw and "method" in raw:
            _answer_error(protocol, raw["id"], f"invalid request: {error}"[:500])


def _answer_error(protocol: Any, ident: Any, message: str) -> None:
    from lsprotocol import types

    if not isinstance(ident, (int, str)) or isinstance(ident, bool):
        return
    error = types.ResponseError(code=_INVALID_PARAMS, message=message)
    protocol._send_response(ident, error=error)
