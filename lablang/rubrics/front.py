"""Build `Rubric` models from `rubric` declarations in a parsed module.

    rubric gc_rich "Adapt the PCR to a GC-rich template" {
      question: "..."                      # optional: the task the rubric grades
      source: "amp"                        # optional: the source protocol
      item denat "raises denaturation to 98 C" weight 3 {
        levels { 2: "98 C for at least 10 s"  1: "above 95 C"  0: "unchanged" }
        check: answer.step(cycle).denaturation >= 98 C
        tags: [intent, domain]
      }
      item wrong "lowers extension below 60 C" weight -2
      item cleanup "cleans up the product" weight 2 {      # an inner item: its children
        item ratio "uses 0.8x beads" weight 1               # share its weight
        item elute "elutes in 20 uL" weight 1
      }
    }

A missing `weight` is 1. An item with children may not have levels or a check.
"""

from __future__ import annotations

from fractions import Fraction

from lablang import ast
from lablang.diagnostics import Report
from lablang.resolve import Program
from lablang.rubrics.evaluate import render, validate_check
from lablang.rubrics.model import Item, Rubric
from lablang.source import Source

MAX_ITEMS = 10_000


def check_program(program: Program, report: Report) -> tuple[Rubric, ...]:
    """Build (and so check) every rubric of the program's root module (the driver's hook)."""
    return build_rubrics(program.root.module, program.root.source, report)


def build_rubrics(module: ast.Module, source: Source, report: Report) -> tuple[Rubric, ...]:
    """Every `rubric` declaration of `module` as a model; problems go to `report`."""
    return tuple(
        build_rubric(decl, source, report) for decl in module.decls if decl.kind == "rubric"
    )


def build_rubric(decl: ast.Decl, source: Source, report: Report) -> Rubric:
    """One `rubric` declaration (of the module `source` holds) as a model."""
    return _Builder(source, report).rubric(decl)


class _Builder:
    def __init__(self, source: Source, report: Report) -> None:
        self.source = source
        self.report = report
        self.seen: dict[str, ast.Entry] = {}
        self.count = 0

    def rubric(self, decl: ast.Decl) -> Rubric:
        question = source_name = None
        items: list[Item] = []
        for member in decl.body.members if decl.body else ():
            match member:
                case ast.Entry(keyword="item"):
                    item = self.item(member)
                    if item is not None:
                        items.append(item)
                case ast.Field(key="question"):
                    question = self._string(member.value, "the question")
                case ast.Field(key="source"):
                    source_name = self._string(member.value, "the source protocol")
                case _:
                    self._unknown(member, "in a rubric; expected `item`, `question` or `source`")
        self._positive(items, decl.name_span, f"rubric `{decl.name}`")
        return Rubric(
            name=decl.name,
            title=decl.title,
            question=question,
            source=source_name,
            items=tuple(items),
            span=decl.span,
        )

    def item(self, entry: ast.Entry) -> Item | None:
        self.count += 1
        if self.count > MAX_ITEMS:
            if self.count == MAX_ITEMS + 1:
                self.report.add(
                    "E0821",
                    f"a rubric has more than {MAX_ITEMS} items",
                    self.source,
                    entry.span,
                    label="too many items",
                )
            return None
        if entry.name is None:
            self.report.add(
                "E0821",
                "an item has no id",
                self.source,
                entry.span,
                label="no id",
                help='write `item ID "criterion" weight W`',
            )
            return None
        if entry.name in self.seen:
            self.report.add(
                "E0822",
                f"item `{entry.name}` is declared twice",
                self.source,
                entry.name_span or entry.span,
                label="second declaration",
                help="judgments name items by id, so ids must be unique",
            )
            return None
        self.seen[entry.name] = entry
        weight = Fraction(1)
        for clause in entry.clauses:
            if clause.keyword == "weight" and not isinstance(clause.value, ast.Assignment):
                weight = self._weight(clause.value, entry.name) or weight
            else:
                self.report.add(
                    "E0821",
                    f"`{clause.keyword}` is not understood on an item",
                    self.source,
                    clause.span,
                    label="expected `weight W`",
                )
        levels: tuple[tuple[int, str], ...] = ()
        tags: tuple[str, ...] = ()
        check = check_text = None
        children: list[Item] = []
        for member in entry.body.members if entry.body else ():
            match member:
                case ast.Entry(keyword="item"):
                    child = self.item(member)
                    if child is not None:
                        children.append(child)
                case ast.Entry(keyword="levels"):
                    levels = self._levels(member, entry.name)
                case ast.Field(key="levels") if isinstance(member.value, ast.Block):
                    levels = self._levels(member.value, entry.name)
                case ast.Field(key="weight"):
                    weight = self._weight(member.value, entry.name) or weight
                case ast.Field(key="check"):
                    if validate_check(member.value, self.source, self.report):
                        check, check_text = member.value, render(member.value)
                case ast.Field(key="tags"):
                    tags = self._tags(member.value)
                case _:
                    self._unknown(
                        member,
                        f"in item `{entry.name}`; expected `levels`, "
                        "`check`, `tags`, `weight` or sub-items",
                    )
        if children and (levels or check is not None):
            self.report.add(
                "E0821",
                f"item `{entry.name}` has sub-items and its own levels or check",
                self.source,
                entry.name_span or entry.span,
                label="an inner item",
                help="grade the sub-items; an inner item's value is their weighted mean",
            )
        if children:
            self._positive(children, entry.name_span or entry.span, f"item `{entry.name}`")
        return Item(
            id=entry.name,
            criterion=entry.title or "",
            weight=weight,
            levels=levels,
            tags=tags,
            check=check,
            check_text=check_text,
            children=tuple(children),
            span=entry.span,
        )

    def _positive(self, items: list[Item], span: object, where: str) -> None:
        if items and not any(i.weight > 0 for i in items):
            from lablang.source import Span

            assert isinstance(span, Span)
            self.report.add(
                "E0824",
                f"{where} has no item with a positive weight",
                self.source,
                span,
                label="the score would divide by zero",
                help="add at least one item with a positive weight",
            )

    def _weight(self, expr: ast.Expr, item: str) -> Fraction | None:
        sign = 1
        while isinstance(expr, ast.Unary) and expr.op in ("-", "+"):
            sign = -sign if expr.op == "-" else sign
            expr = expr.operand
        if isinstance(expr, ast.Number):
            value = sign * Fraction(expr.text)
            if value == 0:
                self.report.add(
                    "E0821",
                    f"item `{item}` has weight 0",
                    self.source,
                    expr.span,
                    label="zero weight",
                    help="remove the item or give it a weight",
                )
                return None
            return value
        self.report.add(
            "E0821",
            f"the weight of item `{item}` must be a plain number",
            self.source,
            expr.span,
            label="not a number",
        )
        return None

    def _levels(self, levels: ast.Entry | ast.Block, item: str) -> tuple[tuple[int, str], ...]:
        block = levels.body if isinstance(levels, ast.Entry) else levels
        found: dict[int, str] = {}
        for member in block.members if block else ():
            key = member.key if isinstance(member, ast.Field) else None
            if key not in ("0", "1", "2") or not isinstance(member, ast.Field):
                self.report.add(
                    "E0821",
                    f"levels of item `{item}` are 0, 1 and 2",
                    self.source,
                    member.span,
                    label="not a level 0, 1 or 2",
                    help='write `levels { 2: "..."  1: "..."  0: "..." }`',
                )
                continue
            text = self._string(member.value, f"level {key}")
            if int(key) in found:
                self.report.add(
                    "E0821",
                    f"level {key} of item `{item}` is given twice",
                    self.source,
                    member.span,
                    label="repeated level",
                )
            found[int(key)] = text or ""
        return tuple(sorted(found.items(), reverse=True))

    def _tags(self, expr: ast.Expr) -> tuple[str, ...]:
        items = expr.items if isinstance(expr, ast.ListExpr) else (expr,)
        tags = []
        for item in items:
            if isinstance(item, ast.Name):
                tags.append(item.id)
            elif isinstance(item, ast.String):
                tags.append(item.value)
            elif isinstance(item, ast.Binary) and item.op == "~":
                tags.append(render(item))
            else:
                self.report.add(
                    "E0821",
                    "a tag must be a name or a string",
                    self.source,
                    item.span,
                    label="not a tag",
                )
        return tuple(tags)

    def _string(self, expr: ast.Expr, what: str) -> str | None:
        if isinstance(expr, ast.String):
            return expr.value
        if isinstance(expr, ast.Name):
            return expr.id
        self.report.add(
            "E0821", f"{what} must be a string", self.source, expr.span, label="not a string"
        )
        return None

    def _unknown(self, member: ast.Member, where: str) -> None:
        what = member.key if isinstance(member, ast.Field) else getattr(member, "keyword", "")
        span = member.key_span if isinstance(member, ast.Field) else member.span
        self.report.add(
            "E0821",
            f"`{what}` is not understood {where}",
            self.source,
            span,
            label="not understood here",
        )
