"""`lablang serve`: one long-lived checker speaking JSON lines on stdio.

An agent loop pays Python's and lablang's start-up once instead of once per check. Each
request is one line holding a JSON object, each reply one line:

    {"id": 1, "method": "check", "params": {"text": "oligo X { seq: 5'-ACGT-3' }"}}
    {"id": 1, "result": {"result": "ok", "errors": 0, "warnings": 0, "diagnostics": []}}

Methods (`params` in brackets are optional):

- `check` {text | path, [name], [roots]}: the payload of `lablang check --json`;
- `fix` {text | path, [name], [roots], [rounds]}: apply every machine-applicable fix and
  check again, up to `rounds` times (default 3): `{text, applied, result, diagnostics}`;
- `export` {text | path, to, [name], [roots]}: `{text}` in the format `lablang export
  --to` names, or the diagnostics that prevent it;
- `score` {prediction | text, truth, [roots]}: LibStructBench scores as `lablang score
  --json` gives them (`prediction`/`truth`: paths to `.lab`, JSON files or folders;
  `text`: a `.lab` answer given inline);
- `spec` {[sections]}: the language reference (`lablang spec --section ...`);
- `shutdown`: replies, then the server exits.

Paths are confined like the language server's workspace: every `path`, `prediction`,
`truth` and `roots` entry must lie inside one of the served roots after symlinks are
resolved (`lablang serve --root DIR`, repeatable; by default the folder the server starts
in), and files are read by the guarded opener (`lablang.guarded`); any other path gets
-32602 naming the roots, and nothing is read.

Every request gets exactly one reply with its `id`. A line that is not a JSON object,
an unknown method or bad params get `{"id": ..., "error": {"code", "message"}}`
(JSON-RPC's codes: -32700 parse error, -32600 invalid request, -32601 unknown method,
-32602 invalid params, -32603 internal error). Lines are bounded (`MAX_LINE_BYTES`).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from attrs import frozen

from lablang.limits import DEFAULT_LIMITS

__all__ = ["MAX_LINE_BYTES", "Request", "handle", "serve"]

# a request carries at most one file's text, JSON-escaped (up to 6 bytes per character)
MAX_LINE_BYTES = DEFAULT_LIMITS.max_file_bytes * 6 + 65536

PARSE_ERROR, INVALID_REQUEST, UNKNOWN_METHOD, INVALID_PARAMS, INTERNAL = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)


class RequestError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def serve(
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    roots: Sequence[str | Path] | None = None,
) -> int:
    """Answer requests from `stdin` until it ends or a `shutdown` request; returns 0.

    `roots` are the folders whose files requests may name (default: the working folder)."""
    served = _served(roots)
    reader = stdin if stdin is not None else sys.stdin
    writer = stdout if stdout is not None else sys.stdout
    while True:
        line = reader.readline(MAX_LINE_BYTES + 1)
        if not line:
            return 0
        if len(line) > MAX_LINE_BYTES and not line.endswith("\n"):
            _skip_rest(reader)
            reply: dict[str, Any] = _error(
                None, INVALID_REQUEST, f"request longer than {MAX_LINE_BYTES} characters"
            )
        elif not line.strip():
            continue
        else:
            reply = handle_line(line, served)
        writer.write(reply_line(reply, getattr(writer, "encoding", None) or "utf-8"))
        writer.flush()
        if reply.get("result", {}) == {"shutdown": True}:
            return 0


def reply_line(reply: dict[str, Any], encoding: str = "utf-8") -> str:
    """One reply as a JSON line the output's encoding can write: as UTF-8 text, else (a
    lone surrogate from a request, an ASCII terminal) with every non-ASCII character as a
    JSON `\\u` escape, which decodes to the same value."""
    line = json.dumps(reply, ensure_ascii=False) + "\n"
    try:
        line.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return json.dumps(reply) + "\n"
    return line


def _skip_rest(reader: IO[str]) -> None:
    while True:
        chunk = reader.readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith("\n"):
            return


def handle_line(line: str, roots: Sequence[str | Path] | None = None) -> dict[str, Any]:
    """The reply to one request line."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError) as error:
        return _error(None, PARSE_ERROR, f"not JSON: {error}")
    return handle(request, roots)


def _served(roots: Sequence[str | Path] | None) -> tuple[Path, ...]:
    return tuple(Path(r) for r in roots) if roots else (Path.cwd(),)


def handle(request: Any, roots: Sequence[str | Path] | None = None) -> dict[str, Any]:
    """The reply to one decoded request (never raises); `roots` are the served folders
    (default: the working folder).

    >>> handle({"id": 7, "method": "check", "params": {"text": "segment UMI = umi(12)"}})["result"]["result"]
    'ok'
    >>> handle({"id": 8, "method": "nope"})["error"]["code"]
    -32601
    """
    request_id = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request_id, str | int | type(None)) or isinstance(request_id, bool):
        request_id = None
    try:
        if not isinstance(request, dict):
            raise RequestError(INVALID_REQUEST, "a request is a JSON object")
        method = request.get("method")
        if not isinstance(method, str):
            raise RequestError(INVALID_REQUEST, "a request needs a `method` string")
        params = request.get("params", {})
        if not isinstance(params, dict):
            raise RequestError(INVALID_PARAMS, "`params` must be an object")
        function = METHODS.get(method)
        if function is None:
            raise RequestError(
                UNKNOWN_METHOD, f"no method `{method}`; methods: {', '.join(sorted(METHODS))}"
            )
        return {"id": request_id, "result": function(Request(params, _served(roots)))}
    except RequestError as error:
        return _error(request_id, error.code, error.message)
    except (RecursionError, MemoryError):
        return _error(request_id, INVALID_PARAMS, "request is too deeply nested or too large")
    except Exception as error:  # a lablang bug: reported, and the server goes on
        return _error(request_id, INTERNAL, f"internal error: {type(error).__name__}: {error}")


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": code, "message": message}}


# ---------------------------------------------------------------- methods


@frozen
class Request:
    """A request's params and the folders it may name."""

    params: dict[str, Any]
    served: tuple[Path, ...]

    def path(self, key: str) -> str:
        """The param `key`, a path that must lie inside the served roots (else -32602)."""
        from lablang.guarded import Refused, confine

        value = _string(self.params, key)
        try:
            confine(value, self.served)
        except Refused as refused:
            why = refused.message if refused.reason == "outside" else f"`{key}`: {refused.message}"
            raise RequestError(
                INVALID_PARAMS, f"{why}; served roots: {_listed(self.served)}"
            ) from None
        return value

    def roots(self) -> list[str]:
        roots = self.params.get("roots", [])
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise RequestError(INVALID_PARAMS, "`roots` must be a list of directory paths")
        for root in roots:
            Request({"root": root}, self.served).path("root")
        return roots


def _listed(folders: Sequence[Path]) -> str:
    return ", ".join(f"`{folder}`" for folder in folders)


def _string(params: dict[str, Any], key: str, default: str | None = None) -> str:
    """A string parameter that names a file or is written to one: it must be UTF-8 text
    (the `.lab` text of `check`, `fix` and `export` is read by `_checked` instead)."""
    value = params.get(key, default)
    if not isinstance(value, str):
        raise RequestError(INVALID_PARAMS, f"`{key}` must be a string")
    _require_utf8(key, value)
    return value


def _require_utf8(key: str, value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(value[error.start])
        raise RequestError(
            INVALID_PARAMS,
            f"`{key}` is not UTF-8 text: a lone surrogate `\\u{code:x}` at character {error.start}",
        ) from None


def _checked(request: Request) -> Any:
    from lablang.driver import check_file, check_source
    from lablang.source import Source

    params = request.params
    roots = request.roots()
    if "text" in params:
        text = params["text"]
        if not isinstance(text, str):
            raise RequestError(INVALID_PARAMS, "`text` must be a string")
        name = _string(params, "name", "<request>")
        return check_source(Source(text, name), roots)  # a lone surrogate is E0005, located
    if "path" in params:
        return check_file(request.path("path"), roots, within=request.served)
    raise RequestError(INVALID_PARAMS, "give `text` (the .lab source) or `path`")


def _payload(result: Any) -> dict[str, Any]:
    from lablang.diagnostics import Severity
    from lablang.diagnostics.render import to_json

    diagnostics = result.report.sorted()
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    return {
        "result": "ok" if errors == 0 else "not-ok",
        "errors": errors,
        "warnings": sum(d.severity is Severity.WARNING for d in diagnostics),
        "diagnostics": [to_json(d) for d in diagnostics],
    }


def _check(request: Request) -> dict[str, Any]:
    return _payload(_checked(request))


def _fix(request: Request) -> dict[str, Any]:
    from lablang.agent.fixes import apply_fixes
    from lablang.driver import check_source
    from lablang.source import Source

    params = request.params
    rounds = params.get("rounds", 3)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 10:
        raise RequestError(INVALID_PARAMS, "`rounds` must be a whole number from 1 to 10")
    result = _checked(request)
    source = result.source
    text, applied = source.text, 0
    for _ in range(rounds):
        own = [d for d in result.report if d.source is not None and d.source.name == source.name]
        text, count = apply_fixes(text, own)
        if count == 0:
            break
        applied += count
        result = check_source(Source(text, source.name), request.roots())
    return {"text": text, "applied": applied, **_payload(result)}


def _export(request: Request) -> dict[str, Any]:
    from lablang.export import EXPORTERS, export

    target = _string(request.params, "to", "json")
    if target not in EXPORTERS:
        raise RequestError(
            INVALID_PARAMS, f"unknown format `{target}`; one of: {', '.join(sorted(EXPORTERS))}"
        )
    result = _checked(request)
    if not result.ok:
        return {"text": None, **_payload(result)}
    text, report = export(result, target)
    from lablang.diagnostics.render import to_json

    return {"text": text, "diagnostics": [to_json(d) for d in report.sorted()]}


def _score(request: Request) -> dict[str, Any]:
    from lablang.scoring import score_files

    params = request.params
    truth = request.path("truth")
    roots = request.roots()
    if "text" in params:
        text = _string(params, "text")
        with tempfile.TemporaryDirectory(prefix="lablang-serve-") as folder:
            answer = Path(folder) / "answer.lab"
            answer.write_text(text, "utf-8")
            # the inline answer's temporary folder is served too (it holds only the answer)
            within = (*request.served, Path(folder))
            return score_files(answer, truth, roots=roots, within=within).to_json()
    prediction = request.path("prediction")
    return score_files(prediction, truth, roots=roots, within=request.served).to_json()


def _spec(request: Request) -> dict[str, Any]:
    from lablang.spec import SECTIONS, spec_text

    sections = request.params.get("sections", [])
    if not isinstance(sections, list) or not all(s in SECTIONS for s in sections):
        raise RequestError(INVALID_PARAMS, f"`sections` must be a list of: {', '.join(SECTIONS)}")
    return {"text": spec_text(sections)}


def _shutdown(request: Request) -> dict[str, Any]:
    return {"shutdown": True}


METHODS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "check": _check,
    "fix": _fix,
    "export": _export,
    "score": _score,
    "spec": _spec,
    "shutdown": _shutdown,
}


def request_lines(requests: Sequence[dict[str, Any]]) -> str:
    """Requests as the JSON lines `serve` reads (for clients and tests)."""
    return "".join(json.dumps(r) + "\n" for r in requests)
