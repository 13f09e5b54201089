"""Nucleic-acid sequences as tuples of concrete and symbolic parts.

A `Seq` is written 5' to 3'. Its parts are concrete bases (IUPAC), homopolymers,
symbolic segments (barcodes, UMIs, indexes, payloads such as cDNA) that stand for
sequence not known when the workflow is written, chemical modifications, and ribo or
LNA bases. Every operation of the molecular interpreter works on these tuples, and
everything it says about pairing follows two rules:

- concrete bases pair by Watson-Crick complementarity; an IUPAC code pairs with any
  base it can stand for;
- a symbolic segment pairs only with its own reverse complement (`[CB]` with `[CB']`),
  because nothing else is known about its bases.

Sequences are kept in the DNA alphabet (`U` is read as `T`); the molecule type lives
on the strand. Positions used by the interpreter are *token* positions: one token per
base, one per symbolic segment, one per unspecified-length homopolymer; modifications
and thioate linkages take no position.

>>> s = parse_notation("5'-ACGT [CB:16] (T)4-3'")
>>> render(reverse_complement(s))
"5'-(A)4 [CB:16'] ACGT-3'"
>>> render_libstruct(s)
'ACGT[CB:16]TTTT'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TypeGuard, assert_never

from attrs import evolve, field, frozen

from lablang.molecular.modifications import modified_bases
from lablang.records import Compared

IUPAC: dict[str, frozenset[str]] = {
    "A": frozenset("A"),
    "C": frozenset("C"),
    "G": frozenset("G"),
    "T": frozenset("T"),
    "R": frozenset("AG"),
    "Y": frozenset("CT"),
    "S": frozenset("CG"),
    "W": frozenset("AT"),
    "K": frozenset("GT"),
    "M": frozenset("AC"),
    "B": frozenset("CGT"),
    "D": frozenset("AGT"),
    "H": frozenset("ACT"),
    "V": frozenset("ACG"),
    "N": frozenset("ACGT"),
}
COMPLEMENT: dict[str, str] = {
    "A": "T", "C": "G", "G": "C", "T": "A", "R": "Y", "Y": "R", "S": "S", "W": "W",
    "K": "M", "M": "K", "B": "V", "V": "B", "D": "H", "H": "D", "N": "N",
}  # fmt: skip
# Codes that stand for three or four bases: next to a payload they are indistinguishable
# from the payload's own unknown bases (see `fold_anchors`).
DEGENERATE = frozenset("BDHVN")

# Roles of symbolic segments whose length is a property of the sample, not the design.
PAYLOAD_ROLES = frozenset(
    {"CDNA", "GDNA", "MRNA", "RNA", "DNA", "INSERT", "VDJ_INSERT", "SGRNA_SPACER", "PAYLOAD",
     "FRAGMENT", "TARGET", "PROTEIN_TAG"}
)  # fmt: skip

# A transcript's body is one sequence whether it is read in the mRNA or copied into
# cDNA: `[MRNA]` and `[CDNA]` are one identity (they pair and compare as one segment),
# and the role says which molecule carries it (`transcript_roles`). LibStructBench writes
# the mRNA's body `[MRNA]` and every DNA copy of it `[CDNA]`.
TRANSCRIPT = "CDNA"
TRANSCRIPT_ROLES = frozenset({"MRNA", "CDNA"})

MAX_SEQUENCE_TOKENS = 100_000
MAX_HOMOPOLYMER = 10_000


class SequenceError(ValueError):
    """A sequence text that cannot be read; the message says where and why."""


@frozen(repr=False, eq=False)
class Bases(Compared):
    """Concrete IUPAC bases (DNA alphabet), optionally labelled with where they came from."""

    text: str
    label: str | None = None


@frozen(repr=False, eq=False)
class Homopolymer(Compared):
    """A run of one base, `(T)30`; `count=None` is a run of unspecified length (`[POLY_T]`)."""

    base: str
    count: int | None
    label: str | None = None


@frozen(repr=False, eq=False)
class Symbol(Compared):
    """A symbolic segment: barcode, UMI, index, payload, spacer.

    `name` is its identity (what it pairs by), `role` its LibStructBench role, and
    `rc` marks the reverse complement (`[CB']`). `fragment` marks a payload that a
    fragmenting step (Tn5, shearing, a digest inside the payload) has cut to a piece of
    tens to hundreds of bases; it is the same segment (it pairs and prints as before),
    but no longer a whole molecule's length (PCR suppression reads it). `pattern` is
    what the page gives for its positions (`[RT_BARCODE:7 "NNNNNNS"]`), IUPAC codes
    5'->3' in the segment's own orientation (`rc=False`); it is knowledge about the
    segment, not its identity, so it is not compared.
    """

    name: str
    role: str
    min_len: int | None = None
    max_len: int | None = None
    rc: bool = False
    label: str | None = None
    fragment: bool = False
    pattern: str | None = field(default=None, eq=False)

    @property
    def is_payload(self) -> bool:
        return self.role in PAYLOAD_ROLES or self.min_len is None


# Internal modifications that are themselves a nucleotide (a modified base): each takes
# one position and pairs as the base it stands for (biotin-dT as T, deoxyuridine as T in
# the DNA alphabet, 5-methyl-dC as C, universal bases as N).
# modified nucleotides (`/iBiodT/`): the base each pairs as, from the modification registry
MODIFIED_BASES: dict[str, str] = modified_bases()


@frozen(repr=False, eq=False)
class Modification(Compared):
    """An IDT-style modification such as `/5Phos/` or `/3ddC/`.

    A modification that is a nucleotide (`/iBiodT/`, `/ideoxyU/`: see `MODIFIED_BASES`)
    has a `base`: it occupies one position and pairs as that base. Others (phosphates,
    blocking groups, spacers) occupy no position.
    """

    code: str
    base: str | None = None

    @classmethod
    def of(cls, code: str) -> Modification:
        """The modification `code`, with its base when it is a modified nucleotide."""
        return cls(code, MODIFIED_BASES.get(code))


@frozen(repr=False, eq=False)
class Ribo(Compared):
    """A ribonucleotide in a DNA oligo (`rG`); pairs as its base."""

    base: str
    label: str | None = None


@frozen(repr=False, eq=False)
class LNA(Compared):
    """A locked nucleic acid base (`+G`); pairs as its base."""

    base: str
    label: str | None = None


@frozen(repr=False, eq=False)
class Thioate(Compared):
    """A phosphorothioate linkage (`*`); it occupies no position."""


Part = Bases | Homopolymer | Symbol | Modification | Ribo | LNA | Thioate


@frozen(repr=False, eq=False)
class SymbolToken(Compared):
    """The token of a symbolic segment: what pairing and equality compare.

    `bases` are the IUPAC codes its positions admit, 5'->3' along the strand that
    carries it (`N`s for a fixed-length placeholder without a pattern; None for a
    payload or a range): a base pairs with them by `PAIRS_PLACEHOLDER`.
    """

    name: str
    rc: bool
    bases: str | None = field(default=None, eq=False)


@frozen(repr=False, eq=False)
class PolyToken(Compared):
    """The token of an unspecified-length homopolymer."""

    base: str


Token = str | SymbolToken | PolyToken


@frozen(repr=False, eq=False)
class Seq(Compared):
    """A sequence, 5' to 3', as a tuple of parts."""

    parts: tuple[Part, ...] = ()

    def __add__(self, other: Seq) -> Seq:
        return Seq(_merge(self.parts + other.parts))

    def __iter__(self) -> Iterator[Part]:
        return iter(self.parts)

    def __bool__(self) -> bool:
        return bool(self.parts)

    def tokens(self) -> tuple[Token, ...]:
        return tuple(_tokens(self.parts))

    def __len__(self) -> int:
        """The number of token positions (bases, symbols, unspecified runs)."""
        return sum(_width(p) for p in self.parts)

    @property
    def min_length(self) -> int:
        return sum(_length(p)[0] for p in self.parts)

    @property
    def max_length(self) -> int | None:
        total = 0
        for part in self.parts:
            high = _length(part)[1]
            if high is None:
                return None
            total += high
        return total

    def slice(self, start: int, stop: int | None = None) -> Seq:
        """The parts covering token positions `[start, stop)`; runs and bases are split.

        A modification belongs to the token after it, or to the last token when it
        ends the sequence.
        """
        total = len(self)
        stop = total if stop is None else stop
        start, stop = max(0, start), min(total, stop)
        out: list[Part] = []
        pos = 0
        for part in self.parts:
            width = _width(part)
            if width == 0:
                if start <= pos < stop or (pos == stop == total and start < stop):
                    out.append(part)
                continue
            lo, hi = max(start, pos), min(stop, pos + width)
            if lo < hi:
                out.append(_cut(part, lo - pos, hi - pos))
            pos += width
        return Seq(tuple(out))

    def with_label(self, label: str) -> Seq:
        return Seq(tuple(_relabel(p, label) for p in self.parts))

    def modifications(self) -> tuple[str, ...]:
        return tuple(p.code for p in self.parts if isinstance(p, Modification))

    def without_modifications(self) -> Seq:
        """The sequence without modifications; a modified base stays as its base."""
        kept: list[Part] = []
        for p in self.parts:
            if isinstance(p, Modification) and p.base is not None:
                kept.append(Bases(p.base))
            elif not isinstance(p, Modification | Thioate):
                kept.append(p)
        return Seq(_merge(tuple(kept)))

    def symbols(self) -> tuple[Symbol, ...]:
        return tuple(p for p in self.parts if isinstance(p, Symbol))

    @classmethod
    def of(cls, parts: Iterable[Part]) -> Seq:
        return cls(_merge(tuple(parts)))


def bases(text: str, label: str | None = None) -> Seq:
    """A concrete sequence from IUPAC letters (`U` read as `T`).

    >>> render(bases("ACGU"))
    "5'-ACGT-3'"
    """
    text = text.upper().replace("U", "T")
    bad = [ch for ch in text if ch not in IUPAC]
    if bad:
        raise SequenceError(f"`{bad[0]}` is not an IUPAC base")
    return Seq((Bases(text, label),)) if text else Seq()


def _width(part: Part) -> int:
    match part:
        case Bases(text=text):
            return len(text)
        case Homopolymer(count=count):
            return 1 if count is None else count
        case Symbol() | Ribo() | LNA():
            return 1
        case Modification(base=base):
            return 0 if base is None else 1
        case Thioate():
            return 0
        case _:
            assert_never(part)


def _length(part: Part) -> tuple[int, int | None]:
    match part:
        case Bases(text=text):
            return len(text), len(text)
        case Homopolymer(count=count):
            return (0, None) if count is None else (count, count)
        case Symbol(min_len=low, max_len=high):
            return (low or 0), high
        case Ribo() | LNA():
            return 1, 1
        case Modification(base=base):
            return (0, 0) if base is None else (1, 1)
        case Thioate():
            return 0, 0
        case _:
            assert_never(part)


def _cut(part: Part, lo: int, hi: int) -> Part:
    match part:
        case Bases(text=text, label=label):
            return Bases(text[lo:hi], label)
        case Homopolymer(base=base, count=count, label=label):
            if count is None:
                return part
            return Homopolymer(base, hi - lo, label)
        case Symbol() | Ribo() | LNA() | Modification() | Thioate():
            return part
        case _:
            assert_never(part)


def _relabel(part: Part, label: str) -> Part:
    match part:
        case Bases() | Homopolymer() | Symbol() | Ribo() | LNA():
            return evolve(part, label=label)
        case Modification() | Thioate():
            return part
        case _:
            assert_never(part)


def _tokens(parts: Iterable[Part]) -> Iterator[Token]:
    for part in parts:
        match part:
            case Bases(text=text):
                yield from text
            case Homopolymer(base=base, count=count):
                if count is None:
                    yield PolyToken(base)
                else:
                    yield from base * count
            case Symbol(name=name, rc=rc):
                yield SymbolToken(name, rc, symbol_bases(part))
            case Ribo(base=base) | LNA(base=base):
                yield base
            case Modification(base=base):
                if base is not None:
                    yield base
            case Thioate():
                pass
            case _:
                assert_never(part)


def symbol_bases(symbol: Symbol) -> str | None:
    """The codes a fixed-length symbol's positions admit along its strand, 5'->3'.

    >>> symbol_bases(Symbol("RT", "RT", 4, 4, rc=True, pattern="NNNS"))
    'SNNN'
    """
    if symbol.min_len is None or symbol.min_len != symbol.max_len or symbol.is_payload:
        return None
    pattern = symbol.pattern or "N" * symbol.min_len
    return "".join(COMPLEMENT[c] for c in reversed(pattern)) if symbol.rc else pattern


def _merge(parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """Join adjacent bases with the same label; drop empty parts."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Bases) and not part.text:
            continue
        if isinstance(part, Homopolymer) and part.count == 0:
            continue
        prev = out[-1] if out else None
        if isinstance(part, Bases) and isinstance(prev, Bases) and prev.label == part.label:
            out[-1] = Bases(prev.text + part.text, part.label)
        else:
            out.append(part)
    return tuple(out)


# ----------------------------------------------------------------- reverse complement


def _prime(label: str | None) -> str | None:
    if label is None:
        return None
    return label[:-1] if label.endswith("'") else label + "'"


def complement_part(part: Part) -> Part | None:
    """The reverse complement of one part; modifications have none (they are chemistry
    of one strand, not sequence), ribo and LNA bases complement to plain DNA bases."""
    match part:
        case Bases(text=text, label=label):
            return Bases("".join(COMPLEMENT[ch] for ch in reversed(text)), _prime(label))
        case Homopolymer(base=base, count=count, label=label):
            return Homopolymer(COMPLEMENT[base], count, _prime(label))
        case Symbol(rc=rc, label=label):
            return evolve(part, rc=not rc, label=_prime(label))
        case Ribo(base=base, label=label) | LNA(base=base, label=label):
            return Bases(COMPLEMENT[base], _prime(label))
        case Modification(base=base):
            return None if base is None else Bases(COMPLEMENT[base])
        case Thioate():
            return None
        case _:
            assert_never(part)


def reverse_complement(seq: Seq) -> Seq:
    """The reverse complement, exact on concrete and symbolic parts.

    It is an involution on sequences without chemistry (modifications, ribo and LNA
    bases); for those `reverse_complement(reverse_complement(s)) == plain(s)`, since a
    complementary strand copies sequence, not chemistry.

    >>> render(reverse_complement(parse_notation("5'-/5Phos/GATC [UMI:12] rG-3'")))
    "5'-C [UMI:12'] GATC-3'"
    """
    out = [c for c in (complement_part(p) for p in reversed(seq.parts)) if c is not None]
    return Seq.of(out)


def plain(seq: Seq) -> Seq:
    """The sequence without chemistry: no modifications, ribo and LNA as plain bases."""
    out: list[Part] = []
    for part in seq.parts:
        match part:
            case Ribo(base=base, label=label) | LNA(base=base, label=label):
                out.append(Bases(base, label))
            case Modification(base=base):
                if base is not None:
                    out.append(Bases(base))
            case Thioate():
                pass
            case _:
                out.append(part)
    return Seq.of(out)


def unflag(seq: Seq) -> Seq:
    """The sequence with every symbolic segment's reverse-complement flag cleared.

    LibStructBench placeholders carry no orientation (`[I7_INDEX:8]` is written the
    same on either strand), so comparisons with its data use this.
    """
    return Seq(tuple(evolve(p, rc=False) if isinstance(p, Symbol) else p for p in seq.parts))


# ----------------------------------------------------------------- equality and folding


def fold_anchors(
    tokens: tuple[Token, ...], codes: frozenset[str] = DEGENERATE
) -> tuple[Token, ...]:
    """Drop degenerate bases that touch a payload symbol.

    A payload's bases are unknown, so a degenerate base beside it (the `N` of an
    anchored `(T)30VN` primer, which pairs inside the cDNA) cannot be told apart from
    the payload's own first or last base.
    """
    return tuple(tokens[i] for i in kept_positions(tokens, codes))


def kept_positions(tokens: tuple[Token, ...], codes: frozenset[str] = DEGENERATE) -> list[int]:
    """The positions `fold_anchors` keeps."""
    keep = [True] * len(tokens)
    for i, tok in enumerate(tokens):
        if isinstance(tok, SymbolToken) and _payload_name(tok.name):
            j = i - 1
            while j >= 0 and isinstance(tokens[j], str) and tokens[j] in codes:
                keep[j] = False
                j -= 1
            j = i + 1
            while j < len(tokens) and isinstance(tokens[j], str) and tokens[j] in codes:
                keep[j] = False
                j += 1
    return [i for i, k in enumerate(keep) if k]


def _payload_name(name: str) -> bool:
    return name.upper() in PAYLOAD_ROLES


# ----------------------------------------------------------------- notation


# The notation's patterns, compiled when `parse_notation` first runs (`re` keeps them):
# a check reads its sequences from the syntax tree and never calls it.
_PLACEHOLDER = (
    r"\[\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*(?::\s*(\d+)\s*(?:-\s*(\d+))?)?\s*('?)"
    r'\s*(?:"([A-Za-z]*)")?\s*\]'
)
_HOMOPOLYMER = r"\(\s*([ACGTUacgtu])\s*\)\s*(\d+)"
_MODIFICATION = r"/([A-Za-z0-9-]+)/"
_REFERENCE = r"\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*('?)\s*\}"
_DU = r"\(dU\)"


def parse_notation(text: str, resolve: Callable[[str, bool], Seq] | None = None) -> Seq:
    """Read a sequence in lablang / LibStructBench notation.

    Accepts `5'-...-3'` or bare text; IUPAC letters, `[ROLE]`, `[ROLE:LEN]`,
    `[ROLE:MIN-MAX]`, `[ROLE']`, `(T)30`, `/5Phos/`, `rG`, `+G`, `*`, `(dU)`, and
    `{name}` / `{name'}` references when `resolve(name, rc)` is given.

    >>> render(parse_notation("AAGCAGTGGTATCAACGCAGAGTACATrGrGrG"))
    "5'-AAGCAGTGGTATCAACGCAGAGTACAT rG rG rG-3'"
    """
    body = text.strip()
    if body.startswith("5'-") and body.endswith("-3'"):
        body = body[3:-3]
    elif body.startswith("5'") and body.endswith("3'"):
        body = body[2:-2].strip("-")
    placeholder_re, du_re = re.compile(_PLACEHOLDER), re.compile(_DU)
    homopolymer_re, modification_re = re.compile(_HOMOPOLYMER), re.compile(_MODIFICATION)
    reference_re = re.compile(_REFERENCE)
    parts: list[Part] = []
    i, n = 0, len(body)
    count = 0
    while i < n:
        ch = body[i]
        if ch.isspace() or ch in "-·":
            i += 1
            continue
        if ch == "[":
            m = placeholder_re.match(body, i)
            if not m:
                raise SequenceError(
                    f"unreadable placeholder at column {i + 1}: `{body[i : i + 20]}`"
                )
            parts.append(
                placeholder(
                    m.group(1), m.group(2), m.group(3), bool(m.group(4)), pattern=m.group(5)
                )
            )
            i = m.end()
        elif ch == "(":
            if du_re.match(body, i):
                parts.append(Modification("dU"))
                i += 4
                continue
            m = homopolymer_re.match(body, i)
            if not m:
                raise SequenceError(
                    f"unreadable homopolymer at column {i + 1}: `{body[i : i + 10]}`"
                )
            run = int(m.group(2))
            if run > MAX_HOMOPOLYMER:
                raise SequenceError(f"homopolymer of {run} exceeds the limit of {MAX_HOMOPOLYMER}")
            parts.append(Homopolymer(m.group(1).upper().replace("U", "T"), run))
            i = m.end()
        elif ch == "/":
            m = modification_re.match(body, i)
            if not m:
                raise SequenceError(f"unterminated modification at column {i + 1}")
            parts.append(Modification.of(m.group(1)))
            i = m.end()
        elif ch == "{":
            m = reference_re.match(body, i)
            if not m:
                raise SequenceError(f"unreadable reference at column {i + 1}")
            if resolve is None:
                raise SequenceError(f"reference `{{{m.group(1)}}}` cannot be resolved here")
            parts.extend(resolve(m.group(1), bool(m.group(2))).parts)
            i = m.end()
        elif ch in "r+" and i + 1 < n and body[i + 1].upper() in "ACGTU":
            base = body[i + 1].upper().replace("U", "T")
            parts.append(Ribo(base) if ch == "r" else LNA(base))
            i += 2
        elif ch == "*":
            parts.append(Thioate())
            i += 1
        elif ch.upper() in IUPAC or ch.upper() == "U":
            j = i
            while j < n and (body[j].upper() in IUPAC or body[j].upper() == "U"):
                if j > i and body[j] == "r" and j + 1 < n and body[j + 1].upper() in "ACGTU":
                    break
                j += 1
            parts.append(Bases(body[i:j].upper().replace("U", "T")))
            i = j
        else:
            raise SequenceError(
                f"`{ch}` is not a base, placeholder, homopolymer or modification (column {i + 1})"
            )
        count += 1
        if count > MAX_SEQUENCE_TOKENS:
            raise SequenceError(f"sequence has more than {MAX_SEQUENCE_TOKENS} parts")
    seq = Seq.of(parts)
    if len(seq) > MAX_SEQUENCE_TOKENS:
        raise SequenceError(f"sequence longer than {MAX_SEQUENCE_TOKENS} positions")
    return seq


def placeholder(
    role: str,
    low: str | int | None,
    high: str | int | None,
    rc: bool = False,
    name: str | None = None,
    pattern: str | None = None,
) -> Part:
    """A placeholder part; `POLY_T`-style roles become unspecified homopolymers.

    `pattern` is written along the strand (`[RT:4' "SNNN"]` is the reverse complement
    of a segment whose own pattern is `NNNS`), one IUPAC code per position.
    """
    role = role.strip().upper().replace(" ", "_").replace("-", "_")
    lo = int(low) if low not in (None, "") else None
    hi = int(high) if high not in (None, "") else lo
    if lo is not None and hi is not None and hi < lo:
        raise SequenceError(f"placeholder `[{role}:{lo}-{hi}]` has its range reversed")
    if pattern:
        pattern = pattern.upper().replace("U", "T")
        if lo is None or lo != hi or len(pattern) != lo or set(pattern) - set(IUPAC):
            raise SequenceError(
                f'pattern "{pattern}" of `[{role}]` must give one IUPAC code per position of '
                "a fixed length"
            )
        if rc:
            pattern = "".join(COMPLEMENT[c] for c in reversed(pattern))
    poly = re.fullmatch(r"POLY_?([ACGTU])", role)
    if poly:
        base = poly.group(1).replace("U", "T")
        if rc:
            base = COMPLEMENT[base]
        return Homopolymer(base, lo if lo is not None and lo == hi else None)
    return Symbol(name or symbol_name(role), role, lo, hi, rc, pattern=pattern or None)


def symbol_name(role: str) -> str:
    """The identity a placeholder of `role` pairs by: its role, one for a transcript's body.

    >>> symbol_name("MRNA"), symbol_name("CDNA"), symbol_name("UMI")
    ('CDNA', 'CDNA', 'UMI')
    """
    return TRANSCRIPT if role in TRANSCRIPT_ROLES else role


def transcript_roles(seq: Seq, *, rna: bool) -> Seq:
    """`seq` with a transcript's body named by the strand that carries it: `[MRNA]` in
    RNA, `[CDNA]` in DNA (reverse transcription copies the mRNA into cDNA).

    >>> render(transcript_roles(parse_notation("[MRNA] [POLYA]"), rna=False))
    "5'-[CDNA] [POLY_A]-3'"
    >>> render(transcript_roles(parse_notation("[CDNA']"), rna=True))
    "5'-[MRNA']-3'"
    """
    role = "MRNA" if rna else "CDNA"
    if not any(_is_transcript(p) and p.role != role for p in seq.parts):
        return seq
    return Seq(tuple(evolve(p, role=role) if _is_transcript(p) else p for p in seq.parts))


def _is_transcript(part: Part) -> TypeGuard[Symbol]:
    return isinstance(part, Symbol) and part.name == TRANSCRIPT and part.role in TRANSCRIPT_ROLES


def render(seq: Seq, *, rna: bool = False) -> str:
    """The lablang notation `5'-...-3'`, parts separated by spaces where they change."""
    return "5'-" + render_body(seq, rna=rna) + "-3'"


def render_body(seq: Seq, *, rna: bool = False) -> str:
    chunks: list[str] = []
    for part in seq.parts:
        match part:
            case Bases(text=text):
                chunk = text.replace("T", "U") if rna else text
                if (
                    chunks
                    and not chunks[-1].startswith(("[", "(", "/", "r", "+", "*"))
                    and chunks[-1].isalpha()
                    and chunks[-1].isupper()
                ):
                    chunks[-1] += chunk
                    continue
                chunks.append(chunk)
            case Homopolymer(base=base, count=count):
                shown = "U" if rna and base == "T" else base
                chunks.append(f"({shown}){count}" if count is not None else f"[POLY_{shown}]")
            case Symbol():
                chunks.append(_symbol_text(part, flags=True))
            case Modification(code=code):
                chunks.append(f"/{code}/")
            case Ribo(base=base):
                chunks.append(f"r{base}")
            case LNA(base=base):
                chunks.append(f"+{base}")
            case Thioate():
                chunks.append("*")
            case _:
                assert_never(part)
    return " ".join(chunks)


def _symbol_text(sym: Symbol, *, flags: bool) -> str:
    """`[ROLE:LEN]`; with `flags`, lablang's marks: `'` and the pattern as written
    along the strand (LibStructBench's strings carry neither)."""
    mark = "'" if flags and sym.rc else ""
    if sym.min_len is None:
        return f"[{sym.role}{mark}]"
    if sym.max_len is not None and sym.max_len != sym.min_len:
        return f"[{sym.role}:{sym.min_len}-{sym.max_len}{mark}]"
    shown = symbol_bases(sym) if flags and sym.pattern else None
    pattern = f' "{shown}"' if shown else ""
    return f"[{sym.role}:{sym.min_len}{mark}{pattern}]"


def render_libstruct(seq: Seq, *, fold_n: bool = False) -> str:
    """LibStructBench placeholder string: no spaces, no orientation marks, `(T)30` spelt out.

    With `fold_n`, an `N` touching a payload is folded into it, as the reference data
    writes `[POLY_T]V[CDNA]` for an anchored `(T)30VN` primer.
    """
    out: list[str] = []
    parts = list(seq.parts)
    if fold_n:
        parts = _fold_n_parts(parts)
    for part in parts:
        match part:
            case Bases(text=text):
                out.append(text)
            case Homopolymer(base=base, count=count):
                out.append(base * count if count is not None else f"[POLY_{base}]")
            case Symbol():
                out.append(_symbol_text(part, flags=False))
            case Modification(code=code):
                out.append(f"/{code}/")
            case Ribo(base=base):
                out.append(f"r{base}")
            case LNA(base=base):
                out.append(f"+{base}")
            case Thioate():
                out.append("*")
            case _:
                assert_never(part)
    return "".join(out)


def _fold_n_parts(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for idx, part in enumerate(parts):
        if isinstance(part, Bases):
            text = part.text
            nxt = parts[idx + 1] if idx + 1 < len(parts) else None
            prv = parts[idx - 1] if idx > 0 else None
            if isinstance(nxt, Symbol) and nxt.is_payload:
                text = text.rstrip("N")
            if isinstance(prv, Symbol) and prv.is_payload:
                text = text.lstrip("N")
            if text:
                out.append(Bases(text, part.label))
        else:
            out.append(part)
    return out
