"""The hooks `lablang export --to libstruct-t1|t2|t3|seqspec|seqspec-0.4` calls (see
`lablang.export_targets`): `seqspec` (and `seqspec-0.3`) is the 0.3.1 format that the
seqspec release on PyPI loads, `seqspec-0.4` the 0.4.0 format of seqspec's repository.

Each takes a `CheckResult` and returns the text and a report.

>>> from lablang.driver import check_text
>>> text, report = export_t1_text(check_text("library lib { seq: 5'-ACGT [UMI:8]-3' }"))
>>> '"library_sequence": "ACGT[UMI:8]"' in text
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lablang.diagnostics import NO_SPAN, Report
from lablang.molecular.libstruct import dumps, export_libstruct
from lablang.molecular.seqspec import SPEC_MODALITY
from lablang.molecular.seqspec_export import (
    export_seqspec,
    library_modalities,
    missing_onlists,
    seqspec_yaml,
)
from lablang.molecular.sequence import render
from lablang.source import Span


def _model(result: Any, report: Report) -> Any:
    from lablang.molecular.front import build_model

    return build_model(result.program, report).model


def _refuse_circles(result: Any, model: Any, target: str, states: bool = False) -> Report | None:
    """E0052 when the export would hold a circular molecule its format cannot say: a
    library's sequence in seqspec or Task 1 (a read layout is linear), a state in Task 3
    (its architectures are linear); None when there is none."""
    circles = [lib.name for lib in model.libraries if lib.circular]
    if states:
        circles += [s.name for g in model.graphs for s in g.states if s.circular]
    if not circles:
        return None
    report = Report()
    names = ", ".join(f"`{n}`" for n in circles)
    found = re.search(rf"\b{re.escape(circles[0])}\b", result.source.text)
    at = found.start() if found else -1
    report.add(
        "E0052",
        f"{names} {'is' if len(circles) == 1 else 'are'} circular, and `--to {target}` "
        "has no way to say so: the export would describe a linear molecule",
        result.source,
        Span(at, at + len(circles[0])) if at >= 0 else NO_SPAN,
        label="a circular molecule",
        help="export a linear product (`digest` the circle open, or `pcr` across it), or use "
        "`--to json`, which marks each circular state and library",
    )
    return report


def export_t1_text(result: Any, protocol_id: str | None = None) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    refused = _refuse_circles(result, model, "libstruct-t1")
    if refused is not None:
        return None, refused
    return dumps(export_libstruct(model, "t1", protocol_id)), report


def export_t2_text(result: Any, protocol_id: str | None = None) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    return dumps(export_libstruct(model, "t2", protocol_id)), report


def export_t3_text(result: Any, protocol_id: str | None = None) -> tuple[str | None, Report]:
    report = Report()
    model = _model(result, report)
    refused = _refuse_circles(result, model, "libstruct-t3", states=True)
    if refused is not None:
        return None, refused
    return dumps(export_libstruct(model, "t3", protocol_id)), report


def export_seqspec_text(result: Any) -> tuple[str | None, Report]:
    """seqspec 0.4.0 YAML (`--to seqspec-0.4`); onlist files beside the `.lab` give their md5."""
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
    from lablang.molecular.libstruct import _libraries

    report = Report()
    model = _model(result, report)
    refused = _refuse_circles(result, model, "seqspec")
    if refused is not None:
        return None, refused
    kept: dict[str, str] = {}
    for library, modality in library_modalities(_libraries(model)):
        spec_modality = modality or SPEC_MODALITY.get(library.modality, "rna")
        if modality is not None:
            kept[spec_modality] = library.name
            continue
        found = re.search(rf"\blibrary {re.escape(library.name)}\b", result.source.text)
        at = found.start() if found else -1
        report.add(
            "W0051",
            f"library `{library.name}` is left out of the seqspec export: its modality "
            f"`{spec_modality}` is library `{kept[spec_modality]}`'s, and a spec holds one "
            "library per modality",
            result.source,
            Span(at, at + len("library ") + len(library.name)) if at >= 0 else NO_SPAN,
            label="not in the spec",
            help=f"export `{library.name}` from a file that declares it alone",
        )
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
        return seqspec_yaml(export_seqspec(model, version, None)), report
    for name in missing_onlists(model, onlist_dir):
        at = result.source.text.find(f'"{name}"')  # the `onlist: "NAME"` of this file, if here
        report.add(
            "W0050",
            f"onlist `{name}` has no file beside `{result.source.name}`: the spec gives no "
            "md5 or size for it (a published onlist is named by its URL), and `seqspec "
            "check` reports the md5 missing",
            result.source,
            Span(at, at + len(name) + 2) if at >= 0 else NO_SPAN,
            label="no file of this name",
            help=f"put `{name}.txt` (or `.txt.gz`) beside the .lab file and export again",
        )
    return seqspec_yaml(export_seqspec(model, version, onlist_dir)), report


def provenance(result: Any) -> dict[str, Any] | None:
    """What the molecular interpreter verified in a checked program: for each state of
    each workflow graph and each library, whether it was derived, only declared, unknown
    (it depends on a step that failed) or marked partial, with the reason. None when the
    program has no molecular declarations. `lablang check --json` and
    `lablang export --to json` include it as `molecular`.

    >>> from lablang.driver import check_text
    >>> provenance(check_text("library lib { seq: 5'-ACGT [UMI:8]-3' }"))["libraries"]
    [{'name': 'lib', 'status': 'declared', 'reason': '', 'source': None, 'circular': False}]
    """
    kinds = {"segment", "oligo", "state", "transition", "workflow", "library"}
    if not any(d.kind in kinds for d in result.program.root.module.decls):
        return None
    model = _model(result, Report())
    return {
        "graphs": [
            {
                "name": graph.name,
                "derived": graph.derived,
                "unknown_steps": list(graph.unknown),
                "states": [
                    {
                        "name": s.name,
                        "status": s.status,
                        "reason": s.status_reason,
                        # each strand 5'->3' as derived or declared; none when unknown
                        "strands": [
                            {"name": st.name, "moltype": st.moltype.value, "seq": render(st.seq)}
                            for st in (s.strands if s.status != "unknown" else ())
                        ],
                        # a closed circle: each strand goes on from its last base to its first
                        "circular": s.circular,
                    }
                    for s in graph.states
                ],
            }
            for graph in model.graphs
        ],
        "libraries": [
            {
                "name": lib.name,
                "status": lib.status,
                "reason": lib.status_reason,
                "source": lib.source,
                "circular": lib.circular,
            }
            for lib in model.libraries
        ],
    }


def _inside_roots(folder: Path, roots: Sequence[str]) -> bool:
    real = folder.resolve()
    return any(real.is_relative_to(Path(root).resolve()) for root in roots)
