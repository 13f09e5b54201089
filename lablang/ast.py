"""The abstract syntax tree of a `.lab` module.

Nodes are frozen, slotted attrs classes; children are tuples; every node has a
`span` of character offsets into its source. Nodes carry no behaviour: passes are
functions over the tree. Class names mirror the grammar's rules
(`grammar/lablang.lark`).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import attrs

from lablang.source import Span


# ------------------------------------------------------------ sequence parts
@attrs.frozen(kw_only=True)
class Bases:
    """Concrete IUPAC bases, e.g. `ACGTVN`."""

    text: str
    span: Span


@attrs.frozen(kw_only=True)
class Placeholder:
    """`[ROLE:LEN]`, `[ROLE:MIN-MAX]` or `[ROLE]`; `revcomp` for `[ROLE']`."""

    role: str
    min_len: int | None
    max_len: int | None
    revcomp: bool
    span: Span


@attrs.frozen(kw_only=True)
class Homopolymer:
    """`(T)30`: one base repeated."""

    base: str
    count: int
    span: Span


@attrs.frozen(kw_only=True)
class SeqRef:
    """`{TruSeq_R1}` or `{TruSeq_R1.partial}`; `revcomp` for `{P7'}`."""

    path: tuple[str, ...]
    revcomp: bool
    span: Span


@attrs.frozen(kw_only=True)
class Modification:
    """An IDT-style modification code such as `/5Phos/` (stored without slashes)."""

    code: str
    span: Span


@attrs.frozen(kw_only=True)
class Ribo:
    """A ribonucleotide in a DNA oligo, `rG`."""

    base: str
    span: Span


@attrs.frozen(kw_only=True)
class LNA:
    """A locked nucleic acid base, `+G`."""

    base: str
    span: Span


@attrs.frozen(kw_only=True)
class Thioate:
    """A phosphorothioate bond, `*`."""

    span: Span


SeqPart: TypeAlias = (
    Bases | Placeholder | Homopolymer | SeqRef | Modification | Ribo | LNA | Thioate
)


# ------------------------------------------------------------ expressions
@attrs.frozen(kw_only=True)
class Number:
    text: str
    span: Span


@attrs.frozen(kw_only=True)
class Quantity:
    number: str
    unit: str
    span: Span


@attrs.frozen(kw_only=True)
class String:
    value: str
    span: Span


@attrs.frozen(kw_only=True)
class Bool:
    value: bool
    span: Span


@attrs.frozen(kw_only=True)
class NoneLit:
    span: Span


@attrs.frozen(kw_only=True)
class End:
    """A strand end, `5'` or `3'` (as in `attached: bead at 5'`), or one strand's end,
    `top 3'` or `bottom 5'` (as in `ligate(x, adapter: a, end: bottom 5')`)."""

    prime: str
    span: Span
    strand: str | None = None


@attrs.frozen(kw_only=True)
class Name:
    id: str
    span: Span


@attrs.frozen(kw_only=True)
class Sequence:
    """A sequence literal `[DNA|RNA] 5'-...-3'`."""

    moltype: str | None
    parts: tuple[SeqPart, ...]
    text: str
    span: Span


@attrs.frozen(kw_only=True)
class Arg:
    name: str | None
    value: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Call:
    func: Expr
    args: tuple[Arg, ...]
    span: Span


@attrs.frozen(kw_only=True)
class Attribute:
    value: Expr
    name: str
    span: Span


@attrs.frozen(kw_only=True)
class Index:
    value: Expr
    index: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Optional:
    """`T?`: an optional type (or value)."""

    value: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Unary:
    op: str
    operand: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Binary:
    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Quantifier:
    kind: str
    var: str
    domain: Expr
    body: Expr
    span: Span


@attrs.frozen(kw_only=True)
class ListExpr:
    items: tuple[Expr, ...]
    span: Span


@attrs.frozen(kw_only=True)
class TupleExpr:
    items: tuple[Expr, ...]
    span: Span


# ------------------------------------------------------------ block members
@attrs.frozen(kw_only=True)
class Assignment:
    name: str
    value: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Clause:
    """A keyword clause after a value: `on table`, `requires x`, `effect b = k`."""

    keyword: str
    value: Expr | Assignment
    span: Span


@attrs.frozen(kw_only=True)
class Param:
    name: str
    type: Expr | None
    default: Expr | None
    span: Span


@attrs.frozen(kw_only=True)
class Field:
    key: str
    key_span: Span
    value: Expr
    clauses: tuple[Clause, ...]
    span: Span


@attrs.frozen(kw_only=True)
class Binding:
    name: str
    name_span: Span
    value: Expr
    span: Span


@attrs.frozen(kw_only=True)
class Entry:
    """A keyword-led member with an optional name: `step mix {...}`, `var a: slot?`."""

    keyword: str
    name: str | None
    name_span: Span | None
    params: tuple[Param, ...] | None
    title: str | None
    type: Expr | None
    clauses: tuple[Clause, ...]
    body: Block | None
    span: Span


@attrs.frozen(kw_only=True)
class ExprEntry:
    """A keyword-led member whose argument is an expression: `goal x`, `repeat 11 {...}`."""

    keyword: str
    value: Expr
    clauses: tuple[Clause, ...]
    body: Block | None
    span: Span


@attrs.frozen(kw_only=True)
class ExprStmt:
    """A bare expression member: `98 C for 15 s`, `pick(tube_A)`."""

    value: Expr
    clauses: tuple[Clause, ...]
    span: Span


Member: TypeAlias = Field | Binding | Entry | ExprEntry | ExprStmt


@attrs.frozen(kw_only=True)
class Block:
    """`{ members }`; also a record expression such as `{x: ±3 cm, y: ±3 cm}`."""

    members: tuple[Member, ...]
    span: Span


Expr: TypeAlias = (
    Number
    | Quantity
    | String
    | Bool
    | NoneLit
    | End
    | Name
    | Sequence
    | Call
    | Attribute
    | Index
    | Optional
    | Unary
    | Binary
    | Quantifier
    | ListExpr
    | TupleExpr
    | Block
)


# ------------------------------------------------------------ top level
@attrs.frozen(kw_only=True)
class Use:
    """`use illumina.{P5, P7}`: `path` is the module, `names` the imported members."""

    path: tuple[str, ...]
    names: tuple[str, ...]
    alias: str | None
    span: Span


@attrs.frozen(kw_only=True)
class Decl:
    kind: str
    name: str
    name_span: Span
    params: tuple[Param, ...] | None
    scope: tuple[str, ...] | None
    title: str | None
    type: Expr | None
    clauses: tuple[Clause, ...]
    body: Block | None
    value: Expr | None
    span: Span


@attrs.frozen(kw_only=True)
class Comment:
    text: str
    span: Span


@attrs.frozen(kw_only=True)
class Module:
    name: str | None
    title: str | None
    uses: tuple[Use, ...]
    decls: tuple[Decl, ...]
    comments: tuple[Comment, ...]
    span: Span


DECL_KINDS = (
    "segment",
    "oligo",
    "state",
    "transition",
    "workflow",
    "library",
    "protocol",
    "scene",
    "task",
    "contract",
    "rubric",
    "skill",
    "material",
)


def end_text(end: End) -> str:
    """A strand end as written canonically: `3'`, `top 3'` (one blank between)."""
    return f"{end.strand} {end.prime}" if end.strand else end.prime


def dump(node: Any, indent: str = "") -> str:
    """A stable, readable rendering of a tree for tests and debugging (no spans).

    >>> from lablang.diagnostics import Report
    >>> from lablang.source import Source
    >>> from lablang.syntax import parse
    >>> print(dump(parse(Source("segment UMI = umi(12)"), Report()).decls[0]))
    Decl kind='segment' name='UMI'
      value: Call
        func: Name id='umi'
        args:
          Arg
            value: Number text='12'
    """
    if not attrs.has(type(node)):
        return indent + repr(node)
    scalars, children = [], []
    for field in attrs.fields(type(node)):
        if field.name.endswith("span") or field.name == "span":
            continue
        value = getattr(node, field.name)
        if value is None or value == ():  # absent
            continue
        if attrs.has(type(value)) or (
            isinstance(value, tuple) and value and attrs.has(type(value[0]))
        ):
            children.append((field.name, value))
        else:
            scalars.append(f"{field.name}={value!r}")
    lines = [indent + " ".join([type(node).__name__, *scalars])]
    for name, value in children:
        if isinstance(value, tuple):
            lines.append(f"{indent}  {name}:")
            lines.extend(dump(item, indent + "    ") for item in value)
        else:
            inner = dump(value, indent + "  ")
            lines.append(f"{indent}  {name}: {inner.lstrip()}")
    return "\n".join(lines)
