"""`lablang check` without click: the command's whole behaviour as one function, which
the click command and the option-less fast path (`lablang.cli.run`) both call."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from lablang.cli.terminal import auto_color, diagnostics_text
from lablang.diagnostics import Severity


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def check_paths(
    paths: Sequence[str],
    as_json: bool = False,
    warnings_as_errors: bool = False,
    roots: Sequence[str] = (),
    color: bool | None = None,
) -> int | None:
    """Check the `.lab` files PATHS name; print the report; return the exit status, or
    None (printing nothing) when PATHS name no `.lab` file, a usage error for the caller."""
    from lablang.driver import check_file, lab_files

    files = lab_files(paths)
    if not files:
        return None
    results = [check_file(file, roots) for file in files]
    diagnostics = [d for result in results for d in result.report.sorted()]
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    failed = errors > 0 or (warnings_as_errors and warnings > 0)
    if as_json:
        import json

        from lablang.diagnostics.render import to_json
        from lablang.molecular.interchange import provenance

        payload: dict[str, Any] = {
            "result": "not-ok" if failed else "ok",
            "files": list(files),
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [to_json(d) for d in diagnostics],
        }
        molecular = {file: provenance(r) for file, r in zip(files, results, strict=True)}
        if any(v is not None for v in molecular.values()):
            # per state and library: derived, declared, unknown or partial, and why
            payload["molecular"] = {f: v for f, v in molecular.items() if v is not None}
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        # an ok run without warnings renders nothing (nor loads the renderer)
        text = (
            diagnostics_text(diagnostics, auto_color() if color is None else color)
            if diagnostics
            else ""
        )
        summary = (
            f"{_plural(len(files), 'file')} checked: {_plural(errors, 'error')}, "
            f"{_plural(warnings, 'warning')}"
        )
        if warnings_as_errors and warnings:
            summary += " (warnings count as errors)"
        sys.stderr.write((text + "\n\n" if text else "") + summary + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    return 1 if failed else 0
