"""Primers' melting temperatures where they anneal (primer3's nearest-neighbour Tm of the
paired part), in the pictures and against a protocol's annealing temperature (W0408)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lablang.driver import check_text
from lablang.molecular.ops.core import anneal_sites
from lablang.molecular.sequence import bases
from lablang.molecular.thermo import melting_temperature, paired_bases, tm_at_site

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = bases("GGGGGGCTAGCATCGATCGTACGTTGCAAAAA")
CORE = "CTAGCATCGATCGTACGTTGC"  # what the primers below pair over (its reverse complement)


def _rc(text: str) -> str:
    return text[::-1].translate(str.maketrans("ACGT", "TGCA"))


def test_a_primers_temperature_is_that_of_its_paired_part_not_its_tail() -> None:
    """A primer with a 20-nt 5' adapter tail has the Tm of the 21 bases that pair, which
    is below the whole oligo's."""
    tail = "AATGATACGGCGACCACCGA"
    primer = bases(tail + _rc(CORE))
    (site,) = anneal_sites(primer, TEMPLATE)
    assert paired_bases(primer, site) == _rc(CORE)
    tm = tm_at_site(primer, site)
    assert tm == melting_temperature(_rc(CORE))
    assert tm is not None and tm < melting_temperature(tail + _rc(CORE))


def test_a_degenerate_primer_base_takes_the_base_it_pairs_with() -> None:
    """An `N` in the paired part is computed as the template's complementary base, so the
    primer's Tm equals the concrete primer's."""
    concrete = _rc(CORE)
    degenerate = concrete[:5] + "N" + concrete[6:]
    (site,) = anneal_sites(bases(degenerate), TEMPLATE)
    assert paired_bases(bases(degenerate), site) == concrete
    assert tm_at_site(bases(degenerate), site) == melting_temperature(concrete)


PROTOCOL = """
oligo f {{ seq: 5'-ACGTTGCAACGTTGCA-3' }}
oligo r {{ seq: 5'-TTAAGGCCTTAAGGCC-3' }}
workflow w {{
  input t: DNA 5'-ACGTTGCAACGTTGCA [GDNA] GGCCTTAAGGCCTTAA-3' as duplex
  amp = pcr(t, primers: [f, r])
}}
protocol run "the amplification" {realizes}{{
  materials: [mix]
  step cycle {{ {step}thermocycle {{ 98 C for 30 s; repeat 20 {{ 98 C for 10 s; {anneal} C for 30 s; 72 C for 30 s }}; hold 4 C }} }}
}}
"""


def _w0408(realizes: str = "realizes w.amp ", step: str = "", anneal: int = 60) -> list[str]:
    text = PROTOCOL.format(realizes=realizes, step=step, anneal=anneal)
    report = check_text(text, "p.lab").report
    assert not report.has_errors, [d.message for d in report]
    return [d.message for d in report if d.code == "W0408"]


def test_each_primer_under_the_annealing_temperature_is_named_once() -> None:
    """At 52 C only `r` (Tm 49.4 C) is too weak; at 60 C both primers are; at 45 C none."""
    assert [m.split("primer ")[1].split(" ")[0] for m in _w0408(anneal=52)] == ["`r`"]
    assert len(_w0408(anneal=60)) == 2
    assert _w0408(anneal=45) == []


def test_a_step_level_realizes_is_compared_and_an_unlinked_protocol_is_not() -> None:
    """`realizes:` on the step links it as the protocol's clause does; a protocol linked to
    nothing, or to a step that is not derived, gets no W0408."""
    assert len(_w0408(realizes="", step="realizes: w.amp  ")) == 2
    assert _w0408(realizes="") == []
    assert _w0408(realizes="realizes w.nothing ") == []


def test_checking_without_a_temperature_to_compare_never_imports_primer3() -> None:
    """`check` of the 10x example (a workflow, no protocol anneals in it) leaves primer3
    unimported: only a temperature asked for loads it."""
    code = (
        "import sys\n"
        "from lablang.driver import check_file\n"
        f"check_file({str(ROOT / 'examples' / 'tenx_3p_v3.lab')!r})\n"
        "print('primer3' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_library_picture_gives_each_reads_primer_temperature() -> None:
    """Each read lane of the 10x library says its sequencing primer's Tm at its site."""
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.draw import library_svg
    from lablang.molecular.front import build_model

    model = build_model(check_file(ROOT / "examples" / "tenx_3p_v3.lab").program, Report()).model
    library = next(lib for lib in model.libraries if lib.name == "gex_library")
    svg = library_svg(library, {o.name: o for o in model.oligos})
    lanes = [line for line in svg.splitlines() if ">R1: " in line or ">R2: " in line]
    assert len(lanes) == 2 and all(", Tm " in lane and " \u00b0C" in lane for lane in lanes)
