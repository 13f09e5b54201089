"""PCR's priming sites and the 5' groups a duplex's strands keep, on hand-worked molecules."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import Duplex, End, MolType, Single, Strand
from lablang.molecular.sequence import bases, parse_notation, render

OLIGO_DT = "T" * 24


def dna(text: str, name: str = "t") -> Single:
    return Single(Strand(parse_notation(text), MolType.DNA, name))


def fragment_of(text: str) -> Single:
    """A strand whose payload a fragmenting step (Tn5, shearing) has cut."""
    return Single(Strand(ops.as_fragments(parse_notation(text)), MolType.DNA, "t"))


def duplex(products: ops.Pool, index: int = 0) -> Duplex:
    molecule = products.carried[index].molecule
    assert isinstance(molecule, Duplex)
    return molecule


def test_oligo_dt_on_a_poly_a_run_primes_once_not_at_every_offset() -> None:
    """A 3' oligo-dT pairs at 13 offsets along a 24-base poly(A) run; that is one site."""
    template = parse_notation(f"GGGGCCCC [CDNA] {'A' * 24} CCCCGGGG")
    primer = parse_notation(f"ACGTACGT {OLIGO_DT}")
    assert len(ops.anneal_sites(primer, template, 12)) == 13
    sites = ops.priming_sites(primer, template, 12)
    assert [(s.start, s.stop) for s in sites] == [(9, 33)]


def test_a_site_pairing_past_the_run_is_kept_beside_the_slipped_ones() -> None:
    """The primer's own full site (its tail pairing past the poly(A)) is the one kept."""
    template = parse_notation(f"[CDNA] {'A' * 24} GTCGACGGCGCG")
    primer = parse_notation(f"CGCGCCGTCGAC {OLIGO_DT}")
    sites = ops.priming_sites(primer, template, 12)
    assert [(s.start, s.stop, s.bases) for s in sites] == [(1, 37, 36)]


def test_two_oligo_dt_primers_on_a_cdna_tailed_at_both_ends_give_four_products() -> None:
    """Tang 2009's UP1/UP2 PCR in miniature: both primers end in oligo-dT and the cDNA has
    poly(A) at both ends, so each primes at both ends: UP1...UP2' in both orientations
    (amplified) and each primer at both ends around the whole cDNA (a pan-handle too long
    to be suppressed: amplified), not one product per offset."""
    up1 = ops.oligo("UP1", f"ATATGGATCCGGCGCGCCGTCGAC {OLIGO_DT}")
    up2 = ops.oligo("UP2", f"ATATCTCGAGGGCGCGCCGGATCC {OLIGO_DT}")
    cdna = Duplex(
        core=parse_notation(
            f"ATATCTCGAGGGCGCGCCGGATCC {OLIGO_DT} [CDNA] {'A' * 24} GTCGACGGCGCGCCGGATCCATAT"
        )
    )
    pool = ops.pcr(cdna, [up1, up2])
    assert len(pool.carried) == 4 and pool.discarded == ()
    tops = sorted(render(duplex(pool, k).top) for k in range(2))
    assert all(t.startswith("5'-ATATGGATCC") and t.endswith("CCCTCGAGATAT-3'") for t in tops)
    assert sorted("[CDNA]" in t for t in tops) == [False, True]  # the cDNA either way round
    long = [p for p in pool.carried if "suppression PCR" in p.reason]
    assert len(long) == 2 and all("too long to fold" in p.reason for p in long)


def test_many_distinct_site_pairs_still_exceed_the_product_limit() -> None:
    """The limit stays a limit: 40 distinct sites for each primer are refused with E0415."""
    fwd, rev = "ACGTTGCAAGCTTGCA", "GGCCTTAAGGACTTAA"
    rc_rev = render(ops.reverse_complement(bases(rev)))[3:-3]
    template = dna(" ".join([fwd] * 40) + " [GDNA] " + " ".join([rc_rev] * 40))
    with pytest.raises(ops.OperationFailure) as caught:
        ops.pcr(template, [ops.oligo("F", fwd), ops.oligo("R", rev)])
    assert caught.value.code == "E0415"


def test_the_reverse_primers_5_biotin_heads_the_bottom_strand() -> None:
    """After PCR the bottom strand starts with the reverse primer's 5' group, as the top
    strand starts with the forward primer's."""
    template = dna("ACGTTGCAACGTTGCA [GDNA] GGCCTTAAGGCCTTAA")
    fwd = ops.oligo("F", "/NH2/ ACGTTGCAACGTTGCA")
    rev = ops.oligo("R", "/5Biosg/ TTAAGGCCTTAAGGCC")
    amplicon = duplex(ops.pcr(template, [fwd, rev]))
    assert render(amplicon.top).startswith("5'-/NH2/ ACGT")
    assert render(amplicon.bottom).startswith("5'-/5Biosg/ TTAA")


def test_single_primer_pcr_puts_the_primers_biotin_on_both_strands() -> None:
    """One biotinylated primer at both ends (STRT-seq-C1's cDNA PCR) biotinylates both strands."""
    template = dna("AAGCAGTGGTATCAACGCAGAGT [CDNA] ACTCTGCGTTGATACCACTGCTT")
    amplicon = duplex(ops.pcr(template, [ops.oligo("ISPCR", "/5Biosg/ AAGCAGTGGTATCAACGCAGAGT")]))
    assert amplicon.top.modifications() == ("5Biosg",)
    assert amplicon.bottom.modifications() == ("5Biosg",)


def test_turning_a_duplex_over_keeps_both_strands_5_groups() -> None:
    """`flipped` swaps the strands; each keeps its 5' group, and flipping twice is identity."""
    molecule = Duplex(
        core=parse_notation("/NH2/ ACGTACGT [CDNA] TTGGCCAA"),
        right=End(five_prime=parse_notation("/5Biosg/")),
    )
    turned = molecule.flipped()
    assert render(turned.top).startswith("5'-/5Biosg/")
    assert render(turned.bottom).startswith("5'-/NH2/")
    assert render(turned.flipped().top) == render(molecule.top)
    assert render(turned.flipped().bottom) == render(molecule.bottom)


def test_extension_keeps_the_templates_5_group_on_the_template_strand() -> None:
    """A biotinylated template strand stays biotinylated in the duplex extension makes."""
    template = dna("/5Biosg/ GGGGAAAACCCC [CDNA] ACGTACGTACGTTTTT")
    made = ops.extend(template, ops.oligo("p", "AAAAACGTACGTACGT"))
    assert made.bottom.modifications() == ("5Biosg",)


def test_end_repair_does_not_phosphorylate_an_amine_blocked_5_end() -> None:
    """T4 PNK phosphorylates 5'-OH ends; a 5' amine (Tang 2009's AUP primers) stays blocked."""
    molecule = Duplex(
        core=parse_notation("/NH2/ ACGTACGT [CDNA] TTGGCCAA"),
        right=End(five_prime=parse_notation("/NH2/")),
    )
    repaired = ops.end_repair(molecule)
    assert not repaired.top_phosphate and not repaired.bottom_phosphate
    assert repaired.bottom.modifications() == ("NH2",)
    free = ops.end_repair(Duplex(core=parse_notation("ACGTACGT [CDNA] TTGGCCAA")))
    assert free.top_phosphate and free.bottom_phosphate
    assert not ops.kinase_accepts(parse_notation("/5Biosg/ ACGT"))


def test_fragmentation_keeps_each_original_end_with_its_5_group() -> None:
    """The end fragments keep the molecule's ends, and so their strands' 5' groups."""
    molecule = Duplex(
        core=parse_notation("/NH2/ ACGTACGT [CDNA] TTGGCCAA"),
        right=End(five_prime=parse_notation("/NH2/")),
    )
    pieces = {p.name: p.molecule for p in ops.fragment(molecule).products}
    left, right = pieces["left end fragment"], pieces["right end fragment"]
    assert isinstance(left, Duplex) and isinstance(right, Duplex)
    assert left.top.modifications() == ("NH2",) and left.bottom.modifications() == ()
    assert right.bottom.modifications() == ("NH2",) and right.top.modifications() == ()


UNPHOSPHORYLATED = ops.Oligo(
    "bare",
    (parse_notation("GATCGGAAGAGCACACG"), parse_notation("CGTGTGCTCTTCCGATC")),
    "double_stranded",
)


def test_ligation_at_both_ends_skips_a_5_blocked_end_and_joins_the_other() -> None:
    """A bead-bound (biotinylated) end takes no unphosphorylated adapter (neither strand
    there has a 5' phosphate); the repaired broken end does (STRT-seq's P2 adapter)."""
    molecule = Duplex(
        core=parse_notation("[CDNA] TTGGCCAAGGTT"),
        right=End(five_prime=parse_notation("/5Biosg/")),
    )
    joined = ops.ligate(ops.end_repair(molecule), UNPHOSPHORYLATED)
    products = joined.products if isinstance(joined, ops.Pool) else (ops.Product(joined),)
    for product in products:
        assert isinstance(product.molecule, Duplex)
        assert render(product.molecule.top).endswith("TTGGCCAAGGTT-3'")  # right end as it was
        assert render(product.molecule.bottom).startswith("5'-/5Biosg/")
        assert len(product.molecule.top) == 12 + 1 + 17  # the adapter on the left end


def test_ligation_fails_when_both_ends_are_5_blocked_or_the_blocked_end_is_asked_for() -> None:
    """With both 5' ends amine-blocked nothing joins (E0403); so does asking for the blocked end."""
    both = ops.end_repair(
        Duplex(
            core=parse_notation("/NH2/ ACGTACGT [CDNA] TTGGCCAA"),
            right=End(five_prime=parse_notation("/NH2/")),
        )
    )
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(both, UNPHOSPHORYLATED)
    assert caught.value.code == "E0403"
    with pytest.raises(ops.OperationFailure) as asked:
        ops.ligate(both, UNPHOSPHORYLATED, ends="left")
    assert asked.value.code == "E0403"


def test_tagmentation_keeps_the_molecules_own_ends_biotinylated_for_capture() -> None:
    """Tn5 end pieces keep the PCR primer's biotin on both ends, so streptavidin keeps both
    cDNA ends and loses the inner fragments (STRT-seq-C1)."""
    template = dna("AAGCAGTGGTATCAACGCAGAGT [CDNA] ACTCTGCGTTGATACCACTGCTT")
    amplicon = duplex(ops.pcr(template, [ops.oligo("P", "/5Biosg/ AAGCAGTGGTATCAACGCAGAGT")]))
    tn5 = ops.Oligo(
        "tn5",
        (
            parse_notation("GTCTCGTGGGCTCGG AGATGTGTATAAGAGACAG"),
            parse_notation("/5Phos/ CTGTCTCTTATACACATCT"),
        ),
        "double_stranded",
    )
    captured = ops.capture(ops.tagment(amplicon, [tn5, tn5]), probe="5Biosg")
    assert {p.name for p in captured.carried} == {"left end-tn5", "tn5-right end"}
    assert {p.name for p in captured.discarded} == {"tn5-insert-tn5"}


def test_a_random_primer_in_pcr_is_refused_as_not_modelled() -> None:
    """PCR with a random (N-mer or patterned) 3' end is E0436, not "binds nowhere"."""
    template = dna("ACGTTGCAACGTTGCA [GDNA] GGCCTTAAGGCCTTAA")
    for random_end in ("CCGACTCGAGAC NNNNNN", "AAGCAGTGGTATCAACGCAGAGTGA NNNGGNNNB"):
        with pytest.raises(ops.OperationFailure) as caught:
            ops.pcr(template, [ops.oligo("F", "ACGTTGCAACGTTGCA"), ops.oligo("R", random_end)])
        assert caught.value.code == "E0436" and "not modelled" in caught.value.message


def test_suppressed_keep_carries_one_primer_at_both_ends_and_names_suppression_pcr() -> None:
    """By default a short product one of two primers binds at both ends is discarded
    (suppression PCR); `suppressed="keep"` carries it, its reason naming suppression PCR
    (Drop-ChIP)."""
    template = fragment_of("ACGTTGCAACGTTGCA [GDNA] TGCAACGTTGCAACGT")
    primers = [ops.oligo("F", "ACGTTGCAACGTTGCA"), ops.oligo("R", "GGTTGGTTCCAACCAA")]
    default = ops.pcr(template, primers)
    assert (
        default.carried == ()
        and "at most 1000 bp: suppression PCR, not amplified" in default.discarded[0].reason
    )
    kept = ops.pcr(template, primers, suppressed="keep")
    assert len(kept.carried) == 1 and kept.discarded == ()
    assert "suppression PCR amplifies it inefficiently" in kept.carried[0].reason
    with pytest.raises(ops.OperationFailure) as caught:
        ops.pcr(template, primers, suppressed="sometimes")
    assert caught.value.code == "E0412"


F_ARM, R_ARM = "ACGTTGCAACGTTGCA", "GGTTGGTTCCAACCAA"
F_ARM_RC = "TGCAACGTTGCAACGT"


def test_suppression_is_a_length_effect_a_whole_payload_amplifies() -> None:
    """One primer of two at both ends of a whole (uncut) payload, a full-length cDNA, is
    too long to fold into a pan-handle: carried, the reason naming the length; the same
    arms around a Tn5 fragment are suppressed (SNARE-seq's one-tube PCR)."""
    primers = [ops.oligo("F", F_ARM), ops.oligo("R", R_ARM)]
    whole = ops.pcr(dna(f"{F_ARM} [CDNA] {F_ARM_RC}"), primers)
    assert len(whole.carried) == 1 and whole.discarded == ()
    assert "longer than 1000 bp" in whole.carried[0].reason
    cut = ops.pcr(fragment_of(f"{F_ARM} [CDNA] {F_ARM_RC}"), primers)
    assert cut.carried == () and "at most 1000 bp: suppression" in cut.discarded[0].reason


def test_suppression_reads_known_lengths_against_the_threshold() -> None:
    """Designed and fixed-length segments count their bases: a pan-handle of 32 bases plus
    a 1,000-base spacer (1,032 bp) amplifies; with a 900-base one (932 bp) it is
    suppressed; a primer dimer (no payload) is suppressed."""
    primers = [ops.oligo("F", F_ARM), ops.oligo("R", R_ARM)]
    long = ops.pcr(dna(f"{F_ARM} [SPACER:1000] {F_ARM_RC}"), primers)
    assert len(long.carried) == 1
    short = ops.pcr(dna(f"{F_ARM} [SPACER:900] {F_ARM_RC}"), primers)
    assert short.carried == ()
    dimer = ops.pcr(dna(f"{F_ARM} ACGTACGT {F_ARM_RC}"), primers)
    assert dimer.carried == () and "suppression PCR" in dimer.discarded[0].reason


def test_suppressed_discard_and_keep_override_the_length_rule() -> None:
    """`suppressed: discard` discards a long pan-handle, `keep` carries a short one."""
    primers = [ops.oligo("F", F_ARM), ops.oligo("R", R_ARM)]
    whole = dna(f"{F_ARM} [CDNA] {F_ARM_RC}")
    assert ops.pcr(whole, primers, suppressed="discard").carried == ()
    cut = fragment_of(f"{F_ARM} [CDNA] {F_ARM_RC}")
    assert len(ops.pcr(cut, primers, suppressed="keep").carried) == 1


def test_tagment_and_fragment_mark_their_payload_pieces_as_fragments() -> None:
    """Tn5 and shearing leave payload pieces (`Symbol.fragment`); the pieces pair and
    print as the same segment."""
    from lablang.molecular.sequence import Symbol

    genome = Duplex(core=parse_notation("[GDNA]"))
    tn5 = ops.oligo("A", "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG")
    for pool in (ops.tagment(genome, [tn5]), ops.fragment(genome)):
        for product in pool.products:
            top = product.molecule.top if isinstance(product.molecule, Duplex) else None
            assert top is not None
            payloads = [p for p in top.parts if isinstance(p, Symbol) and p.is_payload]
            assert payloads and all(p.fragment for p in payloads)
            assert "[GDNA]" in render(top)


def _payloads(molecule: object) -> list[object]:
    from lablang.molecular.sequence import Symbol

    assert isinstance(molecule, Duplex)
    return [p for p in molecule.top.parts if isinstance(p, Symbol) and p.is_payload]


def test_random_priming_and_a_four_base_cutter_leave_fragments_a_six_base_cutter_does_not() -> None:
    """A random primer copies a piece of the payload it primes in, and a four-base site
    inside a genome falls every ~256 bp: both payloads are fragments (suppressible); a
    six-base site (~4 kb apart) leaves whole pieces."""
    template = dna("GGCCTTAAGGCCTTAA [GDNA] ACGTTGCAACGTTGCA")
    primed = ops.extend(template, ops.oligo("N9", "GTGAGTGATGGTTGAGGTAGTGTGGAGNNNNNNNNN"))
    assert all(p.fragment for p in _payloads(primed))
    genome = Duplex(core=parse_notation("[GDNA]"))
    mspi = ops.digest(genome, "MspI", payload_sites=True)
    assert all(all(p.fragment for p in _payloads(x.molecule)) for x in mspi.products)
    ecori = ops.digest(genome, "EcoRI", payload_sites=True)
    assert not any(p.fragment for x in ecori.products for p in _payloads(x.molecule))


def test_a_primer_with_two_sites_makes_both_products_and_warns_not_specific() -> None:
    """A forward primer whose site is repeated gives two amplicons and W0407 naming the
    primer and both sites (pydna's "not specific"); a single site gives no warning."""
    fwd, rev = ops.oligo("f", "GATTACAGATTACAGGCTTC"), ops.oligo("r", "GCATGCTTAGCAAGTCGGAT")
    twice = "GATTACAGATTACAGGCTTC GGG GATTACAGATTACAGGCTTC AAAA ATCCGACTTGCTAAGCATGC"
    pool = ops.pcr(Duplex(core=parse_notation(twice)), [fwd, rev])
    assert len(pool.carried) == 2
    ((code, message, _help),) = pool.cautions
    assert code == "W0407" and "`f` is not specific" in message and "2 sites" in message
    once = ops.pcr(
        Duplex(core=parse_notation("GATTACAGATTACAGGCTTC AAAA ATCCGACTTGCTAAGCATGC")), [fwd, rev]
    )
    assert len(once.carried) == 1 and once.cautions == ()


def test_a_pcr_where_one_primer_binds_names_the_others_closest_site() -> None:
    """When only one primer binds, the discarded product's reason (E0404's note) gives the
    other primer's closest site and how many bases pair there, as E0401 does."""
    fwd, wrong = ops.oligo("f", "GATTACAGATTACAGGCTTC"), ops.oligo("w", "GGGGGGGGGGGGGGGGCCCC")
    pool = ops.pcr(
        Duplex(core=parse_notation("GATTACAGATTACAGGCTTC AAAA ATCCGACTTGCTAAGCATGC")), [fwd, wrong]
    )
    (lost,) = pool.products
    assert lost.reason.startswith("only `f` binds") and "`w`'s closest site: strand" in lost.reason
    assert "pair from the primer's 3' end (needs 12)" in lost.reason


def test_a_linear_primer_that_binds_neither_strand_says_how_close_and_the_minimum() -> None:
    """`linear_amplify` reports the pairing count at the closest site and `min_anneal`."""
    pool = ops.linear_amplify(
        Duplex(core=parse_notation("GATTACAGATTACAGGCTTC AAAA")),
        ops.oligo("w", "GGGGGGGGGGGGGGGGCCCC"),
    )
    (lost,) = pool.products
    assert "binds neither strand" in lost.reason and "closest site" in lost.reason
    assert "`param min_anneal: 12` sets the minimum" in lost.reason


def test_merge_may_stand_as_the_first_argument_of_any_step() -> None:
    """`gap_fill(merge([a, b]))`, which E0412's help suggests, is `gap_fill([a, b])`."""
    from lablang.driver import check_text

    text = """
workflow w {
  input a: DNA 5'-ACGTACGTAAAA [CDNA]-3' as duplex
  input b: DNA 5'-GGGGACGTAAAA [GDNA]-3' as duplex
  both = end_repair(merge([a, b]))
  output both as gene_expression
}
"""
    assert [d.code for d in check_text(text, "case.lab").report] == []
    listed = text.replace("merge([a, b])", "[a, b]")
    assert [d.code for d in check_text(listed, "case.lab").report] == []
