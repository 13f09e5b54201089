"""Shared helpers for the protocol and rubric tests: text in, models and codes out."""

from __future__ import annotations

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.protocols.checks import check_protocol
from lablang.protocols.front import build_protocols, module_materials
from lablang.protocols.model import Protocol
from lablang.rubrics.front import build_rubrics
from lablang.rubrics.model import Rubric
from lablang.source import Source
from lablang.syntax import parse


def codes(text: str) -> list[str]:
    """Diagnostic codes of the full pipeline (`lablang check`) on `text`."""
    return [d.code for d in check_text(text).report]


def protocol(text: str) -> tuple[Protocol, Report]:
    """The first protocol of `text`, built and checked by this backend alone."""
    report = Report()
    source = Source(text, "test.lab")
    module = parse(source, report)
    assert not report.has_errors, [d.message for d in report]
    built = build_protocols(module, source, report)
    check_protocol(built[0], source, report, materials=module_materials(module))
    return built[0], report


def rubric(text: str) -> tuple[Rubric, Report]:
    report = Report()
    source = Source(text, "test.lab")
    module = parse(source, report)
    assert not report.has_errors, [d.message for d in report]
    return build_rubrics(module, source, report)[0], report


def messages(report: Report) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in report]


def drafted_task(old_text: str, new_text: str) -> Rubric:
    """The verified task drafted from two protocol texts, as a rubric with no diagnostics."""
    from lablang.modification import draft_verified_task

    old, _ = protocol(old_text)
    new, _ = protocol(new_text)
    found, report = rubric(draft_verified_task(old, new))
    assert [d.code for d in report] == []
    return found
