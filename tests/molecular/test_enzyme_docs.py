"""`lablang explain ENZYME`: a restriction enzyme's site, cut, ends and methylation
dependence, read from the REBASE table."""

from __future__ import annotations

from lablang.molecular.enzyme_docs import describe_enzyme


def test_an_enzyme_is_described_by_its_site_cut_and_ends() -> None:
    """EcoRI leaves a 4-base 5' overhang, EcoRV blunt ends, BsaI cuts outside its site
    (type IIS), and the name's case does not matter."""
    assert describe_enzyme("EcoRI") == "`EcoRI`: site G^AATTC, a 4-base 5' overhang (AATT)\n"
    assert describe_enzyme("ecorv") == "`EcoRV`: site GAT^ATC, blunt ends\n"
    assert describe_enzyme("BsaI") == "`BsaI`: site GGTCTC(1/5), a 4-base 5' overhang\n"


def test_dam_methylation_dependence_is_stated_and_an_unknown_name_is_none() -> None:
    """DpnI needs a methylated site, MboI is blocked by one; a name outside the table is
    not an enzyme (the CLI then tries diagnostic codes)."""
    assert "cuts only Dam-methylated GATC" in (describe_enzyme("DpnI") or "")
    assert "Dam methylation of GATC blocks it" in (describe_enzyme("MboI") or "")
    assert describe_enzyme("SbfJ") is None
