"""Restriction digestion: the added enzymes' sites and cuts, type IIS cuts outside the
site on either strand, Dam-methylation dependence and sites inside a payload."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Disposition, Duplex
from lablang.molecular.sequence import parse_notation, render


def pieces(text: str, enzyme: str, **kw: bool) -> list[Duplex]:
    pool = ops.digest(Duplex(core=parse_notation(text)), enzyme, **kw)
    out = [p.molecule for p in pool.products]
    assert all(isinstance(m, Duplex) for m in out)
    return out  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("enzyme", "site", "left_top", "left_bottom"),
    [
        ("SalI", "GTCGAC", "AAG", "TCGACTT"),  # G^TCGAC: 5' overhang TCGA
        ("PvuI", "CGATCG", "AACGAT", "CGTT"),  # CGAT^CG: 3' overhang AT
        ("PacI", "TTAATTAA", "AATTAAT", "TAATT"),  # TTAAT^TAA: 3' overhang AT
    ],
)
def test_added_palindromic_enzymes_cut_at_their_published_positions(
    enzyme: str, site: str, left_top: str, left_bottom: str
) -> None:
    """SalI, PvuI and PacI cut their site where NEB draws the cut, on both strands."""
    left, right = pieces(f"AA{site}AA", enzyme)
    assert render(left.top) == f"5'-{left_top}-3'"
    assert render(left.bottom) == f"5'-{left_bottom}-3'"
    assert right.top_phosphate and left.bottom_phosphate


def test_type_iis_bcivi_cuts_six_and_five_bases_past_its_site_on_either_strand() -> None:
    """BciVI GTATCC(6/5) cuts downstream of its site, leaving a 1-base 3' overhang, and
    finds the site read on the bottom strand (GGATAC on the top) with mirrored cuts."""
    left, right = pieces("AAAAGTATCCACGTACGTACGT", "BciVI")
    assert render(left.top) == "5'-AAAAGTATCCACGTAC-3'"
    assert render(left.right.top) == "5'-C-3'"  # the 3' overhang
    assert render(right.top) == "5'-GTACGT-3'"
    left, right = pieces("ACGTACGTACGTGGATACAAAA", "BciVI")
    assert render(right.bottom) == "5'-TTTTGTATCCACGTAC-3'"
    assert render(left.top) == "5'-ACGTACG-3'"


def test_type_iis_cut_beyond_the_molecule_end_is_refused() -> None:
    """A BciVI site too near the end to cut six bases past it gives E0422."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.digest(Duplex(core=parse_notation("AAAAGTATCCAC")), "BciVI")
    assert caught.value.code == "E0422" and "outside the molecule" in caught.value.message


def test_dpni_cuts_methylated_gatc_blunt_and_leaves_unmethylated_sites_with_the_reason() -> None:
    """DpnI cuts Gm6A^TC only when the DNA is Dam-methylated; unmethylated, the molecule
    is carried uncut with the reason; Dam methylation blocks MboI instead."""
    left, right = pieces("AAGATCAA", "DpnI", methylated=True)
    assert render(left.top) == "5'-AAGA-3'" and left.right.blunt
    assert render(right.top) == "5'-TCAA-3'"
    uncut = ops.digest(Duplex(core=parse_notation("AAGATCAA")), "DpnI").products
    assert [p.name for p in uncut] == ["uncut"]
    assert uncut[0].disposition is Disposition.CARRIED
    assert "only Dam-methylated" in uncut[0].reason
    blocked = ops.digest(Duplex(core=parse_notation("AAGATCAA")), "MboI", methylated=True)
    assert "blocks MboI" in blocked.products[0].reason
    assert len(pieces("AAGATCAA", "MboI")) == 2


def test_payload_sites_give_the_end_and_inner_fragments_of_a_genome() -> None:
    """With `payload_sites: true`, DpnI on methylated gDNA gives its left end, the inner
    fragment TC [GDNA] GA between two sites, and its right end."""
    got = [render(m.top) for m in pieces("[GDNA]", "DpnI", methylated=True, payload_sites=True)]
    assert got == ["5'-[GDNA] GA-3'", "5'-TC [GDNA] GA-3'", "5'-TC [GDNA]-3'"]
    # without the flag the payload's sites are unknown: nothing is cut
    assert len(pieces("[GDNA]", "DpnI", methylated=True)) == 1


def test_payload_sites_of_a_non_palindromic_enzyme_are_refused() -> None:
    """A type IIS site inside a payload has no known orientation: E0422 says so."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.digest(Duplex(core=parse_notation("[GDNA]")), "BciVI", payload_sites=True)
    assert caught.value.code == "E0422" and "not palindromic" in caught.value.message


METHYLATED_Y = ops.Oligo(
    "my",
    (
        parse_notation("/5Phos/GATCGGAAGAGCACACGTCT").with_label("my"),
        parse_notation("ACACTCTTTCCCTACACGACGCTCTTCCGATCT").with_label("my"),
    ),  # labelled with the oligo's name, as a `.lab` oligo's parts are
    "double_stranded",
)


def test_rrbs_fragment_mspi_cut_and_filled_from_a_genome() -> None:
    """MspI (C^CGG) on gDNA with `payload_sites` gives the inner fragment CGG [GDNA] C
    with 5' CG overhangs; end repair fills them to CGG [GDNA] CCG."""
    inner = pieces("[GDNA]", "MspI", payload_sites=True)[1]
    assert render(inner.top) == "5'-CGG [GDNA] C-3'"
    assert render(ops.end_repair(inner).top) == "5'-CGG [GDNA] CCG-3'"


def test_bisulfite_spares_the_cytosines_of_a_methylated_adaptor() -> None:
    """With `spare: [adaptor]`, the ligated 5mC adaptor keeps every C while the insert's
    unmethylated C become T, on both strands; without it the adaptor is converted too."""
    insert = ops.a_tail(ops.end_repair(Duplex(core=parse_notation("CGG [GDNA] CCG"))))
    ligated = ops.ligate(insert, METHYLATED_Y)
    assert isinstance(ligated, Duplex)
    spared = ops.bisulfite(ligated, spare=[METHYLATED_Y]).products
    top = render(spared[0].molecule.strand.seq)  # type: ignore[union-attr]
    assert top == ("5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCTTGG [GDNA] TTGAGATCGGAAGAGCACACGTCT-3'")
    bottom = render(spared[1].molecule.strand.seq)  # type: ignore[union-attr]
    assert bottom.startswith("5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCTTGG [GDNA']")
    plain_top = render(ops.bisulfite(ligated).products[0].molecule.strand.seq)  # type: ignore[union-attr]
    assert plain_top.startswith("5'-ATATTTTTTTTTTATATGATGTTTTTTTGATTTTGG [GDNA]")


def test_bisulfite_sparing_an_oligo_not_in_the_molecule_is_e0423() -> None:
    """Sparing an adaptor that was never ligated protects nothing: E0423 names it."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.bisulfite(Duplex(core=parse_notation("ACGT [GDNA] ACGT")), spare=[METHYLATED_Y])
    assert caught.value.code == "E0423" and "`my`" in caught.value.message


def test_sbfi_from_rebase_and_the_same_site_given_by_hand_cut_alike() -> None:
    """SbfI (CCTGCA^GG, not in the old hand list) comes from the REBASE table, and
    `site: "CCTGCA^GG"` gives the same pieces: a 4-base 3' overhang TGCA."""
    molecule = Duplex(core=parse_notation("AACCTGCAGGAA"))
    by_name = ops.digest(molecule, enzyme="SbfI")
    by_site = ops.digest(molecule, site="CCTGCA^GG")
    assert [p.molecule for p in by_name.products] == [p.molecule for p in by_site.products]
    left = by_name.products[0].molecule
    assert isinstance(left, Duplex) and render(left.top) == "5'-AACCTGCA-3'"
    assert render(left.bottom) == "5'-GGTT-3'"


def test_a_type_iis_site_is_written_with_its_cuts_past_the_site() -> None:
    """`GGTCTC(1/5)` is BsaI's own entry: cuts 1 and 5 bases past the site's 3' end."""
    molecule = Duplex(core=parse_notation("AAGGTCTCAACGTTTTT"))
    by_site = ops.digest(molecule, site="GGTCTC(1/5)").products
    by_name = ops.digest(molecule, enzyme="BsaI").products
    assert len(by_site) == 2 and [p.molecule for p in by_site] == [p.molecule for p in by_name]


def test_a_degenerate_site_cuts_only_bases_it_certainly_admits() -> None:
    """BsaJI's site CCNNGG cuts CCATGG; a designed `N` in the site's `G` is not a
    certain site, so that molecule is left uncut."""
    assert len(ops.digest(Duplex(core=parse_notation("AACCATGGAA")), "BsaJI").products) == 2
    uncut = ops.digest(Duplex(core=parse_notation("AACCATGNAA")), "BsaJI")
    assert [p.name for p in uncut.products] == ["uncut"]


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"enzyme": "SbfII"}, "did you mean `SbfI`?"),
        ({}, "one of `enzyme:`"),
        ({"enzyme": "EcoRI", "site": "G^AATTC"}, "one of `enzyme:`"),
        ({"site": "CCTGCAGG"}, "marks no cut"),
    ],
)
def test_an_unknown_enzyme_or_an_unmarked_site_is_e0412_with_its_fix(
    kw: dict[str, str], needle: str
) -> None:
    """A misspelt enzyme gets did-you-mean; no enzyme, both, or a site without `^` is E0412."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.digest(Duplex(core=parse_notation("AAGAATTCAA")), **kw)  # type: ignore[arg-type]
    text = caught.value.message + " " + (caught.value.help or "")
    assert caught.value.code == "E0412" and needle in text


def test_a_double_digest_cuts_at_both_enzymes_sites_in_one_step() -> None:
    """`digest(x, enzyme: [EcoRI, BamHI])` gives three pieces; the middle one has EcoRI's
    AATT and BamHI's GATC 5' overhangs, as two single digests in a row would leave it."""
    from lablang.diagnostics import Report
    from lablang.driver import check_text
    from lablang.molecular.front import build_model

    text = """
workflow w {
  input d: DNA 5'-AAGAATTCAAAAGGATCCAA-3' as duplex
  both = digest(d, enzyme: [EcoRI, BamHI])
  output both as gene_expression
}
workflow v {
  input d: DNA 5'-AAGAATTCAAAAGGATCCAA-3' as duplex
  one = digest(d, enzyme: EcoRI)
  two = digest(one, enzyme: BamHI)
  output two as gene_expression
}
"""
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == []
    derived = build_model(result.program, Report()).derived
    both = [p.molecule for p in derived["w.both"].carried]
    assert len(both) == 3
    middle = both[1]
    assert isinstance(middle, Duplex) and render(middle.top) == "5'-AATTCAAAAG-3'"
    assert render(middle.bottom) == "5'-GATCCTTTTG-3'"
    stepwise = {render(p.molecule.top) for p in derived["v.two"].carried}  # type: ignore[union-attr]
    assert {render(m.top) for m in both} == stepwise  # type: ignore[union-attr]
