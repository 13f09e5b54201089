"""`lablang spec`: short enough for a prompt, and every example in it is valid."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.source import Source
from lablang.spec import spec_examples, spec_text
from lablang.syntax import parse


def test_spec_is_under_2500_words() -> None:
    """The reference fits in an LLM prompt budget of 2,500 words."""
    assert len(spec_text().split()) < 2500


@pytest.mark.parametrize("example", spec_examples(), ids=lambda e: e.split("\n")[0][:30])
def test_every_spec_example_parses(example: str) -> None:
    """Each example block in the reference is valid lablang syntax."""
    report = Report()
    parse(Source(example, "spec.lab"), report)
    assert not report.has_errors, [d.message for d in report]


def test_spec_examples_that_stand_alone_check_clean() -> None:
    """Examples that do not import the standard library pass `check` as well."""
    from lablang.driver import check_text

    standalone = [e for e in spec_examples() if "use " not in e]
    assert len(standalone) >= 6
    for example in standalone:
        result = check_text(example, "spec.lab")
        assert result.ok, (example, [d.message for d in result.report])


def test_spec_command_prints_the_reference() -> None:
    """`lablang spec` prints the reference."""
    result = CliRunner().invoke(main, ["spec"])
    assert result.exit_code == 0
    assert result.output.startswith("# lablang language reference")
