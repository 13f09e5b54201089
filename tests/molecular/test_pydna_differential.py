"""The molecular interpreter against pydna (a test-only dependency), on generated concrete
molecules: a PCR with tailed primers and a digest with one to three enzymes' sites give
the same products, strand by strand (pydna's watson and crick strands, 5'->3', against
lablang's two strands of each product), in the same order.

The cases are drawn from a seeded generator, so every run tries the same ones. A case
pydna or lablang would call ambiguous (a primer with a second site, an enzyme site made
by chance where none was placed) is regenerated, not skipped silently: the generator
makes the sites unique by construction and the test asserts that it did.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pydna")

from Bio.Restriction import AllEnzymes
from pydna.amplify import pcr as pydna_pcr
from pydna.dseqrecord import Dseqrecord
from pydna.primer import Primer

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.front import build_model
from lablang.molecular.sequence import plain

from .concrete_cases import (
    CASES,
    CIRCLE_CASES,
    LIGATION_CASES,
    LIGATION_KINDS,
    circle_case,
    circle_digest_program,
    circle_pcr_case,
    circle_pcr_program,
    digest_case,
    digest_program,
    ligation_case,
    ligation_program,
    looped_case,
    looped_program,
    pcr_case,
    pcr_program,
    rc,
)


def _derived_states(program_text: str) -> dict[str, list[list[str]]]:
    """Each derived state's strands, 5'->3', as plain base strings."""
    result = check_text(program_text, "differential.lab")
    # the cases end in no library (E0408 only): every other error is a real disagreement
    errors = [d for d in result.report if d.severity.name == "ERROR" and d.code != "E0408"]
    assert not errors, [(d.code, d.message) for d in errors]
    model = build_model(result.program, Report()).model
    graph = next(g for g in model.graphs if g.derived)
    return {
        s.name: ["".join(map(str, plain(strand.seq).tokens())) for strand in s.strands]
        for s in graph.states
    }


@pytest.mark.parametrize("case", range(CASES))
def test_a_pcr_product_equals_pydnas(case: int) -> None:
    """A PCR with tailed primers at unique sites on a random template makes pydna's
    amplicon: the forward strand its watson, the reverse strand its crick."""
    template, forward, reverse = pcr_case(random.Random(1000 + case))
    expected = pydna_pcr(Primer(forward), Primer(reverse), Dseqrecord(template))
    watson = str(expected.seq.watson).upper()
    states = _derived_states(pcr_program(template, forward, reverse))
    assert sorted(states["p"]) == sorted([watson, rc(watson)])


@pytest.mark.parametrize("case", range(CASES))
def test_digest_fragments_equal_pydnas(case: int) -> None:
    """A digest of a random duplex holding one site of each of one to three enzymes gives
    pydna's fragments in order, each fragment's two strands (overhangs included) equal to
    its watson and crick."""
    template, chosen = digest_case(random.Random(2000 + case))
    enzymes = [AllEnzymes.get(name) for name in chosen]
    fragments = Dseqrecord(template, circular=False).cut(*enzymes)
    assert len(fragments) == len(chosen) + 1  # one site each, by construction
    states = _derived_states(digest_program(template, chosen))
    products = [states[f"d_{k}"] for k in range(1, len(fragments) + 1)]
    expected = [[str(f.seq.watson).upper(), str(f.seq.crick).upper()] for f in fragments]
    assert products == expected


def _lablang_errors(program_text: str) -> list[str]:
    result = check_text(program_text, "differential.lab")
    return [d.code for d in result.report if d.severity.name == "ERROR"]


def _pair(record: Dseqrecord) -> list[str]:
    return [str(record.seq.watson).upper(), str(record.seq.crick).upper()]


def _rotation(text: str, of: str) -> bool:
    """Whether `text` is `of` read from another origin (the same circle)."""
    return len(text) == len(of) and text in of + of


@pytest.mark.parametrize(
    ("case", "kind"), [(k, kind) for kind in LIGATION_KINDS for k in range(LIGATION_CASES)]
)
def test_a_ligation_of_two_digest_products_equals_pydnas(case: int, kind: str) -> None:
    """Two digest products joined at matching sticky ends, or blunt ends the cut left
    phosphorylated, give pydna's `a + b` strand by strand (a blunt partner also joins
    turned round, pydna's `a + b.reverse_complement()`); incompatible overhangs are
    E0402 where pydna raises too; uncut blunt duplexes, with no 5' phosphate, are E0403
    where pydna joins (ligase needs one: lablang is right)."""
    a, b, first, second = ligation_case(random.Random(3000 + 10 * case + len(kind)), kind)
    program = ligation_program(a, b, first, second, kind)
    if kind == "blunt_unphosphorylated":
        assert len(Dseqrecord(a) + Dseqrecord(b)) == len(a) + len(b)  # pydna joins them
        assert _lablang_errors(program) == ["E0403"]
        return
    left = Dseqrecord(a).cut(AllEnzymes.get(first))[0]
    right = Dseqrecord(b).cut(AllEnzymes.get(second))[1]
    if kind == "incompatible":
        with pytest.raises(TypeError):
            left + right
        assert _lablang_errors(program) == ["E0402"]
        return
    states = _derived_states(program)
    products = sorted(v for k, v in states.items() if k == "lig" or k.startswith("lig_"))
    expected = [_pair(left + right)]
    if kind == "blunt":
        expected.append(_pair(left + right.reverse_complement()))
    assert products == sorted(expected)


@pytest.mark.parametrize("case", range(CIRCLE_CASES))
def test_digest_of_a_circle_equals_pydnas(case: int) -> None:
    """A circle with one or two enzyme sites (sometimes across its origin) cut: one site
    linearizes it, two give two fragments, each equal to pydna's circular `Dseqrecord`'s
    cut on both strands."""
    template, chosen = circle_case(random.Random(4000 + case))
    fragments = Dseqrecord(template, circular=True).cut(*[AllEnzymes.get(n) for n in chosen])
    states = _derived_states(circle_digest_program(template, chosen))
    products = [v for k, v in states.items() if k == "d" or k.startswith("d_")]
    assert sorted(products) == sorted(_pair(f) for f in fragments)


@pytest.mark.parametrize("case", range(CIRCLE_CASES))
def test_pcr_on_a_circle_across_its_origin_equals_pydnas(case: int) -> None:
    """Primers on either side of a circle's origin amplify through it: pydna's amplicon
    on the circular template, both strands."""
    template, forward, reverse = circle_pcr_case(random.Random(5000 + case))
    expected = pydna_pcr(Primer(forward), Primer(reverse), Dseqrecord(template, circular=True))
    states = _derived_states(circle_pcr_program(template, forward, reverse))
    assert sorted(states["p"]) == sorted(_pair(expected))


@pytest.mark.parametrize("case", range(CIRCLE_CASES))
def test_circularize_equals_pydnas_looped(case: int) -> None:
    """A fragment cut out by one sticky enzyme closes into pydna's `looped()` circle: the
    same circle on each strand (an origin may differ: pydna starts a 3'-overhang circle
    at the overhang)."""
    template, enzyme = looped_case(random.Random(6000 + case))
    looped = Dseqrecord(template).cut(AllEnzymes.get(enzyme))[1].looped()
    assert looped.circular
    top, bottom = _derived_states(looped_program(template, enzyme))["ring"]
    watson, crick = _pair(looped)
    assert _rotation(top, watson) and _rotation(bottom, crick)
