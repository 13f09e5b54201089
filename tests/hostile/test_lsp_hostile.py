"""The language server answers only for open documents and workspace files, survives bad
framing (huge, negative or missing lengths) and answers every request, even one whose
positions do not fit the protocol."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lablang.lsp.client import LspClient
from lablang.lsp.framing import MAX_FRAME_BYTES, frame_length
from tests.hostile.bounded import ROOT

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
