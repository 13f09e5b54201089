"""Hover: what the cursor is on, described in Markdown.

A declaration shows its kind, title, role, sequence and length (references resolved,
placeholder ranges counted); a quantity its dimension and base-unit value; an entry
its header; a local name the line that binds it; a built-in operation the
documentation its backend gives.

>>> from lablang.lsp.analysis import nodes_at, analyze
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
from typing import Any

from lablang import ast
from lablang.lsp.analysis import Analysis, lookup, module_of_use, nodes_at, target_at
from lablang.lsp.navigate import local_definition
from lablang.resolve import ModuleInfo

__all__ = ["OPERATION_DOCS", "describe_decl", "hover", "operation_doc", "sequence_length"]

MAX_REFERENCE_DEPTH = 8


def hover(analysis: Analysis, offset: int) -> str | None:
    """Markdown describing what is under `offset`: a declaration, a quantity, a call."""
    key = _field_key_hover(nodes_at(analysis.module, offset), offset)
    if key is not None:
        return key
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
        local = local_definition(analysis, target)
        if local is not None:
            line = analysis.source.text[local.span.start :].split("\n", 1)[0].strip()
            return f"local `{target.path[0]}`\n\n```lab\n{line}\n```"
        call = _enclosing_call(target)
        if call is not None:
            return _operation_hover(target.path[-1])
    if isinstance(node, ast.Modification):
        from lablang.molecular.modifications import describe_modification

        return describe_modification(node.code)
    if isinstance(node, ast.Sequence):
        return _sequence_hover(node, analysis.info)
    return None


def _field_key_hover(chain: list[object], offset: int) -> str | None:
    """The meaning of the field key under `offset` (`role:`, `add:`, `primer:`), from the
    registries the checker reads: declaration and entry fields, protocol step actions."""
    from lablang.check.fields import DECL_FIELDS, ENTRY_FIELDS, PROVENANCE_FIELDS

    fields = [n for n in chain if isinstance(n, ast.Field)]
    if not fields or not (fields[-1].key_span.start <= offset <= fields[-1].key_span.end):
        return None
    field = fields[-1]
    decl = chain[0] if chain and isinstance(chain[0], ast.Decl) else None
    entries = [n for n in chain if isinstance(n, ast.Entry)]
    entry = entries[-1].keyword if entries else None
    where = f"`{entry}`" if entry else f"`{decl.kind}`" if decl else "this block"
    if field.key in PROVENANCE_FIELDS:
        return f"`{field.key}:` — provenance: where this comes from, how it is supported"
    if decl is not None and decl.kind == "protocol" and entry == "step":
        action = operation_doc(field.key)
        if action is not None:
            return action
        from lablang.protocols.front import ACTION_FIELDS, STEP_FIELDS

        owners = [a for a, keys in ACTION_FIELDS.items() if field.key in keys]
        if owners:
            return f"`{field.key}:` — a field of " + ", ".join(f"`{a}:`" for a in owners)
        if field.key in STEP_FIELDS:
            return f"`{field.key}:` — a field of any protocol step"
        return None
    if decl is not None and decl.kind == "task" and entry == "step":
        from lablang.sim.catalog import TASK_STEP_FIELDS

        doc = TASK_STEP_FIELDS.get(field.key)
        return f"`{field.key}:` — a field of a task's `step`: {doc}" if doc else None
    table = ENTRY_FIELDS.get(entry or "") if entry else None
    if table is None and decl is not None and len(fields) == 1 and not entries:
        table = DECL_FIELDS.get(decl.kind)
    doc = table.fields.get(field.key) if table is not None else None
    return f"`{field.key}:` — a field of {where}: {doc}" if doc else None


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
    "lablang.molecular.front:describe",
    "lablang.protocols.front:describe",
    "lablang.sim.catalog:describe",
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
