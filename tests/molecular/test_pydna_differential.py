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
    digest_case,
    digest_program,
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
