"""The modification registry is read everywhere: the checker refuses a code it does not
have (E0427, did-you-mean and a fix), the interpreter's chemistry sets come from it,
hover describes a code from it, and `lablang spec` lists it."""

from __future__ import annotations

from lablang.driver import check_text
from lablang.lsp.analysis import analyze
from lablang.lsp.hover import hover
from lablang.molecular.modifications import BY_CODE, MODIFICATIONS, codes_of
from lablang.molecular.ops.core import BLOCKING_3P, PHOSPHATE_CODES
from lablang.spec import spec_text


def test_unknown_modifications_are_e0427_with_the_closest_code_as_the_fix() -> None:
    """`/ddC/` (a page's spelling) is E0427 with `/3ddC/` offered and the edit that makes
    it; `/5Foo/`-like inventions are refused too, each once, and known codes pass."""
    text = "oligo a { seq: 5'-ACGTACGTACGT/ddC/-3' }\noligo b { seq: 5'-/5Phos/ACGT/iBarBaz/ACGT-3' }\n"
    report = list(check_text(text, "case.lab").report)
    assert [d.code for d in report] == ["E0427", "E0427"]
    first = report[0]
    assert "`/3ddC/`" in (first.help or "") and first.fix is not None
    (edit,) = first.fix.edits
    assert text[edit.span.start : edit.span.end] == "ddC" and edit.replacement == "3ddC"


def test_the_interpreter_reads_its_chemistry_from_the_registry() -> None:
    """The phosphate and 3'-block sets the ligation and extension rules use are the
    registry's spellings of those chemistries (one table, no second list)."""
    assert codes_of("phosphate") == PHOSPHATE_CODES and "5Phos" in PHOSPHATE_CODES
    assert codes_of("3' block") == BLOCKING_3P and {"3ddC", "3InvdT"} <= BLOCKING_3P
    assert all(BY_CODE[c].where == "3'" for c in BLOCKING_3P)


def test_hover_on_a_modification_says_what_it_is() -> None:
    """Hovering `/3ddC/` describes it as a 3' block from the registry's words."""
    text = "oligo a { seq: 5'-ACGTACGTACGT/3ddC/-3' }\n"
    shown = hover(analyze(text, "case.lab"), text.index("3ddC"))
    assert shown is not None and "dideoxycytidine at the 3' end" in shown
    assert "cannot extend" in shown


def test_the_reference_lists_every_registered_code() -> None:
    """`lablang spec` names every code of the registry (generated, not a hand list)."""
    text = spec_text(["core"])
    assert all(f"`/{info.code}/`" in text for info in MODIFICATIONS)
