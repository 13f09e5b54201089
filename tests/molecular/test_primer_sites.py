"""Each primer's site and melting temperature in a workflow step, as `lablang explain NAME
FILE`, the workflow picture's PCR boxes and W0408 all read them (`primer_sites`)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.draw import workflow_svg
from lablang.molecular.explain_names import explain_in_model
from lablang.molecular.front import build_model
from lablang.molecular.model import MolecularModel
from lablang.molecular.primer_sites import primer_sites
from lablang.molecular.thermo import melting_temperature

TAIL = "AATGATACGGCGACCACCGA"  # a 5' adapter tail: not paired in the first cycle
FWD, REV = "ACGTTGCAACGTTGCA", "TTAAGGCCTTAAGGCC"
WORKFLOW = f"""
oligo f {{ seq: 5'-{TAIL}{FWD}-3' }}
oligo r {{ seq: 5'-{REV}-3' }}
workflow w {{
  {{param}}
  input t: DNA 5'-{FWD} [GDNA] GGCCTTAAGGCCTTAA-3' as duplex
  amp = pcr(t, primers: [f, r])
}}
"""


def _model(param: str = "") -> MolecularModel:
    result = check_text(WORKFLOW.replace("{param}", param), "w.lab")
    assert not result.report.has_errors, [d.message for d in result.report]
    return build_model(result.program, Report()).model


def test_a_tailed_primers_site_is_its_paired_part_with_that_parts_tm() -> None:
    """`f` pairs its 16 3' bases (its 20-base tail does not), and its Tm is theirs; `r`
    pairs whole; both under the step's minimum of 12 paired bases."""
    model = _model()
    graph = model.graphs[0]
    sites = {
        s.primer: s
        for s in primer_sites({o.name: o for o in model.oligos}, graph, graph.transitions[0])
    }
    assert (sites["f"].paired, sites["f"].length, sites["f"].paired_bases) == (16, 36, FWD)
    assert sites["f"].tm == melting_temperature(FWD)
    assert (sites["r"].paired, sites["r"].length, sites["r"].tm) == (
        16,
        16,
        melting_temperature(REV),
    )


def test_explaining_a_step_names_each_primer_with_its_tm_and_the_conditions() -> None:
    """`explain_in_model(model, "w.amp")` gives the substrates, the products, and each
    primer's paired part and Tm, the buffer stated once; the step alone finds it too."""
    model = _model()
    text = explain_in_model(model, "w.amp")
    assert text is not None and text == explain_in_model(model, "amp")
    assert "substrates: `t`" in text and "products: `amp` (double stranded)" in text
    assert "primer3's default buffer 50 mM Na+, 1.5 mM Mg2+, 0.6 mM dNTP, 50 nM primer" in text
    assert "`f`: 16 of its 36 positions pair" in text and "a 20-position 5' tail" in text
    assert f"Tm {melting_temperature(FWD):.1f} C" in text
    assert f"Tm {melting_temperature(REV):.1f} C" in text


def test_explaining_an_oligo_gives_its_site_in_each_step_that_uses_it() -> None:
    """An oligo's explanation is its sequence and, per step using it, its site and Tm."""
    text = explain_in_model(_model(), "f")
    assert text is not None and text.startswith(f"oligo `f`: 5'-{TAIL}{FWD}-3'")
    assert "in step `amp` of workflow `w` (pcr): 16 of its 36 positions" in text


def test_the_steps_min_anneal_decides_which_sites_count() -> None:
    """A derived step carries the `param min_anneal` in force; above the 16 paired bases
    no site counts (as the step itself would not prime there), at 16 both do."""
    from attrs import evolve

    model = _model("param min_anneal: 16")
    graph = model.graphs[0]
    step = graph.transitions[0]
    assert dict(step.params)["min_anneal"] == 16
    oligos = {o.name: o for o in model.oligos}
    assert [s.primer for s in primer_sites(oligos, graph, step)] == ["f", "r"]
    assert primer_sites(oligos, graph, evolve(step, params=(("min_anneal", 17),))) == ()


def test_explain_on_the_command_line_with_a_file(tmp_path: Path) -> None:
    """`lablang explain w.amp FILE` prints the step; a mistyped name exits 2 with the
    closest step or oligo."""
    path = tmp_path / "w.lab"
    path.write_text(WORKFLOW.replace("{param}", ""))
    result = CliRunner().invoke(main, ["explain", "w.amp", str(path)])
    assert result.exit_code == 0, result.output
    assert "primers at their sites" in result.output
    wrong = CliRunner().invoke(main, ["explain", "w.ampp", str(path)])
    assert wrong.exit_code == 2 and "did you mean `w.amp`?" in wrong.output


def test_the_workflow_pictures_pcr_box_names_each_primer_with_its_tm() -> None:
    """Given the oligos, the PCR step's box reads `f Tm 5x.x °C, r Tm 4x.x °C` and the
    conditions are stated once under the picture; without them, the box names the primers."""
    model = _model()
    graph = model.graphs[0]
    svg = workflow_svg(graph, {o.name: o for o in model.oligos})
    texts = re.findall(r">([^<>]+)</tspan>|>([^<>]+)</text>", svg)
    flat = [a or b for a, b in texts]
    expected = (
        f"f Tm {melting_temperature(FWD):.1f} \u00b0C, r Tm {melting_temperature(REV):.1f} \u00b0C"
    )
    assert expected in flat
    assert sum("primer3&#x27;s default buffer" in t for t in flat) == 1
    assert "f, r" in [
        a or b for a, b in re.findall(r">([^<>]+)</tspan>|>([^<>]+)</text>", workflow_svg(graph))
    ]


def test_w0408_compares_a_tailed_primers_paired_part() -> None:
    """A protocol annealing above the Tm of `f`'s 16 paired bases is warned for `f`, though
    `f` pairs over less than its whole length (its tail does not pair)."""
    protocol = (
        'protocol run "amp" realizes w.amp {\n  materials: [mix]\n'
        "  step cycle { thermocycle { 98 C for 30 s; repeat 20 { 98 C for 10 s; "
        f"{melting_temperature(FWD) + 1:.0f} C for 30 s; 72 C for 30 s }}; hold 4 C }} }}\n}}\n"
    )
    report = check_text(WORKFLOW.replace("{param}", "") + protocol, "p.lab").report
    warned = [d.message for d in report if d.code == "W0408"]
    assert any("primer `f`" in m for m in warned), [d.message for d in report]


def test_a_library_picture_states_its_lanes_tm_conditions_once() -> None:
    """The 10x library's three read lanes give a Tm; the buffer is written once under them."""
    from lablang.driver import check_file
    from lablang.molecular.draw import library_svg

    root = Path(__file__).resolve().parents[2]
    model = build_model(check_file(root / "examples" / "tenx_3p_v3.lab").program, Report()).model
    library = next(lib for lib in model.libraries if lib.name == "gex_library")
    svg = library_svg(library, {o.name: o for o in model.oligos})
    assert svg.count(", Tm ") == 3 and svg.count("primer3&#x27;s default buffer 50 mM Na+") == 1
