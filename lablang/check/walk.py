"""Iterating over the tree without recursion (files are untrusted: depth is bounded,
but an explicit stack keeps every pass safe whatever the shape)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from lablang import ast


def children(node: Any) -> Iterator[Any]:
    """The direct child nodes of an AST node, in source order."""
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, tuple):
            for item in value:
                if attrs.has(type(item)):
                    yield item
        elif value is not None and attrs.has(type(value)) and not isinstance(value, _Span):
            yield value


from lablang.source import Span as _Span  # noqa: E402


def walk(node: Any) -> Iterator[Any]:
    """Every node below and including `node`, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def members(block: ast.Block | None) -> tuple[ast.Member, ...]:
    return block.members if block is not None else ()
