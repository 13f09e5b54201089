"""The hooks `lablang export --to libstruct-t1|t2|t3|seqspec` calls (see `lablang.export`);
`export_seqspec_0_3_text` writes the seqspec 0.3.1 (PyPI) format, for a `seqspec-0.3` target.

Each takes a `CheckResult` and returns the text and a report.

>>> from lablang.driver import check_text
>>> text, report = export_t1_text(check_text("library lib { seq: 5'-ACGT [UMI:8]-3' }"))
>>> '"library_sequence": "ACGT[UMI:8]"' in text
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lablang.diagnostics import Report
from lablang.molecular.libstruct import dumps, export_libstruct
from lablang.molecular.seqspec import export_seqspec, seqspec_yaml


def _model(result: Any, report: Report) -> Any:
    from lablang.molecular.front import build_model

    return build_model(result.program, report).model


def export_t1_text(result: Any) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    return dumps(export_libstruct(model, "t1")), report


def export_t2_text(result: Any) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    return dumps(export_libstruct(model, "t2")), report


def export_t3_text(result: Any) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    return dumps(export_libstruct(model, "t3")), report


def export_seqspec_text(result: Any) -> tuple[str | None, Report]:
    """seqspec 0.4.0 YAML; onlist files beside the `.lab` file give their md5."""
    return _seqspec_text(result, "0.4.0")


def export_seqspec_0_3_text(result: Any) -> tuple[str | None, Report]:
    """seqspec 0.3.1 YAML (tagged, as the PyPI release's `seqspec check` loads it).

    >>> from lablang.driver import check_text
    >>> text, _ = export_seqspec_0_3_text(check_text("library lib { seq: 5'-ACGT [UMI:8]-3' }"))
    >>> text.splitlines()[:2]
    ['!Assay', 'seqspec_version: 0.3.1']
    """
    return _seqspec_text(result, "0.3.1")


def _seqspec_text(result: Any, version: str) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    source = Path(result.source.name)
    onlist_dir = source.parent if source.is_file() else None
    if onlist_dir is not None and not _inside_roots(onlist_dir, result.roots):
        # the `.lab` comes from an agent: its folder is read only when the user named it
        if any(segment.onlist for segment in model.segments):
            report.add(
                "W0020",
                "onlist files beside the program are not read: its folder is not under a "
                "`--path` root",
                result.source,
                help=f"pass `--path {onlist_dir}` to read the onlists' size and md5 there",
            )
        onlist_dir = None
    return seqspec_yaml(export_seqspec(model, version, onlist_dir)), report


def _inside_roots(folder: Path, roots: Sequence[str]) -> bool:
    real = folder.resolve()
    return any(real.is_relative_to(Path(root).resolve()) for root in roots)
