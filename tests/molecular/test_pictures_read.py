"""Pictures read as the workflow and library are: they scale to the window, strands have a
colour legend, each step is named by the operation it ran, and segments by their names."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.draw import COLOURS, LEGEND, html_page, library_svg, workflow_svg
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


def _atlas_model():  # type: ignore[no-untyped-def]
    path = ROOT / "examples" / "atlas" / "SPLiT-seq.lab"
    return build_model(check_file(path).program, Report()).model


def _placeholder_boxes(svg: str) -> list[tuple[str, str]]:
    """(fill, text) of each top-strand placeholder box, left to right: a box and the text
    centred in it (a placeholder's text is middle-anchored, a sequence's is not)."""
    root = ET.fromstring(svg)
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("height") == "22"]
    texts = [t for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "middle"]
    top = min(float(r.get("y", 0)) for r in rects)
    out = []
    for rect in (r for r in rects if float(r.get("y", 0)) == top):
        left, width = float(rect.get("x", 0)), float(rect.get("width", 0))
        inside = [
            "".join(t.itertext())
            for t in texts
            if abs(float(t.get("x", 0)) - (left + width / 2)) < 0.2
            and float(t.get("y", 0)) == top + 15
        ]
        if inside:
            out.append((rect.get("fill", ""), inside[0]))
        elif rect.get("fill") not in ("#9ecae1", "#fee391", "#fdd0a2"):  # not a sequence
            out.append((rect.get("fill", ""), ""))
    return out


def test_every_barcode_role_is_drawn_as_a_barcode_and_no_box_is_blank() -> None:
    """SPLiT-seq's three rounds (`RT_BARCODE`, `LIGATION_BARCODE`, `LIGATION`) are all drawn
    in the barcode colour, each box saying what it is (`BC 8` when the role does not fit)."""
    model = _atlas_model()
    library = model.libraries[0]
    boxes = _placeholder_boxes(library_svg(library, {o.name: o for o in model.oligos}))
    barcodes = [text for fill, text in boxes if fill == COLOURS["barcode"]]
    assert barcodes == ["RT BC 8", "BC 8", "BC 8"], boxes
    assert all(text for _, text in boxes), boxes


def test_an_oligos_name_stands_once_over_its_linkers_and_barcode() -> None:
    """The round-2 oligo's linker, barcode and linker carry one name, `splitseq round2
    barcode (rc)`, drawn once over all three (not once over each linker)."""
    model = _atlas_model()
    library = model.libraries[0]
    svg = library_svg(library, {o.name: o for o in model.oligos})
    texts = _texts(svg)
    assert texts.count("splitseq round2 barcode (rc)") == 1
    assert texts.count("splitseq round3 barcode (rc)") == 1
    assert "ligation" not in texts and "ligation barcode" not in texts
    # the read that covers the round-3 oligo names its barcode and UMI by that oligo
    r2 = next(t for t in texts if t.startswith("R2:"))
    assert "BC 8 of splitseq round3 barcode" in r2 and "UMI 10 of splitseq round3 barcode" in r2


def test_workflow_boxes_show_every_name_title_and_oligo_whole() -> None:
    """No text in a workflow picture is cut with an ellipsis: each state's title and each
    transition's oligos appear whole (wrapped over lines when long)."""
    for model in (_model(), _atlas_model()):
        for graph in model.graphs:
            svg = workflow_svg(graph)
            fragments = [f for t in ET.fromstring(svg).iter(f"{SVG}text") for f in t.itertext()]
            joined = "".join("".join(fragments).split())  # a long word wraps mid-word
            assert "\u2026" not in joined
            for state in graph.states:
                if state.title and state.title != state.name:
                    assert "".join(state.title.split()) in joined, state.title
            for transition in graph.transitions:
                for oligo in transition.oligos:
                    assert oligo in joined, (graph.name, oligo)


def test_the_strand_legend_is_captioned_once_and_the_page_adds_no_second_legend() -> None:
    """A workflow's legend starts with `strand colours:` (no dangling `(strand colours)`
    after it), and the HTML page has no legend row of its own under the pictures."""
    model = _model()
    svg = workflow_svg(model.graphs[0])
    texts = _texts(svg)
    assert "strand colours:" in texts and "(strand colours)" not in texts
    page = html_page(model)
    assert '<p><span style="background:' not in page
    assert page.count("fixed sequence") == len(model.libraries) + len(model.graphs)
