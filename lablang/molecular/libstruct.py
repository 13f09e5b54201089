"""LibStructBench interchange: export a program's Task 1/2/3 answers, import them back.

Export follows the prediction schemas field for field (see
`../shared/notes/libstructbench.md`): Task 1 `libstruct.library_structure.v0`
libraries, Task 2 oligos, Task 3 workflows of states and transitions. Import reads
prediction or ground-truth files (they share these fields) and writes `.lab` text.

"""

from __future__ import annotations

import json
import re
from typing import Any

# `segments_of` and `PAIRED_ROLES` are re-exported: the pictures and seqspec read them here
from lablang.molecular.libstruct_segments import (
    PAIRED_ROLES as PAIRED_ROLES,
)
from lablang.molecular.libstruct_segments import (
    _ident,
    incorporating_oligos,
    library_sequence,
)
from lablang.molecular.libstruct_segments import (
    segments_of as segments_of,
)
from lablang.molecular.model import (
    OPERATIONS,
    LibraryDef,
    MolecularModel,
    OligoDef,
)
from lablang.molecular.modifications import BY_CODE
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
    Thioate,
    parse_notation,
    render,
    render_libstruct,
    unflag,
)
from lablang.molecular.workflow_export import (
    state_record as state_record,
)
from lablang.molecular.workflow_export import (
    workflow_record as workflow_record,
)
from lablang.syntax.strings import quote

T1_SCHEMA = "libstruct.library_structure.v0"
TASKS = ("t1", "t2", "t3")
# the prediction schemas' `stable_id`: what a `protocol_id` may be
PROTOCOL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,239}")


def protocol_id_problem(protocol_id: str) -> str | None:
    """Why `protocol_id` is not one the benchmark's schemas accept, or None.

    >>> protocol_id_problem("10x_chromium_3p_v3") is None
    True
    >>> print(protocol_id_problem("-x"))
    `-x` is not a benchmark id: letters, digits and . _ : - (first a letter or digit), at most 240
    """
    if PROTOCOL_ID.fullmatch(protocol_id):
        return None
    return (
        f"`{protocol_id}` is not a benchmark id: letters, digits and . _ : - "
        "(first a letter or digit), at most 240"
    )


# ---------------------------------------------------------------------- export


def export_libstruct(program: Any, task: str, protocol_id: str | None = None) -> dict[str, Any]:
    """The program's answer to LibStructBench Task `t1`, `t2` or `t3` as a JSON-ready dict.

    `program` is a checked `lablang.resolve.Program` (or an already built
    `MolecularModel`). The documents' `protocol_id` is `protocol_id` when given (the
    benchmark's id of the protocol answered: the grader scores a document with another
    id 0), else the module's name.
    """
    model = _model_of(program)
    task = task.lower().removeprefix("libstruct-")  # "t1", "T1" and "libstruct-t1" alike
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    if protocol_id is not None and (problem := protocol_id_problem(protocol_id)):
        raise ValueError(problem)
    protocol_id = protocol_id or model.name or "protocol"
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
    # the oligos a step adds are the provenance of what their sequences were written with
    used = frozenset(o for g in graphs for t in g.transitions for o in t.oligos)
    sources = incorporating_oligos(model.oligos, used)
    return {
        "protocol_id": protocol_id,
        "workflows": [workflow_record(g, oligos, sources) for g in graphs],
    }


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


def library_record(library: LibraryDef) -> dict[str, Any]:
    text = library_sequence(library.seq)
    return {
        "library_id": library.name,
        "modality": library.modality,
        "library_sequence": text,
        "annotated_library_sequence": text,
    }


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


def dumps(record: dict[str, Any]) -> str:
    """Deterministic JSON text for an exported record."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"
