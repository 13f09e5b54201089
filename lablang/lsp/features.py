"""Hover, completion, go to definition, outline and formatting over an `Analysis`.

Plain data in, plain data out; `lablang.lsp.server` turns them into LSP messages.

>>> from lablang.lsp.analysis import analyze
>>> a = analyze("oligo TSO { seq: 5'-AAGC (T)10 [UMI:12]-3' }\\nworkflow w { x = f(TSO) }", "x.lab")
>>> print(hover(a, a.source.text.rindex("TSO")))
**oligo** `TSO`
<BLANKLINE>
`5'-AAGC (T)10 [UMI:12]-3'`
<BLANKLINE>
length: 26 nt
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from lablang import ast
from lablang.diagnostics import Report
from lablang.lsp.analysis import Analysis, LineIndex, lookup, module_of_use, nodes_at, target_at
from lablang.resolve import Loader, ModuleInfo
from lablang.source import Source, Span

__all__ = [
    "Completion",
    "Location",
    "OutlineItem",
    "complete",
    "definition",
    "format_text",
    "hover",
    "outline",
]

MAX_REFERENCE_DEPTH = 8


# ------------------------------------------------------------------ hover
def hover(analysis: Analysis, offset: int) -> str | None:
    """Markdown describing what is under `offset`: a declaration, a quantity, a call."""
    target = target_at(analysis, offset)
    if target is None:
        return None
    node = target.node
    if isinstance(node, ast.Quantity):
        return _quantity_hover(node)
    if isinstance(node, ast.Decl) and target.span == node.name_span:
        return describe_decl(node, analysis.info)
    if isinstance(node, ast.Entry):
        return _entry_hover(node, analysis.source.text)
    if target.path and isinstance(node, ast.Name | ast.Attribute | ast.SeqRef | ast.Use):
        symbol, rest = lookup(analysis.info, target.path)
        if symbol is not None:
            text = describe_decl(symbol.decl, symbol.module)
            call = _enclosing_call(target)
            if call is not None and not rest:
                text = f"{text}\n\n(called as an operation)"
            return text + (f"\n\nmember `{'.'.join(rest)}`" if rest else "")
        if isinstance(node, ast.Use):
            module = module_of_use(analysis.info, target.path)
            if module is not None:
                return _module_hover(module)
        local = _local_definition(analysis, target)
        if local is not None:
            line = analysis.source.text[local.span.start :].split("\n", 1)[0].strip()
            return f"local `{target.path[0]}`\n\n```lab\n{line}\n```"
        call = _enclosing_call(target)
        if call is not None:
            return _operation_hover(target.path[-1])
    if isinstance(node, ast.Sequence):
        return _sequence_hover(node, analysis.info)
    return None


def describe_decl(decl: ast.Decl, info: ModuleInfo) -> str:
    """A declaration's header, title, role, sequence and length, as Markdown."""
    head = f"**{decl.kind}** `{decl.name}`" + (f" — {decl.title}" if decl.title else "")
    lines = [head]
    where = ".".join(info.path)
    if where != "__main__":
        lines.append(f"from module `{where}`")
    fields = _fields(decl)
    role = _role(decl, fields)
    if role:
        lines.append(f"role: {role}")
    sequence = _sequence_of(decl, fields)
    if sequence is not None:
        lines.append(f"`{_short(sequence.text)}`")
        lines.append(f"length: {_length_text(sequence_length(sequence.parts, info, 0))}")
    elif decl.kind == "segment":
        length = _call_length(decl.value)
        if length is not None:
            lines.append(f"length: {_length_text(length)}")
    return "\n\n".join(lines)


def _fields(decl: ast.Decl) -> dict[str, ast.Expr]:
    if decl.body is None:
        return {}
    return {m.key: m.value for m in decl.body.members if isinstance(m, ast.Field)}


def _role(decl: ast.Decl, fields: dict[str, ast.Expr]) -> str | None:
    value = fields.get("role")
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.String):
        return value.value
    if decl.kind == "segment" and isinstance(decl.value, ast.Call):
        func = decl.value.func
        if isinstance(func, ast.Name):
            return func.id
    if isinstance(decl.type, ast.Name):
        return decl.type.id
    return None


def _sequence_of(decl: ast.Decl, fields: dict[str, ast.Expr]) -> ast.Sequence | None:
    if isinstance(decl.value, ast.Sequence):
        return decl.value
    for key in ("seq", "sequence"):
        value = fields.get(key)
        if isinstance(value, ast.Sequence):
            return value
    return None


def _call_length(value: ast.Expr | None) -> tuple[int, int | None] | None:
    """`barcode(16)` -> 16 nt, `barcode(8..11)` -> 8-11 nt."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    first = value.args[0].value
    if isinstance(first, ast.Number) and first.text.isdigit():
        return int(first.text), int(first.text)
    if (
        isinstance(first, ast.Binary)
        and first.op == ".."
        and isinstance(first.left, ast.Number)
        and isinstance(first.right, ast.Number)
        and first.left.text.isdigit()
        and first.right.text.isdigit()
    ):
        return int(first.left.text), int(first.right.text)
    return None


def sequence_length(
    parts: Sequence[ast.SeqPart], info: ModuleInfo, depth: int
) -> tuple[int, int | None]:
    """The least and greatest length of a sequence (None: unbounded or unknown)."""
    low, high = 0, 0
    unbounded = False
    for part in parts:
        match part:
            case ast.Bases(text=text):
                low, high = low + len(text), high + len(text)
            case ast.Homopolymer(count=count):
                low, high = low + count, high + count
            case ast.Ribo() | ast.LNA():
                low, high = low + 1, high + 1
            case ast.Placeholder(min_len=lo, max_len=hi):
                if lo is None:
                    unbounded = True
                else:
                    low, high = low + lo, high + (hi if hi is not None else lo)
            case ast.SeqRef(path=path):
                sub = _reference_length(path, info, depth)
                if sub is None or sub[1] is None:
                    unbounded = True
                    low += sub[0] if sub else 0
                else:
                    low, high = low + sub[0], high + sub[1]
            case ast.Modification() | ast.Thioate():
                pass
    return low, None if unbounded else high


def _reference_length(
    path: tuple[str, ...], info: ModuleInfo, depth: int
) -> tuple[int, int | None] | None:
    if depth >= MAX_REFERENCE_DEPTH:
        return None
    symbol, rest = lookup(info, path)
    if symbol is None or rest:
        return None
    fields = _fields(symbol.decl)
    sequence = _sequence_of(symbol.decl, fields)
    if sequence is not None:
        return sequence_length(sequence.parts, symbol.module, depth + 1)
    return _call_length(symbol.decl.value)


def _length_text(length: tuple[int, int | None]) -> str:
    low, high = length
    if high is None:
        return f"at least {low} nt (a part has no fixed length)"
    return f"{low} nt" if low == high else f"{low}-{high} nt"


def _short(text: str, limit: int = 200) -> str:
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _sequence_hover(node: ast.Sequence, info: ModuleInfo) -> str:
    kind = f"{node.moltype} " if node.moltype else ""
    length = _length_text(sequence_length(node.parts, info, 0))
    return f"**{kind}sequence**, {len(node.parts)} parts\n\nlength: {length}"


def _quantity_hover(node: ast.Quantity) -> str:
    from lablang.units import BASE, UNITS, format_number, quantity

    if node.unit not in UNITS:
        return f"`{node.number} {node.unit}`: unknown unit"
    value = quantity(node.number, node.unit)
    dimension = value.dimension
    base = BASE.get(dimension, value.unit.symbol)
    text = f"**{node.number} {node.unit}** — {dimension.replace('_', ' ')}"
    if base != node.unit:
        text += f"\n\n= {format_number(value.base)} {base}"
    return text


def _entry_hover(node: ast.Entry, text: str) -> str:
    header = text[node.span.start : node.span.end].split("{", 1)[0].split("\n", 1)[0].strip()
    return f"**{node.keyword}** `{node.name}`\n\n```lab\n{header}\n```"


def _module_hover(module: ModuleInfo) -> str:
    title = f" — {module.module.title}" if module.module.title else ""
    names = ", ".join(f"`{d.name}`" for d in module.module.decls[:20])
    return f"**module** `{'.'.join(module.path)}`{title}\n\ndeclares {names}"


def _enclosing_call(target: Any) -> ast.Call | None:
    chain = target.chain
    for index in range(len(chain) - 2, -1, -1):
        node = chain[index]
        if isinstance(node, ast.Call):
            inner = chain[index + 1]
            return node if inner is node.func else None
        if not isinstance(node, ast.Attribute):
            return None
    return None


def _operation_hover(name: str) -> str:
    doc = operation_doc(name)
    if doc is None:
        return (
            f"**operation** `{name}`\n\nno declaration or documentation found "
            "(built-in operations are documented by their backend)"
        )
    return f"**operation** `{name}`\n\n{doc}"


# Backends that document their built-in operations: "module:function" with
# `function(name: str) -> str | None`. A backend that has not landed is skipped.
OPERATION_DOCS = (
    "lablang.molecular.operations:describe",
    "lablang.protocols.steps:describe",
    "lablang.sim.skills:describe",
)


def operation_doc(name: str) -> str | None:
    """The documentation a backend gives for a built-in operation, if any."""
    import importlib

    for target in OPERATION_DOCS:
        module_name, function = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        describe = getattr(module, function, None)
        if callable(describe):
            doc = describe(name)
            if isinstance(doc, str):
                return doc
    return None


# ------------------------------------------------------------------ definition
@attrs.frozen
class Location:
    """A span in a file (its text is kept to turn offsets into positions)."""

    path: str
    span: Span
    text: str = attrs.field(repr=False)

    def range(self) -> tuple[tuple[int, int], tuple[int, int]]:
        lines = LineIndex(self.text)
        return lines.position(self.span.start), lines.position(self.span.end)


def definition(analysis: Analysis, offset: int) -> Location | None:
    """Where the name under `offset` is declared, in this file, an import or the stdlib."""
    target = target_at(analysis, offset)
    if target is None or not target.path:
        return None
    node = target.node
    if isinstance(node, ast.Decl | ast.Entry | ast.Binding | ast.Field):
        return None
    if isinstance(node, ast.Use):
        module = module_of_use(analysis.info, target.path)
        if module is not None:
            return Location(module.source.name, Span(0, 0), module.source.text)
    symbol, _ = lookup(analysis.info, target.path)
    if symbol is None:
        return _local_definition(analysis, target)
    source = symbol.module.source
    return Location(source.name, symbol.decl.name_span, source.text)


def _local_definition(analysis: Analysis, target: Any) -> Location | None:
    """A name bound inside the enclosing declaration (`rt = ...`, `var a`, `input x`)."""
    decl = next((n for n in target.chain if isinstance(n, ast.Decl)), None)
    if decl is None or decl.body is None:
        return None
    name = target.path[0]
    from lablang.check.walk import walk

    for node in walk(decl.body):
        if isinstance(node, ast.Binding | ast.Entry) and node.name == name:
            assert node.name_span is not None
            return Location(analysis.source.name, node.name_span, analysis.source.text)
    return None


# ------------------------------------------------------------------ outline
@attrs.frozen
class OutlineItem:
    name: str
    detail: str
    kind: str  # a declaration kind, an entry keyword, "field" or "binding"
    span: Span
    selection: Span
    children: tuple[OutlineItem, ...] = ()


def outline(module: ast.Module) -> list[OutlineItem]:
    """Declarations with their named entries, bindings and fields, for the outline view."""
    return [
        OutlineItem(
            name=decl.name,
            detail=decl.kind + (f" — {decl.title}" if decl.title else ""),
            kind=decl.kind,
            span=decl.span,
            selection=decl.name_span,
            children=_members(decl.body, depth=0),
        )
        for decl in module.decls
    ]


def _members(block: ast.Block | None, depth: int) -> tuple[OutlineItem, ...]:
    if block is None or depth > 6:
        return ()
    items: list[OutlineItem] = []
    for member in block.members:
        match member:
            case ast.Entry(name=str(name), name_span=Span() as selection):
                detail = member.keyword + (f" — {member.title}" if member.title else "")
                children = _members(member.body, depth + 1)
                items.append(
                    OutlineItem(name, detail, member.keyword, member.span, selection, children)
                )
            case ast.Binding(name=name, name_span=selection):
                items.append(OutlineItem(name, "=", "binding", member.span, selection))
            case ast.Field(key=key, key_span=selection):
                items.append(OutlineItem(key, "field", "field", member.span, selection))
    return tuple(items)


# ------------------------------------------------------------------ formatting
def format_text(text: str, name: str) -> str | None:
    """The `lablang fmt` layout of `text`, or None if it does not parse."""
    from lablang.fmt import format_source

    return format_source(Source(text, name), Report())


# ------------------------------------------------------------------ completion
@attrs.frozen
class Completion:
    label: str
    kind: str  # keyword, module, declaration kind, unit, field, variable
    detail: str = ""
    sort: str = "5"


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
    items = [Completion(k, "keyword", f"in {kind}", "1") for k in keywords]
    items += [Completion(k, "keyword", "clause", "4") for k in CLAUSES]
    items += [Completion(k, "keyword", "", "4") for k in LITERALS]
    items += _names(analysis, kinds=None)
    items += _local_names(analysis, offset)
    return items


@attrs.frozen
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
    file = loader.find(path)
    if file is None:
        return []
    from lablang.syntax import parse

    try:
        text = file.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
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
