"""LibStructBench interchange: export a program's Task 1/2/3 answers, import them back.

Export follows the prediction schemas field for field (see
`../shared/notes/libstructbench.md`): Task 1 `libstruct.library_structure.v0`
libraries, Task 2 oligos, Task 3 workflows of states and transitions. Import reads
prediction or ground-truth files (they share these fields) and writes `.lab` text.

>>> from lablang.molecular.sequence import parse_notation
>>> [s["placeholder"] for s in segments_of(parse_notation("ACGT [CB:16] [CDNA']"))[1:]]
['[CB:16]', '[CDNA]']
"""

from __future__ import annotations

import json
import re
from collections.abc import Set as AbstractSet
from typing import Any

from lablang.molecular.model import (
    OPERATIONS,
    Graph,
    LibraryDef,
    MolecularModel,
    OligoDef,
    StateDef,
    TransitionDef,
)
from lablang.molecular.modifications import BY_CODE
from lablang.molecular.molecule import Duplex, MolType
from lablang.molecular.sequence import (
    LNA,
    Bases,
    Homopolymer,
    Modification,
    Part,
    Ribo,
    Seq,
    SequenceError,
    Symbol,
    SymbolToken,
    Thioate,
    parse_notation,
    plain,
    render,
    render_libstruct,
    unflag,
)
from lablang.syntax import reserved_words
from lablang.syntax.strings import quote

# structural roles a LibStructBench paired region may include
PAIRED_ROLES = frozenset({"paired_region", "mixed", "unknown"})

T1_SCHEMA = "libstruct.library_structure.v0"
TASKS = ("t1", "t2", "t3")


# ---------------------------------------------------------------------- export


def export_libstruct(program: Any, task: str) -> dict[str, Any]:
    """The program's answer to LibStructBench Task `t1`, `t2` or `t3` as a JSON-ready dict.

    `program` is a checked `lablang.resolve.Program` (or an already built
    `MolecularModel`).
    """
    model = _model_of(program)
    task = task.lower().removeprefix("libstruct-")  # "t1", "T1" and "libstruct-t1" alike
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    protocol_id = model.name or "protocol"
    if task == "t1":
        return {
            "schema_version": T1_SCHEMA,
            "protocol_id": protocol_id,
            "libraries": [library_record(lib) for lib in _libraries(model)],
        }
    if task == "t2":
        return {"protocol_id": protocol_id, "oligos": [oligo_record(o) for o in model.oligos]}
    graphs = [g for g in model.graphs if not g.derived] or list(model.graphs)
    oligos = frozenset(o.name for o in model.oligos)
    return {"protocol_id": protocol_id, "workflows": [workflow_record(g, oligos) for g in graphs]}


def _model_of(program: Any) -> MolecularModel:
    if isinstance(program, MolecularModel):
        return program
    from lablang.diagnostics import Report
    from lablang.molecular.front import build_model

    return build_model(program, Report()).model


def _libraries(model: MolecularModel) -> list[LibraryDef]:
    if model.libraries:
        return list(model.libraries)
    out = []
    for graph in model.graphs:
        names = dict(graph.outputs)
        for state_name, modality in graph.finals:
            state = graph.state(state_name)
            if state is not None and state.strands:
                name = names.get(state_name, state_name)
                if sum(1 for n in names.values() if n == name) > 1:
                    name = state_name  # one output with several carried products
                out.append(LibraryDef(name, state.strands[0].seq, modality))
    return out


def library_sequence(seq: Seq) -> str:
    """A library as LibStructBench writes it: placeholders without orientation marks."""
    return render_libstruct(unflag(plain(seq)))


def library_record(library: LibraryDef) -> dict[str, Any]:
    text = library_sequence(library.seq)
    return {
        "library_id": library.name,
        "modality": library.modality,
        "library_sequence": text,
        "annotated_library_sequence": text,
    }


def segments_of(
    seq: Seq, token_roles: list[str] | None = None, oligos: AbstractSet[str] | None = None
) -> list[dict[str, Any]]:
    """Split a sequence into LibStructBench segments by provenance label.

    Parts that came from one named segment or oligo stay together; unlabelled parts
    (a literal anchor, a payload) are segments of their own. With `oligos` (the Task 2
    ids), a segment's `oligo_derivations` name only those: a label naming a `segment`
    declaration is no oligo, and the grader rejects a derivation of an id Task 2 lacks.
    """
    groups: list[tuple[str | None, list[Part]]] = []
    for part in seq.parts:
        if isinstance(part, Modification | Thioate):
            if groups:
                groups[-1][1].append(part)
            else:
                groups.append((None, [part]))
            continue
        label = getattr(part, "label", None)
        if groups and label is not None and groups[-1][0] == label:
            groups[-1][1].append(part)
        else:
            groups.append((label, [part]))
    out: list[dict[str, Any]] = []
    position = 0
    for label, parts in groups:
        piece = Seq.of(parts)
        width = len(piece)
        role = _role_of(label, parts)
        runs: list[tuple[int, int, str | None]] = [(0, width, None)]
        if token_roles is not None:
            # a segment is cut where its structural role changes (paired, overhang), so
            # each exported segment has one role: the grader's pairing rules need it
            runs = list(_runs(token_roles[position : position + width])) or [(0, width, "unknown")]
            whole = isinstance(parts[0], Symbol) or (
                isinstance(parts[0], Homopolymer) and parts[0].count is None
            )
            if len(runs) > 1 and len(parts) == 1 and whole:
                runs = [(0, width, "mixed")]  # a placeholder cannot be cut
        position += width
        for start, stop, structural in runs:
            sub = piece if (start, stop) == (0, width) else piece.slice(start, stop)
            record: dict[str, Any] = {"segment_id": f"seg{len(out) + 1}", "role": role}
            if structural is not None:
                record["structural_role"] = structural
            sub_parts = sub.parts
            if len(sub_parts) == 1 and isinstance(sub_parts[0], Symbol):
                record["placeholder"] = render_libstruct(unflag(sub))
            elif (
                len(sub_parts) == 1
                and isinstance(sub_parts[0], Homopolymer)
                and sub_parts[0].count is None
            ):
                record["placeholder"] = render_libstruct(sub)
            else:
                record["sequence"] = render_libstruct(unflag(sub))
            derivation = _derivation(label)
            if derivation and (oligos is None or derivation["oligo_id"] in oligos):
                record["oligo_derivations"] = [derivation]
            out.append(record)
    return out


def _runs(roles: list[str]) -> list[tuple[int, int, str | None]]:
    """Maximal runs of equal roles as (start, stop, role).

    >>> _runs(["paired_region", "paired_region", "three_prime_overhang"])
    [(0, 2, 'paired_region'), (2, 3, 'three_prime_overhang')]
    """
    runs: list[tuple[int, int, str | None]] = []
    for index, role in enumerate(roles):
        if runs and runs[-1][2] == role:
            runs[-1] = (runs[-1][0], index + 1, role)
        else:
            runs.append((index, index + 1, role))
    return runs


def _role_of(label: str | None, parts: list[Part]) -> str:
    if label:
        return label.rstrip("'")
    part = parts[0]
    match part:
        case Symbol(role=role):
            return role.lower().replace("_", " ")
        case Homopolymer(base=base):
            return f"poly({base})"
        case Bases(text=text) if set(text) <= set("NVBDH"):
            return "anchor"
        case Bases(text="A"):
            return "A-tail"  # the 1-nt overhang `a_tail` adds, as LibStructBench names it
        case Bases(text=text) if len(set(text)) == 1 and len(text) >= 8:
            return f"poly({text[0]})"
        case _:
            return "sequence"


def _derivation(label: str | None) -> dict[str, str] | None:
    if not label or label.startswith(("copy of", "non-templated", "anchor", "A-tail")):
        return None
    oligo = label.split(".")[0].rstrip("'")
    orientation = "reverse_complement" if label.endswith("'") else "same_orientation"
    return {"oligo_id": oligo, "orientation_to_source": orientation}


def oligo_record(oligo: OligoDef) -> dict[str, Any]:
    record: dict[str, Any] = {
        "oligo_id": oligo.name,
        "name": oligo.title or oligo.name,
        "aliases": list(oligo.aliases),
        "role": oligo.role.replace("_", " "),
        "kind": oligo.kind,
    }
    if len(oligo.strands) == 1:
        record["sequence"] = render_libstruct(unflag(oligo.seq))
    record["orientation"] = oligo.orientation
    record["components"] = (
        []
        if len(oligo.strands) == 1
        else [
            {
                "name": f"strand {chr(ord('a') + i)}",
                "role": "",
                "sequence": render_libstruct(unflag(s)),
                "orientation": "5_to_3",
                "modifications": _modifications(s),
            }
            for i, s in enumerate(oligo.strands)
        ]
    )
    record["modifications"] = _modifications(oligo.seq) if len(oligo.strands) == 1 else []
    return record


# IDT modification codes in LibStructBench's words (its Task 2 answers describe chemistry
# in words: "5' phosphate", "three riboguanosines (rG) at the 3' end"); where on the
# oligo is added from the modification's position
MODIFICATION_WORDS: dict[str, str] = {s.lower(): info.words for s, info in BY_CODE.items()}
_COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _where(index: int, parts: tuple[Part, ...]) -> str:
    """`5'`, `3'` or `internal` for the part at `index` (modifications take no base)."""
    before = any(isinstance(p, Bases | Homopolymer | Symbol | Ribo | LNA) for p in parts[:index])
    after = any(
        isinstance(p, Bases | Homopolymer | Symbol | Ribo | LNA) for p in parts[index + 1 :]
    )
    return "5'" if not before else "3'" if not after else "internal"


def _at(where: str) -> str:
    return "internal" if where == "internal" else f"at the {where} end"


def _count(n: int) -> str:
    return _COUNT_WORDS[n] if n < len(_COUNT_WORDS) else str(n)


def _modifications(seq: Seq) -> list[str]:
    """An oligo's chemistry in LibStructBench's words, with where it sits."""
    parts = seq.parts
    mods: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(part, Modification):
            where = _where(i, parts)
            words = MODIFICATION_WORDS.get(part.code.lower(), f"modification /{part.code}/")
            mods.append(f"{where} {words}" if where != "internal" else f"internal {words}")
    for kind, name, plural, mark in (
        (Ribo, "ribo", "ribonucleotides", "r"),
        (LNA, "LNA", "LNA bases", "+"),
    ):
        found = [(i, p) for i, p in enumerate(parts) if isinstance(p, kind)]
        if not found:
            continue
        bases = {p.base for _, p in found}
        others = tuple(p for p in parts if not isinstance(p, kind))
        first, last = found[0][0], found[-1][0]
        before = any(isinstance(p, Bases | Homopolymer | Symbol) for p in parts[:first])
        after = any(isinstance(p, Bases | Homopolymer | Symbol) for p in parts[last + 1 :])
        where = "5'" if not before and others else "3'" if not after else "internal"
        if bases == {"G"}:
            noun = "riboguanosine" if kind is Ribo else "LNA guanosine"
            noun += "s" if len(found) > 1 else ""
            mods.append(f"{_count(len(found))} {noun} ({mark}G) {_at(where)}")
        else:
            listed = " ".join(f"{mark}{p.base}" for _, p in found)
            mods.append(
                f"{_count(len(found))} {plural if len(found) > 1 else name} ({listed}) {_at(where)}"
            )
    thioates = [i for i, p in enumerate(parts) if isinstance(p, Thioate)]
    if thioates:
        where = _where(thioates[0], parts) if len(thioates) == 1 else "internal"
        bond = "phosphorothioate bond" + ("s" if len(thioates) > 1 else "")
        mods.append(f"{_count(len(thioates))} {bond} {_at(where)}")
    return mods


def workflow_record(graph: Graph, oligos: AbstractSet[str] | None = None) -> dict[str, Any]:
    return {
        "workflow_id": graph.name,
        "states": [state_record(s, oligos) for s in graph.states],
        "transitions": [transition_record(t) for t in graph.transitions],
        "initial_state_ids": list(graph.initial),
        "final_outputs": [{"state_id": s, "modality": m} for s, m in graph.finals],
    }


def state_record(state: StateDef, oligos: AbstractSet[str] | None = None) -> dict[str, Any]:
    types = sorted({s.moltype.value for s in state.strands})
    strands: list[dict[str, Any]] = []
    roles = _structural_roles(state)
    for index, strand in enumerate(state.strands):
        strand_id = f"{state.name}_{_ident(strand.name)}"
        segments = segments_of(strand.seq, roles[index], oligos)
        for k, seg in enumerate(segments):
            seg["segment_id"] = f"{strand_id}_s{k + 1}"
        strands.append(
            {
                "strand_id": strand_id,
                "name": strand.name,
                # LibStructBench's strand types are DNA, RNA, other, unknown
                "molecule_type": "other"
                if strand.moltype is MolType.CHIMERA
                else strand.moltype.value,
                "orientation": "5_to_3",
                "sequence_architecture": library_sequence(strand.seq),
                "segments": segments,
                "support_status": state.support_status,
            }
        )
    ids = {s.name: f"{state.name}_{_ident(s.name)}" for s in state.strands}
    # a paired region names only the segments that pair (the grader rejects a region
    # that includes an overhang); they are contiguous: 5' overhang, paired, 3' overhang
    segment_ids = {
        st["strand_id"]: [
            seg["segment_id"]
            for seg in st["segments"]
            if seg.get("structural_role", "unknown") in PAIRED_ROLES
        ]
        for st in strands
    }
    paired = []
    for n, (a, b) in enumerate(state.pairs):
        if a in ids and b in ids and segment_ids[ids[a]] and segment_ids[ids[b]]:
            paired.append(
                {
                    "paired_region_id": f"{state.name}_pr{n + 1}",
                    "side_1": {"strand_id": ids[a], "segment_ids": segment_ids[ids[a]]},
                    "side_2": {"strand_id": ids[b], "segment_ids": segment_ids[ids[b]]},
                    "relationship": "reverse_complementary",
                    "support_status": state.support_status,
                }
            )
    return {
        "state_id": state.name,
        "name": state.title or state.name,
        "molecule_type": "/".join(reversed(types))
        if len(types) > 1
        else (types[0] if types else "unknown"),
        "strand_architecture": _architecture(state.architecture.value, strands, paired),
        "reference_strand_id": strands[0]["strand_id"] if strands else "",
        "physical_state": "",
        "strands": strands,
        "paired_regions": paired,
        "discontinuities": [
            {
                "discontinuity_id": f"{state.name}_d{i + 1}",
                "strand_id": ids.get(d.strand, d.strand),
                "after_segment_id": d.after,
                "before_segment_id": d.before,
                "kind": d.kind,
            }
            for i, d in enumerate(state.discontinuities)
        ],
        "properties": [],
        "support_status": state.support_status,
    }


def _architecture(
    declared: str, strands: list[dict[str, Any]], paired: list[dict[str, Any]]
) -> str:
    """The architecture as the exported pairing shows it, for a two-strand duplex.

    A `double_stranded` state whose strands have overhangs (an A-tail, a ligated Y arm)
    is `partially_duplex` in LibStructBench's terms, and a `partially_duplex` one whose
    segments all pair is `double_stranded`: the grader rejects an architecture that
    contradicts the pairing. Other architectures are kept as declared.

    >>> _architecture("single_stranded", [], [])
    'single_stranded'
    """
    if declared not in ("double_stranded", "partially_duplex") or len(strands) != 2 or not paired:
        return declared
    roles = {seg.get("structural_role", "unknown") for st in strands for seg in st["segments"]}
    if roles <= PAIRED_ROLES - {"unknown"}:
        return "double_stranded"
    if roles & {"five_prime_overhang", "three_prime_overhang", "unpaired"}:
        return "partially_duplex"
    return declared


def _structural_roles(state: StateDef) -> list[list[str]]:
    """Per strand, the structural role of each token position: paired, 5'/3' overhang.

    Derived states know their pairing; for a declared two-strand state the paired
    region is the longest stretch where one strand is the reverse complement of the
    other (at least 6 positions), found with difflib's longest-match.
    """
    molecule = state.molecule
    if isinstance(molecule, Duplex):
        return [
            ["five_prime_overhang"] * len(molecule.left.top)
            + ["paired_region"] * len(molecule.core)
            + ["three_prime_overhang"] * len(molecule.right.top),
            ["five_prime_overhang"] * len(molecule.right.bottom)
            + ["paired_region"] * len(molecule.core)
            + ["three_prime_overhang"] * len(molecule.left.bottom),
        ]
    if len(state.strands) == 1:
        return [["unpaired"] * len(state.strands[0].seq)]
    roles = [["unknown"] * len(s.seq) for s in state.strands]
    if len(state.strands) == 2 and state.pairs:
        import difflib

        from lablang.molecular.sequence import kept_positions, reverse_complement, unflag

        # compare with degenerate bases beside payloads folded away (an anchor's `VN`
        # pairs inside the payload), then map the match back to every position; symbolic
        # segments compare without orientation marks, which LibStructBench strings (and
        # so imported answers) do not carry: `[CDNA]` on both strands of a pair
        a = unflag(plain(state.strands[0].seq)).tokens()
        rb = unflag(reverse_complement(plain(state.strands[1].seq))).tokens()
        keep_a, keep_rb = kept_positions(a), kept_positions(rb)
        fa, frb = [a[i] for i in keep_a], [rb[i] for i in keep_rb]
        match = difflib.SequenceMatcher(None, fa, frb, autojunk=False).find_longest_match(
            0, len(fa), 0, len(frb)
        )
        whole = 0 < match.size == len(fa) == len(frb)  # e.g. a bare `[GDNA]` duplex
        # a shared payload (`[CDNA]` on both strands) pairs whatever the match's length:
        # six bases guard against chance matches of literal bases, not of named payloads
        payload = any(
            isinstance(token, SymbolToken) for token in fa[match.a : match.a + match.size]
        )
        if match.size >= 6 or whole or payload:
            a_lo, a_hi = keep_a[match.a], keep_a[match.a + match.size - 1] + 1
            r_lo, r_hi = keep_rb[match.b], keep_rb[match.b + match.size - 1] + 1
            b_lo, b_hi = len(rb) - r_hi, len(rb) - r_lo
            roles[0] = (
                ["five_prime_overhang"] * a_lo
                + ["paired_region"] * (a_hi - a_lo)
                + ["three_prime_overhang"] * (len(a) - a_hi)
            )
            roles[1] = (
                ["five_prime_overhang"] * b_lo
                + ["paired_region"] * (b_hi - b_lo)
                + ["three_prime_overhang"] * (len(rb) - b_hi)
            )
    return roles


def transition_record(transition: TransitionDef) -> dict[str, Any]:
    return {
        "transition_id": transition.name,
        "substrate_state_ids": list(transition.substrates),
        "operation": transition.operation,
        "operation_detail": transition.detail,
        "oligo_ids": list(transition.oligos),
        "major_reagents": [
            {"name": n, "role": r} if r else {"name": n} for n, r in transition.reagents
        ],
        "product_state_ids": list(transition.products),
        "carried_forward_product_ids": list(transition.carried),
        "discarded_product_ids": list(transition.discarded),
        "support_status": transition.support_status,
    }


# ---------------------------------------------------------------------- import


class ImportProblem(ValueError):
    """A file that cannot be imported; the message says what is wrong and where."""


def import_libstruct(data: dict[str, Any], name: str | None = None) -> str:
    """`.lab` text for a LibStructBench T1, T2 or T3 file (prediction or ground truth).

    >>> text = import_libstruct({"protocol_id": "x", "libraries": [{"library_id": "rna",
    ...     "modality": "gene expression", "library_sequence": "ACGT[UMI:8][CDNA]"}]})
    >>> "seq: 5'-ACGT [UMI:8] [CDNA]-3'" in text
    True
    """
    if not isinstance(data, dict):
        raise ImportProblem("the file is not a JSON object")
    try:
        return _import(data, name)
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        if isinstance(error, ImportProblem):
            raise
        # untrusted input: a wrong type anywhere in the file is a malformed file
        raise ImportProblem(f"malformed file: {error.__class__.__name__}: {error}") from None


def _import_research(data: dict[str, Any], name: str | None) -> str:
    """The reference format of `shared/data/libstructs/` (`lablang.research.libstruct.v1`):
    oligos, final libraries with their reads."""
    module = _ident(name or str(data.get("protocol_id") or "imported"))
    lines = [f"module {module} {quote(str(data.get('protocol_name') or module))}", ""]
    oligo_names: set[str] = set()
    for oligo in _list(data.get("oligos") or [], "oligos"):
        ident = _ident(str(oligo.get("id")))
        body = [f"  kind: {_ident(str(oligo.get('kind') or 'single'))}"]
        if oligo.get("role"):
            body.append(f"  role: {quote(str(oligo['role']))}")
        if oligo.get("sequence_5to3"):
            body.append(f"  seq: {_seq_text(oligo['sequence_5to3'], f'oligo `{ident}`')}")
        for k, strand in enumerate(_list(oligo.get("strands") or [], "strands")):
            body.append(
                f"  strand {chr(ord('a') + k)}: {_seq_text(strand.get('sequence_5to3'), f'oligo `{ident}`')}"
            )
        if len(body) == 1 + bool(oligo.get("role")):
            continue
        title = oligo.get("page_name")
        lines += [
            f"oligo {ident}" + (f" {quote(str(title))}" if title else "") + " {",
            *body,
            "}",
            "",
        ]
        oligo_names.add(ident)
    for lib in _list(data.get("final_libraries") or [], "final_libraries"):
        ident = _ident(str(lib.get("library_id") or "library"))
        seq = _seq_text(lib.get("library_sequence_placeholders", ""), f"library `{ident}`")
        body = [
            f"  modality: {quote(str(lib.get('modality', 'gene expression')))}",
            f"  seq: {seq}",
        ]
        for k, read in enumerate(_list(lib.get("reads") or [], "reads")):
            primer = _ident(str(read.get("primer")))
            if primer not in oligo_names:
                continue
            template = "top" if read.get("template_strand") == "top" else "bottom"
            title = quote(str(read.get("read") or f"read {k + 1}"))
            body.append(f"  read R{k + 1} {title} {{ primer: {primer}  strand: {template} }}")
        lines += [f"library {ident} {{", *body, "}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _import(data: dict[str, Any], name: str | None) -> str:
    if data.get("format") == "lablang.research.libstruct.v1":
        return _import_research(data, name)
    module = _ident(name or str(data.get("protocol_id") or "imported"))
    lines = [
        f"module {module} {quote(str(data.get('protocol_name') or data.get('protocol_id') or module))}",
        "",
    ]
    if "libraries" in data:
        lines += _import_libraries(data["libraries"])
    if "oligos" in data:
        lines += _import_oligos(data["oligos"])
    if "workflows" in data:
        oligo_seqs = {
            str(o.get("oligo_id")): str(o["sequence"])
            for o in data.get("oligos") or []
            if isinstance(o, dict) and isinstance(o.get("sequence"), str)
        }
        lines += _import_workflows(data["workflows"], oligo_seqs)
    if len(lines) == 2:
        raise ImportProblem("no `libraries`, `oligos` or `workflows`: not a LibStructBench file")
    return "\n".join(lines).rstrip() + "\n"


def _seq_text(text: Any, where: str) -> str:
    if not isinstance(text, str):
        raise ImportProblem(f"{where}: sequence is not a string")
    try:
        seq = parse_notation(_normalise_placeholders(text))
    except SequenceError as error:
        raise ImportProblem(f"{where}: {error}") from None
    return render(seq)


def _normalise_placeholders(text: str) -> str:
    return re.sub(
        r"\[([^\]:]+)", lambda m: "[" + re.sub(r"[^A-Za-z0-9_']", "_", m.group(1)).upper(), text
    )


def _import_libraries(libraries: Any) -> list[str]:
    out = []
    for index, lib in enumerate(_list(libraries, "libraries")):
        ident = _ident(str(lib.get("library_id") or f"library_{index + 1}"))
        seq = _seq_text(lib.get("library_sequence", ""), f"library `{ident}`")
        out += [
            f"library {ident} {{",
            f"  modality: {quote(str(lib.get('modality', 'gene expression')))}",
            f"  seq: {seq}",
            "}",
            "",
        ]
    return out


def _import_oligos(oligos: Any) -> list[str]:
    out = []
    for index, oligo in enumerate(_list(oligos, "oligos")):
        ident = _ident(str(oligo.get("oligo_id") or f"oligo_{index + 1}"))
        title = oligo.get("name") or ""
        head = (
            f"oligo {ident}" + (f" {quote(str(title))}" if title and title != ident else "") + " {"
        )
        body = [f"  kind: {_ident(str(oligo.get('kind') or 'single'))}"]
        if oligo.get("role"):
            body.append(f"  role: {quote(str(oligo['role']))}")
        aliases = [a for a in oligo.get("aliases") or [] if isinstance(a, str)]
        if aliases:
            body.append("  aliases: [" + ", ".join(quote(a) for a in aliases) + "]")
        if oligo.get("sequence"):
            body.append(f"  seq: {_seq_text(oligo['sequence'], f'oligo `{ident}`')}")
        for k, comp in enumerate(_list(oligo.get("components") or [], "components")):
            if comp.get("sequence"):
                body.append(
                    f"  strand {chr(ord('a') + k)}: {_seq_text(comp['sequence'], f'oligo `{ident}`')}"
                )
        if len(body) == 1 + bool(oligo.get("role")) + bool(aliases):
            continue  # no sequence: nothing lablang can check
        out += [head, *body, "}", ""]
    return out


def _strand_text(strand: dict[str, Any], oligo_seqs: dict[str, str], where: str) -> str | None:
    """The strand written with `{oligo}` / `{oligo'}` references where a segment is a whole
    oligo it says it derives from (so the provenance survives import and re-export),
    or None when the segments do not spell the strand."""
    segments = strand.get("segments") or []
    if not oligo_seqs or not isinstance(segments, list) or not segments:
        return None
    pieces: list[str] = []
    spelled = ""
    for seg in segments:
        if not isinstance(seg, dict):
            return None
        piece = seg.get("sequence") or seg.get("placeholder") or ""
        if not isinstance(piece, str):
            return None
        spelled += piece
        ref = None
        for derivation in seg.get("oligo_derivations") or []:
            if not isinstance(derivation, dict):
                continue
            oid = str(derivation.get("oligo_id"))
            full = oligo_seqs.get(oid)
            if full is None or "[" in full or not piece:
                continue
            same = derivation.get("orientation_to_source") == "same_orientation"
            if (same and full == piece) or (not same and _revcomp_text(full) == piece):
                ref = "{" + _ident(oid) + ("" if same else "'") + "}"
        pieces.append(ref or (_seq_text(piece, where)[3:-3] if piece else ""))
    if spelled != strand.get("sequence_architecture"):
        return None
    return "5'-" + " ".join(p for p in pieces if p) + "-3'"


def _revcomp_text(text: str) -> str:
    return text.translate(str.maketrans("ACGTRYKMBVDHN", "TGCAYRMKVBHDN"))[::-1]


def _import_workflows(workflows: Any, oligo_seqs: dict[str, str] | None = None) -> list[str]:
    out: list[str] = []
    for wf in _list(workflows, "workflows"):
        finals = {
            f.get("state_id"): f.get("modality", "gene expression")
            for f in _list(wf.get("final_outputs") or [], "final_outputs")
        }
        for state in _list(wf.get("states") or [], "states"):
            sid = _ident(str(state.get("state_id")))
            arch = state.get("strand_architecture") or "unknown"
            title = state.get("name") or ""
            out.append(
                f"state {sid}"
                + (f" {quote(str(title))}" if title else "")
                + f" : {_ident(str(arch))} {{"
            )
            names: dict[str, str] = {}
            for k, strand in enumerate(_list(state.get("strands") or [], "strands")):
                strand_name = _ident(
                    str(strand.get("name") or strand.get("strand_id") or f"s{k + 1}")
                )
                names[str(strand.get("strand_id"))] = strand_name
                moltype = "RNA" if strand.get("molecule_type") == "RNA" else "DNA"
                text = strand.get("sequence_architecture")
                if not text:
                    text = "".join(
                        seg.get("sequence") or seg.get("placeholder") or ""
                        for seg in strand.get("segments") or []
                    )
                lab = _strand_text(strand, oligo_seqs or {}, f"state `{sid}`")
                if lab is None:
                    lab = _seq_text(text, f"state `{sid}`")
                out.append(f"  strand {strand_name}: {moltype} {lab}")
            for region in state.get("paired_regions") or []:
                a = names.get(str(region.get("side_1", {}).get("strand_id")))
                b = names.get(str(region.get("side_2", {}).get("strand_id")))
                if a and b:
                    out.append(f"  pair {a} ~ {b}")
            if state.get("state_id") in finals:
                out.append(f"  final: {quote(str(finals[state.get('state_id')]))}")
            out += ["}", ""]
        taken = {_ident(str(state.get("state_id"))) for state in wf.get("states") or []}
        for transition in _list(wf.get("transitions") or [], "transitions"):
            tid = _ident(str(transition.get("transition_id")))
            # one namespace in `.lab`: a derived workflow names a step's transition and
            # its single product alike, so the transition takes a `t_` prefix
            while tid in taken:
                tid = f"t_{tid}"
            taken.add(tid)
            operation = transition.get("operation") or "other"
            if operation not in OPERATIONS:
                operation = "other"
            body = []
            if transition.get("operation_detail"):
                body.append(f"  detail: {quote(str(transition['operation_detail']))}")
            for key, field in (
                ("substrate_state_ids", "substrates"),
                ("oligo_ids", "oligos"),
                ("product_state_ids", "products"),
                ("carried_forward_product_ids", "carried"),
                ("discarded_product_ids", "discarded"),
            ):
                values = transition.get(key) or []
                if values or field in ("substrates", "products"):
                    body.append(f"  {field}: [" + ", ".join(_ident(str(v)) for v in values) + "]")
            reagents = [
                r.get("name") for r in transition.get("major_reagents") or [] if isinstance(r, dict)
            ]
            if reagents:
                body.append("  reagents: [" + ", ".join(quote(str(r)) for r in reagents) + "]")
            out += [f"transition {tid} : {operation} {{", *body, "}", ""]
    return out


def _list(value: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ImportProblem(f"`{where}` must be a list of objects")
    return value


def _ident(text: str) -> str:
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text.strip()) or "unnamed"
    if ident[0].isdigit():
        ident = "x" + ident
    if ident in reserved_words():
        ident += "_"
    return ident


def dumps(record: dict[str, Any]) -> str:
    """Deterministic JSON text for an exported record."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"
