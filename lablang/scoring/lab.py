"""`.lab` answers for the scorer: check the program, export it as LibStructBench documents.

This module is the only place where scoring touches the molecular backend. Backends are
siblings that never import each other at import time (docs/architecture.md), so the molecular
exporter is imported inside `lab_documents`, when a `.lab` file is actually scored;
`import lablang.scoring` loads none of it.

>>> from lablang.diagnostics import Report
>>> report = Report()
>>> documents = lab_documents("examples/tenx_3p_v3.lab", report)
>>> sorted(documents), documents["t1"]["libraries"][0]["library_id"], len(report)
(['t1', 't2', 't3'], 'gex_library', 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lablang.diagnostics import Report
from lablang.source import Source

TASKS = ("t1", "t2", "t3")


def lab_documents(
    path: str | Path, report: Report, roots: Sequence[str | Path] = ()
) -> dict[str, Any]:
    """A `.lab` answer as T1, T2 and T3 documents, keyed by task.

    The file is checked as `lablang check` checks it (`roots` are extra module roots);
    its diagnostics go to `report`. A program with errors is still exported as far as
    the molecular model can be built from it: what the errors leave out is simply
    absent from the documents and scores 0 there, and E0508 says so. A file that cannot
    be read or parsed at all gives no documents (every task it should answer scores 0).
    """
    from lablang.driver import check_file

    path = Path(path)
    checked = check_file(path, roots)
    report.extend(checked.report)
    errors = len(checked.report.errors)
    if errors:
        codes = sorted({d.code for d in checked.report.errors})
        report.add(
            "E0508",
            f"`{path.name}` has {errors} error{'s' if errors > 1 else ''}; it is scored as far "
            "as it can be exported, and what the errors leave out scores 0",
            Source("", str(path)),
            notes=(f"error codes: {', '.join(codes)}",),
            help=f"run `lablang check {path}` and fix the errors",
        )
    if not checked.program.root.module.decls:
        return {}  # unreadable, unparsable or empty: there is no program to export
    # The sibling molecular backend, imported lazily: the one coupling between the two.
    from lablang.molecular import build_model, export_libstruct

    try:
        # its diagnostics are already in `checked.report` (check ran the molecular
        # checks) or are consequences of the core errors reported above
        model = build_model(checked.program, Report()).model
        return {task: export_libstruct(model, task) for task in TASKS}
    except Exception as error:  # a lablang bug, never the answer's fault; the batch goes on
        report.add(
            "E0000",
            f"internal error while exporting `{path.name}`: {type(error).__name__}: {error}",
            Source("", str(path)),
            help="this is a bug in lablang, not in your file; please report it with the file",
        )
        return {}


def adopt_protocol_id(documents: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """Documents exported from `.lab` take the other side's `protocol_id`.

    A `.lab` program's id is its module name, a lablang identifier that cannot spell
    every benchmark id (`10x_chromium_3p_v3` starts with a digit), and a `.lab` answer
    scored against a truth answers that truth's protocol; the grader's protocol check
    applies to JSON documents only.

    >>> adopt_protocol_id({"t2": {"protocol_id": "tenx", "oligos": []}},
    ...                   {"t2": {"protocol_id": "10x_v3"}})["t2"]["protocol_id"]
    '10x_v3'
    """
    protocol = next(
        (
            d["protocol_id"]
            for d in (other.get(t) for t in TASKS)
            if isinstance(d, dict) and isinstance(d.get("protocol_id"), str)
        ),
        None,
    )
    if protocol is None:
        return dict(documents)
    return {
        task: {**document, "protocol_id": protocol} if isinstance(document, dict) else document
        for task, document in documents.items()
    }


__all__ = ["adopt_protocol_id", "lab_documents"]
