"""Iterating over the tree without recursion (files are untrusted: depth is bounded,
but an explicit stack keeps every pass safe whatever the shape)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from attrs import fields, has

from lablang import ast


def children(node: Any) -> Iterator[Any]:
    """The direct child nodes of an AST node, in source order."""
    return iter(_children(node))


def _children(node: Any) -> list[Any]:
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    found = []
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind in _LEAVES:
            continue
        if isinstance(value, tuple):
            for item in value:
                node_kind = _NODE_TYPES.get(type(item))
                if node_kind is None:
                    node_kind = _is_node(type(item))
                if node_kind:
                    found.append(item)
        elif _is_node(kind) and kind is not _Span:
            found.append(value)
    return found


from lablang.source import Span as _Span  # noqa: E402

# Every pass walks the tree, so what attrs would be asked per node is asked
# once per class: its field names, and whether a type is a node at all.
_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAVES = frozenset({str, int, float, bool, type(None), _Span})
_NODE_TYPES: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    found = _NODE_TYPES.get(kind)
    if found is None:
        found = _NODE_TYPES[kind] = has(kind)
    return found


def walk(node: Any) -> Iterator[Any]:
    """Every node below and including `node`, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        below = _children(current)
        below.reverse()
        stack += below


def members(block: ast.Block | None) -> tuple[ast.Member, ...]:
    return block.members if block is not None else ()
