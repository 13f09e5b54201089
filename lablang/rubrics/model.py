"""The rubric model: a weighted tree of items graded 0/1/2.

A leaf is graded by a judge (or by its machine `check`); its value is grade / 2. An
inner item's value is the weighted sum of its children's values over the sum of their
positive weights (PaperBench's tree, HealthBench's penalties), and the rubric's score is
the same over the top-level items. For a flat rubric that is
    score = sum(w * g) / (2 * sum of positive w).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from attrs import field, frozen

from lablang import ast
from lablang.source import NO_SPAN, Span


@frozen(kw_only=True)
class Item:
    id: str
    criterion: str
    weight: Fraction
    levels: tuple[tuple[int, str], ...] = ()
    tags: tuple[str, ...] = ()
    check: ast.Expr | None = None  # evaluated by `lablang.rubrics.evaluate`
    check_text: str | None = None
    children: tuple[Item, ...] = ()
    span: Span = field(default=NO_SPAN, eq=False)

    @property
    def is_leaf(self) -> bool:
        return not self.children


@frozen(kw_only=True)
class Rubric:
    name: str
    items: tuple[Item, ...]
    title: str | None = None
    question: str | None = None
    source: str | None = None
    span: Span = field(default=NO_SPAN, eq=False)

    def walk(self) -> Iterator[tuple[Item, tuple[Item, ...]]]:
        """Every item with its ancestors, depth first in declaration order."""
        stack: list[tuple[Item, tuple[Item, ...]]] = [(i, ()) for i in reversed(self.items)]
        while stack:
            item, ancestors = stack.pop()
            yield item, ancestors
            stack.extend((c, (*ancestors, item)) for c in reversed(item.children))

    def leaves(self) -> list[Item]:
        return [item for item, _ in self.walk() if item.is_leaf]

    def item(self, item_id: str) -> Item | None:
        return next((i for i, _ in self.walk() if i.id == item_id), None)


def node_value(items: tuple[Item, ...], grades: dict[str, int]) -> Fraction:
    """sum(w * v) / sum(positive w) over `items`, with v = g / 2 at leaves.

    >>> a = Item(id="a", criterion="", weight=Fraction(3))
    >>> b = Item(id="b", criterion="", weight=Fraction(1))
    >>> bad = Item(id="bad", criterion="", weight=Fraction(-2))
    >>> node_value((a, b, bad), {"a": 2, "b": 1, "bad": 2})   # (3*2 + 1*1 - 2*2) / (2*4)
    Fraction(3, 8)
    """
    positive = sum((i.weight for i in items if i.weight > 0), Fraction(0))
    if positive == 0:
        return Fraction(0)
    total = Fraction(0)
    for item in items:
        value = Fraction(grades[item.id], 2) if item.is_leaf else node_value(item.children, grades)
        total += item.weight * value
    return total / positive
