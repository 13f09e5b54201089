"""The AST's records are attrs classes with the properties the passes rely on: frozen,
slotted, keyword-only, equal and hashed by their fields, rewritten by `attrs.evolve`, and
turned into plain data by `attr.asdict` (nodes become dicts, tuples become lists, as the
modules that write JSON use it)."""

from __future__ import annotations

import attr
import attrs
import pytest

from lablang import ast
from lablang.diagnostics import Report
from lablang.source import Source
from lablang.syntax import parse

NODE_CLASSES = sorted(
    (c for c in vars(ast).values() if attrs.has(c) and c.__module__ == "lablang.ast"),
    key=lambda c: c.__name__,
)

TEXT = """\
module m "records"
segment CB = barcode(16, onlist: "3M-february-2018")
segment UMI = umi(12)
"""


def _module() -> ast.Module:
    report = Report()
    module = parse(Source(TEXT), report)
    assert not report.errors, [d.message for d in report]
    return module


def test_every_ast_node_class_is_a_frozen_slotted_keyword_only_attrs_class() -> None:
    """Each node class of `lablang.ast` is an attrs class with slots, whose fields all take
    keyword arguments only and whose instances refuse assignment."""
    assert ast.Module in NODE_CLASSES and ast.Use in NODE_CLASSES
    for cls in NODE_CLASSES:
        assert "__slots__" in vars(cls), cls
        assert all(f.kw_only for f in attrs.fields(cls)), cls
    module = _module()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        module.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ast.Module(None, None, (), (), (), module.span)  # type: ignore[misc]


def test_nodes_are_equal_and_hash_alike_by_their_fields_and_evolve_makes_a_changed_copy() -> None:
    """Two parses of one text give equal trees with equal hashes; `evolve` changes one
    field and leaves the original as it was."""
    first, second = _module(), _module()
    assert first == second and hash(first) == hash(second)
    renamed = attrs.evolve(first, name="n")
    assert renamed.name == "n" and first.name == "m"
    assert renamed != first and attrs.evolve(renamed, name="m") == first


def test_asdict_turns_a_tree_into_plain_dicts_and_lists() -> None:
    """`attr.asdict` of a module gives dicts for nodes and lists for tuples, all the way
    down, with the fields' names as keys."""
    data = attr.asdict(_module())
    assert data["name"] == "m" and isinstance(data["decls"], list)
    first = data["decls"][0]
    assert isinstance(first, dict) and first["name"] == "CB"

    def plain(value: object) -> bool:
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return not attrs.has(type(value)) and not isinstance(value, tuple)

    assert plain(data)


def test_the_shared_record_repr_is_the_text_attrs_generates_for_a_twin_class() -> None:
    """`lablang.records.Record`'s repr equals the repr attrs generates for the same class
    declared without `repr=False`, over nested records, tuples, None, strings with quotes,
    a field hidden from the repr, a field with its own repr callable and an `init=False`
    field."""
    from lablang.records import Record

    def declare(shared: bool) -> tuple[type, type]:
        base: tuple[type, ...] = (Record,) if shared else ()

        @attrs.frozen(repr=not shared)
        class Leaf(*base):  # type: ignore[misc]
            text: str
            hidden: int = attrs.field(default=0, repr=False)
            shown: int = attrs.field(default=7, repr=lambda v: f"<{v}>")

        @attrs.frozen(kw_only=True, repr=not shared)
        class Tree(*base):  # type: ignore[misc]
            leaves: tuple[Leaf, ...]
            parent: Tree | None = None
            label: str | None = None
            size: int = attrs.field(init=False, default=3)

        return Leaf, Tree

    def instances(leaf: type, tree: type) -> list[object]:
        quoted = leaf('it\'s "quoted"\n', hidden=5)
        inner = tree(leaves=(quoted, leaf("b", shown=1)), label="o'k")
        return [
            quoted,
            inner,
            tree(leaves=()),
            tree(leaves=(leaf(""),), parent=inner, label=None),
            (inner, None),
        ]

    shared = [repr(x) for x in instances(*declare(True))]
    generated = [repr(x) for x in instances(*declare(False))]
    assert shared == generated
    assert "Tree(leaves=(Leaf(text='it" in shared[1] and "shown=<7>" in shared[0]


def test_the_shared_equality_compares_and_hashes_as_attrs_does_for_a_twin_class() -> None:
    """`lablang.records.Compared`'s `==`, `!=` and hash agree with attrs' generated ones for
    a twin class: fields with `eq=False` are ignored, an `eq` key is applied, a record of
    another class (even with equal fields) is unequal, and equal records hash alike."""
    from lablang.records import Compared

    def declare(shared: bool) -> tuple[type, type]:
        base: tuple[type, ...] = (Compared,) if shared else ()

        @attrs.frozen(repr=not shared, eq=not shared)
        class Pair(*base):  # type: ignore[misc]
            name: str = attrs.field(eq=str.lower)
            items: tuple[int, ...] = ()
            note: str = attrs.field(default="", eq=False)

        @attrs.frozen(repr=not shared, eq=not shared)
        class Single(*base):  # type: ignore[misc]
            name: str

        return Pair, Single

    def outcomes(pair: type, single: type) -> list[object]:
        a, b = pair("Ab", (1, 2), note="x"), pair("aB", (1, 2), note="y")
        c, d = pair("Ab", (2, 1)), single("Ab")
        return [
            a == b, a != b, hash(a) == hash(b), a == c, a != c, a == d, d == single("Ab"),
            hash(d) == hash(single("Ab")), len({a, b, c}), a == "Ab",
        ]  # fmt: skip

    assert outcomes(*declare(True)) == outcomes(*declare(False))
    assert outcomes(*declare(True))[:4] == [True, False, True, False]
