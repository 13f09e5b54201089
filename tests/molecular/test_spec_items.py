"""`lablang spec` states what issue 31's new users had to learn from examples: each item of
its list is pinned by a phrase (the ones generated from a registry, by the registry).

Two items are another branch's sentences (`degenerate`: how degenerate bases pair with
placeholders, and that `[ROLE:MIN-MAX]` exports its maximum) and are pinned there."""

from __future__ import annotations

import pytest

from lablang.spec import spec_text


def _text(*sections: str) -> str:
    """The sections' text with every run of whitespace one space (phrases cross lines)."""
    return " ".join(spec_text(list(sections)).split())


ITEMS = {
    "a workflow can take two inputs": "A workflow may take several inputs",
    "where `merge` may stand": "a step's input may be a list, `[a, b]` or `merge([a, b])`",
    "a variable-length designed segment": "A variable-length segment is a range, `[PHASE_BLOCK:0-7]`",
    "`denature` without `keep:`": "`denature` without `keep:` carries every strand",
    '`nontemplated: ""`': '`nontemplated: ""` follows a page that draws no C tail',
    "the top strand after reverse transcription": (
        "After `reverse_transcribe` or `extend` the copy is the top strand"
    ),
    "the top strand after tagmentation": (
        "after `tagment` each fragment's top strand starts with its left end's adapter"
    ),
    "`barcode_round` with a splint, `ligate` otherwise": (
        "`barcode_round` adds a split-pool round's barcode at a strand end over its splint; "
        "`ligate` joins adapters to duplex ends"
    ),
    "single-stranded joins need a splint or RNA ligase": "need `splint:` with DNA ligase, or `ligase: rna`",
    "what RNase H cannot act on": "`rnase_h` needs RNA paired with DNA",
    "where `ivt` starts counting": "`ivt` starts at +1, the base after the promoter",
    "primers' melting temperatures": (
        "`lablang explain STEP FILE` gives each primer's paired bases and Tm at its site"
    ),
}


@pytest.mark.parametrize("item", ITEMS)
def test_the_molecular_section_states_the_item(item: str) -> None:
    """The molecular section holds the item's phrase."""
    assert ITEMS[item] in _text("molecular"), item


def test_the_enzymes_are_a_count_from_rebase_and_how_to_list_them() -> None:
    """The reference gives the REBASE table's size and the commands that list the enzymes
    and describe one, not 610 names; the listing names them all."""
    from click.testing import CliRunner

    from lablang.cli import main
    from lablang.molecular.ops.digestion import ENZYMES

    text = _text("molecular")
    assert f"`digest` knows the {len(ENZYMES)} enzymes of REBASE's commercial set" in text
    assert "`lablang explain enzymes` lists them" in text and "SbfI" in text
    assert "EcoRV" not in text
    listing = CliRunner().invoke(main, ["explain", "enzymes"])
    assert listing.exit_code == 0
    assert set(" ".join(listing.output.split("\n\n", 1)[1].split()).split(", ")) == set(ENZYMES)
    one = CliRunner().invoke(main, ["explain", "SbfI"])
    assert one.output.startswith("`SbfI`: site CCTGCA^GG, a 4-base 3' overhang (TGCA)")


def test_every_modification_code_and_buffer_parameter_is_in_the_reference() -> None:
    """The modification vocabulary (core section) and the interpreter's parameters, the
    buffer's included (molecular section), come from their registries."""
    from lablang.molecular.front import PARAMETER_DEFAULTS
    from lablang.molecular.modifications import MODIFICATIONS

    core = _text("core")
    assert all(f"`/{info.code}/`" in core for info in MODIFICATIONS)
    molecular = _text("molecular")
    assert all(f"`param {name}: " in molecular for name in PARAMETER_DEFAULTS)
    assert "`param salt: 50 mM`" in molecular and "`param primer_conc: 50 nM`" in molecular
