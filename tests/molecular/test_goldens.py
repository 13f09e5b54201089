"""Golden cases for the molecular codes, in the core's golden format.

`tests/molecular/goldens/CODE.lab` and `CODE.out` follow `tests/core/test_goldens.py`;
they live here because this area owns only `tests/molecular/` (the lead may move them
to `tests/goldens/`). Run with `--update-goldens` to rewrite the expected outputs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lablang.diagnostics.codes import CODES
from lablang.diagnostics.render import render_texts
from lablang.driver import check_file

GOLDENS = Path(__file__).resolve().parent / "goldens"
ROOT = GOLDENS.parents[2]
CASES = sorted(GOLDENS.glob("*.lab"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_molecular_golden_case_renders_its_expected_diagnostics(
    path: Path, update_goldens: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each molecular golden case produces its code, rendered exactly as expected."""
    monkeypatch.chdir(ROOT)
    result = check_file(os.path.relpath(path, ROOT))
    output = render_texts(result.report.sorted()) + "\n"
    expected = path.with_suffix(".out")
    if update_goldens or not expected.exists():
        expected.write_text(output, "utf-8")
    assert f"[{path.stem}]" in output
    assert output == expected.read_text("utf-8")


def test_every_molecular_code_has_a_golden_case() -> None:
    """Every registered E04xx/W04xx code that a file can trigger has a golden case here."""
    codes = {c for c, e in CODES.items() if e.area == "molecular" and e.bad}
    assert codes == {p.stem for p in CASES}
