"""The language server: `lablang lsp` (diagnostics, hover, completion, definition,
outline, formatting, quick fixes) for editors, built only on library calls.

`analysis` checks a document and finds what is under the cursor, `features` answers
each request as plain data, `server` speaks LSP with pygls. Only `server` imports
pygls or lsprotocol.
"""
