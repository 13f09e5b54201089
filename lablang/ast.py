"""The abstract syntax tree of a `.lab` module.

Nodes are frozen, slotted attrs classes; children are tuples; every node has a
`span` of character offsets into its source. Nodes carry no behaviour: passes are
functions over the tree. Class names mirror the grammar's rules
(`grammar/lablang.lark`).
"""

from __future__ import annotations

from typing import Any, TypeAlias

from attrs import fields, frozen, has

from lablang.records import Compared
from lablang.source import Span


# ------------------------------------------------------------ sequence parts
@frozen(kw_only=True, repr=False, eq=False)
class Bases(Compared):
    """Concrete IUPAC bases, e.g. `ACGTVN`."""

    text: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Placeholder(Compared):
    """`[ROLE:LEN]`, `[ROLE:MIN-MAX]` or `[ROLE]`; `revcomp` for `[ROLE']`; `pattern`
    for `[ROLE:LEN "NNNNNNS"]` (IUPAC codes of its positions, as written)."""

    role: str
    min_len: int | None
    max_len: int | None
    revcomp: bool
    span: Span
    pattern: str | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Homopolymer(Compared):
    """`(T)30`: one base repeated."""

    base: str
    count: int
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class SeqRef(Compared):
    """`{TruSeq_R1}` or `{TruSeq_R1.partial}`; `revcomp` for `{P7'}`."""

    path: tuple[str, ...]
    revcomp: bool
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Modification(Compared):
    """An IDT-style modification code such as `/5Phos/` (stored without slashes)."""

    code: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Ribo(Compared):
    """A ribonucleotide in a DNA oligo, `rG`."""

    base: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class LNA(Compared):
    """A locked nucleic acid base, `+G`."""

    base: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Thioate(Compared):
    """A phosphorothioate bond, `*`."""

    span: Span


SeqPart: TypeAlias = (
    Bases | Placeholder | Homopolymer | SeqRef | Modification | Ribo | LNA | Thioate
)


# ------------------------------------------------------------ expressions
@frozen(kw_only=True, repr=False, eq=False)
class Number(Compared):
    text: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Quantity(Compared):
    number: str
    unit: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class String(Compared):
    value: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Bool(Compared):
    value: bool
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class NoneLit(Compared):
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class End(Compared):
    """A strand end, `5'` or `3'` (as in `attached: bead at 5'`), or one strand's end,
    `top 3'` or `bottom 5'` (as in `ligate(x, adapter: a, end: bottom 5')`)."""

    prime: str
    span: Span
    strand: str | None = None


@frozen(kw_only=True, repr=False, eq=False)
class Name(Compared):
    id: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Sequence(Compared):
    """A sequence literal `[DNA|RNA] 5'-...-3'`."""

    moltype: str | None
    parts: tuple[SeqPart, ...]
    text: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Arg(Compared):
    name: str | None
    value: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Call(Compared):
    func: Expr
    args: tuple[Arg, ...]
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Attribute(Compared):
    value: Expr
    name: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Index(Compared):
    value: Expr
    index: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Optional(Compared):
    """`T?`: an optional type (or value)."""

    value: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Unary(Compared):
    op: str
    operand: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Binary(Compared):
    op: str
    left: Expr
    right: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Quantifier(Compared):
    kind: str
    var: str
    domain: Expr
    body: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class ListExpr(Compared):
    items: tuple[Expr, ...]
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class TupleExpr(Compared):
    items: tuple[Expr, ...]
    span: Span


# ------------------------------------------------------------ block members
@frozen(kw_only=True, repr=False, eq=False)
class Assignment(Compared):
    name: str
    value: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Clause(Compared):
    """A keyword clause after a value: `on table`, `requires x`, `effect b = k`."""

    keyword: str
    value: Expr | Assignment
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Param(Compared):
    name: str
    type: Expr | None
    default: Expr | None
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Field(Compared):
    key: str
    key_span: Span
    value: Expr
    clauses: tuple[Clause, ...]
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Binding(Compared):
    name: str
    name_span: Span
    value: Expr
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Entry(Compared):
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


@frozen(kw_only=True, repr=False, eq=False)
class ExprEntry(Compared):
    """A keyword-led member whose argument is an expression: `goal x`, `repeat 11 {...}`."""

    keyword: str
    value: Expr
    clauses: tuple[Clause, ...]
    body: Block | None
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class ExprStmt(Compared):
    """A bare expression member: `98 C for 15 s`, `pick(tube_A)`."""

    value: Expr
    clauses: tuple[Clause, ...]
    span: Span


Member: TypeAlias = Field | Binding | Entry | ExprEntry | ExprStmt


@frozen(kw_only=True, repr=False, eq=False)
class Block(Compared):
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
@frozen(kw_only=True, repr=False, eq=False)
class Use(Compared):
    """`use illumina.{P5, P7}`: `path` is the module, `names` the imported members."""

    path: tuple[str, ...]
    names: tuple[str, ...]
    alias: str | None
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Decl(Compared):
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


@frozen(kw_only=True, repr=False, eq=False)
class Comment(Compared):
    text: str
    span: Span


@frozen(kw_only=True, repr=False, eq=False)
class Module(Compared):
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
    "benchmark",
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
    if not has(type(node)):
        return indent + repr(node)
    scalars, children = [], []
    for field in fields(type(node)):
        if field.name.endswith("span") or field.name == "span":
            continue
        value = getattr(node, field.name)
        if value is None or value == ():  # absent
            continue
        if has(type(value)) or (isinstance(value, tuple) and value and has(type(value[0]))):
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
