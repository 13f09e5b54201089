"""The language server answers only for open documents and workspace files, survives bad
framing (huge, negative or missing lengths) and answers every request, even one whose
positions do not fit the protocol."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lablang.lsp.client import LspClient
from lablang.lsp.framing import MAX_FRAME_BYTES, MAX_HEADER_BYTES, frame_length
from tests.hostile.bounded import ROOT, run_bounded

SECRET = "oligo secret { seq: 5'-ACGTACGT-3' }\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[tuple[LspClient, Path]]:
    root = tmp_path / "ws"
    root.mkdir()
    client = LspClient(pythonpath=ROOT)
    client.initialize(root)
    yield client, root
    client.close()


def _raw(client: LspClient, data: bytes) -> None:
    stdin = client.process.stdin
    assert stdin is not None
    stdin.write(data)
    stdin.flush()


def _still_answers(client: LspClient, root: Path) -> None:
    uri = client.open(root / "ok.lab", "oligo a { seq: 5'-ACGT-3' }\n")
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["a"]


def test_a_file_outside_the_workspace_is_not_read(
    workspace: tuple[LspClient, Path], tmp_path: Path
) -> None:
    """Symbols and hover for a never-opened file outside the workspace come back empty."""
    client, _ = workspace
    outside = tmp_path / "outside.lab"
    outside.write_text(SECRET)
    uri = outside.as_uri()
    assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}) == []
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 7}},
    )
    assert hover is None


def test_a_workspace_file_is_served_without_being_opened(workspace: tuple[LspClient, Path]) -> None:
    """A file under the workspace folder is answered for from disk."""
    client, root = workspace
    inside = root / "inside.lab"
    inside.write_text(SECRET)
    symbols = client.request(
        "textDocument/documentSymbol", {"textDocument": {"uri": inside.as_uri()}}
    )
    assert [s["name"] for s in symbols] == ["secret"]


def test_a_huge_content_length_is_skipped_and_the_server_lives(
    workspace: tuple[LspClient, Path],
) -> None:
    """`Content-Length: 99999999999999` (a MemoryError exit before) is skipped."""
    client, root = workspace
    _raw(client, b"Content-Length: 99999999999999\r\n\r\n{}")
    _still_answers(client, root)
    assert client.process.poll() is None


@pytest.mark.parametrize(
    "header", [b"Content-Length: -5\r\n\r\n", b"\r\n", b"Content-Length: x\r\n\r\n"]
)
def test_bad_or_missing_lengths_recover_on_the_next_frame(
    workspace: tuple[LspClient, Path], header: bytes
) -> None:
    """After a negative, missing or garbled length the next well-framed request is answered."""
    client, root = workspace
    _raw(client, header + b'{"jsonrpc": "2.0", "id": 999, "method": "shutdown"}')
    _still_answers(client, root)


def test_requests_with_impossible_positions_are_answered(workspace: tuple[LspClient, Path]) -> None:
    """A hover at a negative position gets an error response; a huge one an empty answer."""
    client, root = workspace
    uri = client.open(root / "p.lab", SECRET)
    client.next_id += 1
    ident = client.next_id
    params = {"textDocument": {"uri": uri}, "position": {"line": -3, "character": -1}}
    client.send({"jsonrpc": "2.0", "id": ident, "method": "textDocument/hover", "params": params})
    reply = client.wait(lambda m: m.get("id") == ident and "method" not in m)
    assert reply["error"]["code"] == -32602
    huge = {"textDocument": {"uri": uri}, "position": {"line": 2**31 - 1, "character": 2**31 - 1}}
    assert client.request("textDocument/hover", huge) is None


def test_frame_lengths_are_bounded() -> None:
    """A length past MAX_FRAME_BYTES, zero or negative is invalid; a length after junk counts."""
    assert frame_length(b"Content-Length: %d\r\n" % (MAX_FRAME_BYTES + 1)) == -1
    assert frame_length(b"Content-Length: 0\r\n") == -1
    assert frame_length(json.dumps({"a": 1}).encode() + b"Content-Length: 9\r\n") == 9


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _replies(stdout: str) -> dict[int, dict]:
    """The server's responses on stdout, by request id."""
    messages = [json.loads(part.split("\r\n\r\n", 1)[1]) for part in
                stdout.split("Content-Length: ")[1:]]  # fmt: skip
    return {m["id"]: m for m in messages if "id" in m and "method" not in m}


def _session(root: Path, *middle: bytes) -> bytes:
    """An LSP session on stdin: initialize, open `a.lab`, MIDDLE, documentSymbol (id 2),
    shutdown (id 3), exit (stdin ends at once, so id 2 may be answered as cancelled)."""
    uri = (root / "a.lab").as_uri()
    text = "oligo a { seq: 5'-ACGT-3' }\n"
    initialize = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    opened = {"textDocument": {"uri": uri, "languageId": "lablang", "version": 1, "text": text}}
    return b"".join([
        _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}),
        _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        _frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": opened}),
        *middle,
        _frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol",
                "params": {"textDocument": {"uri": uri}}}),
        _frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": None}),
        _frame({"jsonrpc": "2.0", "method": "exit", "params": None}),
    ])  # fmt: skip


def test_a_header_line_without_end_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    """A 100 MB header line is skipped piece by piece (it was buffered whole: MemoryError
    under this bound, 998 MB for 400 MiB), and the next request is answered; a normal
    session runs in 250 MB, the bound is 400 MB."""
    junk = b"x" * 100_000_000 + b"\r\n"
    run = run_bounded(
        ["lsp"], stdin=_session(tmp_path, junk), cpu_seconds=60, memory_mb=400, hang_seconds=300
    )
    run.assert_clean()
    assert run.returncode == 0, run.output[-2000:]
    assert _replies(run.stdout)[3] == {"id": 3, "jsonrpc": "2.0", "result": None}  # shutdown
    assert f"a header line over {MAX_HEADER_BYTES} bytes was skipped" in run.stderr


def test_malformed_params_are_logged_as_one_line(tmp_path: Path) -> None:
    """Bad params get -32602 naming the field, and stderr has one line per bad message,
    not cattrs' traceback (a request and a notification)."""
    uri = (tmp_path / "a.lab").as_uri()
    hover = {"textDocument": {"uri": uri}, "position": {"line": -3, "character": -1}}
    bad = [
        _frame({"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": hover}),
        _frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": 5}}}),
    ]  # fmt: skip
    run = run_bounded(["lsp"], stdin=_session(tmp_path, *bad), hang_seconds=300)
    run.assert_clean()
    assert run.returncode == 0, run.output[-2000:]
    error = _replies(run.stdout)[9]["error"]
    assert error["code"] == -32602
    assert (
        error["message"]
        == "invalid params for `textDocument/hover`: invalid value @ $.params.position"
    )
    lines = run.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "cannot read `textDocument/hover`",
        "cannot read `textDocument/didOpen`",
    ], run.stderr
    assert _replies(run.stdout)[3] == {"id": 3, "jsonrpc": "2.0", "result": None}  # shutdown
