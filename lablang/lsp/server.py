"""The lablang language server (pygls 2, stdio): LSP messages in, library calls out.

Every answer comes from `lablang.lsp.analysis`, `hover`, `complete`, `navigate` and
`incremental`, which call the same functions as the CLI (`lablang.driver.check_source`,
`lablang.fmt.format_source`). This module only converts between LSP types and those
plain results.

Diagnostics are published on open and save at once, and on change after a short
quiet period (`DEBOUNCE_SECONDS`), so a burst of keystrokes is checked once. After a
change they are published twice: first the fast result of `lablang.lsp.incremental`
(syntax of the declarations that changed, earlier results for the others), then the
full check. Full checks run one at a time on a worker thread, fast ones on another;
a result for a version the editor has since replaced is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from lablang.diagnostics import Diagnostic, Report, Severity
from lablang.fmt import format_source
from lablang.lsp.analysis import Analysis, LineIndex, analyze
from lablang.lsp.complete import complete
from lablang.lsp.formatting import range_edits
from lablang.lsp.hover import hover as describe_at
from lablang.lsp.incremental import ChunkCache, quick_diagnostics
from lablang.lsp.navigate import OutlineItem, outline
from lablang.lsp.navigate import definition as definition_at
from lablang.source import Source, Span
from lablang.syntax.reuse import ParseCache

__all__ = ["DEBOUNCE_SECONDS", "LablangServer", "serve"]

DEBOUNCE_SECONDS = 0.05
logger = logging.getLogger(__name__)

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}
_COMPLETION_KIND = {
    "keyword": types.CompletionItemKind.Keyword,
    "module": types.CompletionItemKind.Module,
    "declaration": types.CompletionItemKind.Reference,
    "unit": types.CompletionItemKind.Unit,
    "field": types.CompletionItemKind.Field,
    "variable": types.CompletionItemKind.Variable,
}
_SYMBOL_KIND = {
    "segment": types.SymbolKind.Constant,
    "oligo": types.SymbolKind.Constant,
    "state": types.SymbolKind.Struct,
    "transition": types.SymbolKind.Event,
    "workflow": types.SymbolKind.Module,
    "library": types.SymbolKind.Struct,
    "protocol": types.SymbolKind.Module,
    "scene": types.SymbolKind.Namespace,
    "task": types.SymbolKind.Module,
    "contract": types.SymbolKind.Interface,
    "rubric": types.SymbolKind.Object,
    "skill": types.SymbolKind.Function,
    "material": types.SymbolKind.Variable,
    "benchmark": types.SymbolKind.Package,
    "op": types.SymbolKind.Method,
    "step": types.SymbolKind.Method,
    "item": types.SymbolKind.EnumMember,
    "var": types.SymbolKind.Variable,
    "input": types.SymbolKind.Variable,
    "strand": types.SymbolKind.Field,
    "field": types.SymbolKind.Property,
    "binding": types.SymbolKind.Variable,
}


class _Answered:
    """What `_Protocol.structure_message` returns for a request it has already answered."""

    jsonrpc = "answered"


class _NoDeserializeTraceback(logging.Filter):
    """Drops pygls's multi-page cattrs traceback for a message whose params do not fit;
    `_Protocol.structure_message` logs the same failure as one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_NoDeserializeTraceback())


def _why_unreadable(error: BaseException) -> str:
    """One line: what in a message does not fit the protocol's types (cattrs' own words)."""
    from cattrs import ClassValidationError, transform_error

    cause = error.__cause__
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause))[:500]
    return f"{type(cause or error).__name__}: {cause or error}"[:500]


class _Protocol(LanguageServerProtocol):
    """pygls's protocol with two guarantees: every request gets a JSON-RPC reply (one whose
    params cannot be read gets `InvalidParams`, not silence), and no Python traceback
    crosses the wire (an internal error's `data` is dropped; it is in the server's log).
    A message that cannot be read is logged as one line, not as cattrs' traceback."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            method = data.get("method")
            why = _why_unreadable(error)
            logger.error("cannot read `%s`: %s", method, why)
            if "jsonrpc" in data and "method" in data and "id" not in data:
                return _Answered()  # a notification: nothing to answer, and it is logged
            if not ("jsonrpc" in data and "id" in data and "method" in data):
                raise
            self._send_response(
                data["id"],
                None,
                types.ResponseError(
                    code=error.code, message=f"invalid params for `{method}`: {why}"
                ),
            )
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        method, ident = getattr(message, "method", None), getattr(message, "id", None)
        if self._shutdown and method not in (None, "exit") and ident is not None:
            # pygls drops requests after `shutdown`; the protocol says to answer them
            self._send_response(
                ident,
                None,
                types.ResponseError(
                    code=types.ErrorCodes.InvalidRequest,
                    message=f"`{method}` after shutdown: the server accepts only `exit`",
                ),
            )
            return
        super().handle_message(message)

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: types.ResponseError | None = None
    ) -> None:
        if error is not None and error.data is not None:
            error = types.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)


class LablangServer(LanguageServer):
    """The server and its per-document state (last analysis, pending checks)."""

    def _start_io_async(self, stdin: Any = None, stdout: Any = None) -> None:
        # pygls's loop with bounded, recoverable framing (`lablang.lsp.framing`)
        import sys
        from threading import Event

        from pygls.io_ import StdoutWriter

        from lablang.lsp.framing import BoundedReader, run_bounded

        self._stop_event = Event()
        reader = BoundedReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_bounded(self._stop_event, reader, self.protocol, logger))
        except BrokenPipeError:
            logger.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def __init__(self, roots: Sequence[str | Path] = ()) -> None:
        from lablang import __version__

        super().__init__("lablang", __version__, protocol_cls=_Protocol)
        self.roots = tuple(str(r) for r in roots)
        self.analyses: dict[str, Analysis] = {}
        self.last_parsed: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lablang-check")
        self.quick = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lablang-quick")
        self.chunk_cache = ChunkCache()
        # trees of unchanged declarations, reused by every full check (all documents)
        self.parses = ParseCache()

    # ---------------------------------------------------------------- checking
    def schedule(self, uri: str, delay: float, quick: bool = False) -> None:
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.get_running_loop().create_task(self._check_later(uri, delay, quick))
        self.pending[uri] = task

    async def _check_later(self, uri: str, delay: float, quick: bool) -> None:
        if delay:
            await asyncio.sleep(delay)
        document = self.workspace.get_text_document(uri)
        version, text = document.version, document.source
        path = _path_of(uri)
        loop = asyncio.get_running_loop()
        previous = self.analyses.get(uri)
        if quick and previous is not None:
            found = await loop.run_in_executor(
                self.quick, quick_diagnostics, text, path, previous, self.chunk_cache
            )
            if self.workspace.get_text_document(uri).version != version:
                return
            self._publish(uri, version, found, LineIndex(text))
        analysis = await loop.run_in_executor(
            self.checker, analyze, text, path, self.roots, self.parses
        )
        if self.workspace.get_text_document(uri).version != version:
            return  # the editor has moved on; the newer version is being checked
        self.analyses[uri] = analysis
        if analysis.parsed:
            self.last_parsed[uri] = analysis
        self._publish(uri, version, analysis.diagnostics, analysis.lines)

    def _publish(
        self, uri: str, version: int | None, found: Sequence[Diagnostic], lines: LineIndex
    ) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[to_lsp(d, lines, uri) for d in found]
            )
        )

    # ---------------------------------------------------------------- what is served
    def serves(self, uri: str) -> bool:
        """Only open documents and files under the workspace folders (or `--path` roots)
        are answered for: a request naming any other `file://` URI reads nothing."""
        if self._open(uri):
            return True
        if urlparse(uri).scheme != "file":
            return False
        real = os.path.realpath(_path_of(uri))
        for root in self._roots():
            base = os.path.realpath(root)
            if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
                return os.path.isfile(real)
        return False

    def _open(self, uri: str) -> bool:
        documents = self.workspace.text_documents
        return uri in documents or unquote(uri) in documents

    def _roots(self) -> list[str]:
        """The folders whose files are served: the workspace's and the `--path` roots."""
        roots = [self.workspace.root_path, *self.roots]
        roots += [_path_of(folder.uri) for folder in self.workspace.folders.values()]
        return [root for root in roots if root]

    def text_of(self, uri: str) -> str | None:
        """The document's text: the editor's copy, else the file on disk read by the
        guarded opener (inside the served roots, a regular file, at most `max_file_bytes`),
        else None (a document that is not served, see `serves`, or not readable)."""
        if not self.serves(uri):
            return None
        documents = self.workspace.text_documents
        for key in (uri, unquote(uri)):
            if key in documents:
                return str(self.workspace.get_text_document(key).source)
        from lablang.guarded import Refused, read_guarded
        from lablang.limits import DEFAULT_LIMITS

        limit = DEFAULT_LIMITS.max_file_bytes
        try:
            data = read_guarded(
                _path_of(uri), self._roots(), max_bytes=limit, limit="max_file_bytes"
            )
            return data.decode("utf-8")
        except (Refused, UnicodeDecodeError):
            return None

    async def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document's current text, checked on the worker if stale."""
        text = self.text_of(uri)
        if text is None:
            return None
        known = self.analyses.get(uri)
        if known is not None and known.source.text == text:
            return known
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(
            self.checker, analyze, text, _path_of(uri), self.roots, self.parses
        )
        if self.text_of(uri) == text:
            self.analyses[uri] = analysis
            if analysis.parsed:
                self.last_parsed[uri] = analysis
        return analysis


def _path_of(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def _texts_formatted(ls: LablangServer, uri: str) -> tuple[str, str] | None:
    """An open document's text and its canonical form; None when the document is not
    open or does not parse (nothing is formatted then)."""
    text = ls.text_of(uri)
    if text is None:
        return None
    formatted = format_source(Source(text, _path_of(uri)), Report())
    return None if formatted is None else (text, formatted)


def _uri_of(path: str) -> str:
    file = Path(path)
    return file.resolve().as_uri() if file.is_absolute() or file.exists() else path


def to_lsp(diagnostic: Diagnostic, lines: LineIndex, uri: str) -> types.Diagnostic:
    """A lablang diagnostic as an LSP one; a machine-applicable fix rides in `data`."""
    message = diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else "")
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=_range(lines, label.span)),
            message=label.message,
        )
        for label in diagnostic.labels
    ]
    data: dict[str, Any] | None = None
    if diagnostic.fix is not None:
        data = {
            "fix": diagnostic.fix.description,
            "edits": [
                {"range": _range_json(lines, edit.span), "newText": edit.replacement}
                for edit in diagnostic.fix.edits
            ],
        }
    return types.Diagnostic(
        range=_range(lines, diagnostic.span),
        message=message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        source="lablang",
        related_information=related or None,
        data=data,
    )


def _position(lines: LineIndex, offset: int) -> types.Position:
    line, character = lines.position(offset)
    return types.Position(line=line, character=character)


def _range(lines: LineIndex, span: Any) -> types.Range:
    return types.Range(start=_position(lines, span.start), end=_position(lines, span.end))


def _range_json(lines: LineIndex, span: Any) -> dict[str, Any]:
    start, end = lines.position(span.start), lines.position(span.end)
    return {
        "start": {"line": start[0], "character": start[1]},
        "end": {"line": end[0], "character": end[1]},
    }


WATCHER_ID = "lablang-watch-lab-files"


def watch_lab_files(ls: LablangServer) -> None:
    """Ask the client to report changes to `.lab` files (dynamic registration), so an
    edited imported module re-checks its importers in every client that can watch,
    not only in those configured to send `didChangeWatchedFiles` on their own."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*.lab")]
    )
    registration = types.Registration(
        id=WATCHER_ID,
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    ls.client_register_capability(types.RegistrationParams(registrations=[registration]))


def _offset(server: LablangServer, uri: str, position: types.Position) -> tuple[int, str]:
    text = server.text_of(uri) or ""
    return LineIndex(text).offset(position.line, position.character), text


def build_server(roots: Sequence[str | Path] = ()) -> LablangServer:
    """A server with every feature registered (not yet connected to any stream)."""
    server = LablangServer(roots)

    @server.feature(types.INITIALIZED)
    def initialized(ls: LablangServer, params: types.InitializedParams) -> None:
        ls.quick.submit(ls.chunk_cache.warm)
        watch_lab_files(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LablangServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LablangServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS, quick=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LablangServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LablangServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.analyses.pop(uri, None)
        ls.last_parsed.pop(uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: LablangServer, params: types.DidChangeWatchedFilesParams) -> None:
        # an imported module changed on disk: every open document may see it
        for uri in list(ls.workspace.text_documents):
            ls.schedule(uri, DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: LablangServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        analysis = await ls.analysis(uri)
        if analysis is None or not analysis.usable:
            return None
        offset = analysis.lines.offset(params.position.line, params.position.character)
        text = describe_at(analysis, offset)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[".", "{"]),
    )
    async def completion(
        ls: LablangServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        uri = params.text_document.uri
        text = ls.text_of(uri)
        if text is None:
            return None
        offset = LineIndex(text).offset(params.position.line, params.position.character)
        # the current text's analysis (a partial tree where it does not parse); the last
        # version that parsed only when nothing of the current one does
        analysis = await ls.analysis(uri)
        if analysis is None or not analysis.usable:
            analysis = ls.last_parsed.get(uri) or analysis
        if analysis is None:
            return None
        items = complete(text, offset, analysis, ls.roots)
        return types.CompletionList(
            is_incomplete=False,
            items=[
                types.CompletionItem(
                    label=item.label,
                    kind=_COMPLETION_KIND.get(item.kind, types.CompletionItemKind.Text),
                    detail=item.detail or None,
                    sort_text=f"{item.sort}{item.label}",
                    insert_text=item.insert,
                )
                for item in items
            ],
        )

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(
        ls: LablangServer, params: types.DefinitionParams
    ) -> types.Location | None:
        uri = params.text_document.uri
        analysis = await ls.analysis(uri)
        if analysis is None:
            return None
        offset = analysis.lines.offset(params.position.line, params.position.character)
        location = definition_at(analysis, offset)
        if location is None:
            return None
        (sl, sc), (el, ec) = location.range()
        target = uri if location.path == analysis.source.name else _uri_of(location.path)
        return types.Location(
            uri=target,
            range=types.Range(
                start=types.Position(line=sl, character=sc),
                end=types.Position(line=el, character=ec),
            ),
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: LablangServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        uri = params.text_document.uri
        current = await ls.analysis(uri)
        analysis = current if current is not None and current.usable else ls.last_parsed.get(uri)
        if analysis is None:
            return []
        lines = analysis.lines

        def convert(item: OutlineItem) -> types.DocumentSymbol:
            return types.DocumentSymbol(
                name=item.name,
                detail=item.detail,
                kind=_SYMBOL_KIND.get(item.kind, types.SymbolKind.Object),
                range=_range(lines, item.span),
                selection_range=_range(lines, item.selection),
                children=[convert(child) for child in item.children],
            )

        return [convert(item) for item in outline(analysis.module)]

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(
        ls: LablangServer, params: types.DocumentFormattingParams
    ) -> list[types.TextEdit] | None:
        texts = _texts_formatted(ls, params.text_document.uri)
        if texts is None:
            return None
        text, formatted = texts
        if formatted == text:
            return []
        lines = LineIndex(text)
        return [types.TextEdit(range=_range(lines, _whole(text)), new_text=formatted)]

    @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
    def range_formatting(
        ls: LablangServer, params: types.DocumentRangeFormattingParams
    ) -> list[types.TextEdit] | None:
        texts = _texts_formatted(ls, params.text_document.uri)
        if texts is None:
            return None
        text, formatted = texts
        first, last = params.range.start.line, params.range.end.line
        if params.range.end.character == 0 and last > first:
            last -= 1  # a selection that ends at a line's start does not include that line
        return [
            types.TextEdit(
                range=types.Range(
                    start=types.Position(line=start, character=0),
                    end=types.Position(line=end, character=0),
                ),
                new_text=new_text,
            )
            for start, end, new_text in range_edits(text, formatted, first, last)
        ]

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: LablangServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        actions = []
        for diagnostic in params.context.diagnostics:
            data = diagnostic.data
            if not isinstance(data, dict) or "edits" not in data:
                continue
            edits = [
                types.TextEdit(
                    range=types.Range(
                        start=types.Position(**edit["range"]["start"]),
                        end=types.Position(**edit["range"]["end"]),
                    ),
                    new_text=edit["newText"],
                )
                for edit in data["edits"]
            ]
            actions.append(
                types.CodeAction(
                    title=str(data.get("fix", "apply the fix")),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                    is_preferred=True,
                )
            )
        return actions

    return server


def _whole(text: str) -> Span:
    return Span(0, len(text))


def serve(roots: Sequence[str | Path] = ()) -> None:
    """Run the language server on stdin/stdout until the client says exit."""
    build_server(roots).start_io()
