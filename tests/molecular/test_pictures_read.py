"""Pictures read as the workflow and library are: they scale to the window, strands have a
colour legend, each step is named by the operation it ran, and segments by their names."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.draw import LEGEND, html_page, library_svg, workflow_svg
from lablang.molecular.front import build_model
from lablang.scoring.report import _histogram

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _model():  # type: ignore[no-untyped-def]
    return build_model(check_file(ROOT / "examples" / "tenx_3p_v3.lab").program, Report()).model


def _texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_html_page_scales_its_pictures_to_the_window() -> None:
    """The page sets a viewport and `svg{max-width:100%;height:auto}`; every SVG has a viewBox."""
    page = html_page(_model())
    assert 'name="viewport"' in page and "svg{max-width:100%;height:auto}" in page
    svgs = re.findall(r"<svg [^>]*>", page)
    assert svgs and all("viewBox=" in tag for tag in svgs)


def test_a_workflow_picture_has_a_legend_of_its_strand_colours() -> None:
    """Every colour used by the strand strips of a workflow is explained in its legend."""
    for graph in _model().graphs:
        svg = workflow_svg(graph)
        used = set(re.findall(r'height="5" fill="(#[0-9a-f]{6})"', svg))
        swatches = set(re.findall(r'width="14" height="12" fill="(#[0-9a-f]{6})"', svg))
        assert used and used <= swatches, (graph.name, used - swatches)
        texts = _texts(svg)
        assert any(text in texts for text in LEGEND.values())


def test_a_derived_step_is_named_by_the_operation_it_ran() -> None:
    """Template switching is drawn as `template switch`, not LibStructBench's `extension`."""
    derived = next(g for g in _model().graphs if g.derived)
    texts = " ".join(_texts(workflow_svg(derived)))
    assert "template switch" in texts and "extension" not in texts


def test_library_segments_are_named_by_their_own_names() -> None:
    """The 1-nt A is `A-tail` (not `sequence`) and `{R2}` is `R2` (not the oligo it is made of)."""
    model = _model()
    library = next(lib for lib in model.libraries if lib.name == "gex_library")
    texts = _texts(library_svg(library, {o.name: o for o in model.oligos}))
    assert "A-tail" in texts and "R2" in texts
    assert "sequence" not in texts and "sample index seq" not in texts


def test_a_histogram_has_a_count_axis() -> None:
    """A score histogram labels its y-axis (`attempts`) with 0, half and the highest count."""
    svg = _histogram([0.1, 0.15, 0.5, 0.9, 0.95, 0.97])
    texts = _texts(svg)
    assert "attempts" in texts
    assert {"0", "1", "3"} <= set(texts)
