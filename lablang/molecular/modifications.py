"""The modification registry: each IDT-style code (`/5Phos/`, `/3ddC/`, `/iBiodT/`) written
once, with the chemistry it implies.

The interpreter's rules read it (a 5' phosphate is a ligation donor, a 3' block stops
polymerase and ligase, a modified nucleotide pairs as its base, a deoxyuridine is cut by
USER), the checker refuses a code that is not here (E0427, with did-you-mean), and the
LibStructBench export, hover, `lablang spec` and docs/molecular.md list it from here.
Codes are IDT's spelling (idtdna.com's modification codes); `aliases` are other
spellings pages use for the same group. Ribonucleotides (`rG`) and LNA bases (`+G`) are
written inline, not as codes.
"""

from __future__ import annotations

from attrs import frozen

from lablang.records import Compared

# what a modification does, in the words the docs and `lablang spec` use
CHEMISTRY: dict[str, str] = {
    "phosphate": "5' phosphate: a ligation donor",
    "adenylate": "5' adenylate (pre-adenylated adapter): a donor for ATP-free ligases",
    "3' block": "no 3'-OH: a polymerase cannot extend it, a ligase cannot join it",
    "biotin": "biotin: streptavidin capture",
    "amine": "amine or other 5' group: blocks kinase and ligation at that end",
    "acrydite": "acrydite: copolymerises into a gel or bead",
    "dye": "fluorophore: a 5' group that blocks ligation",
    "thiol": "thiol linker: an internal attachment point",
    "spacer": "spacer: occupies no base, pairs with nothing",
    "uracil": "deoxyuridine: a base that USER excises",
    "modified base": "a modified nucleotide that pairs as its base",
    "inosine": "inosine or a universal base: pairs with any base",
    "iso base": "isoC / isoG: pairs only with its iso partner, never with a natural base",
}


@frozen(repr=False, eq=False)
class ModificationInfo(Compared):
    """One code: where on an oligo it sits (`5'`, `3'`, `internal`), its chemistry (a
    key of `CHEMISTRY`), LibStructBench's words for it, and the base a modified
    nucleotide pairs as (None: it occupies no position)."""

    code: str
    where: str
    chemistry: str
    words: str
    base: str | None = None
    aliases: tuple[str, ...] = ()


MODIFICATIONS: tuple[ModificationInfo, ...] = (
    ModificationInfo("5Phos", "5'", "phosphate", "phosphate", aliases=("5phos", "Phos", "phos", "5PHOS")),
    ModificationInfo("3Phos", "3'", "3' block", "phosphate"),
    ModificationInfo("5rApp", "5'", "adenylate", "pre-adenylation (5' adenylate)", aliases=("5App",)),
    ModificationInfo("3ddC", "3'", "3' block", "dideoxycytidine"),
    ModificationInfo("3ddT", "3'", "3' block", "dideoxythymidine"),
    ModificationInfo("ddU", "3'", "3' block", "dideoxyuridine"),
    ModificationInfo("3InvdT", "3'", "3' block", "inverted dT"),
    ModificationInfo("3SpC3", "3'", "3' block", "C3 spacer", aliases=("3C3",)),
    ModificationInfo("3SpC6", "3'", "3' block", "C6 spacer"),
    ModificationInfo("3AmMO", "3'", "3' block", "amino modifier"),
    ModificationInfo("3Bio", "3'", "3' block", "biotin"),
    ModificationInfo("3BioTEG", "3'", "3' block", "biotin"),
    ModificationInfo("5Biosg", "5'", "biotin", "biotin", aliases=("5Bio", "Bio")),
    ModificationInfo("5BiotinTEG", "5'", "biotin", "biotin"),
    ModificationInfo("5PCBio", "5'", "biotin", "photocleavable biotin"),
    ModificationInfo("iBiodT", "internal", "biotin", "biotin dT", "T", aliases=("iBiotindT",)),
    ModificationInfo("iBiodC", "internal", "biotin", "biotin dC", "C"),
    ModificationInfo("iBiodG", "internal", "biotin", "biotin dG", "G"),
    ModificationInfo("iBiodA", "internal", "biotin", "biotin dA", "A"),
    ModificationInfo("5AmMC6", "5'", "amine", "amino modifier"),
    ModificationInfo("NH2", "5'", "amine", "amine"),
    ModificationInfo("5AmMC12", "5'", "amine", "amino modifier"),
    ModificationInfo("iAmMC6T", "internal", "amine", "amino modifier dT", "T"),
    ModificationInfo("iAmMC2T", "internal", "amine", "amino modifier dT", "T"),
    ModificationInfo("iUniAmM", "internal", "amine", "amino modifier", "N"),
    ModificationInfo("5Acryd", "5'", "acrydite", "acrydite"),
    ModificationInfo("56-FAM", "5'", "dye", "fluorescein (6-FAM)", aliases=("6-FAM",)),
    ModificationInfo("5FAM", "5'", "dye", "fluorescein"),
    ModificationInfo("iFluorT", "internal", "dye", "fluorescein dT", "T"),
    ModificationInfo("iDigN", "internal", "dye", "digoxigenin", "T"),
    ModificationInfo("iThioMC6-D", "internal", "thiol", "thiol"),
    ModificationInfo("iSpC3", "internal", "spacer", "C3 spacer"),
    ModificationInfo("iSp9", "internal", "spacer", "PEG linker (Sp9)"),
    ModificationInfo("iSp18", "internal", "spacer", "PEG linker (Sp18)"),
    ModificationInfo("iSpPC", "internal", "spacer", "photocleavable spacer"),
    ModificationInfo("idSp", "internal", "spacer", "abasic site"),
    ModificationInfo("ideoxyU", "internal", "uracil", "deoxyuridine", "T", aliases=("idU", "dU")),
    ModificationInfo("iMe-dC", "internal", "modified base", "5-methylcytosine", "C", aliases=("i5MedC", "iMedC")),
    ModificationInfo("i2OMeU", "internal", "modified base", "2'-O-methyl U", "T"),
    ModificationInfo("iSuper-dT", "internal", "modified base", "Super T", "T", aliases=("iSuperdT",)),
    ModificationInfo("ideoxyI", "internal", "inosine", "deoxyinosine", "N", aliases=("iInosine",)),
    ModificationInfo("i5NitInd", "internal", "inosine", "5-nitroindole", "N"),
    ModificationInfo("iisodC", "internal", "iso base", "iso-dC"),
    ModificationInfo("iisodG", "internal", "iso base", "iso-dG"),
    ModificationInfo("iMe-isodC", "internal", "iso base", "5-methyl iso-dC"),
)  # fmt: skip

# every spelling, to its entry
BY_CODE: dict[str, ModificationInfo] = {
    spelling: info for info in MODIFICATIONS for spelling in (info.code, *info.aliases)
}


def codes_of(chemistry: str) -> frozenset[str]:
    """Every spelling of the codes with this chemistry.

    >>> sorted(codes_of("uracil"))
    ['dU', 'idU', 'ideoxyU']
    """
    return frozenset(s for s, info in BY_CODE.items() if info.chemistry == chemistry)


def modified_bases() -> dict[str, str]:
    """Each spelling of a modified nucleotide, to the base it pairs as."""
    return {s: info.base for s, info in BY_CODE.items() if info.base is not None}


def unknown_modification(code: str) -> str | None:
    """None for a registered code; else the message's did-you-mean (a code, or "")."""
    if code in BY_CODE:
        return None
    from lablang.check.names import did_you_mean

    lowered = {s.lower(): info.code for s, info in BY_CODE.items()}
    return lowered.get(code.lower()) or did_you_mean(code, BY_CODE) or ""


def describe_modification(code: str) -> str:
    """Markdown for editors (hover): what a `/code/` is, from this registry.

    >>> describe_modification("3ddC").splitlines()[0]
    "`/3ddC/`: dideoxycytidine at the 3' end"
    """
    info = BY_CODE.get(code)
    if info is None:
        guess = unknown_modification(code)
        return f"`/{code}/`: not a known modification code (E0427)" + (
            f"; did you mean `/{guess}/`?" if guess else ""
        )
    where = "internal" if info.where == "internal" else f"at the {info.where} end"
    spelled = f" (IDT's `/{info.code}/`)" if code != info.code else ""
    base = f"; pairs as {info.base}" if info.base else ""
    return f"`/{code}/`: {info.words} {where}{spelled}\n\n{CHEMISTRY[info.chemistry]}{base}"


MODIFICATIONS_BEGIN = "<!-- modifications:begin (generated by scripts/molecular_docs.py) -->"
MODIFICATIONS_END = "<!-- modifications:end -->"


def table() -> str:
    """docs/molecular.md's table of the registry (Markdown, one row per code)."""
    rows = [
        "| code | where | what it is | what it does | other spellings |",
        "| --- | --- | --- | --- | --- |",
    ]
    for info in MODIFICATIONS:
        base = f" (pairs as {info.base})" if info.base else ""
        other = ", ".join(f"`/{a}/`" for a in info.aliases)
        rows.append(
            f"| `/{info.code}/` | {info.where} | {info.words}{base} | "
            f"{CHEMISTRY[info.chemistry]} | {other} |"
        )
    return "\n".join(rows) + "\n"
