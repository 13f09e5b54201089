"""`docs/limits.md` is generated from the registry in `lablang/limits.py` and kept current;
every limit names a registered code, and `LABLANG_LIMITS` raises a limit for one run."""

from __future__ import annotations

from pathlib import Path

from lablang.diagnostics.codes import CODES
from lablang.limits_doc import limit_rows, limits_table
from tests.hostile.bounded import run_bounded

ROOT = Path(__file__).resolve().parents[2]


def test_the_limits_document_is_current() -> None:
    """docs/limits.md equals `python -m lablang.limits_doc` (regenerate it after a change)."""
    assert (ROOT / "docs" / "limits.md").read_text("utf-8") == limits_table()


def test_every_limit_names_a_registered_code_and_a_purpose() -> None:
    """A limit's code is a registered diagnostic (or `-` for output caps and clamps)."""
    fields, backend = limit_rows()
    assert len(fields) > 20 and len(backend) > 10
    for row in (*fields, *backend):
        assert row.code == "-" or row.code in CODES, row
        assert row.doc, row


def test_the_environment_raises_a_limit_for_one_run(tmp_path: Path) -> None:
    """`LABLANG_LIMITS=max_number_exponent=500` accepts `1e400`, which the default refuses."""
    path = tmp_path / "x.lab"
    path.write_text("scene s { a: 1e400 }\n")
    refused = run_bounded(["check", str(path)])
    assert "E0020" in refused.output
    raised = run_bounded(["check", str(path)], env={"LABLANG_LIMITS": "max_number_exponent=500"})
    assert "E0020" not in raised.output, raised.output
