"""Joining two products of earlier steps and circular molecules: hand-worked workflows
and their failures (pydna's agreement is `test_pydna_differential.py`'s)."""

from __future__ import annotations

import json

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular import operations as ops
from lablang.molecular.front import build_model
from lablang.molecular.interchange import export_t1_text, export_t3_text, provenance
from lablang.molecular.molecule import Duplex
from lablang.molecular.ops import ligation
from lablang.molecular.sequence import parse_notation, plain

# EcoRI (G^AATTC) and HindIII (A^AGCTT) sites in each molecule: one direction of joining
VECTOR = "ACGTTGCAAGGCTTACGATCGGAATTCCGATACGGTTACGATGCAAGCTTAGTCCAGTAGC"
INSERT = "TTGACCGGATAGGCAGAATTCCAAGTTCGGATCCAGAGCTAAGTCAAGCTTGTTCACC"
# a 32-base fragment with an EcoRI end at each side, once the flanks are cut off
RINGED = "ACGGAATTCACGTTGCAAGGCTTACGATCGGACGTGAATTCCAGT"


def _derive(body: str, oligos: str = "") -> tuple[list[tuple[str, str]], dict[str, object]]:
    """The diagnostics (code, message) of a workflow and its states by name."""
    result = check_text(f"{oligos}workflow w {{\n{body}\n}}\n", "case.lab")
    codes = [(d.code, d.message) for d in result.report]
    model = build_model(result.program, Report()).model
    graph = next(g for g in model.graphs if g.derived)
    return codes, {s.name: s for s in graph.states}


def _strands(state: object) -> list[str]:
    return ["".join(map(str, plain(s.seq).tokens())) for s in state.strands]  # type: ignore[attr-defined]


def test_two_digest_products_join_at_their_matching_sticky_ends_only() -> None:
    """A vector piece and an insert piece each cut by EcoRI and HindIII join once at each
    matching pair of ends (EcoRI to EcoRI, HindIII to HindIII), never across, and the
    pieces they were not chosen from are not reported unused (E0408)."""
    codes, states = _derive(
        f"  input v: DNA 5'-{VECTOR}-3' as duplex\n  input i: DNA 5'-{INSERT}-3' as duplex\n"
        "  vd = digest(v, enzyme: [EcoRI, HindIII])\n  id = digest(i, enzyme: [EcoRI, HindIII])\n"
        "  lig = ligate(vd_2, adapter: id_2)\n  output lig"
    )
    assert codes == []
    assert sorted(_strands(states["lig_1"]) + _strands(states["lig_2"])) == sorted(
        [
            "AATTCCGATACGGTTACGATGCAAGCTTGACTTAGCTCTGGATCCGAACTTGG",
            "AATTCCAAGTTCGGATCCAGAGCTAAGTCAAGCTTGCATCGTAACCGTATCGG",
            "AGCTTGACTTAGCTCTGGATCCGAACTTGGAATTCCGATACGGTTACGATGCA",
            "AGCTTGCATCGTAACCGTATCGGAATTCCAAGTTCGGATCCAGAGCTAAGTCA",
        ]
    )
    assert "lig_3" not in states


def test_incompatible_sticky_ends_of_two_products_do_not_join() -> None:
    """An EcoRI end and a BamHI end (AATT against GATC) are E0402, each end described."""
    codes, _ = _derive(
        f"  input v: DNA 5'-{VECTOR}-3' as duplex\n  input i: DNA 5'-{INSERT}-3' as duplex\n"
        "  vd = digest(v, enzyme: EcoRI)\n  id = digest(i, enzyme: BamHI)\n"
        "  lig = ligate(vd_1, adapter: id_2, ends: right)\n  output lig"
    )
    assert [c for c, _ in codes] == ["E0402"]
    assert "AATT" in codes[0][1] and "GATC" in codes[0][1]


def test_blunt_products_join_only_with_a_5_phosphate() -> None:
    """Two PCR products with unphosphorylated primers are E0403 (ligase needs a
    5'-phosphate at the junction); the same products made with /5Phos/ primers join, in
    every orientation two blunt ends allow."""
    oligos = (
        "oligo f1 { seq: 5'-ACGTTGCAAGGCTTACGATC-3' }\noligo r1 { seq: 5'-GCTACTGGACTAAGCTTGCA-3' }\n"
        "oligo f2 { seq: 5'-TTGACCGGATAGGCAGAATT-3' }\noligo r2 { seq: 5'-GGTGAACAAGCTTGACTTAG-3' }\n"
    )
    body = (
        f"  input v: DNA 5'-{VECTOR}-3' as duplex\n  input i: DNA 5'-{INSERT}-3' as duplex\n"
        "  a = pcr(v, primers: [f1, r1])\n  b = pcr(i, primers: [f2, r2])\n"
        "  lig = ligate(a, adapter: b)\n  output lig"
    )
    codes, _ = _derive(body, oligos)
    assert [c for c, _ in codes] == ["E0403"]
    codes, states = _derive(body, oligos.replace("5'-", "5'-/5Phos/"))
    assert codes == []
    assert len([n for n in states if n.startswith("lig_")]) == 4


def test_a_product_longer_than_an_adapter_may_be_joins() -> None:
    """A 1,000-bp product joins (a declared adapter stops at 300 nt per strand); the
    joined molecule is bounded by the longest sequence the interpreter holds (E0415)."""
    long = "ACGT" * 240 + "GGATCC" + "TTGCA" * 8
    body = (
        f"  input v: DNA 5'-{long}-3' as duplex\n  input i: DNA 5'-GAAGGATCCTTCAGG-3' as duplex\n"
        "  vd = digest(v, enzyme: BamHI)\n  id = digest(i, enzyme: BamHI)\n"
        "  lig = ligate(vd_1, adapter: id_2, ends: right)\n  output lig"
    )
    codes, states = _derive(body)
    assert codes == []
    assert len(states["lig"].strands[0].seq) == 960 + 1 + 11  # type: ignore[attr-defined]
    left = Duplex(parse_notation("ACGT" * 20), right=ligation.End(top=parse_notation("")))
    right = Duplex(parse_notation("TTGA" * 20), top_phosphate=True)
    limit = ligation.MAX_SEQUENCE_TOKENS
    try:
        ligation.MAX_SEQUENCE_TOKENS = 100
        with pytest.raises(ops.OperationFailure) as failure:
            ligation.join_products(left, ligation.Fragments("b", (right,)), ends="right")
    finally:
        ligation.MAX_SEQUENCE_TOKENS = limit
    assert failure.value.code == "E0415"


def test_a_partner_that_failed_makes_the_ligation_unknown_not_a_second_error() -> None:
    """A ligation whose partner step failed is unknown, with one error (the failure)."""
    result = check_text(
        "workflow w {\n  input v: DNA 5'-ACGTACGTACGTACGT-3'\n  a = ligate(v, adapter: v)\n"
        f"  input i: DNA 5'-{INSERT}-3' as duplex\n  lig = ligate(i, adapter: a)\n  output lig\n}}",
        "case.lab",
    )
    assert [d.code for d in result.report] == ["E0412"]
    found = provenance(result)
    assert found is not None and found["graphs"][0]["unknown_steps"] == ["a", "lig"]


RING_BODY = (
    f"  input t: DNA 5'-{RINGED}-3' as duplex\n  d = digest(t, enzyme: EcoRI)\n"
    "  ring = circularize(d_2)\n"
)


def test_circularize_joins_a_molecules_own_sticky_ends_into_a_circle() -> None:
    """A fragment with an EcoRI end at each side closes into a 32-bp circle read from its
    top strand's 5' end; `check --json` marks it circular."""
    codes, states = _derive(RING_BODY + "  output ring")
    assert codes == []
    ring = states["ring"]
    assert ring.circular  # type: ignore[attr-defined]
    assert _strands(ring) == [
        "AATTCACGTTGCAAGGCTTACGATCGGACGTG",
        "CACGTCCGATCGTAAGCCTTGCAACGTGAATT",
    ]
    found = provenance(check_text(f"workflow w {{\n{RING_BODY}  output ring\n}}\n", "c.lab"))
    assert found is not None
    marks = {s["name"]: s["circular"] for s in found["graphs"][0]["states"]}
    assert marks["ring"] is True and marks["d_2"] is False


@pytest.mark.parametrize(
    ("body", "code"),
    [
        # a fragment with one EcoRI end and one blunt end
        (
            "  input t: DNA 5'-ACGGAATTCACGTTGCAAGGCT-3' as duplex\n  d = digest(t, enzyme: EcoRI)\n"
            "  ring = circularize(d_2)\n",
            "E0402",
        ),
        # blunt ends with no 5' phosphate
        (
            "  input t: DNA 5'-ACGGAATTCACGTTGCAAGGCT-3' as duplex\n  ring = circularize(t)\n",
            "E0403",
        ),
        # a circle has no ends to tail or close again
        (RING_BODY + "  tailed = a_tail(ring)\n", "E0428"),
        (RING_BODY + "  again = circularize(ring)\n", "E0428"),
    ],
)
def test_circularize_needs_fitting_ends_and_a_circle_has_none(body: str, code: str) -> None:
    """Self-ligation obeys ligation's junction rules (E0402, E0403); an operation that
    needs ends refuses a circle (E0428)."""
    codes, _ = _derive(body)
    assert [c for c, _ in codes if c != "E0408"] == [code]


def test_digest_of_a_circle_gives_as_many_fragments_as_sites() -> None:
    """One EcoRI site linearizes the circle (the cut ends at both sides), two sites
    (EcoRI and PvuI) give two fragments; an enzyme with no site leaves
    it circular."""
    codes, states = _derive(
        RING_BODY + "  one = digest(ring, enzyme: EcoRI)\n  uncut = digest(ring, enzyme: BamHI)\n"
        "  two = digest(ring, enzyme: [EcoRI, PvuI])\n  output [one, uncut, two]"
    )
    assert [c for c, _ in codes if c != "E0408"] == []
    assert _strands(states["one"]) == [
        "AATTCACGTTGCAAGGCTTACGATCGGACGTG",
        "AATTCACGTCCGATCGTAAGCCTTGCAACGTG",
    ]
    assert not states["one"].circular and states["uncut"].circular  # type: ignore[attr-defined]
    assert "two_1" in states and "two_2" in states and "two_3" not in states


def test_pcr_on_a_circle_amplifies_across_its_origin() -> None:
    """Primers facing each other across the circle's origin make the amplicon through it,
    once (the circle read over two turns does not double it or warn W0407)."""
    oligos = (
        "oligo f { seq: 5'-TTTCGATCGGACGTGAATTC-3' }\noligo r { seq: 5'-GGGCGTAAGCCTTGCAACG-3' }\n"
    )
    codes, states = _derive(RING_BODY + "  p = pcr(ring, primers: [f, r])\n  output p", oligos)
    assert codes == []
    assert _strands(states["p"]) == [
        "TTTCGATCGGACGTGAATTCACGTTGCAAGGCTTACGCCC",
        "GGGCGTAAGCCTTGCAACGTGAATTCACGTCCGATCGAAA",
    ]


def test_exports_that_cannot_carry_a_circle_refuse_it_and_pictures_say_circular() -> None:
    """A library derived as a circle is E0052 for LibStructBench Task 1 and Task 3 (and
    seqspec: its golden case), and the workflow and library pictures name it circular."""
    from lablang.molecular.draw import library_svg
    from lablang.molecular.draw_workflow import workflow_svg

    text = f"workflow w {{\n{RING_BODY}  output ring\n}}\nlibrary plasmid {{ from: w.ring }}\n"
    result = check_text(text, "c.lab")
    assert [d.code for d in result.report] == []
    for export in (export_t1_text, export_t3_text):
        out, report = export(result)
        assert out is None and [d.code for d in report] == ["E0052"]
    model = build_model(result.program, Report()).model
    assert "circular" in library_svg(model.libraries[0])
    assert "circular double stranded" in workflow_svg(model.graphs[0])
    assert json.loads(json.dumps(provenance(result)))["libraries"][0]["circular"] is True


def test_docs_cloning_example_checks_clean_and_derives_a_circle_and_its_amplicon() -> None:
    """docs/molecular.md's cloning example joins the two fragments at the HindIII end,
    closes the EcoRI junction into a circle and amplifies across its origin."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "molecular.md").read_text("utf-8")
    section = doc.split("### Joining products of earlier steps", 1)[1]
    block = section.split("```lab\n", 1)[1].split("```", 1)[0]
    result = check_text(block, "cloning.lab")
    assert [d.code for d in result.report] == []
    graph = build_model(result.program, Report()).model.graphs[0]
    states = {s.name: s for s in graph.states}
    assert states["plasmid"].circular and not states["check"].circular
    assert len(states["plasmid"].strands[0].seq) == 23 + 30
    amplicon = "".join(map(str, plain(states["check"].strands[0].seq).tokens()))
    assert amplicon == "CTCTGGATCCGAACTTGG" + "AATTCCGATACGGTTACGATGCAAGCTT"


def test_an_input_declared_circular_is_a_circle_digest_opens() -> None:
    """`input t: ... as circular` is a closed circle: EcoRI's site across its origin
    (the last base and the first five) linearizes it."""
    codes, states = _derive(
        "  input t: DNA 5'-AATTCACGTTGCAAGGCTTACGATCGGACGTG-3' as circular\n"
        "  one = digest(t, enzyme: EcoRI)\n  output one"
    )
    assert codes == [] and states["t"].circular  # type: ignore[attr-defined]
    assert _strands(states["one"]) == [
        "AATTCACGTTGCAAGGCTTACGATCGGACGTG",
        "AATTCACGTCCGATCGTAAGCCTTGCAACGTG",
    ]
