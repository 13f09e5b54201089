"""Where each primer of a workflow step anneals on the step's substrates, and its melting
temperature there: what `lablang explain` says of a step or a primer, what the workflow
picture writes in a PCR step's box and what W0408 compares a protocol's annealing
temperature with. One search, so the three agree.

The site is the best one `anneal_sites` finds (most bases paired) on a substrate strand or
on its complement (a single strand's copy made in the first cycle); the temperature is
`lablang.molecular.thermo`'s, of the paired part only (primer3 is imported only when one
is computed).
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from lablang.molecular.model import Graph, OligoDef, TransitionDef
from lablang.molecular.thermo import DEFAULT_CONDITIONS, Conditions
from lablang.records import Compared

__all__ = ["PrimerSite", "primer_sites", "step_conditions"]


@frozen(repr=False, eq=False)
class PrimerSite(Compared):
    """One primer of a step at its best site: the substrate state and strand it pairs with
    (`complement`: it pairs with that strand's complement, so has the strand's sense),
    the bases paired from its 3' end of its length, the paired bases (None when a
    placeholder pairs), how many sites it has on that strand, and the Tm there (None
    without bases)."""

    primer: str
    state: str
    strand: str
    complement: bool
    paired: int
    length: int
    paired_bases: str | None
    sites: int
    tm: float | None

    def text(self) -> str:
        """`cdna_fwd: 22 of 22 nt pair with strand `top` of `ts`, Tm 63.1 C`."""
        where = (
            f"the complement of strand `{self.strand}`"
            if self.complement
            else (f"strand `{self.strand}`")
        )
        tail = self.length - self.paired
        parts = [
            f"{self.paired} of its {self.length} positions pair with {where} of `{self.state}`"
        ]
        if tail:
            parts.append(f"a {tail}-position 5' tail")
        if self.paired_bases is not None:
            parts.append(f"paired part {self.paired_bases}")
        if self.sites > 1:
            parts.append(f"{self.sites} sites, the best shown")
        tm = (
            f"Tm {self.tm:.1f} C"
            if self.tm is not None
            else "no Tm (a placeholder or a run pairs, not base by base)"
        )
        return f"`{self.primer}`: {'; '.join(parts)}; {tm}"


def step_conditions(transition: TransitionDef) -> Conditions:
    """The buffer a step's temperatures are computed in: its workflow's `param salt`,
    `mg`, `dntp` and `primer_conc` in force at the step, over primer3's defaults."""
    from lablang.molecular.thermo import BUFFER_FIELDS, conditions_of

    stated = {
        name: float(value.to(BUFFER_FIELDS[name][1]).magnitude)
        for name, value in transition.params
        if name in BUFFER_FIELDS
    }
    return conditions_of(stated) if stated else DEFAULT_CONDITIONS


def primer_sites(
    oligos: Mapping[str, OligoDef],
    graph: Graph,
    transition: TransitionDef,
    conditions: Conditions | None = None,
) -> tuple[PrimerSite, ...]:
    """Each single-stranded oligo of `transition` (named in `oligos`) that anneals to one of its substrates, at
    its best site, with its Tm under `conditions` (the step's own, `step_conditions`,
    unless given); oligos that pair nowhere are left out (the step's diagnostics say why)."""
    if conditions is None:
        conditions = step_conditions(transition)
    from lablang.molecular.ops.amplification import priming_sites
    from lablang.molecular.ops.core import MIN_ANNEAL, OperationFailure
    from lablang.molecular.sequence import plain, reverse_complement
    from lablang.molecular.thermo import paired_bases, tm_at_site

    # the step's own minimum (`param min_anneal`), as the operation paired with it
    min_match = int(dict(transition.params).get("min_anneal", MIN_ANNEAL))
    # each strand and its complement (a copy made in the first cycle)
    strands = [
        (state.name, strand.name, strand.seq)
        for sub in transition.substrates
        if (state := graph.state(sub)) is not None and state.status != "unknown"
        for strand in state.strands
    ]
    out: list[PrimerSite] = []
    for name in transition.oligos:
        oligo = oligos.get(name)
        if oligo is None or oligo.kind != "single":
            continue
        primer = plain(oligo.seq)
        found = []
        for state_name, strand_name, seq in strands:
            for complement, template in (
                (False, plain(seq)),
                (True, reverse_complement(plain(seq))),
            ):
                try:
                    sites = priming_sites(primer, template, min_match)
                except OperationFailure:  # past the search bound: the step reports it
                    continue
                found += [(site, (state_name, strand_name, complement)) for site in sites]
        if not found:
            continue
        site, where = max(found, key=lambda f: f[0].bases)
        state_name, strand_name, complement = where
        out.append(
            PrimerSite(
                name,
                state_name,
                strand_name,
                complement,
                site.primer_paired,
                len(primer.tokens()),
                paired_bases(primer, site),
                sum(1 for _, other in found if other == where),  # as W0407 counts: per strand
                tm_at_site(primer, site, conditions),
            )
        )
    return tuple(out)
