"""The language server: `lablang lsp` (diagnostics, hover, completion, definition,
outline, formatting, quick fixes) for editors, built only on library calls.

`analysis` checks a document and finds what is under the cursor; `hover`, `complete`
and `navigate` (definition, outline) answer requests as plain data; `incremental`
gives fast diagnostics while typing; `server` speaks LSP with pygls and `client` is a
small stdio client. Only `server` imports pygls or lsprotocol.
"""
