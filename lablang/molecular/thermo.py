"""Melting temperatures of primers where they anneal: primer3-py's nearest-neighbour Tm
(SantaLucia 1998 parameters with SantaLucia's salt correction), the field's standard,
under primer3's default PCR conditions unless a workflow or protocol step states its
buffer (`Conditions`).

A primer's temperature is that of its paired part at the site (the bases its 3' end pairs
over, as `anneal_sites` finds them), not of the whole oligo: a 5' adapter tail does not
pair in the first cycles. The base-count rule (`min_anneal`) still decides what primes;
the temperature is reported beside it (pictures, W0408). primer3 is imported only here,
when a temperature is asked for: `lablang check` of a file that asks for none never
loads it.

>>> from lablang.molecular.sequence import bases
>>> from lablang.molecular.ops.core import anneal_sites
>>> primer = bases("TTTTTTTTTTACGCGCGCATATGCGCCG")  # a 10-T tail, 18 bases pair
>>> site = anneal_sites(primer, bases("AAAACGGCGCATATGCGCGCGTGGGG"))[0]
>>> paired_bases(primer, site)
'ACGCGCGCATATGCGCCG'
>>> round(tm_at_site(primer, site)) == round(melting_temperature("ACGCGCGCATATGCGCCG"))
True
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from lablang.molecular.ops.core import Site
from lablang.molecular.sequence import Seq
from lablang.records import Compared


@frozen(repr=False, eq=False)
class Conditions(Compared):
    """The buffer a Tm is computed in: monovalent cations (Na+/K+) and Mg2+, dNTP (mM)
    and primer (nM); the defaults are primer3's (primer3-py `calc_tm`)."""

    na: float = 50.0
    mg: float = 1.5
    dntp: float = 0.6
    primer: float = 50.0

    def primer3_args(self) -> dict[str, float]:
        return {
            "mv_conc": self.na,
            "dv_conc": self.mg,
            "dntp_conc": self.dntp,
            "dna_conc": self.primer,
        }

    def text(self) -> str:
        """The conditions in words, stated wherever a temperature is shown."""
        buffer = "primer3's default buffer" if self == DEFAULT_CONDITIONS else "buffer"
        return (
            f"primer3 nearest-neighbour Tm, {buffer} {self.na:g} mM Na+, {self.mg:g} mM Mg2+, "
            f"{self.dntp:g} mM dNTP, {self.primer:g} nM primer"
        )


DEFAULT_CONDITIONS = Conditions()

# `param NAME: value` of a workflow (or a protocol step's field) -> the `Conditions` field
# it sets, its unit and its bounds in that unit (a Tm outside them means a typo)
BUFFER_FIELDS: dict[str, tuple[str, str, float, float]] = {
    "salt": ("na", "mM", 0.0, 2000.0),  # monovalent cations (Na+, K+)
    "mg": ("mg", "mM", 0.0, 200.0),
    "dntp": ("dntp", "mM", 0.0, 100.0),
    "primer_conc": ("primer", "nM", 0.001, 1e6),
}


def buffer_amount(name: str, number: str | None, unit: str | None) -> tuple[Any, str]:
    """(the concentration, "") for a buffer field written `number unit`, or (None, the
    problem) when it is not a molar concentration within BUFFER_FIELDS' bounds (E0429)."""
    from lablang.units import quantity
    from lablang.units.table import UNITS

    _, field_unit, low, high = BUFFER_FIELDS[name]
    default = f"{getattr(DEFAULT_CONDITIONS, BUFFER_FIELDS[name][0]):g} {field_unit}"
    if number is None or unit not in UNITS or UNITS[unit].dimension != "molar_concentration":
        return None, f"`{name}` is a molar concentration such as `{default}`"
    amount = quantity(number, unit)
    if not low <= float(amount.to(field_unit).magnitude) <= high:
        return None, f"`{name}` must be between {low:g} and {high:g} {field_unit}, not {amount}"
    return amount, ""


def conditions_of(values: dict[str, float], base: Conditions = DEFAULT_CONDITIONS) -> Conditions:
    """The conditions with the buffer fields `values` names (in BUFFER_FIELDS' units)
    over `base` (primer3's defaults unless given)."""
    return evolve(base, **{BUFFER_FIELDS[k][0]: v for k, v in values.items()})


_COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A"}


def paired_bases(primer: Seq, site: Site) -> str | None:
    """The primer's paired part at `site`, 5'->3', in concrete bases: a degenerate primer
    base takes the base it pairs with on a concrete template. None when a placeholder or
    a run of unknown length pairs, or a position is degenerate on both sides."""
    tokens = primer.tokens()
    part = tokens[len(tokens) - site.primer_paired :]
    template = site.template.tokens()[site.start : site.stop]
    if len(template) != len(part):
        return None  # a run paired as one position: no base-by-base duplex
    out = []
    for base, opposite in zip(part, reversed(template), strict=True):
        if not isinstance(base, str) or not isinstance(opposite, str):
            return None
        base = base.upper()
        if base not in _COMPLEMENT:  # the base that pairs with the template's (its own inverse)
            base = _COMPLEMENT.get(opposite.upper(), "")
            if not base:
                return None
        out.append(base)
    return "".join(out)


def melting_temperature(bases: str, conditions: Conditions = DEFAULT_CONDITIONS) -> float:
    """The Tm (degrees C) of a concrete DNA sequence paired with its complement."""
    import primer3

    return float(primer3.calc_tm(bases.upper(), **conditions.primer3_args()))


def tm_at_site(
    primer: Seq, site: Site, conditions: Conditions = DEFAULT_CONDITIONS
) -> float | None:
    """The Tm of the primer's paired part at `site`, or None when it has no concrete
    bases to compute from (see `paired_bases`)."""
    text = paired_bases(primer, site)
    if text is None or len(text) < 2:
        return None
    return melting_temperature(text, conditions)
