"""The interpreter's operations, each on a hand-worked example (successes and failures)."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import (
    Architecture,
    Disposition,
    Duplex,
    End,
    MolType,
    Pool,
    Product,
    Single,
    Strand,
    architecture,
)
from lablang.molecular.sequence import bases, parse_notation, render, render_libstruct, unflag

TEMPLATE = "AAAACCCCGGGGTTTTACGTACGTAC"


def dna(text: str, name: str = "t") -> Single:
    return Single(Strand(parse_notation(text), MolType.DNA, name))


def rna(text: str, name: str = "mrna") -> Single:
    return Single(Strand(parse_notation(text), MolType.RNA, name))


TRUSEQ_ADAPTER = ops.Oligo(
    "truseq",
    (parse_notation("/5Phos/GATCGGAAGAGCACACGTCTGAACTCCAGTCA"), parse_notation("GCTCTTCCGATCT")),
    "double_stranded",
)


def test_anneal_finds_the_site_paired_from_the_3_end() -> None:
    """A primer anneals where its 3' end pairs; the 5' tail stays unpaired."""
    # primer 3' part GTACGTACGTAAAACCCC pairs with template GGGGTTTTACGTACGTAC
    sites = ops.anneal_sites(bases("GGTTGTACGTACGTAAAACCCC"), bases(TEMPLATE))
    assert [(s.start, s.stop, s.primer_paired) for s in sites] == [(8, 26, 18)]


def test_anneal_requires_the_3_terminal_base_to_pair() -> None:
    """A 3'-terminal mismatch prevents priming even when 17 bases further 5' pair."""
    assert ops.anneal_sites(bases("GTACGTACGTAAAACCCA"), bases(TEMPLATE)) == []


def test_extension_copies_the_template_to_its_5_end() -> None:
    """Extension gives primer (with tail) + reverse complement of the template upstream."""
    duplex = ops.extend(dna(TEMPLATE), ops.oligo("p", "GGTTGTACGTACGTAAAACCCC"))
    assert render(duplex.top) == "5'-GGTTGTACGTACGTAAAACCCCGGGGTTTT-3'"
    assert render(duplex.bottom) == f"5'-{TEMPLATE}-3'"
    assert render(duplex.left.top) == "5'-GGTT-3'"  # the unpaired 5' tail


def test_primer_without_site_reports_the_closest_match() -> None:
    """No site: the failure says where the closest match is and how many bases pair."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.extend(dna(TEMPLATE), ops.oligo("p", "GGGGGGGGGGAAAACCCC"))
    notes = " ".join(caught.value.notes)
    assert caught.value.code == "E0401"
    assert (
        "strand `t` at base 9" in notes
        and "8 bases pair from the primer's 3' end (needs 12)" in notes
    )
    assert "best ungapped alignment pairs 11 bases" in notes


def test_anchored_oligo_dt_primes_at_the_start_of_the_polya_tail() -> None:
    """`(T)30 VN` pairs VN inside the payload next to the tail: the cDNA is primer + [CDNA']."""
    hybrid = ops.reverse_transcribe(
        rna("[CDNA] (A)30"), ops.oligo("dT", "ACGT (T)30 VN"), nontemplated=""
    )
    assert render(hybrid.top) == "5'-ACGT (T)30 VN [CDNA']-3'"
    assert architecture(hybrid) is Architecture.RNA_DNA_HYBRID


def test_reverse_transcription_adds_nontemplated_ccc_and_template_switching_copies_the_tso() -> (
    None
):
    """RT ends the cDNA with CCC; the TSO's rGrGrG pairs with it and the cDNA gains TSO'."""
    bead = ops.oligo("bead", "CTACACGACGCTCTTCCGATCT [CELL_BARCODE:16] [UMI:12] (T)30 VN")
    tso = ops.oligo("tso", "AAGCAGTGGTATCAACGCAGAGTACATrGrGrG")
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), bead)
    assert render_libstruct(hybrid.top).endswith("VN[CDNA]CCC")
    switched = ops.template_switch(hybrid, tso)
    assert render_libstruct(switched.top).endswith("VN[CDNA]CCCATGTACTCTGCGTTGATACCACTGCTT")


def test_template_switch_fails_when_the_tso_cannot_pair_with_ccc() -> None:
    """A TSO ending in rArArA does not pair with the non-templated CCC."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), ops.oligo("dT", "ACGT (T)30 VN"))
    with pytest.raises(ops.OperationFailure) as caught:
        ops.template_switch(hybrid, ops.oligo("bad", "AAGCAGTGGTATCAACrArArA"))
    assert caught.value.code == "E0401"


def test_reverse_transcription_needs_rna() -> None:
    """Reverse transcription on a DNA template is refused with the alternative named."""
    with pytest.raises(ops.OperationFailure, match="RNA template"):
        ops.reverse_transcribe(dna("[CDNA] (A)30"), ops.oligo("dT", "(T)30 VN"))


def test_pcr_amplicon_carries_both_5_tails() -> None:
    """The amplicon is F (with tail) + template between the sites + R' (with tail)."""
    template = dna("ACGTTGCAACGTTGCA [GDNA] GGCCTTAAGGCCTTAA")
    fwd = ops.oligo("F", "TTTTT ACGTTGCAACGTTGCA")
    rev = ops.oligo("R", "CCCCC TTAAGGCCTTAAGGCC")
    pool = ops.pcr(template, [fwd, rev])
    assert len(pool.carried) == 1
    top = pool.carried[0].molecule
    assert isinstance(top, Duplex)
    assert render_libstruct(unflag(top.top)) == "TTTTTACGTTGCAACGTTGCA[GDNA]GGCCTTAAGGCCTTAAGGGGG"


def test_pcr_with_one_binding_primer_reports_linear_product() -> None:
    """When only one primer binds, the product is discarded as linear, not amplified."""
    template = dna("ACGTTGCAACGTTGCA [GDNA] GGCCTTAAGGCCTTAA")
    pool = ops.pcr(
        template, [ops.oligo("F", "ACGTTGCAACGTTGCA"), ops.oligo("R", "GGGGGGGGGGGGGGGG")]
    )
    assert pool.carried == ()
    assert "only `F` binds: linear copies" in pool.discarded[0].reason


def test_pcr_same_primer_at_both_ends_of_a_fragment_is_suppressed() -> None:
    """A tagmented or sheared fragment flanked by one primer's sites on both strands is
    discarded as suppressed (short pan-handle)."""
    template = Single(
        Strand(ops.as_fragments(parse_notation("ACGTTGCAACGTTGCA [GDNA] TGCAACGTTGCAACGT")))
    )
    pool = ops.pcr(
        template, [ops.oligo("F", "ACGTTGCAACGTTGCA"), ops.oligo("R", "GGGGGGGGGGGGGGGG")]
    )
    assert pool.carried == ()
    assert any("suppression PCR" in p.reason for p in pool.discarded)


def test_pcr_primer_binding_nowhere_fails() -> None:
    """If neither primer binds, PCR fails with the closest-match diagnostic."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.pcr(
            dna("ACGTTGCAACGTTGCA [GDNA]"),
            [ops.oligo("F", "GGGGGGGGGGGGGG"), ops.oligo("R", "CCCCCCCCCCCCCC")],
        )
    assert caught.value.code == "E0401"


def test_fragmentation_gives_end_and_internal_classes() -> None:
    """Breaks inside the payload give a left end, an internal payload and a right end piece."""
    duplex = Duplex(core=parse_notation("ACGTACGTACGT [CDNA] TTTTGGGGCCCC"))
    pool = ops.fragment(duplex)
    names = [p.name for p in pool.products]
    assert names == ["left end fragment", "internal payload fragment", "right end fragment"]
    assert render(pool.products[0].molecule.core) == "5'-ACGTACGTACGT [CDNA]-3'"  # type: ignore[union-attr]
    assert pool.products[0].molecule.right.ragged  # type: ignore[union-attr]


def test_end_repair_blunts_and_phosphorylates_and_a_tailing_adds_single_as() -> None:
    """End repair fills 5' overhangs and removes 3' ones; A-tailing adds one A per 3' end."""
    duplex = Duplex(core=bases("ACGTACGT"), left=End(top=bases("GG")), right=End(top=bases("CC")))
    repaired = ops.end_repair(duplex)
    assert (
        render(repaired.top) == "5'-GGACGTACGT-3'" and repaired.left.blunt and repaired.right.blunt
    )
    assert repaired.top_phosphate and repaired.bottom_phosphate
    tailed = ops.a_tail(repaired)
    assert render(tailed.top) == "5'-GGACGTACGTA-3'"
    assert render(tailed.bottom) == "5'-ACGTACGTCCA-3'"


def test_a_tailing_refuses_ragged_ends() -> None:
    """A-tailing unrepaired fragments fails and says to run end_repair first."""
    fragment = ops.fragment(Duplex(core=parse_notation("ACGTACGTACGT [CDNA]"))).products[0].molecule
    with pytest.raises(ops.OperationFailure, match="blunt"):
        ops.a_tail(fragment)


def test_ta_ligation_joins_a_tail_to_t_overhang_adapter() -> None:
    """An A-tailed fragment ligates to a T-overhang adapter at both ends."""
    insert = ops.a_tail(ops.end_repair(Duplex(core=parse_notation("ACGT [CDNA] ACGT"))))
    ligated = ops.ligate(insert, TRUSEQ_ADAPTER)
    top = render_libstruct(unflag(ligated.top))
    assert top == "GCTCTTCCGATCTACGT[CDNA]ACGTAGATCGGAAGAGCACACGTCTGAACTCCAGTCA"
    assert ligated.nicks == ()


def test_ligation_of_blunt_fragment_to_t_overhang_adapter_fails() -> None:
    """Blunt ends and a 3' T overhang are incompatible; the message describes both ends."""
    insert = ops.end_repair(Duplex(core=parse_notation("ACGT [CDNA] ACGT")))
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(insert, TRUSEQ_ADAPTER)
    assert caught.value.code == "E0402"
    assert "blunt" in caught.value.message and "3' overhang `T`" in caught.value.message


def test_sticky_ends_ligate_only_when_complementary() -> None:
    """EcoRI-cut ends rejoin; an EcoRI end does not join a HindIII end."""
    eco = ops.digest(
        Duplex(core=bases("ACGTACGAATTCTTGGCC"), top_phosphate=True, bottom_phosphate=True), "EcoRI"
    )
    left, right = (p.molecule for p in eco.products)
    assert isinstance(left, Duplex) and isinstance(right, Duplex)
    assert render(right.left.top) == "5'-AATT-3'"
    ok, _ = ops.ends_compatible(left, right)
    assert ok
    hind = ops.digest(Duplex(core=bases("ACGTAAGCTTACGT")), "HindIII").products[1].molecule
    assert isinstance(hind, Duplex)
    assert not ops.ends_compatible(left, hind)[0]


def test_ligation_without_any_phosphate_fails() -> None:
    """With no 5' phosphate on either strand at the junction nothing is ligated."""
    insert = ops.a_tail(ops.end_repair(Duplex(core=parse_notation("ACGT [CDNA] ACGT"))))
    insert = Duplex(core=insert.core, left=insert.left, right=insert.right)  # phosphates dropped
    bare = ops.Oligo(
        "bare",
        (parse_notation("GATCGGAAGAGCACACGTCTGAACTCCAGTCA"), parse_notation("GCTCTTCCGATCT")),
        "double_stranded",
    )
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(insert, bare, ends="right")
    assert caught.value.code == "E0403"


def test_tagmentation_mix_and_which_products_amplify() -> None:
    """Tn5 gives A-A, A-B, B-B at 1:2:1; only A-B amplifies with Nextera index primers."""
    a = ops.oligo("A", "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG")
    b = ops.oligo("B", "GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG")
    pool = ops.tagment(Duplex(core=parse_notation("[GDNA]")), [a, b])
    assert [(p.name, p.fraction) for p in pool.products] == [
        ("A-insert-A", 0.25),
        ("A-insert-B", 0.5),
        ("B-insert-B", 0.25),
    ]
    i5 = ops.oligo("N5", "AATGATACGGCGACCACCGAGATCTACAC [I5_INDEX:8] TCGTCGGCAGCGTC")
    i7 = ops.oligo("N7", "CAAGCAGAAGACGGCATACGAGAT [I7_INDEX:8] GTCTCGTGGGCTCGG")
    outcomes = {p.name: ops.pcr(p.molecule, [i5, i7]) for p in pool.products}
    assert [n for n, o in outcomes.items() if o.carried] == ["A-insert-B"]
    library = outcomes["A-insert-B"].carried[0].molecule
    assert render_libstruct(unflag(library.top)) == (  # type: ignore[union-attr]
        "AATGATACGGCGACCACCGAGATCTACAC[I5_INDEX:8]TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG[GDNA]"
        "CTGTCTCTTATACACATCTCCGAGCCCACGAGAC[I7_INDEX:8]ATCTCGTATGCCGTCTTCTGCTTG"
    )
    assert all(
        "suppression" in o.products[0].reason for n, o in outcomes.items() if n != "A-insert-B"
    )


def test_denaturation_separates_strands_and_keep_selects_one() -> None:
    """Denaturing a hybrid gives its two strands; keep: DNA discards the RNA."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), ops.oligo("dT", "ACGT (T)30 VN"))
    pool = ops.denature(hybrid, keep="DNA")
    assert [(p.disposition, p.molecule.strand.moltype) for p in pool.products] == [  # type: ignore[union-attr]
        (Disposition.CARRIED, MolType.DNA),
        (Disposition.DISCARDED, MolType.RNA),
    ]


def test_digestion_leaves_the_enzymes_overhang() -> None:
    """NlaIII (CATG^) leaves a 3' CATG overhang on the left piece."""
    pool = ops.digest(Duplex(core=bases("AAAACATGTTTT")), "NlaIII")
    left = pool.products[0].molecule
    assert isinstance(left, Duplex)
    assert render(left.core) == "5'-AAAA-3'" and render(left.right.top) == "5'-CATG-3'"


def test_unknown_enzyme_is_refused() -> None:
    """An enzyme not in the table is an error naming the known ones."""
    with pytest.raises(ops.OperationFailure, match="unknown restriction enzyme"):
        ops.digest(Duplex(core=bases("ACGT")), "Xyz")


def test_bisulfite_converts_unmethylated_c_only() -> None:
    """C becomes T unless methylated; with methylated: cpg, C before G stays."""
    pool = ops.bisulfite(dna("ACGTCCA"), methylated="cpg")
    assert render(pool.products[0].molecule.strand.seq) == "5'-ACGTTTA-3'"  # type: ignore[union-attr]
    pool = ops.bisulfite(dna("ACGTCCA"))
    assert render(pool.products[0].molecule.strand.seq) == "5'-ATGTTTA-3'"  # type: ignore[union-attr]


def test_bisulfite_spares_the_methylation_context_it_is_given() -> None:
    """GpC methylation (M.CviPI, NOMe-seq) keeps each C after a G, CpG each C before a
    G, both keep the two, and the rest become T: GCGC CAGC CG reads as below."""
    converted = {
        context: render(
            ops.bisulfite(dna("GCGCCAGCCG"), methylated=context).products[0].molecule.strand.seq
        )  # type: ignore[union-attr]
        for context in ("none", "cpg", "gpc", "cpg_gpc", "all")
    }
    assert converted == {
        "none": "5'-GTGTTAGTTG-3'",
        "cpg": "5'-GCGTTAGTCG-3'",
        "gpc": "5'-GCGCTAGCTG-3'",
        "cpg_gpc": "5'-GCGCTAGCCG-3'",
        "all": "5'-GCGCCAGCCG-3'",
    }


def test_split_pool_rounds_add_barcodes_in_order() -> None:
    """Three ligation rounds at the 5' end leave the last round's barcode (and its
    phosphate) outermost; the joined phosphates become internal bonds."""
    start = Single(Strand(parse_notation("[CDNA]"), MolType.DNA, "cdna", phosphate_5p=True))
    rounds = [ops.oligo(f"bc{i}", f"/5Phos/ ACGT [ROUND{i}_BARCODE:8]") for i in (1, 2, 3)]
    out = ops.split_pool(start, rounds, ligase="rna")
    assert render_libstruct(out.strand.seq) == (  # type: ignore[union-attr]
        "/5Phos/ACGT[ROUND3_BARCODE:8]ACGT[ROUND2_BARCODE:8]ACGT[ROUND1_BARCODE:8][CDNA]"
    )


def test_barcode_ligation_needs_a_phosphate() -> None:
    """Ligating a barcode to a 3' end without a 5'-phosphorylated oligo fails."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.barcode_round(dna("[CDNA] ACGT"), ops.oligo("bc", "ACGTACGT"), end="3'", ligase="rna")
    assert caught.value.code == "E0403"


def test_barcode_by_extension_copies_the_oligo() -> None:
    """By extension the molecule's 3' end anneals to the oligo and copies its 5' part."""
    oligo = ops.oligo("bc", "GGGGG [BC:8] GTACGTACGTAAAACCCC")
    out = ops.barcode_round(dna(TEMPLATE), oligo, end="3'", by="extension")
    assert render_libstruct(unflag(out.strand.seq)) == TEMPLATE + "[BC:8]CCCCC"  # type: ignore[union-attr]


def test_capture_keeps_only_products_with_the_probe_site() -> None:
    """Capture by a probe carries molecules it pairs with and discards the rest."""
    pool = Pool((Product(dna(TEMPLATE, "hit")), Product(dna("GGGGGGGGGGGGGGGGGG", "miss"))))
    out = ops.capture(pool, ops.oligo("probe", "GTACGTACGTAAAACCCC"))
    assert [p.disposition for p in out.products] == [Disposition.CARRIED, Disposition.DISCARDED]


def test_size_selection_discards_short_products_and_keeps_unknown_payloads() -> None:
    """Products shorter than the window are discarded; a payload of unknown length is kept."""
    pool = Pool((Product(dna("ACGT" * 10)), Product(dna("ACGT [CDNA]"))))
    out = ops.size_select(pool, minimum=100, maximum=600)
    assert [p.disposition for p in out.products] == [Disposition.DISCARDED, Disposition.CARRIED]
    assert "shorter than 100" in out.products[0].reason


def test_adapter_strands_that_do_not_pair_are_an_error() -> None:
    """A 'double-stranded' adapter whose strands share no 6-base stem is refused."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.adapter_duplex(
            ops.Oligo("x", (bases("AAAAAAAAAA"), bases("AAAAAAAAAA")), "double_stranded")
        )
    assert caught.value.code == "E0402"


def test_splint_must_bridge_the_ligation_junction() -> None:
    """A splint pairing across the junction lets the barcode ligate; one that does not is E0402."""
    start = Single(Strand(parse_notation("/5Phos/ AGGCCAGAGCATTCG [CDNA]"), MolType.DNA, "cdna"))
    barcode = ops.oligo("bc", "/5Phos/ CATCGGCGTACGACT [BC:8] ATCCACGTGCTTGAG")
    good = ops.oligo("linker", "CGAATGCTCTGGCCTCTCAAGCACGTGGAT")
    out = ops.barcode_round(start, barcode, end="5'", splint=good)
    assert render_libstruct(unflag(out.strand.seq)).endswith(  # type: ignore[union-attr]
        "ATCCACGTGCTTGAGAGGCCAGAGCATTCG[CDNA]"
    )
    with pytest.raises(ops.OperationFailure) as caught:
        ops.barcode_round(
            start, barcode, end="5'", splint=ops.oligo("bad", "CGAATGCTCTGGCCTGGGGGGGGGGGGGGG")
        )
    assert caught.value.code == "E0402" and "does not bridge" in caught.value.message


def test_second_strand_without_primer_replaces_the_rna() -> None:
    """RNase H / Pol I turns an RNA:DNA hybrid into a blunt DNA duplex with the cDNA on top."""
    hybrid = ops.reverse_transcribe(rna("[CDNA] (A)30"), ops.oligo("dT", "ACGTACGT (T)30 VN"))
    duplex = ops.second_strand(hybrid)
    assert isinstance(duplex, Duplex)
    assert architecture(duplex) is Architecture.DOUBLE_STRANDED
    assert duplex.top == hybrid.top and duplex.left.blunt and duplex.right.blunt


def test_second_strand_without_primer_needs_a_hybrid() -> None:
    """Without a primer there is nothing to prime a single DNA strand: E0412."""
    with pytest.raises(ops.OperationFailure, match="RNA:DNA hybrid"):
        ops.second_strand(dna(TEMPLATE))


def test_linear_amplification_copies_every_strand_the_primer_binds() -> None:
    """A primer that binds one strand of a duplex gives one copy; one that binds none is discarded."""
    duplex = Duplex(core=parse_notation("GATTACAGGCTTACCA [GDNA] GGCCTTAAGGCCTTAA"))
    pool = ops.linear_amplify(duplex, ops.oligo("P", "TTTTT GATTACAGGCTTACCA"))
    assert len(pool.carried) == 1
    copy = pool.carried[0].molecule
    assert isinstance(copy, Duplex)
    assert render_libstruct(unflag(copy.top)).startswith("TTTTTGATTACAGGCTTACCA[GDNA]")
    missed = ops.linear_amplify(duplex, ops.oligo("Q", "GGGGGGGGGGGGGGGG"))
    assert missed.carried == () and "binds neither strand" in missed.discarded[0].reason


def test_single_primer_pcr_amplifies_the_molecule_it_flanks() -> None:
    """One primer (or the same sequence twice) amplifies a molecule with its site at both ends."""
    template = dna("AAGCAGTGGTATCAACGCAGAGT [CDNA] ACTCTGCGTTGATACCACTGCTT")
    for primers in (
        [ops.oligo("ISPCR", "AAGCAGTGGTATCAACGCAGAGT")],
        [ops.oligo("a", "AAGCAGTGGTATCAACGCAGAGT"), ops.oligo("b", "AAGCAGTGGTATCAACGCAGAGT")],
    ):
        pool = ops.pcr(template, primers)
        assert len(pool.carried) == 1 and pool.discarded == ()


def test_size_selection_uses_a_given_payload_length() -> None:
    """With the payload's length range given, a product whose total cannot reach the window is discarded."""
    pool = Pool((Product(dna("ACGT [CDNA] ACGT")),))
    kept = ops.size_select(pool, minimum=100, maximum=600, payload_length=(150, 400))
    assert kept.carried
    dropped = ops.size_select(pool, minimum=500, maximum=600, payload_length=(50, 100))
    assert dropped.carried == () and "shorter than 500" in dropped.discarded[0].reason


def test_closest_match_ungapped_count_is_the_sum_over_every_alignment() -> None:
    """`closest_match`'s best ungapped alignment is the direct definition's: for each shift,
    the widths of the primer tokens that pair with the template token they face, over
    bases, degenerate codes, segments (and their complements) and homopolymer runs."""
    from lablang.molecular.ops.core import closest_match
    from lablang.molecular.pairing import token_width, tokens_pair
    from lablang.molecular.sequence import parse_notation

    templates = ["ACGTNNACGT[CB:16]GGTACC(A)30TTGA", "[UMI:12]ACGTRYACGTACGT", "GATTACA"]
    primers = ["TCAAAT(T)30GG", "[CB']ACGT", "ACGTRYSN", "TGTAATC", "A"]
    for template_text in templates:
        for primer_text in primers:
            primer, template = parse_notation(primer_text), parse_notation(template_text)
            p, t = primer.tokens(), template.tokens()
            m, best = len(p), (0, 0)
            for s in range(-m + 1, len(t)):
                hits = sum(
                    token_width(p[m - 1 - k])
                    for k in range(m)
                    if 0 <= s + k < len(t) and tokens_pair(p[m - 1 - k], t[s + k])
                )
                best = max(best, (hits, max(s, 0)), key=lambda pair: pair[0])
            found = closest_match(primer, template)
            assert (found.best_total, found.total_position) == best, (primer_text, template_text)
