"""The check stage: types, units, sequence references and provenance.

The core checks what every declaration shares; each backend checks the fields of
its own kinds (see `lablang.driver.BACKEND_CHECKS`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from lablang import ast
from lablang.check.fields import check_field_names
from lablang.check.names import did_you_mean
from lablang.check.walk import members, walk
from lablang.diagnostics import Edit, Fix, Report
from lablang.resolve import ModuleInfo, Program
from lablang.source import Span
from lablang.units import UNITS, QuantityValue, quantity
from lablang.units.table import BASE

__all__ = ["FIELD_DIMENSIONS", "SUPPORT_STATUSES", "check"]

# Field names whose value must be a quantity of one of these dimensions, in every kind.
FIELD_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "volume": ("volume",),
    "temperature": ("temperature",),
    "duration": ("time",),
    "time": ("time",),
    "mass": ("mass",),
    "concentration": (
        "molar_concentration",
        "mass_concentration",
        "activity_concentration",
        "fold",
        "percent",
    ),
    "speed": ("rotation_speed", "relative_centrifugal_force", "speed"),
    "force": ("relative_centrifugal_force", "force"),
    "length": ("length", "sequence_length"),
    "ratio": ("fold",),
}
# Dimensions whose amounts cannot be negative.
NON_NEGATIVE = {
    "volume",
    "mass",
    "time",
    "molar_concentration",
    "mass_concentration",
    "activity_concentration",
    "rotation_speed",
    "relative_centrifugal_force",
    "sequence_length",
    "cells",
    "cycles",
    "reads",
    "reactions",
    "enzyme_units",
    "fold",
}
SUPPORT_STATUSES = ("explicit", "derivable", "externally_completed", "ambiguous", "unsupported")
LOCATORS = ("page", "section", "figure", "table", "line", "paragraph", "url", "step")
SEQUENCE_KINDS = ("segment", "oligo")
# Field names whose value names declarations of these kinds (a name or a list of names).
REFERENCE_FIELDS: dict[str, tuple[str, ...]] = {
    "oligos": ("oligo",),
    "primer": ("oligo",),
    "primers": ("oligo",),
    "substrates": ("state",),
    "products": ("state",),
    "carried": ("state",),
    "discarded": ("state",),
}


def check(program: Program, report: Report) -> None:
    """Check every module of the program (the root and what it imports)."""
    seen: set[int] = set()
    for info in [program.root, *program.modules.values()]:
        if id(info) in seen:
            continue
        seen.add(id(info))
        _check_module(info, report)


def _check_module(info: ModuleInfo, report: Report) -> None:
    for decl in info.module.decls:
        _check_decl(info, decl, report)


# Blocks whose members may be bare expressions (skill calls, thermocycler segments).
EXPRESSION_BLOCKS = {"do", "thermocycle", "repeat"}


def _check_decl(info: ModuleInfo, decl: ast.Decl, report: Report) -> None:
    report.working_at = (info.source, decl.name_span)
    check_field_names(info.source, decl, report)
    _check_fields(info, members(decl.body), report)
    _check_statements(info, members(decl.body), report)
    for node in walk(decl):
        match node:
            case ast.Quantity():
                _check_quantity(info, node, report)
            case ast.Unary(op="-", operand=ast.Quantity() as q):
                _check_negative(info, node, q, report)
            case ast.SeqRef():
                _check_seq_ref(info, node, report)
            case ast.Binary(op="+" | "-" | "==" | "!=" | "<" | "<=" | ">" | ">=" | ".."):
                _check_operands(info, node, report)
            case ast.Sequence(moltype=moltype) if moltype not in (None, "DNA", "RNA"):
                report.add(
                    "E0309",
                    f"unknown molecule type `{moltype}`",
                    info.source,
                    node.span,
                    label="a sequence is `DNA` or `RNA`",
                    help=f"write `DNA 5'-...-3'` or `RNA 5'-...-3'`; if `{moltype}` is a field, "
                    f"write `{moltype}: 5'-...-3'`",
                    fix=_field_colon(info, node, moltype),
                )
            case ast.Entry() | ast.ExprEntry():
                if node.body is not None:
                    _check_fields(info, node.body.members, report)
                    if node.keyword not in EXPRESSION_BLOCKS:
                        _check_statements(info, node.body.members, report)
            case _:
                pass


def _field_colon(info: ModuleInfo, node: ast.Sequence, word: str) -> Fix | None:
    """`seq 5'-...-3'` is a field missing its colon when the word is a field name."""
    from lablang.check.fields import DECL_FIELDS

    known = {key for fields in DECL_FIELDS.values() for key in fields.fields}
    end = node.span.start + len(word)
    if word not in known or info.source.text[node.span.start : end] != word:
        return None
    return Fix(f"insert `:` after `{word}`", (Edit(Span(end, end), ":"),))


def _check_fields(info: ModuleInfo, items: tuple[ast.Member, ...], report: Report) -> None:
    seen: dict[str, ast.Field] = {}
    unknown_unit = _unknown_units(info, items, report)
    for member in items:
        if not isinstance(member, ast.Field):
            continue
        first = seen.get(member.key)
        if first is not None:
            from lablang.diagnostics import Label

            report.add(
                "E0307",
                f"field `{member.key}` is given twice",
                info.source,
                member.key_span,
                label="given again here",
                labels=[Label(first.key_span, "first given here")],
                help="keep one of them; a list value is written `[a, b]`",
            )
        else:
            seen[member.key] = member
        if member.key in FIELD_DIMENSIONS and id(member) not in unknown_unit:
            _check_dimension(info, member, FIELD_DIMENSIONS[member.key], report)
        elif member.key in REFERENCE_FIELDS:
            _check_references(info, member, REFERENCE_FIELDS[member.key], report)
        elif member.key == "support":
            _check_support(info, member, report)
        elif member.key == "source":
            _check_source(info, member, report)


def _value_quantity(expr: ast.Expr) -> tuple[ast.Quantity | None, bool]:
    """The quantity an expression states directly, and whether it is negated."""
    match expr:
        case ast.Quantity():
            return expr, False
        case ast.Unary(op="-", operand=ast.Quantity() as inner):
            return inner, True
        case ast.Unary(op="±" | "+", operand=ast.Quantity() as inner):
            return inner, False
        case ast.Binary(op="of", left=left):
            return _value_quantity(left)
        case _:
            return None, False


def _check_dimension(
    info: ModuleInfo, field: ast.Field, wanted: tuple[str, ...], report: Report
) -> None:
    value = field.value
    q, _ = _value_quantity(value)
    expected = " or ".join(w.replace("_", " ") for w in wanted)
    if q is None:
        number = value.operand if isinstance(value, ast.Unary) else value
        if isinstance(number, ast.Number):
            unit = BASE[wanted[0]] if wanted[0] != "temperature" else "C"
            example = {"volume": "uL", "time": "s", "mass": "g", "molar_concentration": "mM"}.get(
                wanted[0], unit
            )
            report.add(
                "E0302",
                f"`{field.key}` needs a unit",
                info.source,
                number.span,
                label=f"a bare number; expected a {expected}",
                help=f"write the unit, e.g. `{number.text} {example}`",
                fix=Fix(f"add `{example}`", (Edit(number.span, f"{number.text} {example}"),)),
            )
        return
    if q.unit in UNITS and UNITS[q.unit].dimension not in wanted:
        got = UNITS[q.unit].dimension.replace("_", " ")
        report.add(
            "E0301",
            f"`{field.key}` is a {expected}, not a {got}",
            info.source,
            q.span,
            label=f"`{q.unit}` measures {got}",
            help=f"use a unit of {expected}, e.g. `{BASE[wanted[0]]}`",
        )


def _check_quantity(info: ModuleInfo, node: ast.Quantity, report: Report) -> None:
    if node.unit not in UNITS:
        return  # the grammar only admits known units
    value: QuantityValue = quantity(node.number, node.unit)
    if value.dimension == "temperature" and value.base < Fraction(-27315, 100):
        report.add(
            "E0303",
            f"temperature `{node.number} {node.unit}` is below absolute zero",
            info.source,
            node.span,
            label="impossible temperature",
            help="check the number and the unit (`C` or `K`)",
        )


def _check_negative(info: ModuleInfo, node: ast.Unary, q: ast.Quantity, report: Report) -> None:
    dimension = UNITS[q.unit].dimension if q.unit in UNITS else ""
    if dimension == "temperature" and quantity("-" + q.number, q.unit).base < Fraction(-27315, 100):
        report.add(
            "E0303",
            f"temperature `-{q.number} {q.unit}` is below absolute zero",
            info.source,
            node.span,
            label="impossible temperature",
            help="check the number and the unit (`C` or `K`)",
        )
        return
    if dimension in NON_NEGATIVE and Fraction(q.number) != 0:
        report.add(
            "E0303",
            f"a {dimension.replace('_', ' ')} cannot be negative",
            info.source,
            node.span,
            label=f"`-{q.number} {q.unit}`",
            help=f"write a positive amount, e.g. `{q.number} {q.unit}`",
            fix=Fix("drop the minus sign", (Edit(node.span, f"{q.number} {q.unit}"),)),
        )


def _check_seq_ref(info: ModuleInfo, node: ast.SeqRef, report: Report) -> None:
    symbol = info.lookup(node.path)
    if symbol is None and len(node.path) > 1:
        # `{TruSeq_R1.partial}`: a named part of a declared sequence
        symbol = info.lookup(node.path[:1])
        if symbol is not None:
            return
    if symbol is not None:
        if symbol.decl.kind not in SEQUENCE_KINDS:
            report.add(
                "E0306",
                f"`{'.'.join(node.path)}` is a {symbol.decl.kind}, not a segment or oligo",
                info.source,
                node.span,
                label="a sequence can only include segments and oligos",
                help="refer to a `segment` or an `oligo` here",
            )
        return
    if node.path[0] in info.broken:
        return
    name = ".".join(node.path)
    candidates = _candidates(info, SEQUENCE_KINDS)
    guess = did_you_mean(name, candidates)
    inner = node.span
    report.add(
        "E0203",
        f"segment or oligo `{name}` is not declared",
        info.source,
        node.span,
        label="not declared in this module or its imports",
        help=f"did you mean `{guess}`?"
        if guess
        else "declare it with `segment` or `oligo`, or import it with `use`",
        fix=Fix(f"use `{guess}`", (Edit(inner, "{" + guess + ("'" if node.revcomp else "") + "}"),))
        if guess
        else None,
    )


def _check_support(info: ModuleInfo, field: ast.Field, report: Report) -> None:
    value = field.value
    if isinstance(value, ast.Name) and value.id in SUPPORT_STATUSES:
        return
    shown = value.id if isinstance(value, ast.Name) else "this value"
    guess = did_you_mean(value.id, SUPPORT_STATUSES) if isinstance(value, ast.Name) else None
    report.add(
        "E0308",
        f"`{shown}` is not a support status",
        info.source,
        value.span,
        label="one of " + ", ".join(SUPPORT_STATUSES),
        help=f"did you mean `{guess}`?" if guess else "write e.g. `support: explicit`",
        fix=Fix(f"use `{guess}`", (Edit(value.span, guess),)) if guess else None,
    )


def _check_source(info: ModuleInfo, field: ast.Field, report: Report) -> None:
    value = field.value
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    for item in items:
        if isinstance(item, ast.String):
            continue
        if (
            isinstance(item, ast.Call)
            and isinstance(item.func, ast.Name)
            and item.func.id == "doc"
            and item.args
            and item.args[0].name is None
            and isinstance(item.args[0].value, ast.String)
        ):
            for arg in item.args[1:]:
                if arg.name not in LOCATORS:
                    guess = did_you_mean(arg.name or "", LOCATORS)
                    report.add(
                        "E0308",
                        f"`{arg.name}` is not a source locator"
                        if arg.name
                        else "a locator needs a name",
                        info.source,
                        arg.span,
                        label="one of " + ", ".join(LOCATORS),
                        help=f"did you mean `{guess}`?" if guess else "write e.g. `page: 12`",
                    )
            continue
        report.add(
            "E0308",
            'a source is `doc("ID", page: N, section: "...")` or a string',
            info.source,
            item.span,
            label="not a source reference",
            help='write e.g. `source: doc("CG000204", page: 12, section: "2.1")`',
        )


def _check_references(
    info: ModuleInfo, field: ast.Field, kinds: tuple[str, ...], report: Report
) -> None:
    value = field.value
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    wanted = " or ".join(kinds)
    for item in items:
        path = _name_path(item)
        if path is None:
            continue
        symbol = info.lookup(path)
        name = ".".join(path)
        if symbol is None and path[0] in info.broken:
            continue
        if symbol is None:
            candidates = _candidates(info, kinds)
            guess = did_you_mean(name, candidates)
            report.add(
                "E0203",
                f"{wanted} `{name}` is not declared",
                info.source,
                item.span,
                label="not declared in this module or its imports",
                help=f"did you mean `{guess}`?"
                if guess
                else f"declare it with `{kinds[0]}`, or import it with `use`",
                fix=Fix(f"use `{guess}`", (Edit(item.span, guess),)) if guess else None,
            )
        elif symbol.decl.kind not in kinds:
            report.add(
                "E0306",
                f"`{name}` is a {symbol.decl.kind}, not a {wanted}",
                info.source,
                item.span,
                label=f"`{field.key}` lists {wanted}s",
                help=f"name a {wanted} here",
            )


def _name_path(expr: ast.Expr) -> tuple[str, ...] | None:
    match expr:
        case ast.Name(id=name):
            return (name,)
        case ast.Attribute(value=inner, name=name):
            head = _name_path(inner)
            return None if head is None else (*head, name)
        case _:
            return None


def _unknown_units(info: ModuleInfo, items: tuple[ast.Member, ...], report: Report) -> set[int]:
    """`volume: 50 ul` reads as a field `volume: 50` and a stray name `ul` (newlines are not
    significant): a number followed on its line by an expression that starts with a name
    (`ul`, `ul of mix`) is an unknown unit."""
    from lablang.units.table import closest_units

    flagged: set[int] = set()
    for member, following in itertools.pairwise(items):
        word = _leftmost(following.value) if isinstance(following, ast.ExprStmt) else None
        if not isinstance(word, ast.Name):
            continue
        value = member.value if isinstance(member, (ast.Field, ast.Binding, ast.ExprStmt)) else None
        if not isinstance(value, ast.Number):
            continue
        gap = info.source.text[member.span.end : word.span.start]
        if gap.strip(" \t"):
            continue
        guesses = closest_units(word.id)
        guess = guesses[0] if guesses else None
        report.add(
            "E0104",
            f"unknown unit `{word.id}`",
            info.source,
            word.span,
            label="not a unit lablang knows",
            help=f"did you mean `{guess}`?" if guess else "see `lablang spec` for the units",
            fix=Fix(f"use `{guess}`", (Edit(word.span, guess),)) if guess else None,
        )
        flagged.add(id(member))
    return flagged


def _check_statements(info: ModuleInfo, items: tuple[ast.Member, ...], report: Report) -> None:
    """A bare name directly followed by a value is a field missing its `:`.

    What lies between them does not count: newlines are not significant, and `fmt` may
    move the value to the next line or drop a `;`, so the check must give the same
    answer before and after formatting.
    """
    for member, following in itertools.pairwise(items):
        if not (isinstance(member, ast.ExprStmt) and isinstance(member.value, ast.Name)):
            continue
        if member.clauses or not isinstance(following, (ast.ExprStmt, ast.Field)):
            continue
        name = member.value
        from lablang.syntax import reserved_words

        keyword = _near_keyword(name.id, reserved_words())
        if keyword is not None:
            # `gaol lid`: more likely a misspelt keyword than a field without its colon
            report.add(
                "E0310",
                f"`{name.id}` is neither a keyword nor followed by `:`",
                info.source,
                name.span,
                label=f"did you mean the keyword `{keyword}`?",
                help=f"write `{keyword} ...`, or `{name.id}: ...` for a field",
                fix=Fix(f"use `{keyword}`", (Edit(name.span, keyword),)),
            )
            continue
        report.add(
            "E0310",
            f"`{name.id}` is not followed by `:`",
            info.source,
            name.span,
            label="a field is written `key: value`",
            help=f"write `{name.id}: ...`",
            fix=Fix("add `:`", (Edit(Span(name.span.end, name.span.end), ":"),)),
        )


def _candidates(info: ModuleInfo, kinds: tuple[str, ...]) -> list[str]:
    """Names of the given kinds visible in a module (computed once per module)."""
    if kinds not in info.candidates:
        info.candidates[kinds] = [s.name for s in info.visible() if s.decl.kind in kinds]
    return info.candidates[kinds]


def _check_operands(info: ModuleInfo, node: ast.Binary, report: Report) -> None:
    """Quantities on both sides of `+ - == < ..` must have one dimension (`98 C < 5 uL` cannot hold)."""
    left, _ = _value_quantity(node.left)
    right, _ = _value_quantity(node.right)
    if left is None or right is None or left.unit not in UNITS or right.unit not in UNITS:
        return
    a, b = UNITS[left.unit].dimension, UNITS[right.unit].dimension
    if a != b:
        report.add(
            "E0301",
            f"`{node.op}` joins a {a.replace('_', ' ')} and a {b.replace('_', ' ')}",
            info.source,
            node.span,
            label=f"`{left.unit}` and `{right.unit}` measure different things",
            help="compare quantities of one dimension, e.g. temperatures with temperatures",
        )


def _near_keyword(word: str, keywords: frozenset[str]) -> str | None:
    """A keyword one edit away (two for long words; a swap of neighbours is one edit)."""
    from rapidfuzz.distance import OSA

    if len(word) < 3:
        return None
    limit = 1 if len(word) <= 5 else 2
    best = min(sorted(keywords), key=lambda k: OSA.distance(word, k))
    return best if OSA.distance(word, best) <= limit and best != word else None


def _leftmost(expr: ast.Expr) -> ast.Expr:
    """The expression's first leaf in the text (`ul` in `ul of mix`)."""
    while True:
        match expr:
            case ast.Binary(left=inner) | ast.Call(func=inner) | ast.Attribute(value=inner):
                expr = inner
            case ast.Index(value=inner) | ast.Optional(value=inner):
                expr = inner
            case _:
                return expr
