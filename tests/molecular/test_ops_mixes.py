"""What an operation acting on a mix does with a molecule it cannot act on: an enzyme that
modifies its substrate in place leaves the others in the tube unchanged; an operation
whose product is what it makes (PCR, ligation) discards them, with the reason."""

from __future__ import annotations

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular import operations as ops
from lablang.molecular.front import build_model
from lablang.molecular.graph import Graph
from lablang.molecular.molecule import Duplex
from lablang.molecular.ops.registry import REGISTRY, UNTOUCHED
from lablang.molecular.sequence import parse_notation


def derive(text: str) -> tuple[list[str], Graph]:
    result = check_text(text, "case.lab")
    built = build_model(result.program, Report())
    (graph,) = built.model.graphs
    return [d.code for d in result.report], graph


def carried_reasons(graph: Graph, step: str) -> list[str]:
    transition = next(t for t in graph.transitions if t.name == step)
    return [graph.state(n).disposition_reason for n in transition.carried]  # type: ignore[union-attr]


def test_user_over_a_mix_cuts_what_has_a_deoxyuridine_and_leaves_the_rest() -> None:
    """USER on a pool of a dU strand and a strand without one: the first falls into its
    two pieces, the second is carried unchanged ("untouched by `user`"), none discarded."""
    codes, graph = derive("""
workflow w {
  input a: DNA 5'-ACGTACGTACGT /ideoxyU/ GGCCGGCCGGCC [CDNA]-3'
  input b: DNA 5'-TTTTCCCCAAAA [GDNA]-3'
  both = merge([a, b])
  cut = user(both)
}
""")
    assert codes == []
    cut = next(t for t in graph.transitions if t.name == "cut")
    assert len(cut.carried) == 3 and cut.discarded == ()
    untouched = [r for r in carried_reasons(graph, "cut") if r.startswith("untouched")]
    assert untouched == ["untouched by `user`: no deoxyuridine (`/ideoxyU/`) to excise"]


def test_user_on_a_molecule_without_deoxyuridine_alone_is_still_an_error() -> None:
    """With nothing in the tube to act on, USER is E0412 (the step makes no sense)."""
    codes, _ = derive("""
workflow w {
  input b: DNA 5'-TTTTCCCCAAAA [GDNA]-3'
  cut = user(b)
}
""")
    assert codes == ["E0412"]


def test_rnase_h_over_a_mix_leaves_a_dna_duplex_as_it_was() -> None:
    """RNase H on a pool of an RNA:DNA hybrid and a DNA duplex: the hybrid's cDNA goes on
    single-stranded, the DNA duplex is carried unchanged."""
    codes, graph = derive("""
oligo dt { seq: 5'-ACGTACGTACGTACGT TTTTTTTTTTTTTTTTTTTTTTTT-3' }
workflow w {
  input mrna: RNA 5'-[CDNA] (A)30-3'
  input g: DNA 5'-[GDNA]-3' as duplex
  rt = reverse_transcribe(mrna, primer: dt, nontemplated: "")
  both = merge([rt, g])
  free = rnase_h(both)
}
""")
    assert codes == []
    reasons = carried_reasons(graph, "free")
    assert len(reasons) == 2
    assert sum(r.startswith("untouched by `rnase_h`") for r in reasons) == 1


def test_pcr_over_a_mix_still_discards_what_it_does_not_amplify() -> None:
    """PCR's product is the amplicon: a molecule neither primer binds is diluted out,
    discarded with its reason, not carried."""
    codes, graph = derive("""
oligo f { seq: 5'-ACGTTGCAACGTTGCA-3' }
oligo r { seq: 5'-GGTTGGTTCCAACCAA-3' }
workflow w {
  input a: DNA 5'-ACGTTGCAACGTTGCA [CDNA] TTGGTTGGAACCAACC-3'
  input b: DNA 5'-CCCCAAAACCCCAAAA [GDNA]-3'
  both = merge([a, b])
  amp = pcr(both, primers: [f, r])
}
""")
    assert codes == []
    amp = next(t for t in graph.transitions if t.name == "amp")
    assert len(amp.carried) == 1 and len(amp.discarded) == 1


def test_the_registry_says_which_operations_leave_what_they_cannot_act_on() -> None:
    """The in-place enzymes (nucleases, kinase, tailing, gap filling, digestion) carry what
    they cannot act on; the operations that make a new product discard it; `describe`
    says which, and an unknown value is refused at registration."""
    carried = {n for n, op in REGISTRY.items() if op.untouched == "carried"}
    assert carried == {
        "user", "rnase_h", "gap_fill", "poly_a_tail", "tdt_tail", "phosphorylate", "digest",
    }  # fmt: skip
    for name in ("pcr", "ligate", "barcode_round", "extend", "tagment", "ivt"):
        assert REGISTRY[name].untouched == "discarded"
    assert UNTOUCHED["carried"] in REGISTRY["user"].describe()
    assert UNTOUCHED["discarded"] in REGISTRY["pcr"].describe()
    with pytest.raises(ValueError):
        ops.operation("bogus_op", lsb="other", rule="-", untouched="sometimes")(lambda m: m)


def test_each_in_place_enzyme_raises_no_substrate_on_what_it_cannot_act_on() -> None:
    """The error each carried-through enzyme gives alone is a `NoSubstrate` (so a mix
    passes the molecule through), with its code."""
    plain_duplex = Duplex(core=parse_notation("ACGTACGT [GDNA]"))
    single = ops.Single(ops.Strand(parse_notation("ACGT [GDNA]"), ops.MolType.DNA, "s"))
    cases = [
        (lambda: ops.user(plain_duplex), "E0412"),
        (lambda: ops.rnase_h(plain_duplex), "E0412"),
        (lambda: ops.gap_fill(plain_duplex), "E0412"),
        (lambda: ops.poly_a_tail(single), "E0412"),
        (lambda: ops.digest(single, "MspI"), "E0412"),
    ]
    for run, code in cases:
        with pytest.raises(ops.NoSubstrate) as caught:
            run()
        assert caught.value.code == code
