"""Strand- and end-targeted ligation: double-stranded, hairpin and single-stranded adapters,
DNA and RNA ligases, splints, pre-adenylated and 3'-blocked adapters, chimeric strands."""

from __future__ import annotations

import pytest

from lablang.molecular import operations as ops
from lablang.molecular.molecule import (
    Architecture,
    Duplex,
    MolType,
    Pool,
    Single,
    Strand,
    architecture,
)
from lablang.molecular.sequence import parse_notation, render

BLUNT = ops.Oligo(
    "blunt",
    (parse_notation("/5Phos/ACGTCCGGTTAAGGCC"), parse_notation("/5Phos/GGCCTTAACCGGACGT")),
    "double_stranded",
)
NEBNEXT = ops.Oligo(
    "neb",
    (
        parse_notation(
            "/5Phos/GATCGGAAGAGCACACGTCTGAACTCCAGTC/ideoxyU/ACACTCTTTCCCTACACGACGCTCTTCCGATC*T"
        ),
    ),
    "hairpin",
)
TRUSEQ = "5'-ACACTCTTTCCCTACACGACGCTCTTCCGATCT [GDNA] AGATCGGAAGAGCACACGTCTGAACTCCAGTC-3'"


def a_tailed() -> Duplex:
    return ops.a_tail(ops.end_repair(Duplex(core=parse_notation("[GDNA]"))))


def rna(text: str) -> Single:
    return Single(Strand(parse_notation(text), MolType.RNA, "arna"))


def test_end_names_a_strand_end_and_ligates_only_there() -> None:
    """`end: "bottom 5'"` is the duplex's right end: the adapter joins there only."""
    insert = ops.end_repair(Duplex(core=parse_notation("[GDNA]")))
    right = ops.ligate(insert, BLUNT, end="bottom 5'")
    assert right == ops.ligate(insert, BLUNT, ends="right")
    assert isinstance(right, Pool)  # a blunt adapter joins either way round
    assert render(right.products[0].molecule.top).startswith("5'-[GDNA] ACGT")  # type: ignore[union-attr]
    left = ops.ligate(insert, BLUNT, end="top 5'")
    assert left == ops.ligate(insert, BLUNT, ends="left")
    assert isinstance(left, Pool)
    assert render(left.products[0].molecule.top).endswith("GGCCTTAACCGGACGT [GDNA]-3'")  # type: ignore[union-attr]


def test_a_blunt_adapter_joins_a_blunt_end_in_both_orientations() -> None:
    """A duplex adapter blunt at both ends joins a blunt end either way round: both
    molecules form; a Y adapter with one fitting end joins one way only."""
    insert = ops.end_repair(Duplex(core=parse_notation("[GDNA]")))
    pool = ops.ligate(insert, BLUNT, ends="right")
    assert isinstance(pool, Pool)
    tops = [render(p.molecule.top) for p in pool.products]  # type: ignore[union-attr]
    assert tops == [
        "5'-[GDNA] ACGTCCGGTTAAGGCC-3'",
        "5'-[GDNA] GGCCTTAACCGGACGT-3'",
    ]
    both = ops.ligate(insert, BLUNT)
    assert isinstance(both, Pool) and len(both.products) == 4  # 2 orientations x 2 ends
    truseq_y = ops.Oligo(
        "truseq",
        (
            parse_notation("/5Phos/GATCGGAAGAGCACACGTCTGAACTCCAGTCA"),
            parse_notation("GCTCTTCCGATCT"),
        ),
        "double_stranded",
    )
    assert isinstance(ops.ligate(a_tailed(), truseq_y), Duplex)


def test_hairpin_adapter_folds_ligates_and_opens_with_user() -> None:
    """A NEBNext hairpin adapter folds on itself, TA-ligates to both ends as a closed loop,
    and USER at its deoxyuridine opens it: the TruSeq Y-shaped library."""
    ligated = ops.ligate(a_tailed(), NEBNEXT)
    assert render(ligated.top) == TRUSEQ and len(ligated.loops) == 2
    opened = ops.user(ligated)
    assert isinstance(opened, Duplex) and opened.loops == ()
    assert render(opened.top) == TRUSEQ and architecture(opened) is Architecture.Y_SHAPED_DUPLEX


def test_incompatible_ends_are_e0402() -> None:
    """A blunt adapter cannot join A-tailed ends (E0402 describing both ends)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(a_tailed(), BLUNT)
    assert caught.value.code == "E0402" and "3' overhang" in caught.value.message


def test_rna_ligase_joins_a_dna_adapter_to_rna_as_a_chimera() -> None:
    """T4 RNA ligase joins a 5'-phosphorylated, 3'-blocked DNA oligo to aRNA's 3' end; the
    strand is then a chimera, the oligo's block at its new 3' end."""
    adapter = ops.oligo("lig", "/5Phos/AGATCGGAAGAGCGTCGTG [PLATE_BARCODE:7]/3SpC3/")
    joined = ops.ligate(rna("GGCGACG [CDNA']"), adapter, end="3'", ligase="rna")
    assert isinstance(joined, Single) and joined.strand.moltype is MolType.CHIMERA
    assert render(joined.strand.seq) == (
        "5'-GGCGACG [CDNA'] AGATCGGAAGAGCGTCGTG [PLATE_BARCODE:7] /3SpC3/-3'"
    )


def test_pre_adenylated_adapter_ligates_without_a_phosphate() -> None:
    """A /5rApp/ adapter is an activated donor: it joins an RNA 3' end."""
    adapter = ops.oligo("app", "/5rApp/TGGAATTCTCGGGTGCCAAGG/3ddC/")
    joined = ops.ligate(rna("[RNA]"), adapter, ligase="rna")
    assert isinstance(joined, Single)
    assert render(joined.strand.seq).startswith("5'-[RNA] TGGAATTC")


def test_a_3_blocked_adapter_cannot_join_a_5_end() -> None:
    """A 3'-blocked adapter has one way to ligate: to a 5' end it is E0421."""
    adapter = ops.oligo("lig", "/5Phos/AGATCGGAAGAGC/3SpC3/")
    target = Single(Strand(parse_notation("/5Phos/ACGT [CDNA]"), MolType.RNA, "r", True))
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(target, adapter, end="5'", ligase="rna")
    assert caught.value.code == "E0421"


def test_a_blocked_acceptor_3_end_is_e0421() -> None:
    """A strand whose 3' end is blocked accepts no adapter (E0421)."""
    adapter = ops.oligo("lig", "/5Phos/AGATCGGAAGAGC")
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(rna("[RNA]/3Phos/"), adapter, ligase="rna")
    assert caught.value.code == "E0421"


def test_a_donor_without_phosphate_is_e0403() -> None:
    """An adapter with neither 5' phosphate nor adenylate cannot be the donor (E0403)."""
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(rna("[RNA]"), ops.oligo("bare", "AGATCGGAAGAGC"), ligase="rna")
    assert caught.value.code == "E0403"


def test_dna_ligase_joins_single_strands_only_over_a_splint() -> None:
    """Without a splint DNA ligase cannot join a single-stranded oligo (E0402); with a
    splint pairing 6+ bases on each side of the junction it can."""
    target = Single(Strand(parse_notation("ACGTACGTAGGCTTAC"), MolType.DNA, "s"))
    adapter = ops.oligo("ad", "/5Phos/GGATCCAAGGTTCC")
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(target, adapter)
    assert caught.value.code == "E0402"
    splint = ops.oligo("splint", "CCTTGGATCCGTAAGC")
    joined = ops.ligate(target, adapter, splint=splint)
    assert isinstance(joined, Single)
    assert render(joined.strand.seq) == "5'-ACGTACGTAGGCTTACGGATCCAAGGTTCC-3'"


def test_barcode_round_without_a_splint_is_refused_as_ligate_refuses_it() -> None:
    """A single-stranded barcode joined by DNA ligase to a single-stranded end with no
    splint is E0402, the same rule and message as `ligate`'s (a page's library used to
    derive unchanged with its bridge oligo deleted); `ligase: rna` joins it."""
    start = Single(Strand(parse_notation("/5Phos/ AGGCCAGAGCATTCG [CDNA]"), MolType.DNA, "cdna"))
    barcode = ops.oligo("bc", "/5Phos/ CATCGGCGTACGACT [BC:8] ATCCACGTGCTTGAG")
    refusals = []
    for join in (
        lambda: ops.barcode_round(start, barcode, end="5'"),
        lambda: ops.ligate(start, barcode, end="5'"),
    ):
        with pytest.raises(ops.OperationFailure) as caught:
            join()
        refusals.append((caught.value.code, caught.value.message))
    assert refusals[0] == refusals[1] and refusals[0][0] == "E0402"
    joined = ops.barcode_round(start, barcode, end="5'", ligase="rna")
    assert isinstance(joined, Single)


def test_barcode_round_joins_the_bottom_strand_when_asked() -> None:
    """`barcode_round(..., end: "bottom 3'")` extends the bottom strand's 3' end (the
    duplex's left end), leaving the top strand as it was."""
    duplex = Duplex(core=parse_notation("ACGTACGTACGT [CDNA]"))
    oligo = ops.oligo("bc", "/5Phos/GGGG [ROUND_BARCODE:8]")
    out = ops.barcode_round(duplex, oligo, end="bottom 3'", ligase="rna")
    assert isinstance(out, Duplex) and out.top == duplex.top
    assert render(out.bottom) == "5'-[CDNA'] ACGTACGTACGTGGGG [ROUND_BARCODE:8]-3'"


def test_ligation_over_a_mix_discards_what_cannot_ligate_with_its_reason() -> None:
    """In a merged pool of a duplex and a single strand, the duplex is ligated (the blunt
    adapter either way round) and the single strand is discarded with the reason; the
    step is not an error."""
    from lablang.diagnostics import Report
    from lablang.driver import check_text
    from lablang.molecular.front import build_model

    text = """
oligo blunt { kind: double_stranded  strand a: 5'-/5Phos/ACGTCCGGTTAAGGCC-3'  strand b: 5'-/5Phos/GGCCTTAACCGGACGT-3' }
workflow w {
  input ds: DNA 5'-[GDNA]-3' as duplex
  input ss: DNA 5'-ACGT [CDNA]-3'
  rep = end_repair(ds)
  lig = ligate([rep, ss], adapter: blunt, ends: right)
}
"""
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == []
    built = build_model(result.program, Report())
    (graph,) = built.model.graphs
    lig = next(t for t in graph.transitions if t.name == "lig")
    assert lig.substrates == ("rep", "ss") and len(lig.carried) == 2 and len(lig.discarded) == 1
    discarded = graph.state(lig.discarded[0])
    assert discarded is not None and "double-stranded" in discarded.disposition_reason


def test_merge_pools_two_branches_for_one_round() -> None:
    """`merge([a, b])` carries both branches' products; a barcode round over the merged
    pool barcodes both modalities."""
    from lablang.diagnostics import Report
    from lablang.driver import check_text
    from lablang.molecular.front import build_model

    text = """
oligo bc { seq: 5'-/5Phos/GGGG [ROUND_BARCODE:8]-3' }
workflow w {
  input cdna: DNA 5'-/5Phos/ACGT [CDNA]-3'
  input chrom: DNA 5'-/5Phos/TTTT [GDNA]-3'
  both = merge([cdna, chrom])
  r1 = barcode_round(both, barcode: bc, end: 5', ligase: rna)
}
"""
    result = check_text(text, "case.lab")
    assert [d.code for d in result.report] == []
    built = build_model(result.program, Report())
    tops = sorted(render(p.molecule.strand.seq) for p in built.derived["w.r1"].carried)  # type: ignore[union-attr]
    assert tops == [
        "5'-/5Phos/ GGGG [ROUND_BARCODE:8] ACGT [CDNA]-3'",
        "5'-/5Phos/ GGGG [ROUND_BARCODE:8] TTTT [GDNA]-3'",
    ]


SCI_HAIRPIN = ops.Oligo(
    "hp",
    (parse_notation("GCTCTG [LB:10'] /ideoxyU/ ACGACGCTCTTCCGATCT [LB:10]"),),
    "hairpin",
)


def rt_hybrid(five_prime: str = "/5Phos/CAGAGC [UMI:8] [RTBC:10]") -> Duplex:
    """A first-strand cDNA on its mRNA, built by hand: the RT primer's 5' tail unpaired."""
    return Duplex(
        core=parse_notation("(T)30 [CDNA']"),
        left=ops.End(top=parse_notation(five_prime)),
        top_type=MolType.DNA,
        bottom_type=MolType.RNA,
        top_name="cdna",
        bottom_name="mrna",
        top_phosphate="5Phos" in five_prime,
    )


def test_a_barcode_paired_with_its_reverse_complement_is_a_stem_of_its_length() -> None:
    """A symbolic barcode pairs with its reverse complement over all its bases: the
    sci-RNA-seq3 hairpin folds on a 10-base stem, and two strands held only by an 8-base
    barcode anneal (each counted one base before, below the 6-base minimum)."""
    folded = ops.fold(SCI_HAIRPIN)
    assert (folded.bases, folded.i, folded.k) == (10, 6, 1)
    held = ops.Oligo(
        "bc", (parse_notation("AC [BC:8] GT"), parse_notation("TT [BC:8'] CC")), "double_stranded"
    )
    duplex = ops.adapter_duplex(held)
    assert render(duplex.core) == "5'-[BC:8]-3'"
    short = ops.Oligo(
        "bc", (parse_notation("AC [BC:4] GT"), parse_notation("TT [BC:4'] CC")), "double_stranded"
    )
    with pytest.raises(ops.OperationFailure) as caught:
        ops.adapter_duplex(short)
    assert caught.value.code == "E0402" and "longest stem 4 bases" in caught.value.message


def test_a_hairpin_joins_a_longer_5_overhang_held_by_its_own_overhang() -> None:
    """Worked example (sci-RNA-seq3): the hairpin's GCTCTG overhang pairs with the cDNA's
    5'-terminal CAGAGC and ligase joins the hairpin's 3' end to the cDNA's 5' phosphate;
    the RNA is not joined (18 bases short: a gap), and Pol I's second strand then copies
    the whole strand, hairpin included (its dU read as A)."""
    joined = ops.ligate(rt_hybrid(), SCI_HAIRPIN, end="top 5'")
    assert isinstance(joined, Duplex)
    assert render(joined.top) == (
        "5'-GCTCTG [LB:10'] /ideoxyU/ ACGACGCTCTTCCGATCT [LB:10] CAGAGC [UMI:8] [RTBC:10] "
        "(T)30 [CDNA']-3'"
    )
    assert joined.bottom == rt_hybrid().bottom and joined.top_type is MolType.DNA
    assert not joined.top_phosphate  # the hairpin's 5' end is the strand's new 5' end
    assert "18 bases short" in joined.loops[0]
    second = ops.second_strand(joined)
    assert isinstance(second, Duplex) and second.loops == () and not second.left.top
    assert render(second.bottom).endswith(
        "[RTBC:10'] [UMI:8'] GCTCTG [LB:10'] AGATCGGAAGAGCGTCGTA [LB:10] CAGAGC-3'"
    )


def test_a_hairpin_joins_a_single_strand_end_that_its_overhang_pairs() -> None:
    """On a single strand the hairpin joins the end its overhang faces: a 5' overhang
    joins the 5' end (the strand's 5' phosphate is the donor)."""
    strand = Single(Strand(parse_notation("/5Phos/CAGAGC [CDNA]"), MolType.DNA, "s", True))
    joined = ops.ligate(strand, SCI_HAIRPIN, end="5'")
    assert isinstance(joined, Single)
    assert render(joined.strand.seq).endswith("[LB:10] CAGAGC [CDNA]-3'")


def test_a_hairpin_strand_join_fails_where_the_chemistry_does() -> None:
    """A hairpin's overhang that does not pair with the strand end is E0402; a strand end
    without a 5' phosphate is E0403; a hairpin whose overhang faces the other way (no 3'
    overhang for a 3' end) is E0402."""
    cases = [
        (rt_hybrid("/5Phos/CAGTGC [UMI:8] [RTBC:10]"), "top 5'", "E0402", "does not pair"),
        (rt_hybrid("CAGAGC [UMI:8] [RTBC:10]"), "top 5'", "E0403", "no phosphate"),
    ]
    for molecule, end, code, words in cases:
        with pytest.raises(ops.OperationFailure) as caught:
            ops.ligate(molecule, SCI_HAIRPIN, end=end)
        assert caught.value.code == code and words in caught.value.message, caught.value.message
    strand = Single(Strand(parse_notation("[CDNA] GCTCTGAC"), MolType.DNA, "s"))
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(strand, SCI_HAIRPIN, end="3'")
    assert caught.value.code == "E0402" and "3' overhang" in caught.value.message


HEAD = "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG"
HY = "ACTCTGCGTTGATACCACTGCTT [HY_BC:10] CTGTCTCTTATACACATCTGACGCTGCCGACGA"


def tn5_end(phosphate: bool = False) -> Duplex:
    """A tagmented end built by hand (CH-ATAC): the Tn5 oligo's 5' arm unpaired, its
    mosaic end paired."""
    arm = ("/5Phos/" if phosphate else "") + "AAGCAGTGGTATCAACGCAGAGT [TN5_BC:10]"
    return Duplex(
        core=parse_notation("AGATGTGTATAAGAGACAG [GDNA]"),
        left=ops.End(top=parse_notation(arm)),
        top_phosphate=phosphate,
    )


def test_ends_annealed_with_an_offset_ligate_leaving_gaps_that_gap_fill_closes() -> None:
    """Worked example (CH-ATAC): the head/HY duplex's 5' overhang pairs with the Tn5
    oligo's arm over 23 bases, each barcode facing a gap; with a phosphate at one
    junction the adapter is ligated, both 10-base gaps are recorded, and `gap_fill`
    closes them, leaving the barcodes copied on both strands."""
    adapter = ops.Oligo(
        "hy", (parse_notation(HEAD), parse_notation("/5Phos/" + HY)), "double_stranded"
    )
    joined = ops.ligate(tn5_end(), adapter, end="top 5'")
    assert isinstance(joined, Duplex)
    assert render(joined.top) == (
        f"5'-{HEAD} [HY_BC:10'] AAGCAGTGGTATCAACGCAGAGT [TN5_BC:10] AGATGTGTATAAGAGACAG [GDNA]-3'"
    )
    gaps = [n for n in joined.nicks if "gap" in n]
    assert len(gaps) == 2 and all(g.startswith("10-base gap") and "23 bases" in g for g in gaps)
    filled = ops.gap_fill(joined)
    assert not [n for n in filled.nicks if "gap" in n] and filled.top == joined.top


def test_an_offset_junction_without_a_phosphate_at_either_strand_is_e0403() -> None:
    """As the CH-ATAC page lists them (no 5' phosphate on the HY oligo or the Tn5 oligo),
    the annealed ends cannot be sealed on either strand: E0403."""
    adapter = ops.Oligo("hy", (parse_notation(HEAD), parse_notation(HY)), "double_stranded")
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(tn5_end(), adapter, end="top 5'")
    assert caught.value.code == "E0403"


def test_unequal_overhangs_pairing_over_fewer_than_6_bases_do_not_ligate() -> None:
    """A 4-base overhang against a longer one pairs too little to hold a gapped junction
    (6 bases, `MIN_SPLINT_ARM`): E0402, as before."""
    insert = Duplex(core=parse_notation("[GDNA]"), right=ops.End(top=parse_notation("GATCAGTT")))
    adapter = ops.Oligo(
        "ad",
        (parse_notation("/5Phos/ACGTACGTACGT"), parse_notation("/5Phos/ACGTACGTACGTGATC")),
        "double_stranded",
    )
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(insert, adapter, ends="right")
    assert caught.value.code == "E0402"


def test_a_splint_holding_two_ends_apart_joins_them_across_a_gap_to_fill() -> None:
    """A splint whose arms pair the oligo and the strand's end with unpaired bases
    between them joins the oligo across a gap: the strand drawn as the fill will make
    it (the splint's middle copied), the gap recorded until `gap_fill`."""
    head, hy = ops.oligo("head", HEAD), ops.oligo("hy", HY)
    joined = ops.ligate(tn5_end(phosphate=True), head, splint=hy, end="top 5'")
    assert isinstance(joined, Duplex)
    assert render(joined.top).startswith(f"5'-{HEAD} [HY_BC:10'] AAGCAGTGGTATCAACGCAGAGT")
    (gap,) = joined.nicks
    assert gap.startswith("10-base gap on the top strand between `head`")
    assert ops.gap_fill(joined).nicks == ()


def test_a_gapped_splint_fails_where_it_cannot_hold_the_ends() -> None:
    """A splint whose arm on one side pairs fewer than 6 bases is E0402; so is a gapped
    splint on a single strand (no duplex to record the gap on); the donor needs its
    phosphate (E0403)."""
    head = ops.oligo("head", HEAD)
    short = ops.oligo("hy", "GCTT [HY_BC:10] CTGTCTCTTATACACATCTGACGCTGCCGACGA")
    single = Single(
        Strand(parse_notation("/5Phos/AAGCAGTGGTATCAACGCAGAGT [GDNA]"), MolType.DNA, "s", True)
    )
    cases: list[tuple[Duplex | Single, ops.Oligo, str, str]] = [
        (tn5_end(phosphate=True), short, "E0402", "does not bridge"),
        (single, ops.oligo("hy", HY), "E0402", "strand of a duplex only"),
        (tn5_end(phosphate=False), ops.oligo("hy", HY), "E0403", "no phosphate"),
    ]
    for molecule, splint, code, words in cases:
        end = "5'" if isinstance(molecule, Single) else "top 5'"
        with pytest.raises(ops.OperationFailure) as caught:
            ops.ligate(molecule, head, splint=splint, end=end)
        assert caught.value.code == code and words in caught.value.message, caught.value.message


CH_ATAC_STEPS = """
workflow ch {
  input gdna: DNA 5'-[GDNA]-3' as duplex
  tn = tagment(gdna, adapters: [tn5_transposome_barcode, tn5_transposome_c], gap_fill: false)
  hy = ligate(tn, adapter: hy_head_duplex, end: "top 5'")
  fill = gap_fill(hy)
  lib = pcr(fill, primers: [pcr_p5_primer, mgi_p7_index_1_96], cycles: 12)
  output lib
}
"""


def test_ch_atac_hy_ligation_fails_only_for_the_missing_phosphate() -> None:
    """The CH-ATAC atlas file's partial reason, checked: through the page's steps with
    the page's oligos the HY ligation is exactly one E0403 (no 5' phosphate at either
    junction); with the HY oligo phosphorylated the same steps derive the page's drawn
    library on both strands."""
    import json
    from pathlib import Path

    from lablang.diagnostics import Report
    from lablang.driver import check_text
    from lablang.molecular.atlas import difference
    from lablang.molecular.front import build_model

    root = Path(__file__).resolve().parents[2]
    page = root / "examples" / "atlas" / "CH-ATAC-seq.lab"
    text = page.read_text("utf-8")
    result = check_text(text + CH_ATAC_STEPS, "ch.lab")
    assert [d.code for d in result.report] == ["E0403"]
    phosphorylated = text.replace("5'-ACTCTGCGTTGATACC", "5'-/5Phos/ACTCTGCGTTGATACC")
    assert phosphorylated != text
    result = check_text(phosphorylated + CH_ATAC_STEPS, "ch.lab")
    assert [d.code for d in result.report] == []
    built = build_model(result.program, Report())
    (product,) = built.derived["ch.lib"].carried
    (method,) = json.loads((root / "tests/data/atlas/CH-ATAC-seq.json").read_text())["methods"]
    (drawn,) = method["libraries"]
    assert difference(product.molecule, drawn) is None


SNARE_SPLINT = "/phos/CTGTCTCTTATACACATCTGACGCTGCCGACGA" + "A" * 30


def bead_splint() -> ops.Oligo:
    return ops.Oligo(
        "capture",
        (
            parse_notation("TTTTTTTAAGCAGTGGTATCAACGCAGAGTAC [CELL_BARCODE:12] [UMI:8] (T)30"),
            parse_notation(SNARE_SPLINT),
        ),
        "double_stranded",
    )


def test_an_oligo_dt_on_a_longer_a_run_pairs_in_the_register_leaving_no_3_tail() -> None:
    """The splint's 31 A's (s5' ends in A) pair with the bead's 30 T's in the register
    that leaves the splint's 3' end paired, so its whole ME'-s5' part (33 bases, with
    its `/phos/`) is the single-stranded overhang."""
    duplex = ops.adapter_duplex(bead_splint())
    assert duplex.left.bottom == parse_notation("")
    assert render(duplex.right.bottom) == "5'-CTGTCTCTTATACACATCTGACGCTGCCGACGA-3'"
    assert duplex.bottom_phosphate  # the page spells the phosphate /phos/


def test_an_adapter_displaces_the_strand_tn5_left_annealed_to_the_mosaic_end() -> None:
    """Worked example (SNARE-seq): after tagmentation the ME is paired with the
    non-transferred ME' (annealed, not joined); the bead/splint duplex, whose overhang
    pairs with the s5 arm and the ME, takes ME''s place and its 5' phosphate is joined,
    the s5 strand staying nicked from the bead oligo. With ME' joined (a filled
    fragment, blunt) there is nothing to displace: E0402."""
    s5 = ops.oligo("s5", "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG")
    s7 = ops.oligo("s7", "GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG")
    gdna = Duplex(core=parse_notation("[GDNA]"))
    open_ends = ops.tagment(gdna, [s5, s7], gap_fill=False)
    fragment = next(p.molecule for p in open_ends.products if p.name == "s5-insert-s7")
    assert isinstance(fragment, Duplex) and fragment.left.annealed == 19
    joined = ops.ligate(fragment, bead_splint(), ends="left")
    assert isinstance(joined, Duplex)
    assert render(joined.top).startswith(
        "5'-TTTTTTTAAGCAGTGGTATCAACGCAGAGTAC [CELL_BARCODE:12] [UMI:8] (T)30 "
        "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG [GDNA]"
    )
    assert render(joined.bottom) == (
        "5'-GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG [GDNA'] CTGTCTCTTATACACATCTGACGCTGCCGACGA (A)30-3'"
    )
    assert any("displaced the strand annealed over 19 positions" in n for n in joined.nicks)
    filled = ops.tagment(gdna, [s5, s7]).products[1].molecule
    with pytest.raises(ops.OperationFailure) as caught:
        ops.ligate(filled, bead_splint(), ends="left")
    assert caught.value.code == "E0402"


def test_a_nick_note_names_the_strand_of_the_molecule_as_shown_at_either_end() -> None:
    """A fragment without 5' phosphates joined to a phosphorylated adapter is nicked on
    the strand whose 5' end meets the adapter: the top strand at the left end (the join
    is worked on the flipped molecule), the bottom strand at the right; the state's
    nick is on that strand too."""
    from lablang.molecular.model import state_from_molecule

    fragment = Duplex(core=parse_notation("[GDNA]"), top_name="frag", bottom_name="frag'")
    for ends, strand, name in (("left", "top", "frag"), ("right", "bottom", "frag'")):
        joined = ops.ligate(fragment, BLUNT, ends=ends)
        molecule = joined.products[0].molecule if isinstance(joined, Pool) else joined
        assert isinstance(molecule, Duplex)
        (note,) = [n for n in molecule.nicks if "no 5' phosphate" in n]
        assert note.startswith(f"{strand} strand at `blunt`"), note
        state = state_from_molecule("s", molecule)
        assert [d.strand for d in state.discontinuities] == [name]


def test_flipping_a_duplex_twice_gives_its_notes_back_and_once_swaps_their_strands() -> None:
    """A flip swaps `top` and `bottom` in nick and loop notes (outside backticked
    names); flipping back restores them."""
    duplex = Duplex(
        core=parse_notation("ACGT"),
        nicks=("bottom strand at `top_oligo` (no 5' phosphate)",),
        loops=("hairpin loop joining the top strand to the bottom strand",),
    )
    once = duplex.flipped()
    assert once.nicks == ("top strand at `top_oligo` (no 5' phosphate)",)
    assert once.loops == ("hairpin loop joining the bottom strand to the top strand",)
    assert once.flipped() == duplex
