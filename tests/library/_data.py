"""Shared fixtures: the reference data and the checked examples (each checked once)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_file

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent.parent / "shared" / "data"
if not SHARED.is_dir():  # a clean clone of main has ../shared beside it
    SHARED = ROOT.parent / "shared" / "data"
EXAMPLES = ROOT / "examples"

# example file stem -> (reference file stem, reference library ids in the order the
# example declares its libraries)
PROTOCOLS = {
    "tenx_3p_v3": ("10x_chromium_3p_v3", ("gex",)),
    "tenx_scatac": ("10x_chromium_scatac", ("atac",)),
    "drop_seq": ("drop_seq", ("rna",)),
    "smart_seq2": ("smart_seq2", ("smartseq2_rna",)),
    "smart_seq3": ("smart_seq2", ("smartseq3_5prime", "smartseq2_rna")),
    "sci_rna_seq": ("sci_rna_seq", ("sci_rna_seq",)),
    "split_seq": ("split_seq", ("split_seq",)),
}

needs_data = pytest.mark.skipif(not SHARED.is_dir(), reason="reference data not beside the repo")


def reference(protocol: str) -> dict[str, Any]:
    stem, _ = PROTOCOLS[protocol]
    return json.loads((SHARED / "libstructs" / f"{stem}.json").read_text())


def reference_libraries(protocol: str) -> list[dict[str, Any]]:
    """The reference libraries an example reproduces, in the order it declares them."""
    _, library_ids = PROTOCOLS[protocol]
    libraries = {lib["library_id"]: lib for lib in reference(protocol)["final_libraries"]}
    return [libraries[i] for i in library_ids]


_CHECKED: dict[Path, Any] = {}


def checked(path: Path) -> Any:
    """The check result of a file, computed once per session."""
    if path not in _CHECKED:
        _CHECKED[path] = check_file(path)
    return _CHECKED[path]


def model_of(path: Path) -> Any:
    from lablang.molecular.front import build_model

    return build_model(checked(path).program, Report()).model
