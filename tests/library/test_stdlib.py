"""The standard library: every oligo equals the reference list and names its source,
stated reverse-complement relations hold, and the interpreter's parameters are the ones
`stdlib/molecular.lab` shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lablang import ast
from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.front import PARAMETER_DEFAULTS, build_model
from lablang.molecular.operations import anneal_sites
from lablang.molecular.sequence import parse_notation, plain, render_libstruct, reverse_complement
from lablang.source import Source
from lablang.syntax import parse
from lablang.units import quantity

from ._data import ROOT, SHARED, needs_data

STDLIB = ROOT / "stdlib"
MODULES = sorted(p for p in STDLIB.glob("*.lab"))
# oligos two or more scg_lib_structs pages share, checked against the pages by
# tests/molecular/test_atlas.py rather than against stdlib_oligos.json
ATLAS_MODULE = "scg_lib_structs.lab"


def oligo_decls() -> dict[str, tuple[Path, ast.Decl]]:
    out = {}
    for path in MODULES:
        module = parse(Source(path.read_text(), path.name), Report())
        for decl in module.decls:
            if decl.kind == "oligo":
                out[decl.name] = (path, decl)
    return out


def fields(decl: ast.Decl) -> dict[str, ast.Expr]:
    assert decl.body is not None
    return {m.key: m.value for m in decl.body.members if isinstance(m, ast.Field)}


def built_oligos() -> dict[str, Any]:
    out = {}
    for path in MODULES:
        result = check_text(path.read_text(), path.name, roots=[STDLIB])
        assert [d.code for d in result.report] == [], path.name
        for oligo in build_model(result.program, Report()).model.oligos:
            out[oligo.name] = oligo
    return out


def test_every_stdlib_module_checks_clean() -> None:
    """Each stdlib module (illumina, smallrna, tenx, smart, dropseq, t7, molecular) checks clean."""
    names = {p.stem for p in MODULES}
    assert {"illumina", "smallrna", "tenx", "smart", "dropseq", "t7", "molecular"} <= names
    for path in MODULES:
        result = check_text(path.read_text(), path.name, roots=[STDLIB])
        assert [f"{d.code} {d.message}" for d in result.report] == [], path.name


@needs_data
def test_every_stdlib_oligo_equals_the_data_file() -> None:
    """Besides the page-shared oligos of scg_lib_structs.lab, the stdlib holds exactly the
    42 oligos of stdlib_oligos.json, each with its sequence."""
    reference = {
        o["id"]: o["sequence_5to3"]
        for o in json.loads((SHARED / "stdlib_oligos.json").read_text())["oligos"]
    }
    shared = {n for n, (path, _) in oligo_decls().items() if path.name == ATLAS_MODULE}
    oligos = {n: o for n, o in built_oligos().items() if n not in shared}
    assert set(oligos) == set(reference)
    for name, oligo in oligos.items():
        want = render_libstruct(parse_notation(reference[name]))
        assert render_libstruct(oligo.seq.without_modifications()) == want, name


@needs_data
def test_every_stdlib_oligo_cites_each_of_its_sources() -> None:
    """Each oligo has `source: doc(...)` entries, one per reference of the data file."""
    references = {
        o["id"]: o["references"]
        for o in json.loads((SHARED / "stdlib_oligos.json").read_text())["oligos"]
    }
    for name, (path, decl) in oligo_decls().items():
        source = fields(decl).get("source")
        assert source is not None, name
        items = source.items if isinstance(source, ast.ListExpr) else (source,)
        assert all(
            isinstance(i, ast.Call) and isinstance(i.func, ast.Name) and i.func.id == "doc"
            for i in items
        ), name
        if path.name != ATLAS_MODULE:
            assert len(items) == len(references[name]), name


def _dna(oligo: Any) -> Any:
    return plain(oligo.seq.without_modifications())


def test_stated_reverse_complements_hold() -> None:
    """`revcomp_of: X` means the oligo is exactly X's reverse complement; `pairs_with: X`
    means its 3' end anneals to X over the interpreter's minimum length."""
    oligos = built_oligos()
    stated = 0
    for name, (_, decl) in oligo_decls().items():
        f = fields(decl)
        if isinstance(f.get("revcomp_of"), ast.Name):
            partner = oligos[f["revcomp_of"].id]  # type: ignore[union-attr]
            assert render_libstruct(_dna(oligos[name])) == render_libstruct(
                reverse_complement(_dna(partner))
            ), name
            stated += 1
        if isinstance(f.get("pairs_with"), ast.Name):
            partner = oligos[f["pairs_with"].id]  # type: ignore[union-attr]
            sites = anneal_sites(
                _dna(oligos[name]), _dna(partner), PARAMETER_DEFAULTS["min_anneal"]
            )
            assert sites, name
            stated += 1
    assert stated >= 10


def test_every_exact_reverse_complement_pair_is_stated() -> None:
    """No two stdlib oligos are exact reverse complements without one saying so."""
    oligos = built_oligos()
    decls = oligo_decls()
    texts = {n: render_libstruct(_dna(o)) for n, o in oligos.items() if o.kind == "single"}
    rcs = {n: render_libstruct(reverse_complement(_dna(oligos[n]))) for n in texts}
    for a in texts:
        for b in texts:
            if a < b and texts[a] == rcs[b]:
                said = {getattr(fields(decls[x][1]).get("revcomp_of"), "id", None) for x in (a, b)}
                assert said & {a, b}, f"{a} and {b} are reverse complements"


def test_interpreter_defaults_are_the_ones_stdlib_molecular_shows() -> None:
    """`stdlib/molecular.lab` states every interpreter parameter with its actual default."""
    module = parse(Source((STDLIB / "molecular.lab").read_text(), "molecular.lab"), Report())
    (decl,) = [d for d in module.decls if d.kind == "workflow"]
    assert decl.body is not None
    shown: dict[str, Any] = {}
    for member in decl.body.members:
        if isinstance(member, ast.Entry) and member.keyword == "param":
            match member.type:
                case ast.Number(text=text):
                    shown[member.name or ""] = int(text)
                case ast.String(value=value):
                    shown[member.name or ""] = value
                case ast.Quantity(number=number, unit=unit):
                    shown[member.name or ""] = quantity(number, unit)
    assert shown == PARAMETER_DEFAULTS


PRIMED = """
module p
oligo f {{ seq: 5'-ACGTACGTACGTAC-3' }}
oligo r {{ seq: 5'-TTGGCCAATTGGCCA-3' }}
workflow w {{
  {param}
  input x: DNA 5'-ACGTACGTACGTAC [GDNA] TGGCCAATTGGCCAA-3' as duplex
  a = pcr(x, primers: [f, r])
  output a as dna
}}
"""


@pytest.mark.parametrize(
    ("param", "codes"),
    [
        ("", []),
        ("param min_anneal: 14", []),
        ("param min_anneal: 15", ["E0404"]),
        ("param min_anneal: 16", ["E0401"]),
        ("param min_anneal: 0", ["E0412"]),
        ("param tn5_gap: 9", ["E0412"]),
    ],
)
def test_a_workflow_param_overrides_the_minimum_anneal_length(param: str, codes: list[str]) -> None:
    """A 14-base primer anneals at the default 12 and at 14; at 15 only its 15-base partner
    anneals (the PCR carries nothing, E0404), at 16 neither (E0401); out-of-range values
    and unknown parameters are reported."""
    result = check_text(PRIMED.format(param=param), "p.lab")
    assert [d.code for d in result.report] == codes


def test_a_workflow_param_sets_the_non_templated_bases() -> None:
    """`param nontemplated: "CC"` changes what reverse transcription adds at the 3' end."""
    text = """
module n
oligo dT {{ seq: 5'-(T)20 VN-3' }}
workflow w {{
  {param}
  input m: RNA 5'-[CDNA] (A)30-3'
  rt = reverse_transcribe(m, primer: dT)
  output rt as rna
  expect rt.top == 5'-{{dT}} [CDNA'] {tail}-3'
}}
"""
    assert [d.code for d in check_text(text.format(param="", tail="CCC"), "n.lab").report] == []
    changed = text.format(param='param nontemplated: "CC"', tail="CC")
    assert [d.code for d in check_text(changed, "n.lab").report] == []
    wrong = text.format(param='param nontemplated: "CC"', tail="CCC")
    assert [d.code for d in check_text(wrong, "n.lab").report] == ["E0416"]
