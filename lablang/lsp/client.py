"""A minimal LSP client that runs `python -m lablang lsp` as a subprocess.

It frames JSON-RPC messages with Content-Length headers, reads the server's output on
a thread, and waits for a response or a notification. The tests, the benchmark and
scripts that want diagnostics from a running server use it.

    client = LspClient()
    client.initialize(Path.cwd())
    uri = client.open(Path("protocol.lab"), text)
    print(client.diagnostics(uri))
    client.close()
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["LspClient"]

TIMEOUT = 20.0


class LspClient:
    """A client for `python -m lablang lsp ARGS` run as a subprocess."""

    def __init__(self, *args: str, cwd: Path | None = None, pythonpath: Path | None = None) -> None:
        env = dict(os.environ)
        if pythonpath is not None:
            env["PYTHONPATH"] = str(pythonpath)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lablang", "lsp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.backlog: list[dict[str, Any]] = []
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        ident = self.next_id
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        message = self.wait(lambda m: m.get("id") == ident and "method" not in m)
        assert "error" not in message, message["error"]
        return message.get("result")

    def wait(self, accept: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT) -> dict:
        for index, message in enumerate(self.backlog):
            if accept(message):
                return self.backlog.pop(index)
        while True:
            try:
                message = self.messages.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no matching message within {timeout} s") from None
            if accept(message):
                return message
            self.backlog.append(message)

    def diagnostics(self, uri: str, version: int | None = None) -> list[dict[str, Any]]:
        """The next diagnostics published for `uri` (for `version`, when given)."""

        def accept(message: dict[str, Any]) -> bool:
            if message.get("method") != "textDocument/publishDiagnostics":
                return False
            params = message["params"]
            return params["uri"] == uri and (version is None or params.get("version") == version)

        return list(self.wait(accept)["params"]["diagnostics"])

    def initialize(self, root: Path) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}},
        )
        self.notify("initialized", {})
        return dict(result)

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "lablang",
                    "version": version,
                    "text": text,
                }
            },
        )
        return uri

    def close(self) -> int:
        try:
            self.next_id += 1  # a second shutdown is answered with an error: not a failure
            ident = self.next_id
            self.send({"jsonrpc": "2.0", "id": ident, "method": "shutdown", "params": None})
            self.wait(lambda m: m.get("id") == ident and "method" not in m)
            self.notify("exit", {})
            return self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
