"""Sequence and text normalization exactly as the LibStructBench grader applies it.

Oligo sequences (Tasks 2 and 3): strip `5'-`/`-3'` wrappers, canonicalize IDT-style
modification tags, read `rN`/`+N`/`(dU)` as one token, expand `(T)30`/`T30`
homopolymer shorthand, and turn bracket text (`[16-bp cell barcode]`) into canonical
`[ROLE:LEN]` placeholders, which tokenize to LEN tokens `<ROLE>`.

Final library sequences (Task 1) use a different, older projection: placeholders
the grader can read become LEN score characters (`#` cell barcode, `~` UMI, ...);
anything else, such as a `[CDNA]` payload marker, stays literally in the string.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lablang.scoring.library_chars import LIBRARY_SCORE_CHARS

# bare uppercase IUPAC bases with no ribo (`R` before a base), LNA, thioate or shorthand
PLAIN_BASES = re.compile(r"[ACGTUNVBDHKMSWY]+")
CANONICAL_PLACEHOLDER_RE = re.compile(r"^\[([A-Z0-9_]+):(\d+)\]$")
FAMILY_PLACEHOLDER_RE = re.compile(r"\[([A-Z0-9_]+):([1-9][0-9]*)\]")
_BASES = frozenset("ACGTUNV")

ROLE_ALIASES = {
    "BARCODE": "CELL_BARCODE",
    "CB": "CELL_BARCODE",
    "GEM_BARCODE": "CELL_BARCODE",
    "BEAD_BARCODE": "CELL_BARCODE",
    # the reaction that installs a well barcode is not a separate role for scoring
    "RT_BARCODE": "CELL_BARCODE",
    "INDEX": "SAMPLE_INDEX",
    "I5": "I5_INDEX",
    "I7": "I7_INDEX",
    "TN5": "TN5_INDEX",
    "TN5_BARCODE": "TN5_INDEX",
    "FEATURE": "FEATURE_BARCODE",
    "FB": "FEATURE_BARCODE",
    "CAPTURE": "FEATURE_BARCODE",
    "CAPTURE_BARCODE": "FEATURE_BARCODE",
    "ANTIBODY": "FEATURE_BARCODE",
    "ANTIBODY_BARCODE": "FEATURE_BARCODE",
    "PB": "PHASE_BLOCK",
    "SPACER": "VARIABLE",
    "LINKER": "VARIABLE",
    "DEGENERATE": "VARIABLE",
    "RANDOMER": "RANDOM",
    "RANDOM_HEXAMER": "RANDOM",
    "OVERHANG": "VARIABLE",
    # payload spellings collapse; chemically distinct payloads stay apart
    "GENOMIC_DNA": "GDNA",
    "GENOMIC_DNA_INSERT": "GDNA",
    "GENOMIC_INSERT": "GDNA",
    "CDNA_INSERT": "CDNA",
    "MRNA_BODY": "MRNA",
    "MRNA_INSERT": "MRNA",
    "RNA_INSERT": "MRNA",
    "RNA_TRANSCRIPT": "MRNA",
    "TRANSCRIPT": "MRNA",
    "POLY_A": "POLYA",
    "POLY_A_TAIL": "POLYA",
    "POLY_T": "POLYT",
    "POLY_U": "POLYU",
    "POLY_C": "POLYC",
}

_KNOWN_TAGS = {
    "5phos": "5Phos",
    "phos": "5Phos",
    "5bio": "5Bio",
    "bio": "5Bio",
    "5biosg": "5Biosg",
    "5acryd": "5Acryd",
    "acrydite": "5Acryd",
    "6-fam": "6-FAM",
    "56-fam": "56-FAM",
    "nh2": "NH2",
    "5rapp": "5rApp",
    "3spc3": "3SpC3",
    "3ddc": "3ddC",
    "3invdt": "3InvdT",
    "ddc": "ddC",
    "ddu": "ddU",
    "ideoxyu": "ideoxyU",
    "ibiodt": "iBiodT",
    "isppc": "iSpPC",
    "ithiomc6-d": "iThioMC6-D",
}
_BRACKET_TAGS = {"ddc": "/ddC/", "3ddc": "/3ddC/", "ddu": "/ddU/", "ideoxyu": "/ideoxyU/"}

_ROLE_LENGTH_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), role)
    for pattern, role in (
        (r"0\s*-\s*(\d+)\s*-?\s*bp\s+(?:pb|phase\s+block)", "PHASE_BLOCK"),
        (r"\d+\s*-?\s*bp\s+or\s+(\d+)\s*-?\s*bp\s+barcode(?:\s+[a-z])?", "CELL_BARCODE"),
        (r"(\d+)\s*-?\s*bp\s+rt\s+barcode", "RT_BARCODE"),
        (
            r"(\d+)\s*-?\s*bp\s+(?:cell\s+barcode|10x\s+barcode|gem\s+barcode|bead\s+barcode)",
            "CELL_BARCODE",
        ),
        (
            r"(\d+)\s*-?\s*bp\s+(?:barcode\d+|bc#?\d+|cb\d+|round\d+\s+barcode|hy\s+barcode"
            r"|plate\s+barcode|well\s+barcode|subarray\s+barcode)",
            "CELL_BARCODE",
        ),
        (r"(\d+)\s*-?\s*bp\s+umi\d*", "UMI"),
        (r"(\d+)\s*-?\s*bp\s+(?:sample\s+index|index|rpi)", "SAMPLE_INDEX"),
        (r"(\d+)\s*-?\s*bp\s+i5(?:\s+(?:sample\s+)?index)?", "I5_INDEX"),
        (r"(\d+)\s*-?\s*bp\s+i7(?:\s+(?:sample\s+)?index)?", "I7_INDEX"),
        (r"(\d+)\s*-?\s*bp\s+n[57]\s+barcode", "TN5_INDEX"),
        (r"(\d+)\s*-?\s*bp\s+tn5\s+(?:index|barcode)(?:\s+[ab])?", "TN5_INDEX"),
        (r"(\d+)\s*-?\s*bp\s+(?:fb|feature\s+barcode|antibody\s+barcodes?)", "FEATURE_BARCODE"),
        (r"(\d+)\s*-?\s*bp\s+(?:pb|phase\s+block)", "PHASE_BLOCK"),
    )
)
_RANDOM_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"random\s+(\d+)\s*-\s*mer",
        r"(\d+)\s*-?\s*bp\s+random(?:er)?",
        r"(\d+)\s*nt\s+random(?:er)?",
    )
)


@lru_cache(maxsize=65536)
def normalize_sequence(sequence: str | None) -> str:
    """The grader's canonical text of an oligo sequence.

    >>> normalize_sequence("5'-/5phos/ ACGT (T)4 [16-bp cell barcode] rGrG-3'")
    '/5Phos/ACGTTTTT[CELL_BARCODE:16]rGrG'
    """
    if sequence is None:
        return ""
    if isinstance(sequence, str) and PLAIN_BASES.fullmatch(sequence):
        return sequence  # bare uppercase bases: nothing to normalize
    text = _strip_terminal_wrappers(str(sequence))
    parts: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "[":
            end = text.find("]", i + 1)
            if end != -1:
                parts.append(_normalize_bracket(text[i + 1 : end]))
                i = end + 1
                continue
        if char == "/":
            end = text.find("/", i + 1)
            if end != -1:
                parts.append(_normalize_tag(text[i : end + 1]))
                i = end + 1
                continue
        following = _next_special(text, i)
        parts.append(_normalize_plain(text[i:following]))
        i = following
    return "".join(part for part in parts if part)


@lru_cache(maxsize=65536)
def _tokens(sequence: str, already_normalized: bool) -> tuple[str, ...]:
    normalized = sequence if already_normalized else normalize_sequence(sequence)
    if PLAIN_BASES.fullmatch(normalized):
        return tuple(normalized)
    tokens: list[str] = []
    i = 0
    n = len(normalized)
    while i < n:
        char = normalized[i]
        if char == "[":
            end = normalized.find("]", i + 1)
            if end != -1:
                placeholder = normalized[i : end + 1]
                match = CANONICAL_PLACEHOLDER_RE.match(placeholder)
                if match:
                    role, length = match.groups()
                    tokens.extend([f"<{role}>"] * int(length))
                else:
                    tokens.append(placeholder)
                i = end + 1
                continue
        if char == "/":
            end = normalized.find("/", i + 1)
            if end != -1:
                tokens.append(normalized[i : end + 1])
                i = end + 1
                continue
        if normalized[i : i + 4].lower() == "(du)":
            tokens.append("(dU)")
            i += 4
            continue
        if char in "r+" and i + 1 < n and normalized[i + 1].upper() in _BASES:
            tokens.append(char + normalized[i + 1].upper())
            i += 2
            continue
        tokens.append(char)
        i += 1
    return tuple(tokens)


def sequence_tokens(sequence: str, *, already_normalized: bool = False) -> tuple[str, ...]:
    """Tokens of a sequence; a `[ROLE:LEN]` placeholder becomes LEN `<ROLE>` tokens.

    >>> sequence_tokens("AC[UMI:2]rG")
    ('A', 'C', '<UMI>', '<UMI>', 'rG')
    """
    return _tokens(sequence, already_normalized)


def _strip_terminal_wrappers(sequence: str) -> str:
    text = sequence.strip()
    text = re.sub(r"^\s*5\s*['’′]?\s*-\s*", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s*-\s*3\s*['’′]?\s*$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^\s*bio\s*-\s*", "/5Bio/", text, flags=re.IGNORECASE)
    text = re.sub(r"^(/[^/]+/)\s*-\s*", r"\1", text)
    return text.strip()


def _next_special(text: str, start: int) -> int:
    candidates = [i for i in (text.find("[", start + 1), text.find("/", start + 1)) if i != -1]
    return min(candidates) if candidates else len(text)


def _normalize_tag(tag: str) -> str:
    inner = tag[1:-1].strip()
    if not inner:
        return tag
    compact = re.sub(r"\s+", "", inner).lower()
    return f"/{_KNOWN_TAGS.get(compact, inner)}/"


def _normalize_bracket(inner: str) -> str:
    raw = inner.strip()
    low = re.sub(r"\s+", " ", raw.lower().replace("–", "-").replace("—", "-")).strip()
    tag = _BRACKET_TAGS.get(re.sub(r"[\s_-]+", "", low).lower())
    if tag:
        return tag
    if re.fullmatch(r"[a-z0-9_]+", low, flags=re.IGNORECASE):
        alias = ROLE_ALIASES.get(low.upper())
        if alias is not None:
            return f"[{alias}]"
    canonical = re.fullmatch(r"([a-z0-9_]+)\s*:\s*(\d+)", low, flags=re.IGNORECASE)
    if canonical:
        role, length = canonical.groups()
        return f"[{_canonical_role(role)}:{int(length)}]"
    role_length = _placeholder_role_length(low)
    if role_length:
        return f"[{_canonical_role(role_length[0])}:{role_length[1]}]"
    return f"[{raw}]"


def _placeholder_role_length(text: str) -> tuple[str, int] | None:
    alternatives = [part for part in text.split("/") if part and part != "none"]
    if len(alternatives) > 1 and all(
        re.fullmatch(r"[acgtn]+", part, flags=re.IGNORECASE) for part in alternatives
    ):
        return "VARIABLE", max(len(part) for part in alternatives)
    for pattern, role in _ROLE_LENGTH_PATTERNS:
        match = pattern.fullmatch(text)
        if match:
            return role, int(match.group(1))
    for pattern in _RANDOM_PATTERNS:
        match = pattern.fullmatch(text)
        if match:
            return "RANDOM", int(match.group(1))
    if "random" in text:
        number = re.search(r"(\d+)", text)
        if number:
            return "RANDOM", int(number.group(1))
        n_run = re.search(r"n{2,}", text, flags=re.IGNORECASE)
        if n_run:
            return "RANDOM", len(n_run.group(0))
    return None


def _canonical_role(role: str) -> str:
    upper = role.upper()
    return ROLE_ALIASES.get(upper, upper)


def _normalize_plain(segment: str) -> str:
    text = _expand_homopolymers(segment)
    if text.isascii() and not any(special in text for special in "rR+*("):
        return text.upper()  # what `_normalize_chemistry` gives when nothing is special
    return _normalize_chemistry(text)


def _expand_homopolymers(segment: str) -> str:
    """Whitespace removed, `(T)30` and `T30` spelt out."""
    text = re.sub(r"\s+", "", segment)
    if not text:
        return ""
    text = re.sub(r"\(([ATat])\)(\d+)", lambda m: m.group(1).upper() * int(m.group(2)), text)
    return re.sub(r"([ATat])(\d{2,})", lambda m: m.group(1).upper() * int(m.group(2)), text)


def _normalize_chemistry(text: str) -> str:
    """Ribo and LNA bases, `(dU)`, thioates dropped, letters upper case."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i : i + 4].lower() == "(du)":
            out.append("(dU)")
            i += 4
            continue
        char = text[i]
        following = text[i + 1] if i + 1 < len(text) else ""
        if char in "rR" and following.upper() in _BASES and following:
            out.append("r" + following.upper())
            i += 2
            continue
        if char == "+" and following and following.upper() in _BASES:
            out.append("+" + following.upper())
            i += 2
            continue
        if char == "*":
            i += 1
            continue
        out.append(char.upper() if char.isalpha() else char)
        i += 1
    return "".join(out)


def normalize_text(value: str) -> str:
    """Lowercase words separated by single spaces (`"Read-1 primer"` -> `"read 1 primer"`)."""
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9]+", " ", value.lower())).strip()


_MODALITY_ALIASES = {
    "atac": "chromatin accessibility",
    "scatac": "chromatin accessibility",
    "sc atac": "chromatin accessibility",
    "single cell atac": "chromatin accessibility",
    "chromatin accessibility": "chromatin accessibility",
    "feature barcode": "feature barcode",
    "feature barcoding": "feature barcode",
    "rna": "gene expression",
    "gene expression": "gene expression",
    "scrna seq": "gene expression",
    "sc rna seq": "gene expression",
    "single cell rna seq": "gene expression",
    "single cell 3 rna seq cdna library": "gene expression",
    "single cell 3 rna seq deconvolution oligo do library": "gene expression",
    "single cell rna seq 3 digital gene expression": "gene expression",
    "gdna": "genomic DNA",
    "genomic dna": "genomic DNA",
    "sgrna": "sgRNA",
    "sg rna": "sgRNA",
}


def modality_key(value: str) -> str:
    """The comparison key of a modality, with the grader's reviewed aliases collapsed.

    >>> modality_key("scATAC"), modality_key("RNA")
    ('chromatin accessibility', 'gene expression')
    """
    normalized = normalize_text(value)
    return _MODALITY_ALIASES.get(normalized, normalized)


# ---- Task 1: final library sequences -------------------------------------------------
# (the score characters each placeholder role expands to: `library_chars.py`)

_QUESTION_TERMS = (
    "phase",
    " pb",
    "spacer",
    "linker",
    "random",
    "degenerate",
    "variable",
    "overhang",
    "none/",
)
_BARCODE_TERMS = (
    "cell barcode", "10x barcode", "gem barcode", "bead barcode", "barcode", "bc#", "cb", "cls",
    "vb", "subarray", "well", "plate", "round", "hy",
)  # fmt: skip


def normalize_library_sequence(sequence: str) -> str:
    """Task 1's projection: readable placeholders become score characters of their length.

    >>> normalize_library_sequence("acgt [CELL_BARCODE:3][8-bp UMI][CDNA]")
    'ACGT###~~~~~~~~[CDNA]'
    """
    text = str(sequence)
    parts: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "[":
            end = text.find("]", i + 1)
            if end != -1:
                parts.append(_expand_scored_placeholder(text[i + 1 : end]))
                i = end + 1
                continue
        parts.append(text[i])
        i += 1
    return re.sub(r"\s+", "", "".join(parts)).upper()


def _expand_scored_placeholder(inner: str) -> str:
    raw = inner.strip()
    low = re.sub(r"\s+", " ", raw.lower().replace("–", "-").replace("—", "-")).strip()
    canonical = re.fullmatch(r"([a-z0-9_]+)\s*:\s*(\d+)", low, flags=re.IGNORECASE)
    if canonical:
        char = LIBRARY_SCORE_CHARS.get(canonical.group(1).upper())
        if char:
            return char * int(canonical.group(2))
    char = _score_char_for_text(low)
    length = _length_for_text(low)
    if char and length is not None:
        return char * length
    return f"[{raw}]"


def _score_char_for_text(text: str) -> str | None:
    if re.search(r"\bumi\d*\b", text):
        return "~"
    if any(term in text for term in ("feature", "capture", "antibody")) or re.search(
        r"\bfb\b", text
    ):
        return "$"
    if "tn5" in text or re.search(r"\bn[57]\s+barcode\b", text):
        return "%"
    if "ligation" in text:
        return "&"
    if "rt barcode" in text:
        return "="
    if any(term in text for term in ("sample index", " i5", " i7", "i5 ", "i7 ", "rpi")):
        return "@"
    if re.search(r"\b(?:i5|i7)\b", text) or re.fullmatch(r"(?:i5|i7)", text):
        return "@"
    if re.search(r"\bindex\b", text):
        return "@"
    if any(term in text for term in _QUESTION_TERMS):
        return "?"
    if any(term in text for term in _BARCODE_TERMS):
        return "#"
    return None


def _length_for_text(text: str) -> int | None:
    for pattern in (
        r"\b\d+\s*-\s*(\d+)\s*-?\s*bp\b",
        r"\b(\d+)\s*-?\s*bp\b",
        r"\b(\d+)\s*-\s*mer\b",
        r"\b(\d+)\s*nt\b",
    ):
        match = re.search(pattern, text)
        if match:
            return int(match.group(1))
    alternatives = [part for part in re.split(r"/", text) if part and part != "none"]
    if len(alternatives) > 1 and all(re.fullmatch(r"[acgtn]+", part) for part in alternatives):
        return max(len(part) for part in alternatives)
    n_run = re.search(r"n{2,}", text)
    return len(n_run.group(0)) if n_run else None
