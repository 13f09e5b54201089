"""Every request to the language server gets a JSON-RPC reply, and no Python traceback
crosses the wire, whatever the client sends."""

from __future__ import annotations

from pathlib import Path

from lablang.lsp.client import LspClient


def _reply(lsp: LspClient, method: str, params: object) -> dict:
    lsp.next_id += 1
    ident = lsp.next_id
    lsp.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    return lsp.wait(lambda m: m.get("id") == ident and "method" not in m)


def test_a_request_about_a_document_never_opened_answers_null(lsp: LspClient, tmp_path: Path):
    """Hover, definition, completion, outline and formatting of an unopened, absent file
    answer with a null result, not an internal error."""
    uri = (tmp_path / "never_opened.lab").as_uri()
    position = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    for method, params in [
        ("textDocument/hover", position),
        ("textDocument/definition", position),
        ("textDocument/completion", position),
        ("textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
        (
            "textDocument/formatting",
            {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}},
        ),
    ]:
        reply = _reply(lsp, method, params)
        assert "error" not in reply, (method, reply)
        assert reply["result"] in (None, []), (method, reply)


def test_a_request_with_malformed_params_gets_an_invalid_params_reply(lsp: LspClient):
    """A hover whose params are not a HoverParams is answered with -32602, without data."""
    reply = _reply(lsp, "textDocument/hover", {"textDocument": 3, "position": "here"})
    assert reply["error"]["code"] == -32602
    assert "textDocument/hover" in reply["error"]["message"]
    assert "data" not in reply["error"] or reply["error"]["data"] is None
    # and the server goes on answering
    assert "error" not in _reply(
        lsp, "textDocument/documentSymbol", {"textDocument": {"uri": "file:///nowhere.lab"}}
    )


def test_a_request_after_shutdown_is_answered_with_an_error(lsp: LspClient):
    """After `shutdown`, a request gets an InvalidRequest reply instead of silence."""
    assert "error" not in _reply(lsp, "shutdown", None)
    reply = _reply(
        lsp,
        "textDocument/hover",
        {"textDocument": {"uri": "file:///x.lab"}, "position": {"line": 0, "character": 0}},
    )
    assert reply["error"]["code"] == -32600


def test_no_error_reply_carries_a_traceback(lsp: LspClient, tmp_path: Path):
    """An unknown method is answered with an error whose text and data hold no traceback."""
    reply = _reply(lsp, "lablang/noSuchMethod", {})
    assert "error" in reply
    assert "Traceback" not in str(reply) and "traceback" not in str(
        reply.get("error", {}).get("data")
    )


def test_the_server_registers_a_watcher_for_lab_files_when_the_client_can(tmp_path: Path):
    """A client that supports dynamic registration is asked to watch `**/*.lab`; then a
    change of an imported module re-checks the open importer."""
    import os

    from tests.editor.conftest import ROOT

    client = LspClient("--path", str(tmp_path), pythonpath=ROOT)
    try:
        capabilities = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
        client.next_id += 1
        client.send(
            {
                "jsonrpc": "2.0",
                "id": client.next_id,
                "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": tmp_path.as_uri(),
                    "capabilities": capabilities,
                },
            }
        )
        ident = client.next_id
        client.wait(lambda m: m.get("id") == ident and "method" not in m)
        client.notify("initialized", {})
        request = client.wait(lambda m: m.get("method") == "client/registerCapability")
        (registration,) = request["params"]["registrations"]
        assert registration["method"] == "workspace/didChangeWatchedFiles"
        assert registration["registerOptions"]["watchers"][0]["globPattern"] == "**/*.lab"
        client.send({"jsonrpc": "2.0", "id": request["id"], "result": None})
        module = tmp_path / "lib.lab"
        module.write_text("oligo P { seq: 5'-ACGT-3' }\n")
        uri = client.open(tmp_path / "main.lab", "use lib.{P}\nmaterial m { uses: [P] }\n")
        client.diagnostics(uri)
        module.write_text("oligo Q { seq: 5'-ACGT-3' }\n")
        client.notify(
            "workspace/didChangeWatchedFiles", {"changes": [{"uri": module.as_uri(), "type": 2}]}
        )
        codes = [d["code"] for d in client.diagnostics(uri)]
        assert codes, "the importer was re-checked and now misses `P`"
    finally:
        client.close()
