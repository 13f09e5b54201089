"""seqspec export: a program's libraries and reads as a seqspec assay (YAML).

Each library is one top-level region (its modality), each segment a leaf region; each
read a `sequence_spec` entry whose primer is the region the read starts after. The
format of seqspec's repository (0.4.0) or of its PyPI release (0.3.1, tagged YAML) is
written; `tests/molecular/test_seqspec_cli.py` runs seqspec's own CLI on the exports.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from attrs import frozen

from lablang.molecular.model import LibraryDef, MolecularModel, ReadDef, SegmentDef
from lablang.molecular.seqspec import (
    _TAGS,
    REGION_TYPES,
    REGION_TYPES_0_3,
    SEQSPEC_VERSIONS,
    SPEC_MODALITY,
    _ident,
    _unique,
)
from lablang.molecular.sequence import Bases, Homopolymer, Seq, Symbol, plain, reverse_complement

# an onlist file larger than this is exported without its checksum (as a missing one is)
MAX_ONLIST_BYTES = 4 * 1024**3
# the longest region seqspec's schema allows (a library is one region)
MAX_LEN = 2048
# onlists published by their vendor, by the name a `.lab` gives them: an export whose
# onlist file is not at hand points at these (10x Genomics' Cell Ranger repository: the
# two lists its open repository serves at these paths, as pipelines that fetch them name
# them; the ATAC and ARC lists ship only inside Cell Ranger ATAC/ARC, so they have no
# published address and are written as local file names)
_CELLRANGER = "https://github.com/10XGenomics/cellranger/raw/master/lib/python/cellranger/barcodes"
PUBLISHED_ONLISTS = {
    "3M-february-2018": f"{_CELLRANGER}/3M-february-2018.txt.gz",
    "737K-august-2016": f"{_CELLRANGER}/737K-august-2016.txt",
}
# fixed regions that one sequencing primer's site covers whole, written as one region
# of seqspec's type (its own specs: `nextera_read1` is s5 + ME1, `nextera_read2` ME2 + s7)
JOINED_PRIMER_TYPES = {
    ("s5", "ME1"): "nextera_read1",
    ("ME2", "s7"): "nextera_read2",
}
# the mosaic end as Tn5 writes it next to s5 (ME1) and its reverse complement by s7
# (ME2), alone or with s5 / s7 as one primer site: typed by sequence, whatever the name
_ME, _ME_RC = "AGATGTGTATAAGAGACAG", "CTGTCTCTTATACACATCT"
_BY_SEQUENCE = {
    _ME: "ME1",
    _ME_RC: "ME2",
    "TCGTCGGCAGCGTC" + _ME: "nextera_read1",
    _ME_RC + "CCGAGCCCACGAGAC": "nextera_read2",
}


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
    with a named onlist, random otherwise; a barcode of any round (a segment declared
    `barcode(...)` or a role LibStructBench's grader reads as a barcode: cell, ligation,
    RT, Tn5) is a `barcode` region. The modality is the library's declared kind; seqspec
    holds one library per modality, so a second library of a kind is left out
    (`library_modalities`). Reads become `sequence_spec` entries whose primer is the
    region the read starts after: the fixed regions a sequencing primer's site covers
    whole are one region (s5 and ME are seqspec's `nextera_read1`, as in its own specs).

    `version` picks the format: "0.4.0" (seqspec's repository, the default) or "0.3.1"
    (the PyPI release, whose `check` also wants a random region's sequence to be X
    repeated `max_len` times and knows no `bead_TSO`/`sgrna_target` types; write it with
    `seqspec_yaml`, which adds the YAML tags 0.3.1 needs). An onlist whose file
    (`NAME`, `NAME.txt`, `NAME.txt.gz` or `NAME.gz`) is found in `onlist_dir` gets that
    file's name, size and md5. Otherwise lablang does not know the md5: an onlist named
    by its URL, or one of `PUBLISHED_ONLISTS`, is written at that location (`urltype`
    https), any other as a local file name; the md5 is left out (0.4.0) or null (0.3.1,
    whose loader needs the key; seqspec's own published specs write it so), which
    `seqspec check` reports.

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
    for library, modality in library_modalities(libraries):
        if modality is None:  # a second library of a modality: see `library_modalities`
            continue
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
        children = _fit_max_len(children, version)  # before the sites: lengths change
        sites = [_primer_site(read, children, model) for read in library.reads]
        children = _merge_primer_sites(children, sites)
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
        reads.extend(_reads(library, modality, children, sites))
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


def library_modalities(libraries: list[LibraryDef]) -> list[tuple[LibraryDef, str | None]]:
    """Each library with the seqspec modality of its declared kind (`gene expression` is
    `rna`, `chromatin accessibility` `atac`; an unknown kind `rna`), or None for a library
    of a modality an earlier library has: a spec's modalities are unique and each names
    one top-level region, so seqspec holds one library per modality (W0051 says which
    are left out)."""
    out: list[tuple[LibraryDef, str | None]] = []
    taken: set[str] = set()
    for library in libraries:
        modality = SPEC_MODALITY.get(library.modality, "rna")
        out.append((library, None if modality in taken else modality))
        taken.add(modality)
    return out


def _onlist(name: str, version: str, onlist_dir: str | Path | None) -> dict[str, Any]:
    """The onlist object of a region: from the file when `onlist_dir` holds it."""
    found = _onlist_file(name, onlist_dir)
    if found is not None:
        from lablang.guarded import Refused, open_guarded

        digest = hashlib.md5(usedforsecurity=False)
        try:  # inside the onlist folder, a regular file, its size bounded before reading
            stream = open_guarded(
                found,
                [Path(onlist_dir or ".")],
                max_bytes=MAX_ONLIST_BYTES,
                limit="MAX_ONLIST_BYTES",
            )
        except Refused:
            found = None
    if found is not None:
        with stream:
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
    url = PUBLISHED_ONLISTS.get(name, name)
    scheme = url.split("://", 1)[0] if "://" in url else ""
    scheme = scheme if scheme in ("http", "https", "ftp") else ""
    filename = url.rsplit("/", 1)[-1] if scheme else _file_name(name)
    if scheme and version.startswith("0.3."):
        # 0.3.1's check asks the network for `filename` (not `url`) unless the spec says
        # 0.3.0: a bare file name there is a crash in `requests`, the URL a real look-up
        filename = url
    onlist: dict[str, Any] = {
        "file_id": url.rsplit("/", 1)[-1] if scheme else filename,
        "filename": filename,
        "filetype": "txt.gz" if filename.endswith(".gz") else "txt",
        "filesize": 0,
        "url": url if scheme else filename,
        "urltype": scheme or "local",
    }
    if version.startswith("0.3."):
        # 0.3.1 reads every onlist field as an attribute: the key must be there; null
        # (not '') says it is unknown, as seqspec's own published specs write it
        onlist["md5"] = None
    return onlist


def _file_name(name: str) -> str:
    """An onlist's file name: the name as written when it has a file suffix (an imported
    spec's `barcode-1_onlist_v2.txt`), else with `.txt` (`3M-february-2018.txt`)."""
    if re.search(r"\.(txt|tsv|csv|list)(\.gz)?$|\.gz$", name):
        return name
    return f"{name}.txt"


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
    for record in _pieces(segments_of(plain(library.seq))):
        role = str(record["role"])
        rid = _unique(f"{modality}-{_ident(role)}", used)
        text = record.get("sequence") or ""
        if text and not set(text) <= set("ACGTRYMKSWHBVDN"):
            text = ""
        if text:
            rtype = _fixed_type(role, text)
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
        rtype = _symbol_type(prole, seg.kind if seg is not None else None)
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


def _pieces(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Segment records with a segment of mixed bases and placeholders (a derived
    library's copy of an adapter and the insert it flanks, `ME [GDNA] ME'`) cut into its
    fixed and variable pieces: seqspec's regions are each fixed or variable, and a
    sequencing primer's site must be fixed bases to be found."""
    out: list[dict[str, Any]] = []
    for record in records:
        text = str(record.get("sequence") or "")
        if "[" not in text:
            out.append(record)
            continue
        for piece in re.split(r"(\[[^\]]*\])", text):
            if piece.startswith("["):
                role = piece[1:].split(":", 1)[0].rstrip("]'").lower().replace("_", " ")
                out.append({"role": role, "placeholder": piece})
            elif piece:
                out.append({"role": record["role"], "sequence": piece})
    return out


def _symbol_type(role: str, kind: str | None) -> str:
    """The region type of a barcode, UMI, index or payload: by the segment's kind when
    declared (`barcode(...)`), else by what LibStructBench's grader reads the role as
    (`[LIGATION:8]` and `[RT_BARCODE:8]` are barcodes, `[I7_INDEX:8]` an index), else by
    the words of the role."""
    from lablang.molecular.builder.common import grader_role_char

    upper = role.upper()
    index = "index5" if "I5" in upper else "index7"
    if kind in ("barcode", "umi"):
        return kind
    if kind == "index":
        return index
    char = grader_role_char(upper)
    if char in ("#", "&", "=", "%"):
        return "barcode"
    if char == "~":
        return "umi"
    if char == "@":
        return index
    if char == "$":
        return "tag"
    return _region_type(role.lower(), "")


def _fixed_type(role: str, text: str) -> str:
    """The region type of fixed bases: the mosaic end by its sequence (ME1 beside s5,
    its reverse complement ME2 beside s7; with s5 or s7 seqspec's `nextera_read1` or
    `nextera_read2`), else by the segment's name."""
    return _BY_SEQUENCE.get(text) or _region_type(role, text)


def _primer_site(
    read: ReadDef, regions: list[dict[str, Any]], model: MolecularModel
) -> tuple[int, int] | None:
    """Where a read's primer sits on the library's top strand (start, end), or None.

    A `pos` read's primer has the top strand's bases, a `neg` read's their reverse
    complement. A primer with a 5' tail the library lacks is placed by its 3' end (the
    part that pairs), at least 12 bases of it."""
    oligo = model.oligo(read.primer)
    if oligo is None:
        return None
    top = "".join(r["sequence"] for r in regions)
    if read.strand == "bottom":  # pos read: primer sequence is on the top strand
        target = _plain_text(oligo.seq)
        for cut in range(0, max(len(target) - 11, 1)):  # drop 5' bases: the 3' end stays
            index = top.find(target[cut:])
            if index >= 0:
                return index, index + len(target) - cut
        return None
    target = _plain_text(reverse_complement(oligo.seq))
    for cut in range(len(target), min(11, len(target)) - 1, -1):  # the 3' end is first here
        index = top.find(target[:cut])
        if index >= 0:
            return index, index + cut
    return None


def _merge_primer_sites(
    regions: list[dict[str, Any]], sites: list[tuple[int, int] | None]
) -> list[dict[str, Any]]:
    """The regions with each run of fixed regions that a primer's site covers whole
    written as one fixed region (the id of the longest), so that every read starts right
    after its primer region (seqspec's tools count positions from there): 10x Read 2's
    primer covers the A-tail base and TruSeq Read 2, scATAC's i5 read primer s5 and ME."""
    bounds, pos = [], 0
    for region in regions:
        bounds.append((pos, pos + len(region["sequence"])))
        pos += len(region["sequence"])
    group = list(range(len(regions)))  # group[i]: the first region merged with i
    for site in sites:
        if site is None:
            continue
        inside = [
            i
            for i, (a, b) in enumerate(bounds)
            if site[0] <= a and b <= site[1] and regions[i]["sequence_type"] == "fixed"
        ]
        for i in inside[1:]:
            if i - 1 in inside:
                group[i] = group[i - 1]
    out: list[dict[str, Any]] = []
    for i, region in enumerate(regions):
        if group[i] != i:
            first = out[-1]
            merged = [r for j, r in enumerate(regions) if group[j] == group[i] and j <= i]
            types = tuple(r["region_type"] for r in merged)
            longest = max(merged, key=lambda r: r["max_len"])  # the first of equals
            text = first["sequence"] + region["sequence"]
            out[-1] = {
                **first,
                "region_id": longest["region_id"],
                "region_type": JOINED_PRIMER_TYPES.get(types, longest["region_type"]),
                "name": " + ".join(str(r["name"]) for r in merged),
                "sequence": text,
                "min_len": len(text),
                "max_len": len(text),
            }
        else:
            out.append(region)
    return out


def _fit_max_len(regions: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
    """The regions with the longest variable ones shortened so that the library is at
    most `MAX_LEN` long, as seqspec's schema wants (`[CDNA]` of unstated length is up to
    1000 bases: two of them would pass it)."""
    excess = sum(r["max_len"] for r in regions) - MAX_LEN
    for region in sorted(regions, key=lambda r: -(r["max_len"] - r["min_len"])):
        if excess <= 0 or region["sequence_type"] != "random":
            continue
        cut = min(excess, region["max_len"] - region["min_len"])
        region["max_len"] -= cut
        if version.startswith("0.3."):  # 0.3.1 writes a random region as max_len X's
            region["sequence"] = "X" * region["max_len"]
        excess -= cut
    return regions


def _reads(
    library: LibraryDef,
    modality: str,
    regions: list[dict[str, Any]],
    sites: list[tuple[int, int] | None],
) -> list[dict[str, Any]]:
    """The library's reads; each primer is the region the read starts after: for a
    `pos` read the region that ends where the primer's site ends, for a `neg` read the
    one that starts where it starts (the region holding that end when none does)."""
    out: list[dict[str, Any]] = []
    bounds, pos = [], 0
    for region in regions:
        bounds.append((pos, pos + len(region["sequence"]), str(region["region_id"])))
        pos += len(region["sequence"])
    for read, site in zip(library.reads, sites, strict=True):
        primer_id: str | None = None
        if site is not None:
            pos_read = read.strand == "bottom"
            edge = site[1] if pos_read else site[0]
            exact = [rid for a, b, rid in bounds if (b if pos_read else a) == edge]
            holding = [rid for a, b, rid in bounds if a <= (edge - 1 if pos_read else edge) < b]
            primer_id = next(iter(exact or holding), None)
        out.append(
            {
                "read_id": f"{modality}-{read.name}",
                "name": read.name,
                "modality": modality,
                "primer_id": primer_id or (regions[0]["region_id"] if regions else ""),
                "min_len": read.min_length or read.length or 1,
                "max_len": read.length or 1,
                "strand": "pos" if read.strand == "bottom" else "neg",
                "files": [],
            }
        )
    return out


def _plain_text(seq: Seq) -> str:
    return "".join(t for t in plain(seq).tokens() if isinstance(t, str))


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
