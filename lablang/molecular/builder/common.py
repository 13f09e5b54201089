"""What the builder's parts share: the located failure, limits, parameters, AST helpers."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from lablang import ast
from lablang.diagnostics import Fix
from lablang.molecular import operations as ops
from lablang.molecular.model import (
    MODALITIES,
)
from lablang.molecular.thermo import BUFFER_FIELDS, DEFAULT_CONDITIONS
from lablang.source import Span
from lablang.units import quantity

SEGMENT_KINDS = {
    "barcode": "CELL_BARCODE", "umi": "UMI", "index": "INDEX", "payload": "CDNA",
    "spacer": "SPACER", "linker": "LINKER",
}  # fmt: skip
MAX_WORKFLOW_STEPS = 2_000
OLIGO_KINDS = ("single", "assembled", "double_stranded", "hairpin", "unknown")
MAX_SEGMENT_LENGTH = 100_000
MAX_SEQUENCE_PARTS = 20_000
MAX_SEQUENCE_TOKENS = 200_000


class Unknown(Exception):
    """A step depends on one that could not be derived: it is unknown, not wrong."""


class Failure(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        span: Span,
        *,
        label: str = "",
        notes: Sequence[str] = (),
        help: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.span = code, message, span
        self.label, self.notes, self.help = label, tuple(notes), help
        self.fix = fix


# Interpreter parameters a workflow may set with `param NAME: VALUE`; the defaults are
# written out in `stdlib/molecular.lab` (a test keeps the two equal).
PARAMETER_DEFAULTS: dict[str, Any] = {
    "min_anneal": ops.MIN_ANNEAL,  # bases a primer's 3' end must pair over
    "nontemplated": "CCC",  # bases MMLV-type reverse transcriptases add at the 3' end
    # the buffer melting temperatures are computed in (primer3's defaults; thermo.py)
    **{
        name: quantity(f"{getattr(DEFAULT_CONDITIONS, field):g}", unit)
        for name, (field, unit, _, _) in BUFFER_FIELDS.items()
    },
}
# operations whose primers anneal (they take `min_anneal`)


# ---------------------------------------------------------------------- AST helpers


def block_fields(block: ast.Block | None) -> dict[str, ast.Expr]:
    out: dict[str, ast.Expr] = {}
    if block is None:
        return out
    for member in block.members:
        if isinstance(member, ast.Field):
            out[member.key] = member.value
        elif (
            isinstance(member, ast.Entry)
            and member.name is None
            and member.type is not None
            and member.body is None
        ):
            # `strand: top` reads as an entry because `strand` is an entry keyword
            out[member.keyword] = member.type
    return out


def call_arguments(call: ast.Call) -> dict[int | str, ast.Expr]:
    out: dict[int | str, ast.Expr] = {}
    position = 0
    for arg in call.args:
        if arg.name is None:
            out[position] = arg.value
            position += 1
        else:
            out[arg.name] = arg.value
    return out


def word_of(expr: ast.Expr | None) -> str | None:
    match expr:
        case ast.Name(id=ident):
            return ident
        case ast.String(value=value):
            return value
        case ast.Attribute():
            return dotted(expr)
        case ast.Number(text=text):
            return text
        case ast.End() as end:
            return ast.end_text(end)
    return None


def dotted(expr: ast.Expr | ast.Assignment) -> str:
    match expr:
        case ast.Name(id=ident):
            return ident
        case ast.Attribute(value=value, name=name):
            return f"{dotted(value)}.{name}"
        case ast.String(value=value):
            return value
    return ""


def names_of(expr: ast.Expr | None) -> tuple[str, ...]:
    if isinstance(expr, ast.ListExpr):
        return tuple(dotted(item) for item in expr.items)
    if expr is None:
        return ()
    return (dotted(expr),)


def func_name(node: ast.Call | ast.Name) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return dotted(node.func)


def modality_of(word: str) -> str:
    text = word.replace("_", " ").strip()
    lowered = {m.lower(): m for m in MODALITIES}
    return lowered.get(text.lower(), text)


@functools.cache
def grader_role_char(role: str) -> str | None:
    """The score character LibStructBench's Task 1 grader writes for a placeholder role
    (`#` barcodes, `&` ligation and `=` RT barcodes, `%` Tn5, `~` UMIs, `@` indexes,
    `$` feature barcodes, `?` random blocks), or None for a role it does not expand."""
    from lablang.scoring.library_chars import LIBRARY_SCORE_CHARS

    return LIBRARY_SCORE_CHARS.get(role.upper())


def grader_roles() -> frozenset[str]:
    """The placeholder roles LibStructBench's Task 1 grader expands to score characters
    (`LIBRARY_SCORE_CHARS` in `lablang/scoring/library_chars.py`, its one copy: a module
    without imports, and `lablang.scoring` imports its backend only when used)."""
    from lablang.scoring.library_chars import LIBRARY_SCORE_CHARS

    return frozenset(LIBRARY_SCORE_CHARS)
