"""Realistic mistakes in each reference protocol are caught with the right diagnostic,
never turned into a silently wrong library.

Each case edits the example's text (its first occurrence) and names the first diagnostic
expected and a phrase it must contain (in its message or notes): the wrong primer, the
missing template switch (or, where a protocol has none, its own characteristic
omission) and an adapter, transposon or splint written in the wrong orientation.
"""

from __future__ import annotations

import pytest

from lablang.driver import check_text

from ._data import EXAMPLES, PROTOCOLS


def revcomp(bases: str) -> str:
    return bases.translate(str.maketrans("ACGT", "TGCA"))[::-1]


S5_ME = "TCGTCGGCAGCGTCAGATGTGTATAAGAGACAG"
S7_ME = "GTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG"
TRUSEQ_A = "GATCGGAAGAGCACACGTCTGAACTCCAGTCA"
R2_LINKER = "CGAATGCTCTGGCCTCTCAAGCACGTGGAT"

# (protocol, mistake, old text, new text, first code, phrase in its message or notes)
CASES = [
    # 10x 3' v3
    ("tenx_3p_v3", "flow-cell P7 instead of the i7 index primer",
     "primers: [lib_pcr_1, lib_pcr_2]", "primers: [lib_pcr_1, p7]",
     "E0404", "only `lib_pcr_1` binds"),
    ("tenx_3p_v3", "cDNA PCR before template switching",
     "amp = pcr(ts, primers", "amp = pcr(rt, primers",
     "E0404", "only `cdna_fwd` binds"),
    ("tenx_3p_v3", "TruSeq adapter strand a reverse-complemented",
     f"strand a: 5'-/5Phos/{TRUSEQ_A}-3'", f"strand a: 5'-/5Phos/{revcomp(TRUSEQ_A)}-3'",
     "E0402", "do not pair"),
    # Drop-seq
    ("drop_seq", "plain P5 instead of the custom Library PCR primer 1",
     "primers: [lib_pcr_1, lib_pcr_2]", "primers: [p5, lib_pcr_2]",
     "E0404", "primer `p5` has no site"),
    ("drop_seq", "no TSO in reverse transcription",
     "primer: bead_oligo_seqA, switch: tso)", "primer: bead_oligo_seqA)",
     "E0404", "never face each other"),
    ("drop_seq", "s7-ME transposon written reverse-complemented",
     f"5'-{S7_ME}-3'", f"5'-{revcomp(S7_ME)}-3'",
     "E0404", "only `lib_pcr_1` binds"),
    # Smart-seq2
    ("smart_seq2", "sequencing primer used as the i5 PCR primer",
     "primers: [nxt_i5, nxt_i7]", "primers: [r1_seq, nxt_i7]",
     "E0405", "differs from derived"),
    ("smart_seq2", "no TSO in reverse transcription",
     "primer: oligo_dT30VN, switch: tso)", "primer: oligo_dT30VN)",
     "E0404", "never face each other"),
    ("smart_seq2", "s5-ME transposon written reverse-complemented",
     f"5'-{S5_ME}-3'", f"5'-{revcomp(S5_ME)}-3'",
     "E0404", "only `nxt_i7` binds"),
    # Smart-seq3
    ("smart_seq3", "s5-ME transposon oligo instead of the tagged forward primer",
     "primers: [ss3_fwd, ss3_rev]", "primers: [tn5_s5_me, ss3_rev]",
     "E0404", "only `ss3_rev` binds"),
    ("smart_seq3", "no TSO in reverse transcription",
     "primer: ss3_oligodT, switch: ss3_tso)", "primer: ss3_oligodT)",
     "E0404", "only `ss3_rev` binds"),
    ("smart_seq3", "s7-ME transposon written reverse-complemented",
     f"5'-{S7_ME}-3'", f"5'-{revcomp(S7_ME)}-3'",
     "E0404", "never face each other"),
    # sci-RNA-seq (no template switching: its second strand is nick translation)
    ("sci_rna_seq", "sequencing primer used as the P5 PCR primer",
     "primers: [p5_primer, p7_primer]", "primers: [r1_seq, p7_primer]",
     "E0405", "differs from derived"),
    ("sci_rna_seq", "second-strand synthesis left out",
     "  ds = second_strand(rt)\n  tn = tagment(ds,", "  tn = tagment(rt,",
     "E0412", "RNA:DNA hybrid"),
    ("sci_rna_seq", "s7-ME transposon written reverse-complemented",
     f"5'-{S7_ME}-3'", f"5'-{revcomp(S7_ME)}-3'",
     "E0404", "only `p5_primer` binds"),
    # SPLiT-seq
    ("split_seq", "Read 2 sequencing primer used as the i7 PCR primer",
     "primers: [lib_pcr_p5, lib_pcr_i7]", "primers: [lib_pcr_p5, r2_seq]",
     "E0405", "differs from derived"),
    ("split_seq", "cDNA PCR on captured cDNA before template switching",
     "amp = pcr(ts,", "amp = pcr(cap,",
     "E0404", "only `cdna_p1` binds"),
    ("split_seq", "round-2 linker written reverse-complemented",
     f"seq: 5'-{R2_LINKER}-3'", f"seq: 5'-{revcomp(R2_LINKER)}-3'",
     "E0402", "does not bridge the junction"),
    # 10x scATAC (no template switching: the bead step adds the cell barcode)
    ("tenx_scatac", "Nextera Read 1 primer instead of the bead oligo",
     "linear_amplify(tn, primer: bead_oligo)", "linear_amplify(tn, primer: nextera_r1_seq)",
     "E0404", "primer `si_pcr_b` has no site"),
    ("tenx_scatac", "bead linear amplification left out",
     "lib = pcr(lin,", "lib = pcr(tn,",
     "E0404", "primer `si_pcr_b` has no site"),
    ("tenx_scatac", "s5-ME transposon written reverse-complemented",
     f"5'-{S5_ME}-3'", f"5'-{revcomp(S5_ME)}-3'",
     "E0404", "never face each other"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("protocol", "mistake", "old", "new", "code", "phrase"),
    CASES,
    ids=[f"{c[0]}: {c[1]}" for c in CASES],
)
def test_mistake_is_reported_not_silently_derived(
    protocol: str, mistake: str, old: str, new: str, code: str, phrase: str
) -> None:
    """The mistaken protocol's first diagnostic is the expected error and says why."""
    text = (EXAMPLES / f"{protocol}.lab").read_text()
    assert old in text, f"{mistake}: the example no longer contains the text"
    report = list(check_text(text.replace(old, new, 1), f"{protocol}.lab").report)
    assert report, f"{mistake}: no diagnostic"
    first = report[0]
    assert first.code == code, [(d.code, d.message) for d in report]
    assert phrase in " ".join([first.message, *first.notes]), (first.message, first.notes)
    assert first.severity.name.lower() == "error"


def test_each_protocol_has_three_mistakes() -> None:
    """Every example protocol has three mutation cases."""
    counts: dict[str, int] = {}
    for case in CASES:
        counts[case[0]] = counts.get(case[0], 0) + 1
    assert counts == dict.fromkeys(PROTOCOLS, 3)
