"""In vitro transcription: a phage RNA polymerase copies DNA downstream of its promoter."""

from __future__ import annotations

from lablang.molecular.molecule import Duplex, Molecule, MolType, Pool, Product, Single, Strand
from lablang.molecular.ops.core import OperationFailure
from lablang.molecular.ops.registry import Param, operation
from lablang.molecular.sequence import Seq, plain, render

# Each promoter's sense strand from -17 to -1; transcription starts at the next base (+1,
# a G in the consensus). T7 class III, SP6 and T3 consensus promoters.
PROMOTERS: dict[str, str] = {
    "T7": "TAATACGACTCACTATA",
    "SP6": "ATTTAGGTGACACTATA",
    "T3": "AATTAACCCTCACTAAA",
}


def _find(tokens: tuple[object, ...], site: str) -> list[int]:
    n = len(site)
    return [
        i for i in range(len(tokens) - n + 1) if all(tokens[i + k] == site[k] for k in range(n))
    ]


@operation(
    "ivt",
    lsb="amplification",
    rule="RNA of the sense strand from +1 after a double-stranded promoter to the end (aRNA from dT-T7 cDNA); no promoter is E0419",
    params=(
        Param(
            "promoter",
            "text",
            "the polymerase",
            default="T7",
            choices=tuple(PROMOTERS),
        ),
    ),
)
def ivt(molecule: Molecule, promoter: str = "T7") -> Single | Pool:
    """In vitro transcription (T7, SP6 or T3 RNA polymerase), run-off.

    Rule: the polymerase recognises its promoter only as a duplex, on the strand that
    reads the promoter 5'->3' (the sense strand); it transcribes the other (template)
    strand from +1, the base right after the promoter's -1, to the template's 5' end.
    The transcript has the sense strand's sequence from +1 on (RNA), so an oligo-dT-T7
    primed cDNA gives antisense RNA (aRNA, CEL-seq, MARS-seq). Each template is copied
    many times (linear amplification); the DNA is left as it was and not carried. With
    a promoter on each strand (an adapter carrying T7 at both ends of a tagmented
    fragment, LIANTI) each strand is transcribed from its own: two products. A duplex
    without the promoter in its designed bases is E0419.
    """
    if promoter not in PROMOTERS:
        raise OperationFailure(
            "E0412",
            f"unknown promoter `{promoter}`",
            help="promoters: " + ", ".join(PROMOTERS),
        )
    if not isinstance(molecule, Duplex):
        raise OperationFailure(
            "E0419",
            f"{promoter} RNA polymerase needs a double-stranded promoter; this molecule is "
            "single-stranded",
            help="synthesise the second strand first (`second_strand`)",
        )
    site = PROMOTERS[promoter]
    transcripts: list[Product] = []
    for name, sense, moltype in (
        (molecule.top_name, molecule.top, molecule.top_type),
        (molecule.bottom_name, molecule.bottom, molecule.bottom_type),
    ):
        flat = plain(sense)
        hits = _find(flat.tokens(), site)
        if not hits:
            continue
        if moltype is not MolType.DNA:
            raise OperationFailure(
                "E0419",
                f"the {promoter} promoter is on an RNA strand (`{name}`); the polymerase "
                "transcribes DNA",
            )
        # the template strand is the complement of the sense strand; run-off copies it
        # to its 5' end, which is the sense strand's 3' end
        transcript: Seq = flat.slice(hits[0] + len(site))
        if transcript:
            strand = Strand(transcript, MolType.RNA, f"{promoter} transcript of {name}")
            transcripts.append(Product(Single(strand), name=f"{promoter} transcript of {name}"))
    if len(transcripts) == 1:
        only = transcripts[0].molecule
        assert isinstance(only, Single)
        return only
    if transcripts:
        # a promoter at each end (Tn5 adapters carrying T7, LIANTI): both strands are
        # transcribed, each from its own promoter
        return Pool(tuple(transcripts))
    raise OperationFailure(
        "E0419",
        f"no {promoter} promoter ({site}) on either strand of the molecule",
        notes=[
            f"top:    {render(plain(molecule.top))}",
            f"bottom: {render(plain(molecule.bottom))}",
        ],
        help="the promoter comes with a primer (an oligo-dT-T7 RT primer, a T7 adapter); "
        "check that it is on this molecule and written 5'->3'",
    )
