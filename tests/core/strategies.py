"""Hypothesis strategies that generate lablang ASTs (spans are zero: tests compare without them)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import strategies as st

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import Limits
from lablang.source import Source, Span
from lablang.syntax.sequence import read_sequence
from lablang.units import UNITS

Z = Span(0, 0)
GRAMMAR = (Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark").read_text()
KEYWORDS = set(re.findall(r'"([A-Za-z_]+)"', GRAMMAR)) | {"DNA", "RNA"}

names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in KEYWORDS)
# every code point: NUL, line breaks and lone surrogates print as escapes (`quote`)
strings = st.text(alphabet=st.characters(categories=None), max_size=12)
numbers = st.from_regex(r"(0|[1-9][0-9]{0,4})(\.[0-9]{1,3})?", fullmatch=True)
units = st.sampled_from(sorted(u for u in UNITS if u not in {"%", "x g"}))
SEQUENCES = [
    "5'-ACGT-3'",
    "5'-/5Biosg/ACACTCTTTCCCTACACGACGCTCTTCCGATCT [CB:16] [UMI:12] (T)30 VN-3'",
    "5'-AAGCAGTGGTATCAACGCAGAGTACAT rG rG rG-3'",
    "5'-{P5} {TruSeq_R1.partial} [BC:8-11] [CDNA'] {P7'} +G A*C-3'",
    '5\'-S [RT_BARCODE:7 "NNNNNNS"] [RT_BARCODE:7\' "WNNNNNN"] GATC-3\'',
]


def _sequence(text: str, moltype: str | None) -> ast.Sequence:
    parts = read_sequence(text[3:-3], 0, Source(text), Report(), Limits())
    return ast.Sequence(moltype=moltype, parts=_zero(parts), text=text, span=Z)


def _zero(node):  # type: ignore[no-untyped-def]
    """The same parts with every span set to Span(0, 0)."""
    from attrs import evolve

    if isinstance(node, tuple):
        return tuple(_zero(n) for n in node)
    return evolve(node, span=Z)


atoms = st.one_of(
    numbers.map(lambda n: ast.Number(text=n, span=Z)),
    st.tuples(numbers, units).map(lambda p: ast.Quantity(number=p[0], unit=p[1], span=Z)),
    strings.map(lambda s: ast.String(value=s, span=Z)),
    st.booleans().map(lambda b: ast.Bool(value=b, span=Z)),
    st.just(ast.NoneLit(span=Z)),
    st.sampled_from(["5'", "3'"]).map(lambda p: ast.End(prime=p, span=Z)),
    st.tuples(st.sampled_from(["top", "bottom"]), st.sampled_from(["5'", "3'"])).map(
        lambda p: ast.End(prime=p[1], strand=p[0], span=Z)
    ),
    names.map(lambda n: ast.Name(id=n, span=Z)),
    st.tuples(st.sampled_from(SEQUENCES), st.sampled_from([None, "DNA", "RNA"])).map(
        lambda p: _sequence(*p)
    ),
)
BINARY = [
    "|>",
    "->",
    "or",
    "and",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "in",
    "~",
    "of",
    "..",
    "+",
    "-",
    "*",
    "/",
    "%",
]


def _extend(inner: st.SearchStrategy) -> st.SearchStrategy:
    args = st.tuples(st.one_of(st.none(), names), inner).map(
        lambda p: ast.Arg(name=p[0], value=p[1], span=Z)
    )
    return st.one_of(
        st.tuples(st.sampled_from(BINARY), inner, inner).map(
            lambda p: ast.Binary(op=p[0], left=p[1], right=p[2], span=Z)
        ),
        st.tuples(st.sampled_from(["-", "+", "±", "not"]), inner).map(
            lambda p: ast.Unary(op=p[0], operand=p[1], span=Z)
        ),
        st.tuples(names, st.lists(args, max_size=3)).map(
            lambda p: ast.Call(func=ast.Name(id=p[0], span=Z), args=tuple(p[1]), span=Z)
        ),
        st.tuples(inner, names).map(lambda p: ast.Attribute(value=p[0], name=p[1], span=Z)),
        st.tuples(inner, inner).map(lambda p: ast.Index(value=p[0], index=p[1], span=Z)),
        inner.map(lambda v: ast.Optional(value=v, span=Z)),
        st.lists(inner, max_size=3).map(lambda items: ast.ListExpr(items=tuple(items), span=Z)),
        st.lists(inner, max_size=3)
        .filter(lambda items: len(items) != 1)
        .map(lambda items: ast.TupleExpr(items=tuple(items), span=Z)),
        st.tuples(st.sampled_from(["forall", "exists"]), names, inner, inner).map(
            lambda p: ast.Quantifier(kind=p[0], var=p[1], domain=p[2], body=p[3], span=Z)
        ),
        st.lists(st.tuples(names, inner), max_size=3).map(
            lambda fields: ast.Block(
                members=tuple(
                    ast.Field(key=k, key_span=Z, value=v, clauses=(), span=Z) for k, v in fields
                ),
                span=Z,
            )
        ),
    )


expressions = st.recursive(atoms, _extend, max_leaves=12)
CLAUSES = ["requires", "as", "from", "at", "on", "within", "weight", "vs", "for", "realizes"]
clauses = st.tuples(st.sampled_from(CLAUSES), expressions).map(
    lambda p: ast.Clause(keyword=p[0], value=p[1], span=Z)
)


def _members(depth: int) -> st.SearchStrategy:
    field = st.tuples(names, expressions, st.lists(clauses, max_size=2)).map(
        lambda p: ast.Field(key=p[0], key_span=Z, value=p[1], clauses=tuple(p[2]), span=Z)
    )
    binding = st.tuples(names, expressions).map(
        lambda p: ast.Binding(name=p[0], name_span=Z, value=p[1], span=Z)
    )
    expr_entry = st.tuples(
        st.sampled_from(["goal", "invariant", "expect", "output", "hold", "wait"]), expressions
    ).map(lambda p: ast.ExprEntry(keyword=p[0], value=p[1], clauses=(), body=None, span=Z))
    options = [field, binding, expr_entry]
    if depth > 0:
        body = st.lists(_members(depth - 1), max_size=3).map(
            lambda ms: ast.Block(members=tuple(ms), span=Z)
        )
        entry = st.tuples(
            st.sampled_from(["step", "item", "var", "op", "strand"]),
            names,
            st.one_of(st.none(), strings),
            st.one_of(st.none(), body),
        ).map(
            lambda p: ast.Entry(
                keyword=p[0],
                name=p[1],
                name_span=Z,
                params=None,
                title=p[2],
                type=None,
                clauses=(),
                body=p[3],
                span=Z,
            )
        )
        options.append(entry)
    return st.one_of(*options)


DECL_KINDS = list(ast.DECL_KINDS)
decls = st.tuples(
    st.sampled_from(DECL_KINDS),
    names,
    st.one_of(st.none(), strings),
    st.one_of(
        st.lists(_members(2), max_size=4).map(
            lambda ms: (ast.Block(members=tuple(ms), span=Z), None)
        ),
        expressions.map(lambda e: (None, e)),
    ),
).map(
    lambda p: ast.Decl(
        kind=p[0],
        name=p[1],
        name_span=Z,
        params=None,
        scope=None,
        title=p[2],
        type=None,
        clauses=(),
        body=p[3][0],
        value=p[3][1],
        span=Z,
    )
)
dotted_names = st.lists(names, min_size=1, max_size=3).map(".".join)
uses = st.builds(
    lambda path, members, alias: ast.Use(
        path=tuple(path), names=tuple(members), alias=None if members else alias, span=Z
    ),
    st.lists(names, min_size=1, max_size=3),
    st.lists(names, max_size=2, unique=True),
    st.none() | names,
)
# A header with a dotted name (`module lab.pcr "x"`), with or without a title, and imports.
modules = st.builds(
    lambda header, us, ds: ast.Module(
        name=header[0] if header else None,
        title=header[1] if header else None,
        uses=tuple(us),
        decls=tuple(ds),
        comments=(),
        span=Z,
    ),
    st.none() | st.tuples(dotted_names, st.none() | strings),
    st.lists(uses, max_size=2),
    st.lists(decls, max_size=4),
)
