"""Sequences: notation, reverse complement, pairing and LibStructBench rendering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lablang.molecular.pairing import tokens_pair
from lablang.molecular.sequence import (
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Ribo,
    Seq,
    SequenceError,
    Symbol,
    fold_anchors,
    parse_notation,
    plain,
    render,
    render_libstruct,
    reverse_complement,
    unflag,
)

_bases = st.text(alphabet="ACGTRYSWKMBDHVN", min_size=1, max_size=12).map(lambda t: Bases(t))
_symbols = st.builds(
    lambda name, low, rc: Symbol(name, name, low, low, rc),
    st.sampled_from(["CELL_BARCODE", "UMI", "CDNA", "I7_INDEX"]),
    st.one_of(st.none(), st.integers(1, 20)),
    st.booleans(),
)
_homopolymers = st.builds(
    Homopolymer, base=st.sampled_from("ACGT"), count=st.one_of(st.none(), st.integers(1, 40))
)
plain_seqs = st.lists(st.one_of(_bases, _symbols, _homopolymers), max_size=8).map(Seq.of)
chem_seqs = st.lists(
    st.one_of(
        _bases,
        _symbols,
        _homopolymers,
        st.builds(Ribo, st.sampled_from("ACGT")),
        st.builds(LNA, st.sampled_from("ACGT")),
        st.just(Modification("5Phos")),
    ),
    max_size=8,
).map(Seq.of)


@given(plain_seqs)
def test_reverse_complement_is_an_involution(seq: Seq) -> None:
    """Reverse-complementing twice gives back the sequence, token for token."""
    assert reverse_complement(reverse_complement(seq)).tokens() == seq.tokens()
    assert reverse_complement(reverse_complement(seq)) == seq


@given(chem_seqs)
def test_reverse_complement_preserves_length_and_drops_only_chemistry(seq: Seq) -> None:
    """Length in positions is preserved; twice reversed equals the chemistry-free sequence."""
    rc = reverse_complement(seq)
    assert len(rc) == len(seq)
    assert rc.min_length == seq.min_length
    assert reverse_complement(rc).tokens() == plain(seq).tokens()


@given(plain_seqs)
def test_every_token_pairs_with_its_reverse_complement(seq: Seq) -> None:
    """Each token pairs with the token of the reverse complement facing it."""
    toks, rc = seq.tokens(), reverse_complement(seq).tokens()
    assert all(tokens_pair(a, b) for a, b in zip(toks, reversed(rc), strict=True))


@given(plain_seqs)
def test_notation_round_trips(seq: Seq) -> None:
    """Rendering to `5'-...-3'` and reading it back gives the same tokens."""
    assert parse_notation(render(seq)).tokens() == seq.tokens()


def test_symbolic_segments_get_a_prime_flag() -> None:
    """A symbolic segment's reverse complement is written with `'`, bases are complemented."""
    seq = parse_notation("5'-ACGG [CB:16] [UMI:10-12] (T)5-3'")
    assert render(reverse_complement(seq)) == "5'-(A)5 [UMI:10-12'] [CB:16'] CCGT-3'"


def test_ribo_lna_and_modifications_are_read() -> None:
    """`rG`, `+G`, `/5Phos/` and `*` are parts; ribo and LNA occupy one position each."""
    seq = parse_notation("/5Phos/AC*rG+T")
    assert [type(p).__name__ for p in seq.parts] == [
        "Modification",
        "Bases",
        "Thioate",
        "Ribo",
        "LNA",
    ]
    assert len(seq) == 4
    assert render(seq) == "5'-/5Phos/ AC * rG +T-3'"


def test_libstruct_rendering_spells_out_homopolymers_and_drops_flags() -> None:
    """LibStructBench strings have no spaces or `'` flags and spell `(T)30` as 30 T."""
    seq = parse_notation("5'-ACGT [CELL_BARCODE:16'] (T)3 VN [CDNA]-3'")
    assert render_libstruct(seq) == "ACGT[CELL_BARCODE:16]TTTVN[CDNA]"
    assert render_libstruct(seq, fold_n=True) == "ACGT[CELL_BARCODE:16]TTTV[CDNA]"
    assert render_libstruct(unflag(seq)) == "ACGT[CELL_BARCODE:16]TTTVN[CDNA]"


def test_poly_placeholder_is_an_unspecified_homopolymer() -> None:
    """`[POLY_T]` is a run of T of unknown length; its complement is `[POLY_A]`."""
    seq = parse_notation("[POLY_T]")
    assert seq.parts == (Homopolymer("T", None),)
    assert render_libstruct(reverse_complement(seq)) == "[POLY_A]"


def test_iupac_codes_pair_with_any_base_they_stand_for() -> None:
    """N pairs with anything, V (not T) pairs with C, G, T but not A."""
    assert tokens_pair("N", "A") and tokens_pair("V", "G") and tokens_pair("V", "T")
    assert not tokens_pair("V", "A")


def test_slice_splits_runs_and_keeps_modifications_with_the_next_base() -> None:
    """Slicing by positions splits bases and homopolymers; a 5' modification goes with base 0."""
    seq = parse_notation("/5Phos/ACGT (T)10 [CB:16]")
    assert render(seq.slice(0, 6)) == "5'-/5Phos/ ACGT (T)2-3'"
    assert render(seq.slice(6)) == "5'-(T)8 [CB:16]-3'"


def test_fold_anchors_removes_degenerate_bases_beside_a_payload() -> None:
    """`VN` next to `[CDNA]` folds into the payload; elsewhere degenerate bases stay."""
    toks = parse_notation("(T)2 VN [CDNA] NB (A)2 N").tokens()
    assert [t for t in fold_anchors(toks) if isinstance(t, str)] == ["T", "T", "A", "A", "N"]


@pytest.mark.parametrize("text", ["ACGX", "[CB:16", "(T)", "/5Phos", "{P5}", "[BC:9-8]"])
def test_unreadable_text_raises_a_sequence_error(text: str) -> None:
    """Bad sequence text gives a SequenceError naming the problem, never another exception."""
    with pytest.raises(SequenceError):
        parse_notation(text)


def test_lowercase_and_u_are_normalised() -> None:
    """Lowercase bases are read as uppercase and U as T."""
    assert render(parse_notation("acgu")) == "5'-ACGT-3'"


@given(plain_seqs, plain_seqs, st.integers(1, 6))
def test_annealing_finds_a_site_exactly_where_pairing_from_that_position_reaches_the_minimum(
    primer: Seq, template: Seq, min_match: int
) -> None:
    """`anneal_sites`, which skips the template positions the primer's 3'-terminal base
    cannot pair with, finds its sites at exactly the positions (the first MAX_SITES) where
    pairing from that position pairs at least `min_match` bases."""
    from lablang.molecular.ops import core

    p, t = primer.tokens(), template.tokens()
    expected = []
    for s in range(len(t)):
        _absorbed, paired, _stop, count = core._run(p, t, s)
        if count >= min_match and paired > 0:
            expected.append(s)
    found = core.anneal_sites(primer, template, min_match)
    assert sorted(site.start - site.anchored for site in found) == expected[: core.MAX_SITES]
