"""docs/architecture.md stays true: its layer table is the one the layering test
enforces, its Python example runs, and the README points at it."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
from pathlib import Path

from tests.core.test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text("utf-8")


def test_the_layer_table_is_the_layering_test_s() -> None:
    """The table between the `layers` markers lists LAYERS of tests/core/test_layers.py,
    bottom first, unit for unit."""
    table = PAGE.split("<!-- layers -->", 1)[1].split("<!-- end layers -->", 1)[0]
    rows = [line for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(row.split("|")[1]) for row in rows] == list(range(len(rows)))
    documented = tuple(tuple(re.findall(r"`([\w.]+)`", row.split("|")[2])) for row in rows)
    assert documented == LAYERS


def test_the_python_example_checks_the_10x_example_stage_by_stage() -> None:
    """The page's Python block parses, resolves and checks examples/tenx_3p_v3.lab with no
    error and prints the kinds it declares."""
    (body,) = re.findall(r"^```python\n(.*?)^```", PAGE, re.S | re.M)
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(body, "docs/architecture.md", "exec"), {})  # our own docs
    finally:
        os.chdir(cwd)
    kinds = ast.literal_eval(out.getvalue())
    assert {"library", "oligo", "workflow"} <= set(kinds)


def test_the_readme_points_at_the_architecture_page_and_nothing_outside_the_repo() -> None:
    """README.md links docs/architecture.md and names no DESIGN.md, which is not in the
    repository; no docs page does either."""
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "docs/architecture.md" in readme
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "DESIGN.md" not in path.read_text("utf-8"), path.name
