"""Chained molecular steps are bounded in total (products and positions over the whole
workflow): E0460, not minutes of derivation and a graph of hundreds of megabytes."""

from __future__ import annotations

from pathlib import Path

from lablang.driver import check_text
from tests.hostile.bounded import run_bounded


def chained_split_pools(steps: int, barcode_bases: int = 32) -> str:
    rounds = ", ".join(["b"] * 64)
    lines = [
        f"oligo b {{ seq: 5'-/5Phos/{'ACGT' * (barcode_bases // 4)}-3' role: barcode }}",
        "workflow w {",
        "  input d: DNA 5'-/5Phos/ACGT-3'",
    ]
    previous = "d"
    for i in range(steps):
        lines.append(f"  x{i} = split_pool({previous}, rounds: [{rounds}], ligase: rna)")
        previous = f"x{i}"
    lines += [f"  output {previous} as gene_expression", "}"]
    return "\n".join(lines) + "\n"


def test_a_few_chained_split_pools_are_accepted() -> None:
    """Ten steps of 64 rounds of a 32-base barcode stay well within the totals."""
    result = check_text(chained_split_pools(10))
    assert [d.code for d in result.report] == []


def test_many_chained_split_pools_are_E0460_at_the_step_past_the_limit() -> None:
    """Three hundred chained steps stop at the first step past `max_workflow_bases`."""
    result = check_text(chained_split_pools(300))
    (diagnostic,) = result.report.diagnostics
    assert diagnostic.code == "E0460" and "max_workflow_bases" in diagnostic.message
    assert 10 < diagnostic.start[0] < 100


def test_graph_and_export_of_a_growing_workflow_are_bounded(tmp_path: Path) -> None:
    """Four steps of 5,000-base barcodes (121 MB of graph before) are E0460 in graph and export."""
    path = tmp_path / "grow.lab"
    path.write_text(chained_split_pools(4, barcode_bases=5000))
    for args in (
        ["check", str(path)],
        ["graph", str(path), "--format", "json"],
        ["export", str(path), "--to", "libstruct-t3"],
    ):
        run = run_bounded(args, cpu_seconds=60, memory_mb=1200)
        run.assert_clean()
        assert run.returncode == 1, (args, run.output[-300:])
        assert "E0460" in run.output and len(run.stdout) < 1_000_000
