"""seqspec interchange: import a spec's libraries and reads as `.lab`, export libraries as a spec.

seqspec (pachterlab/seqspec, 0.4.0) describes a final library as a tree of regions,
5'->3', and reads by the region their primer sits on. Many published specs do not pass
the 0.4.0 schema as they stand (`../shared/notes/seqspec.md`); the importer repairs
what it can and lists every repair. `validate_seqspec` implements the checks of
`seqspec check` that need no network or files (schema enums and patterns, uniqueness,
primer references, sequence types, lengths, joined sequences, read lengths); it was
written from the documented 0.4.0 rules. `export_seqspec(..., version="0.3.1")` writes
the format of the PyPI release, whose own `check` the tests run
(`tests/molecular/test_seqspec_tool.py`).

>>> spec = {"library_spec": [{"region_id": "rna", "region_type": "rna", "sequence_type": "joined",
...     "sequence": "ACGTX", "min_len": 5, "max_len": 9, "regions": [
...     {"region_id": "a", "region_type": "linker", "sequence_type": "fixed", "sequence": "ACGT",
...      "min_len": 4, "max_len": 4},
...     {"region_id": "c", "region_type": "cdna", "sequence_type": "random", "sequence": "X",
...      "min_len": 1, "max_len": 5}]}], "modalities": ["rna"], "sequence_spec": []}
>>> result = import_seqspec(spec)
>>> "seq: 5'-{a} {c}-3'" in result.text
True
"""

from __future__ import annotations

import copy
import hashlib
import re
from pathlib import Path
from typing import Any

from attrs import frozen

from lablang.fmt import canonical_text
from lablang.molecular.model import LibraryDef, MolecularModel, SegmentDef
from lablang.molecular.sequence import Bases, Homopolymer, Seq, Symbol, plain, reverse_complement

REGION_TYPES = (
    "atac", "barcode", "bead_TSO", "cdna", "crispr", "custom_primer", "dna", "fastq", "fastq_link",
    "gdna", "hic", "illumina_p5", "illumina_p7", "index5", "index7", "linker", "ME1", "ME2", "methyl",
    "named", "nextera_read1", "nextera_read2", "poly_A", "poly_G", "poly_T", "poly_C", "protein",
    "rna", "s5", "s7", "sgrna_target", "tag", "truseq_read1", "truseq_read2", "umi",
)  # fmt: skip
# the region types of seqspec 0.3.1's schema (the PyPI release): 0.4.0 added these two
REGION_TYPES_0_3 = tuple(t for t in REGION_TYPES if t not in ("bead_TSO", "sgrna_target"))
SPEC_MODALITIES = ("dna", "rna", "tag", "protein", "atac", "crispr")
# the formats `export_seqspec` writes: 0.4.0 (seqspec's repository) and 0.3.1 (PyPI)
SEQSPEC_VERSIONS = ("0.4.0", "0.3.1")
# the YAML tags seqspec 0.3.x needs to load a file into its classes (0.4.0 strips them)
_TAGS = {"assay": "!Assay", "region": "!Region", "onlist": "!Onlist", "read": "!Read"}
# every mapping tag seqspec 0.3.x writes (read back as plain mappings on import)
_SEQSPEC_TAGS = (
    "!Assay", "!Region", "!Onlist", "!Read", "!File",
    "!LibProtocol", "!LibKit", "!SeqProtocol", "!SeqKit",
)  # fmt: skip
SEQUENCE_TYPES = ("fixed", "random", "onlist", "joined")
# region types outside the enumeration seen in published specs -> the enumerated type
REGION_TYPE_REPAIRS = {
    "cDNA": "cdna", "gDNA": "gdna", "RNA": "rna", "DNA": "dna", "i5": "index5", "i7": "index7",
    "index": "index7", "primer_read1": "custom_primer", "primer_read2": "custom_primer",
    "gz": "named", "random": "named", "cell_bc": "barcode", "probe": "named",
    "hairpin_adapter": "named", "triple_G": "named", "five_prime_fragment_tag": "named",
}  # fmt: skip
LIBSTRUCT_MODALITY = {
    "rna": "gene expression",
    "atac": "chromatin accessibility",
    "dna": "genomic DNA",
    "tag": "feature barcode",
    "crispr": "sgRNA",
    "protein": "feature barcode",
}
SPEC_MODALITY = {
    "gene expression": "rna",
    "chromatin accessibility": "atac",
    "genomic DNA": "dna",
    "feature barcode": "tag",
    "sgRNA": "crispr",
}
PAYLOAD_TYPES = {
    "cdna": "CDNA",
    "gdna": "GDNA",
    "rna": "RNA",
    "dna": "DNA",
    "atac": "GDNA",
    "crispr": "SGRNA_SPACER",
    "sgrna_target": "SGRNA_SPACER",
    "protein": "PROTEIN_TAG",
    "tag": "TAG",
    "hic": "GDNA",
    "methyl": "GDNA",
}
_DATE = re.compile(r"^\d{1,2} [A-Z][a-z]+ \d{4}$")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
_ALPHABET = re.compile(r"^[ACGTRYMKSWHBVDNX]*$")
_MD5 = re.compile(r"^[a-f0-9]{32}$")


@frozen
class SeqspecImport:
    """The `.lab` text of an imported spec; what the 0.4.0 checks reject in the file as
    published (`problems`); what the importer did about it (`repairs`); and each
    library's sequence as the spec writes it (modality, joined sequence)."""

    text: str
    problems: tuple[str, ...]
    repairs: tuple[str, ...]
    sequences: tuple[tuple[str, str], ...]


class SeqspecProblem(ValueError):
    """A spec that cannot be imported at all."""


# ---------------------------------------------------------------------- validation


def validate_seqspec(spec: dict[str, Any]) -> list[str]:
    """Problems `seqspec check` (0.4.0) would report, except file and network checks."""
    problems: list[str] = []
    for key in (
        "seqspec_version",
        "assay_id",
        "name",
        "doi",
        "date",
        "description",
        "modalities",
        "lib_struct",
        "library_protocol",
        "library_kit",
        "sequence_protocol",
        "sequence_kit",
    ):
        if key not in spec:
            problems.append(f"missing required field `{key}`")
    if "seqspec_version" in spec and not _SEMVER.match(str(spec["seqspec_version"])):
        problems.append("`seqspec_version` is not a semantic version")
    if "date" in spec and not _DATE.match(str(spec.get("date") or "")):
        problems.append(f"`date` {spec.get('date')!r} does not match `D Month YYYY`")
    modalities = spec.get("modalities") or []
    for m in modalities:
        if m not in SPEC_MODALITIES:
            problems.append(f"modality `{m}` is not one of {', '.join(SPEC_MODALITIES)}")
    if len(set(modalities)) != len(modalities):
        problems.append("modalities are not unique")
    for key in ("library_protocol", "library_kit", "sequence_protocol", "sequence_kit"):
        value = spec.get(key)
        if isinstance(value, str) and value != "Custom":
            problems.append(
                f"`{key}` is free text {value!r}, not a controlled term or a list of objects"
            )
        if isinstance(value, list):
            for item in value:
                if not isinstance(item, dict) or not ({"protocol_id", "kit_id"} & set(item)):
                    problems.append(f"`{key}` item is not an object with an id")
    regions = spec.get("library_spec") or []
    top_ids = [r.get("region_id") for r in regions]
    if sorted(map(str, top_ids)) != sorted(map(str, modalities)):
        problems.append(f"top-level region ids {top_ids} are not the modalities {modalities}")
    seen: set[str] = set()
    leaves_of: dict[str, list[dict[str, Any]]] = {}
    for region in regions:
        _check_region(region, problems, seen)
        leaves_of[str(region.get("region_id"))] = _leaves(region)
    reads = spec.get("sequence_spec") or []
    read_ids = [r.get("read_id") for r in reads]
    if len(set(read_ids)) != len(read_ids):
        problems.append("read ids are not unique")
    pairs = [(r.get("primer_id"), r.get("strand")) for r in reads]
    if len(set(pairs)) != len(pairs):
        problems.append("two reads share a primer and strand")
    for read in reads:
        rid = read.get("read_id")
        if read.get("modality") not in modalities:
            problems.append(
                f"read `{rid}` has modality {read.get('modality')!r}, not one of the modalities"
            )
        if read.get("strand") not in ("pos", "neg"):
            problems.append(f"read `{rid}` strand must be pos or neg")
        if read.get("primer_id") not in seen:
            problems.append(f"read `{rid}` primer `{read.get('primer_id')}` is not a region")
            continue
        for f in read.get("files") or []:
            if f.get("md5") is not None and not _MD5.match(str(f.get("md5"))):
                problems.append(f"read `{rid}` file md5 {f.get('md5')!r} is not 32 hex digits")
        leaves = leaves_of.get(str(read.get("modality")), [])
        ids = [str(leaf.get("region_id")) for leaf in leaves]
        primer = str(read.get("primer_id"))
        if primer in ids:
            k = ids.index(primer)
            span = leaves[k + 1 :] if read.get("strand") == "pos" else leaves[:k]
            room = sum(int(leaf.get("max_len") or 0) for leaf in span)
            if int(read.get("max_len") or 0) > room:
                problems.append(
                    f"read `{rid}` max_len {read.get('max_len')} exceeds the {room} bases "
                    f"{'after' if read.get('strand') == 'pos' else 'before'} its primer"
                )
    return problems


def _check_region(region: dict[str, Any], problems: list[str], seen: set[str]) -> None:
    rid = str(region.get("region_id"))
    if rid in seen:
        problems.append(f"region id `{rid}` is not unique")
    seen.add(rid)
    rtype = region.get("region_type")
    if rtype not in REGION_TYPES:
        problems.append(f"region `{rid}` type `{rtype}` is not in the enumeration")
    stype = region.get("sequence_type")
    children = region.get("regions") or []
    sequence = region.get("sequence")
    low, high = region.get("min_len"), region.get("max_len")
    if stype not in SEQUENCE_TYPES:
        problems.append(f"region `{rid}` sequence_type `{stype}` is not fixed/random/onlist/joined")
    if sequence is None or not _ALPHABET.match(str(sequence)):
        problems.append(f"region `{rid}` sequence {sequence!r} is not in the seqspec alphabet")
    if not (isinstance(low, int) and isinstance(high, int) and 0 <= low <= high <= 2048):
        problems.append(
            f"region `{rid}` min_len/max_len {low}/{high} are not 0 <= min <= max <= 2048"
        )
    elif sequence is not None and not low <= len(str(sequence)) <= high:
        problems.append(
            f"region `{rid}` sequence length {len(str(sequence))} is outside {low}..{high}"
        )
    if stype in ("fixed", "random", "onlist") and children:
        problems.append(f"region `{rid}` is {stype} but has child regions")
    if stype == "joined" and not children:
        problems.append(f"region `{rid}` is joined but has no child regions")
    if stype == "random" and sequence and set(str(sequence)) != {"X"}:
        problems.append(f"region `{rid}` is random but its sequence is not all X")
    if stype == "onlist" and not region.get("onlist"):
        problems.append(f"region `{rid}` is onlist but names no onlist")
    onlist = region.get("onlist")
    if (
        isinstance(onlist, dict)
        and onlist.get("md5") is not None
        and not _MD5.match(str(onlist["md5"]))
    ):
        problems.append(f"region `{rid}` onlist md5 {onlist.get('md5')!r} is not 32 hex digits")
    if children:
        if isinstance(low, int) and low != sum(int(c.get("min_len") or 0) for c in children):
            problems.append(f"region `{rid}` min_len is not the sum of its children's")
        if isinstance(high, int) and high != sum(int(c.get("max_len") or 0) for c in children):
            problems.append(f"region `{rid}` max_len is not the sum of its children's")
        if sequence is not None and sequence != "".join(
            str(c.get("sequence") or "") for c in children
        ):
            problems.append(f"region `{rid}` sequence is not the concatenation of its children's")
        for child in children:
            _check_region(child, problems, seen)


def _leaves(region: dict[str, Any]) -> list[dict[str, Any]]:
    children = region.get("regions") or []
    if not children:
        return [region]
    out: list[dict[str, Any]] = []
    for child in children:
        out.extend(_leaves(child))
    return out


# ---------------------------------------------------------------------- import


def load_seqspec_yaml(text: str) -> Any:
    """Parse seqspec YAML safely; the tags of 0.3.x files (`!Assay`, `!Region`, ...) are
    read as plain mappings, as seqspec 0.4.0 does by stripping them.

    >>> load_seqspec_yaml("!Assay\\nlibrary_spec:\\n- !Region {region_id: rna}\\n")
    {'library_spec': [{'region_id': 'rna'}]}
    """
    from lablang.datafile import load_yaml

    def mapping(loader: Any, node: Any) -> Any:
        return loader.construct_mapping(node, deep=True)

    # the guarded loader (safe YAML, no aliases, bounded depth): a DataFileError otherwise
    return load_yaml(text, "seqspec", constructors=dict.fromkeys(_SEQSPEC_TAGS, mapping))


def import_seqspec(spec: Any, name: str | None = None) -> SeqspecImport:
    """`.lab` text for a seqspec assay (parsed YAML): segments, libraries and reads.

    A file whose structure is not a seqspec assay raises `SeqspecProblem`.
    """
    if not isinstance(spec, dict) or not isinstance(spec.get("library_spec"), list):
        raise SeqspecProblem("not a seqspec assay: no `library_spec` list")
    try:
        return _import(spec, name)
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        # untrusted input: a wrong type anywhere in the tree is a malformed file
        raise SeqspecProblem(f"malformed seqspec: {error.__class__.__name__}: {error}") from None


def _import(spec: dict[str, Any], name: str | None) -> SeqspecImport:
    problems = validate_seqspec(spec)
    spec = copy.deepcopy(spec)  # repairs below are made on a copy
    repairs: list[str] = []
    if any(
        "date" in p or "protocol" in p or "kit" in p or ("md5" in p and "read" in p)
        for p in problems
    ):
        repairs.append(
            "date, protocol, kit and read file fields are not imported (a `.lab` library "
            "records structure and reads, not sequencing runs)"
        )
    module = _ident(name or str(spec.get("assay_id") or "assay"))
    lines = [
        f"module {module} {_string(str(spec.get('name') or module))}",
        f"# imported from seqspec {spec.get('seqspec_version', '?')} ({spec.get('doi') or 'no doi'})",
        "",
    ]
    sequences: list[tuple[str, str]] = []
    regions_by_id: dict[str, dict[str, Any]] = {}
    library_lines: list[str] = []
    used_names: set[str] = set()
    for top in spec["library_spec"]:
        modality = str(top.get("region_id") or "rna")
        spec_modality = modality.lower() if modality.lower() in SPEC_MODALITIES else modality
        if spec_modality != modality:
            repairs.append(f"modality `{modality}` written as `{spec_modality}`")
        leaves = _leaves(top) if top.get("regions") else []
        wrappers = [r for r in _joined(top) if r is not top]
        if wrappers:
            repairs.append(
                f"library `{modality}`: nested regions "
                + ", ".join(f"`{r.get('region_id')}`" for r in wrappers)
                + " flattened to their leaves (their types "
                "and sequence types are not kept)"
            )
        parts: list[str] = []
        for leaf in leaves:
            seg_name = _unique(_ident(str(leaf.get("region_id"))), used_names)
            regions_by_id[str(leaf.get("region_id"))] = leaf
            leaf["_lab_name"] = seg_name
            lines.append(_segment_line(seg_name, leaf, repairs))
            parts.append("{" + seg_name + "}")
        sequences.append((spec_modality, str(top.get("sequence") or "")))
        lib_name = _unique(_ident(spec_modality), used_names)
        lab_modality = LIBSTRUCT_MODALITY.get(spec_modality, spec_modality)
        library_lines += [
            f"library {lib_name} {_string(str(top.get('name') or lib_name))} {{",
            f"  modality: {_string(lab_modality)}",
            f"  seq: 5'-{' '.join(parts)}-3'",
        ]
        for read in spec.get("sequence_spec") or []:
            if str(read.get("modality")).lower() != spec_modality:
                continue
            library_lines += _read_lines(read, regions_by_id, used_names, lines, repairs)
        library_lines += ["}", ""]
    known = {m for m, _ in sequences}
    for read in spec.get("sequence_spec") or []:
        if str(read.get("modality")).lower() not in known:
            repairs.append(
                f"read `{read.get('read_id')}`: modality {read.get('modality')!r} is not a "
                "library of this spec; read not imported"
            )
    if any("onlist md5" in p for p in problems):
        repairs.append(
            "onlist md5 values that are not 32 hex digits are ignored (onlist names kept)"
        )
    lines.append("")
    text = canonical_text("\n".join(lines + library_lines).rstrip() + "\n")
    return SeqspecImport(text, tuple(problems), tuple(repairs), tuple(sequences))


def _joined(region: dict[str, Any]) -> list[dict[str, Any]]:
    out = [region] if region.get("regions") else []
    for child in region.get("regions") or []:
        out.extend(_joined(child))
    return out


def _segment_line(name: str, leaf: dict[str, Any], repairs: list[str]) -> str:
    rid = leaf.get("region_id")
    rtype = str(leaf.get("region_type"))
    if rtype not in REGION_TYPES:
        fixed = REGION_TYPE_REPAIRS.get(rtype, "named")
        repairs.append(f"region `{rid}`: type `{rtype}` read as `{fixed}`")
        rtype = fixed
        leaf["region_type"] = fixed
    stype = leaf.get("sequence_type")
    sequence = str(leaf.get("sequence") or "")
    low = int(leaf.get("min_len") or 0)
    high = int(leaf.get("max_len") or low)
    if leaf.get("onlist") and stype != "onlist":
        repairs.append(f"region `{rid}`: has an onlist but sequence_type `{stype}`; read as onlist")
        stype = "onlist"
    if stype == "fixed" and sequence and set(sequence) <= set("X"):
        repairs.append(f"region `{rid}`: fixed but all X; read as random")
        stype = "random"
    if stype == "random" and sequence and set(sequence) != {"X"}:
        repairs.append(f"region `{rid}`: random but not all X; read as fixed")
        stype = "fixed"
    if stype == "fixed":
        if not sequence:
            repairs.append(f"region `{rid}`: fixed with no sequence; read as random")
        else:
            return f"segment {name} = 5'-{sequence}-3'"
    if stype == "onlist":
        onlist = leaf.get("onlist") or {}
        filename = onlist.get("filename") if isinstance(onlist, dict) else None
        kind = "index" if rtype in ("index5", "index7") else "barcode"
        role = {"index5": "I5_INDEX", "index7": "I7_INDEX"}.get(rtype, _role(str(rid), "BARCODE"))
        length = f"{low}" if low == high else f"{low}..{high}"
        extra = f", onlist: {_string(str(filename))}" if filename else ""
        return f"segment {name} = {kind}({length}, role: {_string(role)}{extra})"
    if rtype == "umi":
        return f"segment {name} = umi({low if low == high else f'{low}..{high}'}, role: {_string(_role(str(rid), 'UMI'))})"
    role = PAYLOAD_TYPES.get(rtype) or _role(str(rid), rtype.upper())
    return f"segment {name} = payload({_string(role)}, length: {low}..{high})"


def _read_lines(
    read: dict[str, Any],
    regions: dict[str, dict[str, Any]],
    used: set[str],
    lines: list[str],
    repairs: list[str],
) -> list[str]:
    rid = str(read.get("read_id"))
    primer_region = regions.get(str(read.get("primer_id")))
    if (
        primer_region is None
        or primer_region.get("sequence_type") != "fixed"
        or set(str(primer_region.get("sequence") or "X")) <= {"X", "N"}
    ):
        repairs.append(
            f"read `{rid}`: primer `{read.get('primer_id')}` is not a fixed region of the "
            "library; read not imported"
        )
        return []
    primer_name = _unique(_ident(f"{rid}_primer"), used)
    seg = primer_region["_lab_name"]
    # a `pos` read copies the top strand: its primer has the region's sequence and
    # anneals to the bottom strand; a `neg` read is primed on the top strand
    if read.get("strand") == "pos":
        lines.append(f"oligo {primer_name} {{ seq: 5'-{{{seg}}}-3'  role: sequencing_primer }}")
        strand = "bottom"
    else:
        lines.append(f"oligo {primer_name} {{ seq: 5'-{{{seg}'}}-3'  role: sequencing_primer }}")
        strand = "top"
    read_name = _unique(_ident(str(read.get("name") or rid)), used)
    return [
        f"  read {read_name} {_string(rid)} {{ primer: {primer_name}  strand: {strand}  "
        f"length: {int(read.get('max_len') or 0)} nt }}"
    ]


# ---------------------------------------------------------------------- export


def spec_sequence(seq: Seq, segments: dict[str, SegmentDef]) -> str:
    """A library's sequence as seqspec writes it: fixed bases, N for onlist barcodes and
    indexes, X for other variable regions, each at its minimum length."""
    out: list[str] = []
    for part in plain(seq).parts:
        match part:
            case Bases(text=text):
                out.append(text)
            case Homopolymer(base=base, count=count):
                out.append(base * count if count is not None else "X")
            case Symbol():
                letter = "N" if _onlist_like(part, segments) else "X"
                out.append(
                    letter * max(part.min_len or 1, 1) if part.min_len is not None else letter
                )
            case _:
                pass
    return "".join(out)


def _onlist_like(symbol: Symbol, segments: dict[str, SegmentDef]) -> bool:
    seg = segments.get((symbol.label or "").rstrip("'"))
    if seg is not None:
        return seg.kind in ("barcode", "index")
    return any(word in symbol.role for word in ("BARCODE", "INDEX", "BC"))


def export_seqspec(
    program: Any, version: str = "0.4.0", onlist_dir: str | Path | None = None
) -> dict[str, Any]:
    """A seqspec assay for the program's libraries (one region tree per library).

    Each library segment becomes a region: fixed bases, onlist for barcodes and indexes
    with a named onlist, random otherwise; reads become `sequence_spec` entries whose
    primer is the region the primer's sequence covers.

    `version` picks the format: "0.4.0" (seqspec's repository, the default) or "0.3.1"
    (the PyPI release, whose `check` also wants a random region's sequence to be X
    repeated `max_len` times and knows no `bead_TSO`/`sgrna_target` types; write it with
    `seqspec_yaml`, which adds the YAML tags 0.3.1 needs). An onlist whose file
    (`NAME`, `NAME.txt`, `NAME.txt.gz` or `NAME.gz`) is found in `onlist_dir` gets that
    file's name, size and md5; otherwise lablang does not know the md5, and the spec
    leaves it out (0.4.0) or empty (0.3.1), which `seqspec check` reports.

    >>> from lablang.driver import check_text
    >>> lab = "library lib { seq: 5'-ACGT [UMI:4-6]-3' }"
    >>> spec = export_seqspec(check_text(lab).program, version="0.3.1")
    >>> spec["seqspec_version"], spec["library_spec"][0]["regions"][1]["sequence"]
    ('0.3.1', 'XXXXXX')
    """
    from lablang.molecular.libstruct import _libraries, _model_of

    if version not in SEQSPEC_VERSIONS:
        raise ValueError(f"seqspec version `{version}` is not one of {', '.join(SEQSPEC_VERSIONS)}")
    model: MolecularModel = _model_of(program)
    segments = {s.name: s for s in model.segments}
    libraries = _libraries(model)
    modalities: list[str] = []
    library_spec = []
    reads: list[dict[str, Any]] = []
    for library in libraries:
        modality = SPEC_MODALITY.get(library.modality, "rna")
        if modality in modalities:
            modality = next((m for m in SPEC_MODALITIES if m not in modalities), modality)
        modalities.append(modality)
        children = _regions(library, modality, segments, version, onlist_dir)
        if not children:  # an empty library is a fixed region of length 0
            library_spec.append(
                {
                    "region_id": modality,
                    "region_type": modality,
                    "name": library.name,
                    "sequence_type": "fixed",
                    "sequence": "",
                    "min_len": 0,
                    "max_len": 0,
                    "onlist": None,
                    "regions": [],
                }
            )
            continue
        library_spec.append(
            {
                "region_id": modality,
                "region_type": modality if modality in REGION_TYPES else "named",
                "name": library.title or library.name,
                "sequence_type": "joined",
                "sequence": "".join(c["sequence"] for c in children),
                "min_len": sum(c["min_len"] for c in children),
                "max_len": sum(c["max_len"] for c in children),
                "onlist": None,
                "regions": children,
            }
        )
        reads.extend(_reads(library, modality, children, model))
    return {
        "seqspec_version": version,
        "assay_id": model.name or "assay",
        "name": model.title or model.name or "assay",
        # lablang does not know the assay's date; the schema requires one, so a fixed
        # placeholder keeps the output deterministic (see docs/molecular.md)
        "doi": "",
        "date": "1 January 1970",
        "description": model.title or model.name or "",
        "modalities": modalities,
        "lib_struct": "",
        "library_protocol": "Custom",
        "library_kit": "Custom",
        "sequence_protocol": "Custom",
        "sequence_kit": "Custom",
        "sequence_spec": reads,
        "library_spec": library_spec,
    }


def _onlist(name: str, version: str, onlist_dir: str | Path | None) -> dict[str, Any]:
    """The onlist object of a region: from the file when `onlist_dir` holds it."""
    found = _onlist_file(name, onlist_dir)
    if found is not None:
        digest = hashlib.md5(usedforsecurity=False)
        with found.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        return {
            "file_id": found.name,
            "filename": found.name,
            "filetype": "txt.gz" if found.name.endswith(".gz") else "txt",
            "filesize": found.stat().st_size,
            "url": found.name,
            "urltype": "local",
            "md5": digest.hexdigest(),
        }
    onlist: dict[str, Any] = {
        "file_id": name,
        "filename": f"{name}.txt",
        "filetype": "txt",
        "filesize": 0,
        "url": f"{name}.txt",
        "urltype": "local",
    }
    if version.startswith("0.3."):
        # 0.3.1 reads every onlist field as an attribute: the key must be there, and
        # an empty md5 says it is unknown (its check reports the pattern mismatch)
        onlist["md5"] = ""
    return onlist


def missing_onlists(model: MolecularModel, onlist_dir: str | Path | None) -> list[str]:
    """The onlists the model's libraries name whose file is not in `onlist_dir` (sorted)."""
    names = {s.onlist for s in model.segments if s.onlist}
    return sorted(name for name in names if _onlist_file(name, onlist_dir) is None)


def _onlist_file(name: str, onlist_dir: str | Path | None) -> Path | None:
    """The onlist's file in `onlist_dir`: a plain file name only (the name comes from an
    untrusted `.lab`), a regular file, not a symlink."""
    if onlist_dir is None or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        return None
    directory = Path(onlist_dir)
    for candidate in (name, f"{name}.txt", f"{name}.txt.gz", f"{name}.gz"):
        path = directory / candidate
        if path.is_file() and not path.is_symlink():
            return path
    return None


def _regions(
    library: LibraryDef,
    modality: str,
    segments: dict[str, SegmentDef],
    version: str = "0.4.0",
    onlist_dir: str | Path | None = None,
) -> list[dict[str, Any]]:
    from lablang.molecular.libstruct import segments_of

    types = REGION_TYPES_0_3 if version.startswith("0.3.") else REGION_TYPES
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    for record in segments_of(plain(library.seq)):
        role = str(record["role"])
        rid = _unique(f"{modality}-{_ident(role)}", used)
        text = record.get("sequence") or ""
        if text and not set(text) <= set("ACGTRYMKSWHBVDN"):
            text = ""
        if text:
            rtype = _region_type(role, text)
            out.append(
                {
                    "region_id": rid,
                    "region_type": rtype if rtype in types else "named",
                    "name": role,
                    "sequence_type": "fixed",
                    "sequence": text,
                    "min_len": len(text),
                    "max_len": len(text),
                    "onlist": None,
                    "regions": [],
                }
            )
            continue
        placeholder = str(record.get("placeholder", ""))
        m = re.match(r"\[([A-Z0-9_]+)(?::(\d+)(?:-(\d+))?)?\]", placeholder)
        prole = m.group(1) if m else "X"
        low = int(m.group(2)) if m and m.group(2) else 1
        high = int(m.group(3)) if m and m.group(3) else (low if m and m.group(2) else 1000)
        seg = segments.get(role)
        onlist = seg.onlist if seg is not None else None
        rtype = _region_type(prole.lower(), "")
        rtype = rtype if rtype in types else "named"
        if onlist:
            out.append(
                {
                    "region_id": rid,
                    "region_type": rtype,
                    "name": role,
                    "sequence_type": "onlist",
                    "sequence": "N" * low,
                    "min_len": low,
                    "max_len": high,
                    "onlist": _onlist(onlist, version, onlist_dir),
                    "regions": [],
                }
            )
        else:
            # 0.4.0 takes any run of X within min_len..max_len; 0.3.1's check wants
            # exactly max_len X's
            length = high if version.startswith("0.3.") else low
            out.append(
                {
                    "region_id": rid,
                    "region_type": rtype,
                    "name": role,
                    "sequence_type": "random",
                    "sequence": "X" * length,
                    "min_len": low,
                    "max_len": high,
                    "onlist": None,
                    "regions": [],
                }
            )
    return out


def _region_type(role: str, text: str) -> str:
    lowered = role.lower()
    if (text and len(set(text)) == 1 and len(text) >= 8) or lowered in (
        "dt",
        "poly_dt",
        "oligo_dt",
    ):
        # a homopolymer run (the capture oligo's dT) is seqspec's poly_T, not a linker
        base = text[0] if text else "T"
        return {"A": "poly_A", "C": "poly_C", "G": "poly_G"}.get(base, "poly_T")
    if lowered in ("r1", "read1", "read_1"):
        return "truseq_read1"
    if lowered in ("r2", "read2", "read_2"):
        return "truseq_read2"
    # most specific first: `TruSeq_R1_after_P5` is Read 1's primer site, not P5
    table = [
        ("truseq_read1", "truseq_read1"),
        ("truseq_r1", "truseq_read1"),
        ("read1_primer", "truseq_read1"),
        ("truseq_read2", "truseq_read2"),
        ("truseq_r2", "truseq_read2"),
        ("illumina_p5", "illumina_p5"),
        ("p5", "illumina_p5"),
        ("p7", "illumina_p7"),
        ("i7", "index7"),
        ("i5", "index5"),
        ("umi", "umi"),
        ("barcode", "barcode"),
        ("cdna", "cdna"),
        ("gdna", "gdna"),
        ("poly", "poly_T"),
        ("sample_index", "truseq_read2"),
        ("read2", "truseq_read2"),
        ("me", "ME1"),
        ("s5", "s5"),
        ("s7", "s7"),
    ]
    for key, rtype in table:
        if key in lowered:
            if rtype == "poly_T" and text:
                return {"A": "poly_A", "C": "poly_C", "G": "poly_G"}.get(text[0], "poly_T")
            return rtype
    return "linker" if text else "named"


def _reads(
    library: LibraryDef, modality: str, regions: list[dict[str, Any]], model: MolecularModel
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    top = "".join(r["sequence"] for r in regions)
    for read in library.reads:
        oligo = model.oligo(read.primer)
        primer_id = None
        if oligo is not None:
            primer = _plain_text(oligo.seq)
            if read.strand == "bottom":  # pos read: primer sequence is on the top strand
                target = primer
            else:
                target = _plain_text(reverse_complement(oligo.seq))
            index = top.find(target)
            if index >= 0:
                primer_id = _region_covering(regions, index, index + len(target))
        out.append(
            {
                "read_id": f"{modality}-{read.name}",
                "name": read.name,
                "modality": modality,
                "primer_id": primer_id or regions[0]["region_id"] if regions else "",
                "min_len": read.min_length or read.length or 1,
                "max_len": read.length or 1,
                "strand": "pos" if read.strand == "bottom" else "neg",
                "files": [],
            }
        )
    return out


def _plain_text(seq: Seq) -> str:
    return "".join(t for t in plain(seq).tokens() if isinstance(t, str))


def _region_covering(regions: list[dict[str, Any]], start: int, end: int) -> str | None:
    """The region that holds most of the primer's site `start..end`: TruSeq Read 2's
    primer site, not the 1-nt A-tail its last base pairs with (first one on a tie)."""
    best, most, pos = None, 0, 0
    for region in regions:
        width = len(region["sequence"])
        overlap = min(end, pos + width) - max(start, pos)
        if overlap > most:
            best, most = str(region["region_id"]), overlap
        pos += width
    return best


def seqspec_yaml(spec: dict[str, Any]) -> str:
    """YAML text of a spec, keys in seqspec's order.

    A spec whose `seqspec_version` is 0.3.x is written with the `!Assay`, `!Region`,
    `!Onlist` and `!Read` tags that seqspec 0.3.1 needs to load it (0.4.0 strips them).

    >>> print(seqspec_yaml({"seqspec_version": "0.3.1", "library_spec": [], "sequence_spec": []}))
    !Assay
    seqspec_version: 0.3.1
    library_spec: []
    sequence_spec: []
    <BLANKLINE>
    """
    import yaml

    if not str(spec.get("seqspec_version", "")).startswith("0.3."):
        return str(yaml.safe_dump(spec, sort_keys=False, default_flow_style=False))

    class _Dumper(yaml.SafeDumper):
        pass

    def tagged(dumper: yaml.SafeDumper, node: _Tagged) -> yaml.Node:
        return dumper.represent_mapping(node.tag, node.data.items())

    _Dumper.add_representer(_Tagged, tagged)
    return str(yaml.dump(_tag(spec), Dumper=_Dumper, sort_keys=False, default_flow_style=False))


@frozen
class _Tagged:
    tag: str
    data: dict[str, Any]


def _tag(spec: dict[str, Any]) -> _Tagged:
    def region(r: dict[str, Any]) -> _Tagged:
        data = dict(r)
        if isinstance(data.get("onlist"), dict):
            data["onlist"] = _Tagged(_TAGS["onlist"], data["onlist"])
        data["regions"] = [region(c) for c in data.get("regions") or []]
        return _Tagged(_TAGS["region"], data)

    data = dict(spec)
    data["sequence_spec"] = [_Tagged(_TAGS["read"], r) for r in spec.get("sequence_spec") or []]
    data["library_spec"] = [region(r) for r in spec.get("library_spec") or []]
    return _Tagged(_TAGS["assay"], data)


# ---------------------------------------------------------------------- names


def _role(region_id: str, fallback: str) -> str:
    role = re.sub(r"[^A-Za-z0-9]+", "_", region_id).strip("_").upper()
    return role or fallback


def _ident(text: str) -> str:
    from lablang.molecular.libstruct import _ident as ident

    return ident(text)


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 2
    while candidate in used:
        candidate = f"{name}_{n}"
        n += 1
    used.add(candidate)
    return candidate


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'
