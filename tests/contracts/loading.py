"""Compiling test contracts from text or files."""

from __future__ import annotations

from pathlib import Path

from lablang.contracts.front import compile_contracts
from lablang.contracts.model import Contract
from lablang.diagnostics import Report
from lablang.source import Source
from lablang.syntax import parse

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
STDLIB = ROOT / "stdlib" / "contracts"


def compile_text(
    text: str, name: str = "<test>", params: dict[str, int] | None = None
) -> tuple[list[Contract], Report]:
    source = Source(text, name)
    report = Report()
    module = parse(source, report)
    if report.has_errors:
        return [], report
    return compile_contracts(module, source, report, params), report


def load(path: Path, params: dict[str, int] | None = None) -> Contract:
    rel = path.relative_to(ROOT).as_posix()
    contracts, report = compile_text(path.read_text("utf-8"), rel, params)
    assert not report.has_errors, [d.message for d in report]
    assert len(contracts) == 1
    return contracts[0]
