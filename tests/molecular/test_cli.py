"""The molecular verbs (import, graph, draw), export hooks, and the graph formats."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.front import build_model
from lablang.molecular.graph import render_graph, to_networkx, typed_edges

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "tenx_3p_v3.lab")
SPEC = ROOT.parent.parent / "shared" / "data" / "seqspec" / "sci_rna_seq.spec.yaml"
if not SPEC.is_file():
    SPEC = ROOT.parent / "shared" / "data" / "seqspec" / "sci_rna_seq.spec.yaml"


def model():  # type: ignore[no-untyped-def]
    return build_model(check_file(EXAMPLE).program, Report()).model


def test_graph_has_typed_nodes_and_edges() -> None:
    """The declared 10x graph is a DAG with state/transition nodes and LibStructBench edge kinds."""
    graph = next(g for g in model().graphs if not g.derived)
    g = to_networkx(graph)
    assert nx.is_directed_acyclic_graph(g)
    assert {d["kind"] for _, d in g.nodes(data=True)} == {"state", "transition"}
    edges = typed_edges(graph)
    assert ("discarded_product", "t_ligate", "st_ligated_other") in edges
    assert ("substrate", "st_mrna", "t_rt") in edges


def test_every_format_renders_and_parses_back() -> None:
    """DOT names every node, GraphML and JSON load in networkx, Mermaid starts a flowchart."""
    graph = next(g for g in model().graphs if g.derived)
    dot = render_graph(graph, "dot")
    assert dot.startswith("digraph") and '"t:lib"' in dot
    loaded = nx.parse_graphml(render_graph(graph, "graphml"))
    assert loaded.number_of_nodes() == to_networkx(graph).number_of_nodes()
    data = json.loads(render_graph(graph, "json"))
    assert len(data["edges"]) == to_networkx(graph).number_of_edges()
    assert render_graph(graph, "mermaid").startswith("flowchart LR")


def test_graph_command_writes_mermaid() -> None:
    """`lablang graph FILE --format mermaid` prints the declared workflow."""
    result = CliRunner().invoke(main, ["graph", EXAMPLE, "--format", "mermaid"])
    assert result.exit_code == 0, result.output
    assert "t_t_rt{{" in result.output


def test_draw_command_writes_svg_and_html(tmp_path: Path) -> None:
    """`lablang draw` writes a well-formed SVG per library and workflow and one HTML page."""
    result = CliRunner().invoke(main, ["draw", EXAMPLE, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    svgs = sorted(tmp_path.glob("*.svg"))
    assert len(svgs) == 3
    library = ET.parse(tmp_path / "tenx_3p_v3.gex_library.svg").getroot()
    lines = [e for e in library.iter() if e.tag.endswith("line")]
    assert len(lines) == 3  # one arrow per read
    assert "has no site" not in (tmp_path / "tenx_3p_v3.gex_library.svg").read_text()
    assert (tmp_path / "tenx_3p_v3.html").read_text().startswith("<!DOCTYPE html>")


def test_read_arrows_point_away_from_their_primers(tmp_path: Path) -> None:
    """Read 1 and Index 1 arrows point right (they copy the top strand), Read 2 points left."""
    CliRunner().invoke(main, ["draw", EXAMPLE, "-o", str(tmp_path)])
    root = ET.parse(tmp_path / "tenx_3p_v3.gex_library.svg").getroot()
    directions = [
        float(e.get("x2", 0)) - float(e.get("x1", 0)) for e in root.iter() if e.tag.endswith("line")
    ]
    assert [d > 0 for d in directions] == [True, True, False]


def test_export_hooks_for_libstruct_and_seqspec() -> None:
    """`lablang export --to libstruct-t1` and `--to seqspec` go through this backend."""
    runner = CliRunner()
    t1 = runner.invoke(main, ["export", EXAMPLE, "--to", "libstruct-t1"])
    assert t1.exit_code == 0, t1.output
    assert json.loads(t1.output)["schema_version"] == "libstruct.library_structure.v0"
    spec = runner.invoke(main, ["export", EXAMPLE, "--to", "seqspec"])
    assert spec.exit_code == 0 and "seqspec_version: 0.3.1" in spec.stdout  # PyPI's format
    newer = runner.invoke(main, ["export", EXAMPLE, "--to", "seqspec-0.4"])
    assert newer.exit_code == 0 and "seqspec_version: 0.4.0" in newer.stdout


def test_export_protocol_id_names_the_benchmark_protocol_in_every_libstruct_task() -> None:
    """`--protocol-id ID` sets each T1-T3 document's `protocol_id` (default: the module's name); other targets and ids the schemas refuse exit 2."""
    runner = CliRunner()
    for task in ("t1", "t2", "t3"):
        named = runner.invoke(
            main,
            ["export", EXAMPLE, "--to", f"libstruct-{task}", "--protocol-id", "10x_chromium_3p_v3"],
        )
        assert named.exit_code == 0, named.output
        assert json.loads(named.stdout)["protocol_id"] == "10x_chromium_3p_v3"
        default = runner.invoke(main, ["export", EXAMPLE, "--to", f"libstruct-{task}"])
        assert json.loads(default.stdout)["protocol_id"] == "tenx_3p_v3"
    wrong_target = runner.invoke(main, ["export", EXAMPLE, "--to", "seqspec", "--protocol-id", "x"])
    assert wrong_target.exit_code == 2 and "libstruct-t1|t2|t3" in wrong_target.output
    bad_id = runner.invoke(
        main, ["export", EXAMPLE, "--to", "libstruct-t2", "--protocol-id", "a b"]
    )
    assert bad_id.exit_code == 2 and "not a benchmark id" in bad_id.output


def test_import_of_libstruct_json_round_trips_through_check(tmp_path: Path) -> None:
    """Exported T2 and T3 files import (merged) into a .lab that checks clean."""
    runner = CliRunner()
    for task in ("t2", "t3"):
        out = runner.invoke(
            main,
            ["export", EXAMPLE, "--to", f"libstruct-{task}", "-o", str(tmp_path / f"{task}.json")],
        )
        assert out.exit_code == 0
    result = runner.invoke(
        main,
        [
            "import",
            str(tmp_path / "t2.json"),
            str(tmp_path / "t3.json"),
            "-o",
            str(tmp_path / "answer.lab"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert [d.code for d in check_file(tmp_path / "answer.lab").report] == []


def test_import_of_a_repaired_spec_reports_W0401(tmp_path: Path) -> None:
    """Importing a published seqspec that its checks reject lists each repair as W0401."""
    result = CliRunner().invoke(main, ["import", str(SPEC), "-o", str(tmp_path / "s.lab")])
    assert result.exit_code == 0
    assert "warning[W0401]" in result.output
    assert (tmp_path / "s.lab").read_text().startswith("# seqspec 0.4.0 checks reject")


def test_import_of_a_broken_file_reports_E0417(tmp_path: Path) -> None:
    """A file that is not LibStructBench JSON is E0417 and exit 1, never a traceback."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    result = CliRunner().invoke(main, ["import", str(bad)])
    assert result.exit_code == 1
    assert "error[E0417]" in result.output
    broken = tmp_path / "broken.yaml"
    broken.write_text("library_spec: 3\n")
    result = CliRunner().invoke(main, ["import", str(broken)])
    assert result.exit_code == 1 and "E0417" in result.output


def test_import_reads_a_tagged_seqspec_0_3_file(tmp_path: Path) -> None:
    """`lablang import` reads a seqspec 0.3.1 file (`!Assay`/`!Region` tags) into .lab that
    checks without errors."""
    from lablang.molecular.seqspec_export import export_seqspec, seqspec_yaml

    spec = tmp_path / "tenx.spec.yaml"
    spec.write_text(seqspec_yaml(export_seqspec(check_file(EXAMPLE).program, "0.3.1")))
    result = CliRunner().invoke(main, ["import", str(spec), "-o", str(tmp_path / "t.lab")])
    assert result.exit_code == 0, result.output
    assert "\nmodule tenx_3p_v3 " in "\n" + (tmp_path / "t.lab").read_text()
    # (W0403 on R2: the export names the 1-base region where the Read 2 primer's 3' end
    # sits as its primer region, and the importer makes the primer from that region only)
    assert check_file(tmp_path / "t.lab").ok


def test_every_text_format_says_why_a_product_was_discarded() -> None:
    """A discarded product carries its reason's caption in Mermaid (under its name) and DOT
    (a third label line, the whole reason as its tooltip), as the pictures do."""
    example = ROOT / "examples" / "split_seq.lab"
    graph = next(g for g in build_model(check_file(example).program, Report()).model.graphs)
    discarded = {s for t in graph.transitions for s in t.discarded}
    assert discarded
    mermaid, dot = render_graph(graph, "mermaid"), render_graph(graph, "dot")
    for state in (s for s in graph.states if s.name in discarded):
        caption = state.disposition_reason.split(";")[0].split(":")[-1].strip()
        assert caption and f"{state.name}<br/>{caption}" in mermaid, state.name
        assert f"\\n{caption}" in dot and "tooltip=" in dot
