"""The reference's tables, generated from the registries the checker reads.

`lablang spec` inserts each table where its template (`spec.md`) says
`<!-- table: NAME -->`, so the operations, skills, predicates, fields and placeholder
roles it lists cannot fall behind what `lablang check` accepts. Each table reads its
registry through one small function (`molecular_operations`, `skills`, `predicates`,
...) that yields plain entries: a name, its arguments (kind, default, doc) and a summary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import frozen

from lablang.syntax.strings import quote

__all__ = ["TABLES", "ArgDoc", "Entry", "molecular_operations", "predicates", "skills"]


@frozen
class ArgDoc:
    name: str
    kind: str
    default: str | None = None
    doc: str = ""
    optional: bool = False


@frozen
class Entry:
    name: str
    args: tuple[ArgDoc, ...]
    summary: str = ""
    extra: str = ""  # one more column (LibStructBench operation, skill family)
    signature: str = ""  # as its registry writes it, when it has one


def _row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _signature(entry: Entry, first: str | None = None) -> str:
    shown = [first] if first else []
    for arg in entry.args:
        text = arg.name if not arg.kind or arg.kind == "positional" else f"{arg.name}: {arg.kind}"
        if arg.kind == "positional":
            text = arg.name
        if arg.default is not None:
            text += f" = {arg.default}"
        elif arg.optional:
            text += "?"
        shown.append(text)
    return f"`{entry.name}({', '.join(shown)})`"


# ---------------------------------------------------------------- molecular operations

_KIND_DOCS = {
    "oligo": "an oligo",
    "oligos": "a list of oligos `[a, b]`",
    "probe": "an oligo, or a segment role / modification name as a string",
    "text": "a word or string",
    "number": "a non-negative number",
    "any": "a value",
}


def molecular_operations() -> list[Entry]:
    """Every workflow operation the interpreter dispatches, with its arguments.

    Read from the operation registry (`lablang.molecular.ops`), the one `check` uses.
    """
    from lablang.molecular.ops import REGISTRY
    from lablang.molecular.ops.registry import KINDS

    out = []
    aliases: dict[object, list[str]] = {}  # an alias (`amplify`) refers to its operation
    for name in REGISTRY:  # registration order: the operation, then its aliases
        aliases.setdefault(REGISTRY[name].function, []).append(name)
    for name in sorted(REGISTRY):
        op = REGISTRY[name]
        first = aliases[op.function][0]
        if name != first:
            same = tuple(ArgDoc(p.name, p.kind, None, f"as `{first}`'s") for p in op.params)
            out.append(Entry(name, same, f"`{first}` by another name", op.lsb, op.signature()))
            continue
        args = tuple(
            ArgDoc(
                p.name,
                p.kind,
                p.default or None,
                (p.doc or KINDS.get(p.kind, ""))
                + (f" ({'/'.join(f'`{c}`' for c in p.choices)})" if p.choices else ""),
                optional=not p.required,
            )
            for p in op.params
        )
        out.append(Entry(name, args, op.rule, op.lsb, op.signature()))
    return out


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return value if value in ("5'", "3'") else quote(value)
    return str(value)


def _operations_table() -> str:
    lines = [
        _row("operation", "arguments after the input", "LibStructBench operation", "rule"),
        _row("---", "---", "---", "---"),
    ]
    for entry in molecular_operations():
        args = "; ".join(
            f"`{a.name}:` {a.doc or a.kind}"
            + (
                f" (default `{a.default.strip('`')}`)"
                if a.default
                else (" (optional)" if a.optional else "")
            )
            for a in entry.args
        )
        signature = f"`{entry.signature}`" if entry.signature else _signature(entry, "molecule")
        lines.append(_row(signature, args or "none", entry.extra, entry.summary))
    return "\n".join(lines)


def _parameters_table() -> str:
    from lablang.molecular.front import PARAMETER_DEFAULTS

    return ", ".join(f"`param {k}: {_literal(v)}`" for k, v in PARAMETER_DEFAULTS.items())


def _lsb_operations() -> str:
    from lablang.molecular.model import OPERATIONS

    return ", ".join(f"`{o}`" for o in OPERATIONS)


def _architectures() -> str:
    from lablang.molecular.molecule import Architecture

    return ", ".join(f"`{a.value}`" for a in Architecture)


def _modalities() -> str:
    from lablang.molecular.model import MODALITIES

    return ", ".join(f"`{m.replace(' ', '_')}`" for m in MODALITIES)


def _placeholder_roles() -> str:
    """Task 1's score characters and the placeholder roles that expand to each."""
    from lablang.scoring.library_chars import LIBRARY_SCORE_CHARS

    groups: dict[str, list[str]] = {}
    for role, char in LIBRARY_SCORE_CHARS.items():
        groups.setdefault(char, []).append(role)
    lines = [_row("score character", "roles (`[ROLE:LEN]`)"), _row("---", "---")]
    for char, roles in groups.items():
        lines.append(_row(f"`{char}`", ", ".join(f"`{r}`" for r in roles)))
    return "\n".join(lines)


def _modifications() -> str:
    """The modification codes by chemistry (`lablang.molecular.modifications`)."""
    from lablang.molecular.modifications import MODIFICATIONS

    groups: dict[str, list[str]] = {}
    for info in MODIFICATIONS:
        groups.setdefault(info.chemistry, []).append(f"`/{info.code}/`")
    return "; ".join(f"{chemistry} {' '.join(codes)}" for chemistry, codes in groups.items())


def _enzymes() -> str:
    """How many restriction enzymes `digest` knows, and from where."""
    from lablang.molecular.ops.digestion import ENZYMES

    return (
        f"the {len(ENZYMES)} enzymes of REBASE's commercial set (`lablang explain enzymes` "
        "lists them, `lablang explain SbfI` one)"
    )


# ---------------------------------------------------------------- declarations


def _fields_table() -> str:
    from lablang.check.fields import DECL_FIELDS, ENTRY_FIELDS

    lines = [_row("kind", "fields", "also"), _row("---", "---", "---")]
    for kind, fieldset in [*DECL_FIELDS.items(), *(("read", f) for f in ENTRY_FIELDS.values())]:
        fields = "; ".join(f"`{k}:` {doc}" for k, doc in fieldset.fields.items())
        lines.append(_row(f"`{kind}`", fields or "(see also)", fieldset.note))
    return "\n".join(lines)


def _units() -> str:
    from lablang.units import UNITS

    groups: dict[str, list[str]] = {}
    for symbol, unit in UNITS.items():
        if any(ch in symbol for ch in "µμ×°") or " " in symbol:
            continue  # spellings of ASCII symbols listed here
        groups.setdefault(unit.dimension, []).append(symbol)
    return "; ".join(
        f"{dimension.replace('_', ' ')} {' '.join(f'`{s}`' for s in symbols)}"
        for dimension, symbols in groups.items()
    )


def _unit_spellings() -> str:
    from lablang.units.table import UNIT_SPELLINGS

    pairs: dict[str, list[str]] = {}
    for spelling, unit in UNIT_SPELLINGS.items():
        pairs.setdefault(unit, []).append(spelling)
    return ", ".join(f"{' '.join(f'`{s}`' for s in v)} -> `{k}`" for k, v in pairs.items())


# ---------------------------------------------------------------- protocols

# one example per action, checked by the spec tests
ACTION_EXAMPLES = {
    "add": "add: 50 uL of amp_mix  to: tube1",
    "transfer": "transfer: 20 uL from tube1  to: tube2",
    "mix": "mix: pipette  count: 10  volume: 40 uL",
    "incubate": "incubate: 37 C for 30 min",
    "thermocycle": "thermocycle { 98 C for 30 s; repeat 12 { 98 C for 15 s; 65 C for 30 s }; hold 4 C }",
    "centrifuge": "centrifuge: 300 xg for 5 min  temperature: 4 C",
    "cleanup": "cleanup: 0.8 x of beads  elute: 22 uL",
    "wash": "wash: 200 uL of ethanol  times: 2",
    "measure": 'measure: "dsDNA concentration"  instrument: qubit  volume: 1 uL',
    "wait": "wait 5 min",
    "run": "run: tank for 60 min  voltage: 100 V  mode: voltage",
    "note": 'note: "keep on ice"',
}


def _hazards() -> str:
    """The hazard classes a step or a material may name (`lablang.protocols.model.HAZARDS`)."""
    from lablang.protocols.model import HAZARDS

    return ", ".join(f"`{name}`" for name in HAZARDS)


def _actions_table() -> str:
    from lablang.protocols.front import ACTION_FIELDS, STEP_FIELDS

    lines = [_row("action", "example step body", "other fields"), _row("---", "---", "---")]
    for action, extra in ACTION_FIELDS.items():
        example = ACTION_EXAMPLES.get(action, "")
        fields = ", ".join(f"`{f}`" for f in sorted(extra | STEP_FIELDS))
        lines.append(_row(f"`{action}`", f"`{example}`" if example else "", fields))
    return "\n".join(lines)


# ---------------------------------------------------------------- simulation


def skills() -> list[Entry]:
    """Every skill `check` accepts in a task's `do { }`, from the simulator's catalog."""
    from lablang.sim.catalog import SKILL_ARGUMENT_KINDS, SKILL_SIGNATURES

    out = []
    for name, (params, family) in SKILL_SIGNATURES.items():
        args = tuple(
            ArgDoc(p.lstrip("?"), "positional", None, SKILL_ARGUMENT_KINDS.get(p.lstrip("?"), ""),
                   optional=p.startswith("?"))
            for p in params
        )  # fmt: skip
        out.append(Entry(name, args, "", family))
    return out


def predicates() -> list[Entry]:
    """Every success predicate and state function, from the simulator's catalog."""
    from lablang.sim import catalog

    out = []
    for name in (*catalog.PREDICATE_NAMES, *catalog.FUNCTION_NAMES):
        params, summary = catalog.PREDICATE_SIGNATURES[name]
        args = tuple(
            ArgDoc(p.lstrip("?"), "positional", None, optional=p.startswith("?")) for p in params
        )
        kind = "function" if name in catalog.FUNCTION_NAMES else "predicate"
        out.append(Entry(name, args, summary, kind))
    return out


def _step_fields_table() -> str:
    from lablang.sim.catalog import TASK_STEP_FIELDS

    lines = [_row("field", "meaning"), _row("---", "---")]
    lines += [_row(f"`{key}:`", doc) for key, doc in TASK_STEP_FIELDS.items()]
    return "\n".join(lines)


def _skills_table() -> str:
    by_family: dict[str, list[str]] = {}
    for entry in skills():
        by_family.setdefault(entry.extra, []).append(_signature(entry))
    lines = [_row("family", "skills"), _row("---", "---")]
    lines += [_row(family, ", ".join(shown)) for family, shown in by_family.items()]
    from lablang.sim.catalog import SKILL_ARGUMENT_KINDS

    kinds = "; ".join(f"`{k}`: {v}" for k, v in SKILL_ARGUMENT_KINDS.items())
    return "\n".join(lines) + f"\n\nArgument kinds: {kinds}; `?` marks an optional argument."


def _predicates_table() -> str:
    lines = [_row("predicate or function", "meaning"), _row("---", "---")]
    for entry in predicates():
        shown = _signature(entry).replace("?", "?") + (
            " (function)" if entry.extra == "function" else ""
        )
        lines.append(_row(shown, entry.summary))
    return "\n".join(lines)


def _assets_table() -> str:
    from lablang.sim.catalog import ASSET_KINDS

    lines = [_row("asset", "role", "parameters", "has"), _row("---", "---", "---", "---")]
    for name, kind in ASSET_KINDS.items():
        params = ", ".join(
            f"`{p}`"
            + (
                f" ({spec.dimension})"
                if spec.dimension
                else f" ({int(spec.low)}-{int(spec.high)}, default {int(spec.default)})"
            )
            for p, spec in kind.params.items()
        )
        has = [
            label
            for label, flag in (
                ("slots `x.slot[k]`", kind.slots),
                ("wells `x.well[k]`", kind.wells),
                ("a lid", kind.lid),
                ("a scale", kind.scale),
                ("a surface", kind.surface),
                ("an open mouth", kind.open_container),
            )
            if flag
        ]
        has += [f"part `x.{part}`" for part in kind.parts]
        lines.append(_row(f"`{name}`", kind.role, params or "none", ", ".join(has)))
    return "\n".join(lines)


TABLES: dict[str, Callable[[], str]] = {
    "fields": _fields_table,
    "units": _units,
    "unit_spellings": _unit_spellings,
    "operations": _operations_table,
    "parameters": _parameters_table,
    "lsb_operations": _lsb_operations,
    "architectures": _architectures,
    "modalities": _modalities,
    "placeholder_roles": _placeholder_roles,
    "modifications": _modifications,
    "enzymes": _enzymes,
    "actions": _actions_table,
    "hazards": _hazards,
    "assets": _assets_table,
    "skills": _skills_table,
    "predicates": _predicates_table,
    "step_fields": _step_fields_table,
}
