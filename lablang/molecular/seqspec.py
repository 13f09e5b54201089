"""seqspec import: a spec's libraries and reads as `.lab` (export: `seqspec_export.py`).

seqspec (pachterlab/seqspec, 0.4.0) describes a final library as a tree of regions,
5'->3', and reads by the region their primer sits on. Many published specs do not pass
the 0.4.0 schema as they stand (`../shared/notes/seqspec.md`); the importer repairs
what it can and lists every repair. `validate_seqspec` implements the checks of
`seqspec check` that need no network or files (schema enums and patterns, uniqueness,
primer references, sequence types, lengths, joined sequences, read lengths); it was
written from the documented 0.4.0 rules; the tests run seqspec's own CLI as well
(`tests/molecular/test_seqspec_tool.py`, `tests/molecular/test_seqspec_cli.py`).

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
import re
from typing import Any

from attrs import frozen

from lablang.fmt import canonical_text
from lablang.syntax.strings import escape, quote

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
# the primers 0.3.0 specs give reads that name the library prep instead of a region
GENERIC_PRIMERS = {"generic_primer1": 1, "generic_primer2": 2}
READ1_PRIMER_TYPES = frozenset({"truseq_read1", "nextera_read1", "primer_read1", "s5", "ME1"})
READ2_PRIMER_TYPES = frozenset({"truseq_read2", "nextera_read2", "primer_read2", "ME2", "s7"})
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
    # each repair's YAML node: its path from the root (keys and list indexes), which
    # `lablang.datafile.yaml_spans` turns into the node's place in the file
    where: tuple[tuple[str | int, ...], ...] = ()


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


class _Repairs:
    """The repairs of one import, each with the path of the YAML node it is about."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.messages: list[str] = []
        self.where: list[tuple[str | int, ...]] = []
        self._paths: dict[int, tuple[str | int, ...]] = {}
        stack: list[tuple[tuple[str | int, ...], Any]] = [((), spec)]
        while stack:  # every mapping of the (copied) spec by identity -> its path
            path, node = stack.pop()
            if isinstance(node, dict):
                self._paths[id(node)] = path
                stack.extend(((*path, k), v) for k, v in node.items() if isinstance(k, str))
            elif isinstance(node, list):
                stack.extend(((*path, i), v) for i, v in enumerate(node))

    def add(self, message: str, node: dict[str, Any] | None = None, key: str = "") -> None:
        """A repair about `node` (a region, read or the spec), at its `key` when it has
        one, else at its id."""
        path = self._paths.get(id(node), ()) if node is not None else ()
        if node is not None:
            key = (
                key if key in node else next((k for k in ("region_id", "read_id") if k in node), "")
            )
        self.messages.append(message)
        self.where.append((*path, key) if key else path)


def _import(spec: dict[str, Any], name: str | None) -> SeqspecImport:
    problems = validate_seqspec(spec)
    spec = copy.deepcopy(spec)  # repairs below are made on a copy
    repairs = _Repairs(spec)
    run_fields = [
        k
        for k in ("date", "library_protocol", "library_kit", "sequence_protocol", "sequence_kit")
        if k in spec
    ]
    if any(
        "date" in p or "protocol" in p or "kit" in p or ("md5" in p and "read" in p)
        for p in problems
    ):
        repairs.add(
            "date, protocol, kit and read file fields are not imported (a `.lab` library "
            "records structure and reads, not sequencing runs)",
            spec,
            run_fields[0] if run_fields else "",
        )
    module = _ident(name or str(spec.get("assay_id") or "assay"))
    lines = [
        f"module {module} {quote(str(spec.get('name') or module))}",
        f"# imported from seqspec {escape(str(spec.get('seqspec_version', '?')))} ({escape(str(spec.get('doi') or 'no doi'))})",
        "",
    ]
    sequences: list[tuple[str, str]] = []
    regions_by_id: dict[str, dict[str, Any]] = {}
    library_lines: list[str] = []
    used_names: set[str] = set()
    libraries = {str(top.get("region_id") or "rna").lower() for top in spec["library_spec"]}
    for top in spec["library_spec"]:
        modality = str(top.get("region_id") or "rna")
        spec_modality = modality.lower() if modality.lower() in SPEC_MODALITIES else modality
        if spec_modality != modality:
            repairs.add(f"modality `{modality}` written as `{spec_modality}`", top)
        leaves = _leaves(top) if top.get("regions") else []
        wrappers = [r for r in _joined(top) if r is not top]
        if wrappers:
            repairs.add(
                f"library `{modality}`: nested regions "
                + ", ".join(f"`{r.get('region_id')}`" for r in wrappers)
                + " flattened to their leaves (their types "
                "and sequence types are not kept)",
                wrappers[0],
            )
        parts: list[str] = []
        for leaf in leaves:
            seg_name = _unique(_ident(_unprefixed(str(leaf.get("region_id")))), used_names)
            regions_by_id[str(leaf.get("region_id"))] = leaf
            leaf["_lab_name"] = seg_name
            lines.append(_segment_line(seg_name, leaf, repairs))
            parts.append("{" + seg_name + "}")
        sequences.append((spec_modality, str(top.get("sequence") or "")))
        lib_name = _unique(_ident(spec_modality), used_names)
        lab_modality = LIBSTRUCT_MODALITY.get(spec_modality, spec_modality)
        library_lines += [
            f"library {lib_name} {quote(str(top.get('name') or lib_name))} {{",
            f"  modality: {quote(lab_modality)}",
            f"  seq: 5'-{' '.join(parts)}-3'",
        ]
        for read in spec.get("sequence_spec") or []:
            read_modality = str(read.get("modality")).lower()
            if read_modality != spec_modality and read_modality in libraries:
                continue
            if read_modality != spec_modality:
                # a 0.3.0 spec's reads name the library prep (`illumina_truseq_prep`),
                # which every library of the spec shares
                repairs.add(
                    f"read `{read.get('read_id')}`: modality {read.get('modality')!r} names "
                    f"the library prep, not a library; read as a read of `{spec_modality}`",
                    read,
                    "modality",
                )
            library_lines += _read_lines(read, leaves, regions_by_id, used_names, lines, repairs)
        library_lines += ["}", ""]
    if any("onlist md5" in p for p in problems):
        bad = [leaf for leaf in regions_by_id.values() if isinstance(leaf.get("onlist"), dict)]
        repairs.add(
            "onlist md5 values that are not 32 hex digits are ignored (onlist names kept)",
            bad[0]["onlist"] if bad else None,
            "md5",
        )
    lines.append("")
    text = canonical_text("\n".join(lines + library_lines).rstrip() + "\n")
    return SeqspecImport(
        text,
        tuple(problems),
        tuple(repairs.messages),
        tuple(sequences),
        tuple(repairs.where),
    )


def _unprefixed(region_id: str) -> str:
    """A region id without the modality seqspec specs put before it (`rna-cell_barcode`
    is `cell_barcode`): the export adds it back, so ids round-trip."""
    prefix, _, rest = region_id.partition("-")
    return rest if rest and prefix.lower() in SPEC_MODALITIES else region_id


def _grader_role(region_id: str, rtype: str) -> str:
    """A barcode's, UMI's or index's role as LibStructBench's grader knows it (W0406
    otherwise): the region's own name when the grader knows it (`rna-cell_barcode` is
    `CELL_BARCODE`), else its kind's (an RT, ligation or Tn5 barcode by its name, other
    barcodes `CELL_BARCODE`, `UMI`, `I5_INDEX`, `I7_INDEX`)."""
    from lablang.molecular.builder.common import grader_roles

    role = _role(_unprefixed(region_id), "")
    if role in grader_roles():
        return role
    if rtype in ("umi", "index5", "index7"):
        return {"umi": "UMI", "index5": "I5_INDEX", "index7": "I7_INDEX"}[rtype]
    for word, known in (("RT", "RT_BARCODE"), ("LIG", "LIGATION_BARCODE"), ("TN5", "TN5_BARCODE")):
        if word in role.split("_") or role.startswith(word):
            return known
    return "CELL_BARCODE"


def _generic_primer(leaves: list[dict[str, Any]], pos: bool) -> dict[str, Any] | None:
    """The region a read primed by the prep's generic Read 1 (`pos`) or Read 2 primer
    starts after: the last of the first run of Read 1 primer sites (s5 then ME1, or
    TruSeq Read 1), or the first of the last run of Read 2 sites (ME2 then s7)."""
    kinds = READ1_PRIMER_TYPES if pos else READ2_PRIMER_TYPES
    order = leaves if pos else leaves[::-1]
    found = None
    for leaf in order:
        fixed = leaf.get("sequence_type") == "fixed"
        if fixed and (leaf.get("_type") or leaf.get("region_type")) in kinds:
            found = leaf
        elif found is not None:
            break
    return found


def _joined(region: dict[str, Any]) -> list[dict[str, Any]]:
    out = [region] if region.get("regions") else []
    for child in region.get("regions") or []:
        out.extend(_joined(child))
    return out


def _segment_line(name: str, leaf: dict[str, Any], repairs: _Repairs) -> str:
    rid = leaf.get("region_id")
    rtype = str(leaf.get("region_type"))
    leaf["_type"] = rtype  # as published (`primer_read1`): what a generic primer names
    if rtype not in REGION_TYPES:
        fixed = REGION_TYPE_REPAIRS.get(rtype, "named")
        repairs.add(f"region `{rid}`: type `{rtype}` read as `{fixed}`", leaf, "region_type")
        rtype = fixed
        leaf["region_type"] = fixed
    stype = leaf.get("sequence_type")
    sequence = str(leaf.get("sequence") or "")
    low = int(leaf.get("min_len") or 0)
    high = int(leaf.get("max_len") or low)
    if leaf.get("onlist") and stype != "onlist":
        repairs.add(
            f"region `{rid}`: has an onlist but sequence_type `{stype}`; read as onlist",
            leaf,
            "sequence_type",
        )
        stype = "onlist"
    if stype == "fixed" and sequence and set(sequence) <= set("X"):
        repairs.add(f"region `{rid}`: fixed but all X; read as random", leaf, "sequence")
        stype = "random"
    if stype == "random" and sequence and set(sequence) != {"X"}:
        repairs.add(f"region `{rid}`: random but not all X; read as fixed", leaf, "sequence")
        stype = "fixed"
    if stype == "fixed":
        if not sequence:
            repairs.add(f"region `{rid}`: fixed with no sequence; read as random", leaf, "sequence")
        else:
            return f"segment {name} = 5'-{sequence}-3'"
    if stype == "onlist" or rtype in ("barcode", "index5", "index7"):  # random ones too
        onlist = leaf.get("onlist") or {}
        filename = onlist.get("filename") if isinstance(onlist, dict) else None
        if isinstance(onlist, dict) and onlist.get("urltype") in ("http", "https", "ftp"):
            filename = onlist.get("url") or filename  # a published onlist: where it is
        kind = "index" if rtype in ("index5", "index7") else "barcode"
        role = _grader_role(str(rid), rtype)
        length = f"{low}" if low == high else f"{low}..{high}"
        extra = f", onlist: {quote(str(filename))}" if filename else ""
        return f"segment {name} = {kind}({length}, role: {quote(role)}{extra})"
    if rtype == "umi":
        return f"segment {name} = umi({low if low == high else f'{low}..{high}'}, role: {quote(_grader_role(str(rid), rtype))})"
    role = PAYLOAD_TYPES.get(rtype) or _role(str(rid), rtype.upper())
    return f"segment {name} = payload({quote(role)}, length: {low}..{high})"


def _read_lines(
    read: dict[str, Any],
    leaves: list[dict[str, Any]],
    regions: dict[str, dict[str, Any]],
    used: set[str],
    lines: list[str],
    repairs: _Repairs,
) -> list[str]:
    rid = str(read.get("read_id"))
    primer_id = str(read.get("primer_id"))
    primer_region = regions.get(primer_id) if regions.get(primer_id) in leaves else None
    if primer_region is None and primer_id in GENERIC_PRIMERS:
        primer_region = _generic_primer(leaves, read.get("strand") == "pos")
        if primer_region is not None:
            repairs.add(
                f"read `{rid}`: primer `{primer_id}` names no region; read as the "
                f"library's Read {GENERIC_PRIMERS[primer_id]} primer site "
                f"`{primer_region.get('region_id')}`",
                read,
                "primer_id",
            )
    if (
        primer_region is None
        or primer_region.get("sequence_type") != "fixed"
        or set(str(primer_region.get("sequence") or "X")) <= {"X", "N"}
    ):
        repairs.add(
            f"read `{rid}`: primer `{read.get('primer_id')}` is not a fixed region of the "
            "library; read not imported",
            read,
            "primer_id",
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
    length = int(read.get("max_len") or 0)
    k = next(i for i, leaf in enumerate(leaves) if leaf is primer_region)
    room = sum(
        int(leaf.get("max_len") or 0)
        for leaf in (leaves[k + 1 :] if read.get("strand") == "pos" else leaves[:k])
    )
    if length > room:  # seqspec's check 17: a read ends inside its library
        repairs.add(
            f"read `{rid}`: max_len {length} is longer than the {room} bases "
            f"{'after' if read.get('strand') == 'pos' else 'before'} its primer; read as {room}",
            read,
            "max_len",
        )
        length = room
    return [
        f"  read {read_name} {quote(rid)} {{ primer: {primer_name}  strand: {strand}  "
        f"length: {length} nt }}"
    ]


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
