"""Completion: keywords in context, names in scope, modules, members and units.

>>> sorted(c.label for c in complete("segment A = umi(8)\\n", 20, None))[:4]
['benchmark', 'contract', 'library', 'material']
>>> "uL" in {c.label for c in complete("x { volume: 50 ", 15, None)}
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from lablang import ast
from lablang.diagnostics import Report
from lablang.lsp.analysis import Analysis, lookup, nodes_at
from lablang.resolve import Loader
from lablang.source import Source

__all__ = ["Completion", "complete"]


@frozen
class Completion:
    label: str
    kind: str  # keyword, module, declaration kind, unit, field, variable
    detail: str = ""
    sort: str = "5"
    insert: str | None = None  # the text to insert when it is not the label (`role: `)


TOP_LEVEL = ("module", "use", *ast.DECL_KINDS)
# Entry and expression keywords, by the kind of the declaration they appear in.
KEYWORDS_BY_KIND: dict[str, tuple[str, ...]] = {
    "segment": (),
    "oligo": (),
    "state": ("strand", "pair", "nick", "gap", "break"),
    "transition": (),
    "workflow": ("input", "output", "expect"),
    "library": ("read", "expect"),
    "protocol": ("step", "thermocycle", "repeat", "hold", "wait", "do", "expect"),
    "scene": ("randomize",),
    "task": ("step", "do", "wait", "confirm", "expect"),
    "contract": (
        "var",
        "param",
        "op",
        "evidence",
        "outcome",
        "event",
        "goal",
        "invariant",
        "pair",
        "terminal",
        "wait",
        "confirm",
    ),
    "rubric": ("item", "levels"),
    "skill": ("param", "do", "wait"),
    "material": (),
    "benchmark": ("item",),
}
CLAUSES = ("requires", "effect", "as", "from", "at", "on", "within", "weight", "vs", "for")
LITERALS = ("true", "false", "none", "and", "or", "not", "in", "of", "forall", "exists")
_DECL_LINE = re.compile(r"^(" + "|".join(ast.DECL_KINDS) + r")\s+([A-Za-z_]\w*)", re.M)


def complete(
    text: str,
    offset: int,
    analysis: Analysis | None,
    roots: Sequence[str | Path] = (),
) -> list[Completion]:
    """What may be typed at `offset`: keywords in context, names in scope, modules, units.

    `analysis` is the last version of the document that parsed (may be older than `text`).
    """
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    word = re.search(r"[A-Za-z_0-9]*$", before)
    typed = word.group() if word else ""
    head = before[: len(before) - len(typed)]
    folder = Path(analysis.source.name).parent if analysis else None
    loader = Loader.with_roots([*([folder] if folder and folder.is_dir() else []), *roots])

    use = re.match(r"^\s*use\s+([A-Za-z_][\w.]*\.)?$", head)
    if use:
        return _module_completions(loader, use.group(1) or "")
    members_of = re.match(r"^\s*use\s+([A-Za-z_][\w.]*)\.\{[\w\s,]*$", head)
    if members_of:
        return _members_of_module(loader, members_of.group(1))
    state = _scan(text[:offset])
    if state.in_sequence:
        if head.endswith("{"):
            return _names(analysis, kinds={"segment", "oligo"})
        return []
    if re.search(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[ \t]*$", head):
        return _units()
    dotted = re.search(r"([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\.$", head)
    if dotted:
        return _attribute_completions(analysis, tuple(dotted.group(1).split(".")))
    if state.depth == 0:
        return [
            Completion(k, "keyword", "declaration" if k in ast.DECL_KINDS else "", "1")
            for k in TOP_LEVEL
        ]
    kind = _enclosing_kind(text, offset)
    keywords = KEYWORDS_BY_KIND.get(kind or "", ())
    items = _field_keys(kind, _enclosing_entry(text, offset), state.depth, head)
    items += [Completion(k, "keyword", f"in {kind}", "1") for k in keywords]
    items += [Completion(k, "keyword", "clause", "4") for k in CLAUSES]
    items += [Completion(k, "keyword", "", "4") for k in LITERALS]
    items += _names(analysis, kinds=None)
    items += _local_names(analysis, offset)
    return items


@frozen
class _ScanState:
    depth: int
    in_sequence: bool


def _scan(text: str) -> _ScanState:
    """Brace depth and whether the end of `text` is inside a sequence literal."""
    depth = 0
    index = 0
    length = len(text)
    while index < length:
        ch = text[index]
        if ch == "#":
            end = text.find("\n", index)
            if end < 0:
                return _ScanState(depth, False)
            index = end
        elif ch == '"':
            end = index + 1
            while end < length and text[end] not in '"\n':
                end += 2 if text[end] == "\\" else 1
            index = end
        elif text.startswith("5'-", index) and (index == 0 or not text[index - 1].isalnum()):
            end = text.find("-3'", index + 3)
            if end < 0:
                return _ScanState(depth, True)
            index = end + 2
        elif ch in "{[(":
            depth += 1 if ch == "{" else 0
        elif ch == "}":
            depth = max(0, depth - 1)
        index += 1
    return _ScanState(depth, False)


def _enclosing_kind(text: str, offset: int) -> str | None:
    kind = None
    for match in _DECL_LINE.finditer(text, 0, offset):
        kind = match.group(1)
    return kind


def _enclosing_entry(text: str, offset: int) -> str | None:
    """The first word of the line that opens the innermost block around `offset`
    (`step` for `step mix { ... }`), or None at a declaration's own level."""
    depth = 0
    for index in range(offset - 1, -1, -1):
        char = text[index]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                line = text[text.rfind("\n", 0, index) + 1 : index]
                if _DECL_LINE.match(line.lstrip()):
                    return None
                word = re.match(r"\s*([A-Za-z_]\w*)", line)
                return word.group(1) if word else None
            depth -= 1
    return None


def _field_keys(kind: str | None, entry: str | None, depth: int, head: str) -> list[Completion]:
    """Field keys where a member starts: a declaration's fields (`role:`, `seq:`, from the
    checker's registry), a read's fields, a protocol step's actions (`add:`) and fields."""
    if not re.fullmatch(r"(.*[{;])?\s*", head):
        return []
    from lablang.check.fields import DECL_FIELDS, ENTRY_FIELDS, PROVENANCE_FIELDS

    found: dict[str, str] = {}
    if depth == 1 and kind in DECL_FIELDS and not DECL_FIELDS[kind].open:
        found = dict(DECL_FIELDS[kind].fields)
        found.update((f, "provenance") for f in PROVENANCE_FIELDS)
    elif entry in ENTRY_FIELDS:
        found = dict(ENTRY_FIELDS[entry].fields)
    elif kind == "task" and entry == "step":
        from lablang.sim.catalog import TASK_STEP_FIELDS

        found = {key: "task step field" for key in TASK_STEP_FIELDS}
    elif kind == "protocol" and entry == "step":
        from lablang.protocols.front import ACTION_FIELDS, STEP_FIELDS

        found = {action: "step action" for action in ACTION_FIELDS}
        for action, fields in ACTION_FIELDS.items():
            found.update((f, f"a field of `{action}:`") for f in fields if f not in found)
        found.update((f, "step field") for f in STEP_FIELDS if f not in found)
    return [
        Completion(key, "field", detail, "0", insert=f"{key}: ") for key, detail in found.items()
    ]


def _names(analysis: Analysis | None, kinds: set[str] | None) -> list[Completion]:
    if analysis is None:
        return []
    seen: set[str] = set()
    items: list[Completion] = []
    for symbol in analysis.info.visible():
        if kinds is not None and symbol.decl.kind not in kinds:
            continue
        if symbol.name in seen:
            continue
        seen.add(symbol.name)
        detail = symbol.decl.kind + (f" — {symbol.decl.title}" if symbol.decl.title else "")
        items.append(Completion(symbol.name, "declaration", detail, "2"))
    return items


def _local_names(analysis: Analysis | None, offset: int) -> list[Completion]:
    """Names bound inside the declaration around `offset` (bindings, vars, inputs)."""
    if analysis is None:
        return []
    chain = nodes_at(analysis.module, min(offset, len(analysis.source.text)))
    decl = next((n for n in chain if isinstance(n, ast.Decl)), None)
    if decl is None or decl.body is None:
        return []
    from lablang.check.walk import walk

    items = []
    for node in walk(decl.body):
        if isinstance(node, ast.Binding | ast.Entry) and node.name:
            items.append(Completion(node.name, "variable", getattr(node, "keyword", "="), "3"))
    return items


def _units() -> list[Completion]:
    from lablang.units import UNITS

    return [
        Completion(symbol, "unit", unit.dimension.replace("_", " "), "1")
        for symbol, unit in sorted(UNITS.items())
    ]


def _module_completions(loader: Loader, prefix: str) -> list[Completion]:
    items: dict[str, Completion] = {}
    for name in loader.available():
        if not name.startswith(prefix):
            continue
        rest = name[len(prefix) :].split(".")
        label = rest[0]
        kind = "module" if len(rest) == 1 else "folder"
        items.setdefault(label, Completion(label, "module", f"{prefix}{label} ({kind})", "1"))
    if prefix:
        items.update({c.label: c for c in _members_of_module(loader, prefix.rstrip("."))})
    return sorted(items.values(), key=lambda c: c.label)


def _members_of_module(loader: Loader, dotted: str) -> list[Completion]:
    path = tuple(dotted.split("."))
    found = loader.locate(path)
    if not isinstance(found, tuple):
        return []
    from lablang.guarded import Refused
    from lablang.syntax import parse

    file = found[0]
    try:
        text = loader.read(found).decode("utf-8")  # the guarded opener, inside its root
    except (Refused, UnicodeDecodeError):
        return []
    module = parse(Source(text, str(file)), Report())
    return [
        Completion(d.name, "declaration", d.kind + (f" — {d.title}" if d.title else ""), "2")
        for d in module.decls
    ]


def _attribute_completions(analysis: Analysis | None, path: tuple[str, ...]) -> list[Completion]:
    if analysis is None:
        return []
    info = analysis.info
    if len(path) == 1 and path[0] in info.modules:
        module = info.modules[path[0]]
        return [Completion(d.name, "declaration", d.kind, "2") for d in module.module.decls]
    symbol, rest = lookup(info, path)
    if symbol is None or rest or symbol.decl.body is None:
        return []
    items = []
    for member in symbol.decl.body.members:
        if isinstance(member, ast.Field):
            items.append(Completion(member.key, "field", "field", "2"))
        elif isinstance(member, ast.Entry | ast.Binding) and member.name:
            items.append(Completion(member.name, "variable", getattr(member, "keyword", "="), "2"))
    return items
