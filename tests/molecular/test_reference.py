"""`lablang spec` states what a new user had to learn from the examples (issue 31's list),
and the examples it gives run as written."""

from __future__ import annotations

import pytest

from lablang.driver import check_text
from lablang.spec import spec_text

FACTS = [
    "A workflow may take several inputs",  # two inputs
    "`merge([a, b])`",  # where merge may stand
    "`denature` without `keep:` carries every strand",
    '`nontemplated: ""` follows a page that draws no C tail',
    "after `tagment` each fragment's top strand starts",  # what `end:` refers to
    "`ivt` starts at +1",
    "`rnase_h` needs RNA paired with DNA",
    "`ligase: rna`",  # barcode_round with a splint or ligate
    "`[PHASE_BLOCK:0-7]`",  # a variable-length designed segment
    '`[RT_BARCODE:7 "SNNNNNN"]`',  # a placeholder's pattern
    "a linker ending in S bridges to a barcode given as `S...`",  # degenerate vs placeholder
    "a range too; seqspec takes its lengths",  # what `[ROLE:MIN-MAX]` exports
]


@pytest.mark.parametrize("fact", FACTS)
def test_the_molecular_reference_states_each_fact_users_had_to_guess(fact: str) -> None:
    """Each fact a new user learned only from the examples is in the molecular section."""
    assert fact in " ".join(spec_text(["molecular"]).split())


def test_the_reference_s_two_input_merge_example_checks_clean() -> None:
    """A two-input workflow whose step takes `merge([a, b])`, as the reference says, checks clean."""
    text = """
workflow w {
  input a: DNA 5'-ACGTACGTAAAA [CDNA]-3' as duplex
  input b: DNA 5'-GGGGACGTAAAA [GDNA]-3' as duplex
  both = end_repair(merge([a, b]))
  single = denature(both)
  output single as gene_expression
}
"""
    assert [d.code for d in check_text(text, "case.lab").report] == []
