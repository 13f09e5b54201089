"""The operation registry: each molecular operation written down once.

An operation is a plain function over a `Molecule` (or a whole `Pool`) registered with
`@operation(...)`: its name in `.lab` workflows, its arguments (`Param`: name, kind,
required or optional with its default, meaning), the LibStructBench operation it is an
instance of, a one-line rule, and its docstring (the rule and why it is the chemistry).
The workflow deriver validates and passes arguments from this table; `lablang spec`,
`lablang explain OPERATION`, editor hover and the operation table of
`docs/molecular.md` are generated from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from attrs import frozen

from lablang.records import Compared

F = TypeVar("F", bound=Callable[..., Any])

# What a `Param` of each kind accepts, in words (for diagnostics and docs).
KINDS: dict[str, str] = {
    "oligo": "an oligo",
    "oligos": "a list of oligos",
    "partner": "an oligo, or an earlier step of this workflow (its products)",
    "probe": "an oligo or a segment name",
    "text": "a name or a string",
    "names": "a name, or a list of names",
    "end": "an end, 5' or 3', or one strand's end, `top 3'` or `bottom 5'` (quoted or not)",
    "number": "a non-negative number",
    "bool": "true or false",
    "any": "a value",
}


@frozen(repr=False, eq=False)
class Param(Compared):
    """One argument of an operation as written in a workflow (`primer: bead`).

    `py` is the keyword the function takes (the same name unless given; None when the
    argument is recorded but changes no product, such as a PCR's `cycles`).
    """

    name: str
    kind: str
    doc: str
    required: bool = False
    default: str = ""  # the default, in words, for the docs
    py: str | None = ""
    choices: tuple[str, ...] = ()

    @property
    def keyword(self) -> str | None:
        return self.name if self.py == "" else self.py

    def signature(self) -> str:
        shown = {"oligos": "[oligo]"}.get(self.kind, self.kind)
        return f"{self.name}: {shown}"


@frozen(repr=False, eq=False)
class Operation(Compared):
    """A registered operation: the function and everything said about it."""

    name: str
    function: Callable[..., Any]
    lsb: str  # the LibStructBench operation name of its transition
    rule: str  # one line, for the docs' table
    params: tuple[Param, ...] = ()
    on_pool: bool = False  # takes the whole pool (selection), not one molecule at a time
    uses: tuple[str, ...] = ()  # workflow parameters passed on: min_anneal, nontemplated
    subject: str = "molecule"  # what the first argument is, in words
    group: str = ""  # the registry module it lives in (amplification, ligation...)
    # in a mix, what becomes of a molecule it has no substrate in (see `UNTOUCHED`)
    untouched: str = "discarded"
    # takes a circular molecule (`digest` opens it, `pcr` reads across its origin); any
    # other operation needs ends and refuses one (E0428)
    circular: bool = False

    @property
    def doc(self) -> str:
        import inspect  # here: a check reads no docstring, and `inspect` loads `ast` and `dis`

        return inspect.getdoc(self.function) or ""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def signature(self) -> str:
        args = ", ".join([self.subject, *(p.signature() for p in self.params)])
        return f"{self.name}({args})"

    def describe(self) -> str:
        """Markdown: the signature, the rule, each argument and the rationale."""
        lines = [f"`{self.signature()}` — molecular operation ({self.lsb})", "", self.rule, ""]
        if self.params:
            lines.append("Arguments:")
            for p in self.params:
                need = "required" if p.required else f"optional, default {p.default or 'none'}"
                choices = f" (one of {', '.join(p.choices)})" if p.choices else ""
                lines.append(f"- `{p.name}` ({KINDS[p.kind]}; {need}): {p.doc}{choices}")
            lines.append("")
        lines.append(f"In a mix, a molecule it cannot act on is {UNTOUCHED[self.untouched]}.")
        if self.circular:
            lines.append("It takes circular molecules.")
        lines.append("")
        lines.append(self.doc)
        return "\n".join(lines).rstrip() + "\n"


REGISTRY: dict[str, Operation] = {}

# What an operation acting on a mix does with a molecule it cannot act on, and why:
UNTOUCHED: dict[str, str] = {
    "discarded": "discarded with the reason: the step's product is what it makes (an "
    "amplicon, a copy, a ligation or tagmentation product), and a molecule it did not "
    "make is diluted out by amplification or lost at the next step that needs its ends",
    "carried": "carried unchanged: an enzyme that modifies its substrate in place (a "
    "nuclease, a polymerase filling gaps, a tailing enzyme) leaves a molecule without "
    "that substrate in the tube as it was",
}


def operation(
    name: str,
    *,
    lsb: str,
    rule: str,
    params: tuple[Param, ...] = (),
    on_pool: bool = False,
    uses: tuple[str, ...] = (),
    subject: str = "molecule",
    aliases: dict[str, str] | None = None,
    untouched: str = "discarded",
    circular: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as the operation `name` (and each alias, with
    its own LibStructBench operation); the function is returned unchanged."""

    def register(function: F) -> F:
        group = function.__module__.rsplit(".", 1)[-1]
        for each, each_lsb in ((name, lsb), *(aliases or {}).items()):
            if each in REGISTRY:
                raise ValueError(f"operation `{each}` registered twice")
            if untouched not in UNTOUCHED:
                raise ValueError(f"`{each}`: `untouched` is one of {sorted(UNTOUCHED)}")
            for p in params:
                if p.kind not in KINDS:
                    raise ValueError(f"`{each}`: unknown argument kind `{p.kind}`")
            REGISTRY[each] = Operation(
                each,
                function,
                each_lsb,
                rule,
                params,
                on_pool,
                uses,
                subject,
                group,
                untouched,
                circular,
            )
        return function

    return register


TABLE_BEGIN = "<!-- operations table: generated from the operation registry; "
TABLE_BEGIN += "`python scripts/molecular_docs.py` rewrites it -->"
TABLE_END = "<!-- end of the operations table -->"


def operations_table() -> str:
    """The operation table of `docs/molecular.md`, one row per registered operation.

    >>> operations_table().splitlines()[2].startswith("| `a_tail(molecule)` | other |")
    True
    """
    rows = [
        "| call | LibStructBench operation | arguments (required **bold**) | rule |",
        "|---|---|---|---|",
    ]
    for name in sorted(REGISTRY):
        op = REGISTRY[name]
        args = ", ".join(
            f"**`{p.name}`**"
            if p.required
            else f"`{p.name}`" + (f" = {p.default}" if p.default else "")
            for p in op.params
        )
        rows.append(f"| `{op.signature()}` | {op.lsb} | {args or '—'} | {op.rule} |")
    return "\n".join(rows) + "\n"


def operations_list() -> str:
    """The operations as `lablang spec` lists them: one signature per line."""
    return "".join(f"- `{REGISTRY[n].signature()}`: {REGISTRY[n].rule}\n" for n in sorted(REGISTRY))


def with_table(markdown: str) -> str:
    """`markdown` with the text between the table markers replaced by the current table."""
    head, sep, rest = markdown.partition(TABLE_BEGIN)
    if not sep:
        raise ValueError("the operations table markers are missing")
    _, sep_end, tail = rest.partition(TABLE_END)
    if not sep_end:
        raise ValueError("the operations table end marker is missing")
    text = f"{head}{TABLE_BEGIN}\n{operations_table()}{TABLE_END}{tail}"
    from lablang.molecular.modifications import MODIFICATIONS_BEGIN, MODIFICATIONS_END, table

    head, sep, rest = text.partition(MODIFICATIONS_BEGIN)
    _, sep_end, tail = rest.partition(MODIFICATIONS_END)
    if not (sep and sep_end):
        raise ValueError("the modification table markers are missing")
    return f"{head}{MODIFICATIONS_BEGIN}\n{table()}{MODIFICATIONS_END}{tail}"
