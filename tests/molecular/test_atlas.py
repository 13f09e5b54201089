"""The scg_lib_structs atlas: every page's file checks clean and derives the page's library.

`examples/atlas/<page>.lab` writes a method page's oligos and steps; the expected
libraries were extracted from the pages into `tests/data/atlas/` by
`scripts/extract_atlas.py`, so these tests do not need the pages.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
ATLAS = ROOT / "examples" / "atlas"
DATA = ROOT / "tests" / "data" / "atlas"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _script("atlas_table")
FILES = sorted(p.stem for p in ATLAS.glob("*.lab"))


@pytest.mark.parametrize("stem", FILES)
def test_atlas_file_checks_clean_and_derives_the_page_library(stem: str) -> None:
    """Every atlas file checks without a diagnostic, and each library not marked partial
    is derived and equals the library its page draws, on both strands."""
    row = TABLE.check_page(stem)
    assert row.diagnostics == ()
    assert row.libraries, f"{stem}.lab declares no library"
    for lib in row.libraries:
        assert lib.status in ("derived", "partial"), f"{lib.name}: {lib.status}: {lib.gap}"
        if lib.status == "partial":
            assert lib.gap.strip(), f"{lib.name} is partial without a reason"


@pytest.mark.parametrize("stem", FILES)
def test_atlas_file_names_its_page(stem: str) -> None:
    """Each atlas file has a page in the extracted data, and every library and workflow
    names that page with `source: doc("scg_lib_structs:<stem>", ...)`."""
    from lablang.diagnostics import Report
    from lablang.source import Source
    from lablang.syntax import parse

    assert (DATA / f"{stem}.json").is_file()
    path = ATLAS / f"{stem}.lab"
    module = parse(Source(path.read_text("utf-8"), str(path)), Report())
    decls = [d for d in module.decls if d.kind in ("library", "workflow")]
    assert decls
    for decl in decls:
        page, _ = TABLE._doc_section(decl)
        assert page == stem, f"{decl.kind} {decl.name} names page {page!r}"


def test_each_library_reproduces_a_different_drawn_library() -> None:
    """No two libraries of one atlas file claim the same drawn library of the page."""
    for stem in FILES:
        sections = [lib.section for lib in TABLE.check_page(stem).libraries]
        assert len(sections) == len(set(sections)), stem


def test_docs_atlas_table_is_current() -> None:
    """docs/atlas.md is what `python scripts/atlas_table.py --write` writes now."""
    assert (ROOT / "docs" / "atlas.md").read_text("utf-8") == TABLE.render(TABLE.rows())


def test_extracted_pages_are_what_the_extractor_writes(tmp_path: Path) -> None:
    """The test data equals a fresh extraction when the pages are beside the repo."""
    extractor = _script("extract_atlas")
    if not extractor.DEFAULT_PAGES.is_dir():
        pytest.skip("scg_lib_structs pages not beside the repo")
    assert extractor.main([str(extractor.DEFAULT_PAGES), "-o", str(tmp_path)]) == 0
    fresh = sorted(p.name for p in tmp_path.glob("*.json"))
    assert fresh == sorted(p.name for p in DATA.glob("*.json"))
    for name in fresh:
        assert json.loads((tmp_path / name).read_text()) == json.loads((DATA / name).read_text())
