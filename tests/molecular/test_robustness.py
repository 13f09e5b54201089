"""Untrusted input: mutated molecular programs never crash, and every public example runs."""

from __future__ import annotations

import doctest
import importlib
import random
from pathlib import Path

import pytest

from lablang.diagnostics.codes import CODES
from lablang.driver import check_text

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [(ROOT / "examples" / "tenx_3p_v3.lab").read_text()] + [
    e.bad for e in CODES.values() if e.area == "molecular" and e.bad
]
WORDS = ["[CDNA]", "(T)30", "{tso'}", "pcr", "ligate", "a_tail", "fragment", "[UMI:0]", "5'-", "-3'",
         "primers:", "[", "]", "ends: left", "keep: DNA", 'enzyme: "EcoRI"', "tagment", "denature",
         "bisulfite", "split_pool", "capture", "size_select", "rG", "/5Phos/", "VN", "0", "1..2",
         "read R9 { primer: tso strand: top }", "realizes gex.lib", "pair a ~ zz"]  # fmt: skip


def test_mutated_molecular_programs_never_produce_internal_errors() -> None:
    """300 seeded mutations of the example and the bad cases give diagnostics, never E0000."""
    rng = random.Random(20261129)
    for _ in range(300):
        text = rng.choice(SEEDS)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(text) + 1)
            if rng.random() < 0.5:
                text = text[:pos] + text[pos + rng.randint(1, 20) :]
            else:
                text = text[:pos] + " " + rng.choice(WORDS) + " " + text[pos:]
        codes = [d.code for d in check_text(text, "fuzz.lab").report]
        assert "E0000" not in codes, text


def test_wrong_argument_types_are_diagnostics() -> None:
    """Passing a segment where an oligo is expected is E0412, not a crash."""
    text = (
        "segment S = 5'-ACGT-3'\nworkflow w {\n input r: DNA 5'-[CDNA] ACGT-3'\n"
        " x = barcode_round(r, barcode: S, end: 3')\n}\n"
    )
    (diag,) = check_text(text, "case.lab").report
    assert diag.code == "E0412" and "must be an oligo" in diag.message


@pytest.mark.parametrize("module", [
    "sequence", "operations", "graph", "draw", "libstruct", "libstruct_segments", "seqspec",
    "interchange", "workflow_export",
])  # fmt: skip
def test_docstring_examples_run(module: str) -> None:
    """Every example in the public docstrings of the molecular modules runs as written."""
    result = doctest.testmod(importlib.import_module(f"lablang.molecular.{module}"))
    assert result.failed == 0


def _mutate(value: object, rng: random.Random) -> object:
    if isinstance(value, dict):
        out = {k: _mutate(v, rng) for k, v in value.items() if rng.random() > 0.05}
        return out
    if isinstance(value, list):
        return [_mutate(v, rng) for v in value if rng.random() > 0.05]
    roll = rng.random()
    if roll < 0.05:
        return rng.choice([None, 3, "x]y", [], {}, "N" * 5, -1, "5'-"])
    return value


def test_mutated_interchange_files_import_or_fail_cleanly() -> None:
    """Randomly broken seqspec and LibStructBench data either import to .lab that checks
    without internal errors, or raise the importer's own problem type."""
    import json

    import yaml

    from lablang.molecular.libstruct import ImportProblem, import_libstruct
    from lablang.molecular.seqspec import SeqspecProblem, import_seqspec

    shared = ROOT.parent.parent / "shared" / "data"
    if not shared.is_dir():
        shared = ROOT.parent / "shared" / "data"
    if not shared.is_dir():
        pytest.skip("reference data not beside the repo")
    specs = [yaml.safe_load(p.read_text()) for p in sorted((shared / "seqspec").glob("*.yaml"))]
    answers = [
        json.loads(p.read_text())
        for p in sorted((shared / "scoring_cases").glob("*/pred_*_t*.json"))
    ]
    rng = random.Random(7)
    for _ in range(150):
        spec = _mutate(rng.choice(specs), rng)
        try:
            text = import_seqspec(spec).text
        except SeqspecProblem:
            continue
        assert "E0000" not in [d.code for d in check_text(text, "spec.lab").report]
    for _ in range(150):
        data = _mutate(rng.choice(answers), rng)
        try:
            text = import_libstruct(data)  # type: ignore[arg-type]
        except ImportProblem:
            continue
        assert "E0000" not in [d.code for d in check_text(text, "answer.lab").report]


def test_check_of_a_molecular_file_imports_neither_networkx_nor_yaml() -> None:
    """`lablang check` on the 10x example stays light: graphs and specs load only when asked for."""
    import subprocess
    import sys

    code = (
        "import sys; from lablang.driver import check_file; "
        f"r = check_file({str(ROOT / 'examples' / 'tenx_3p_v3.lab')!r}); "
        "print(r.ok, 'networkx' in sys.modules, 'yaml' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.split() == ["True", "False", "False"]


def test_exponential_references_are_a_resource_diagnostic() -> None:
    """Segments that double each other 40 times are stopped with E0415, quickly."""
    lines = ["segment s0 = 5'-ACGT-3'"]
    lines += [f"segment s{k} = 5'-{{s{k - 1}}} {{s{k - 1}}}-3'" for k in range(1, 41)]
    codes = [d.code for d in check_text("\n".join(lines), "big.lab").report]
    assert "E0415" in codes and "E0000" not in codes


def test_huge_annealing_search_is_refused() -> None:
    """A primer and template too long to search are E0415, not a hang."""
    template = "ACGT" * 12_000
    text = (
        f"oligo p {{ seq: 5'-{'GT' * 300}-3' }}\n"
        f"workflow w {{\n input t: DNA 5'-{template}-3'\n x = extend(t, primer: p)\n}}\n"
    )
    codes = [d.code for d in check_text(text, "big.lab").report]
    assert codes == ["E0415"]
