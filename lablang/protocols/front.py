"""Build `Protocol` models from `protocol` declarations in a parsed module.

The surface syntax (documented with examples in docs/protocols.md):

    protocol amp "cDNA amplification" realizes gex.cdna {
      materials: [amp_mix, spri_beads, ethanol, eb]     # or {amp_mix: "KAPA HiFi", ...}
      equipment: [thermocycler, magnet]
      containers: {tube1: 0 uL, sample: 20 uL, eluate: unknown}   # a list = empty tubes
      step mix { add: 50 uL of amp_mix  to: tube1 }
      step cycle { thermocycle { 98 C for 3 min; repeat 11 { 98 C for 15 s; 63 C for 20 s };
                                 hold 4 C } }
    }

Each step holds exactly one action field (`add`, `transfer`, `mix`, `incubate`,
`thermocycle`, `centrifuge`, `cleanup`, `wash`, `measure`, `wait`, `note`; `wait` is
written `wait 5 min`, `thermocycle` as a block `thermocycle { ... }`), plus that
action's own fields and the step fields `container`, `note`, `realizes` and `hazard`.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from lablang import ast
from lablang.check.names import reserved_name
from lablang.diagnostics import Edit, Fix, Report
from lablang.protocols import resources
from lablang.protocols.checks import check_protocol
from lablang.protocols.model import (
    Action,
    Add,
    Centrifuge,
    Cleanup,
    Consumable,
    Container,
    Hold,
    Incubate,
    Material,
    Measure,
    Mix,
    Note,
    Protocol,
    Repeat,
    Run,
    Segment,
    Stage,
    Step,
    Thermocycle,
    Transfer,
    Wait,
    Wash,
)
from lablang.protocols.quantities import Amount, is_unit
from lablang.resolve import Program
from lablang.source import Source, Span

# action -> the extra fields it accepts (besides the step fields)
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "add": frozenset({"to"}),
    "transfer": frozenset({"to", "source"}),
    "mix": frozenset({"count", "speed", "volume", "time"}),
    "incubate": frozenset({"time"}),
    # the buffer its primers' melting temperatures are computed in, checked and read by
    # lablang/annealing.py (W0408; the names of lablang.molecular.thermo.BUFFER_FIELDS)
    "thermocycle": frozenset({"salt", "mg", "dntp", "primer_conc"}),
    "centrifuge": frozenset({"temperature", "time", "discard"}),
    "cleanup": frozenset({"elute", "keep", "then"}),
    "wash": frozenset({"times", "time"}),
    "measure": frozenset(
        {"volume", "instrument", "standards", "standard_size", "replicates", "melt_curve"}
    ),
    "wait": frozenset(),
    "run": frozenset({"voltage", "current", "power", "mode", "time", "temperature", "consumable"}),
    "note": frozenset(),
}
STEP_FIELDS = frozenset({"container", "note", "realizes", "hazard"})
# field names people write for a field an action has under another name
FIELD_SYNONYMS = {"duration": "time", "rpm": "speed", "temp": "temperature"}
_DURATION_EXAMPLES = {
    "incubate": "incubate: 37 C for 30 min",
    "centrifuge": "centrifuge: 300 xg for 5 min",
    "mix": "mix: vortex for 5 s",
}
MAX_STAGES = 1000


def module_materials(module: ast.Module) -> tuple[str, ...]:
    """Names of the module's `material` declarations."""
    return tuple(d.name for d in module.decls if d.kind == "material")


def check_program(program: Program, report: Report) -> tuple[Protocol, ...]:
    """Build and check every protocol of the program's root module (the driver's hook).

    Materials may be declared in the protocol, as `material`s of the module, or imported.
    """
    info = program.root
    materials = set(module_materials(info.module))
    materials.update(
        name for name, symbol in info.imported.items() if symbol.decl.kind == "material"
    )
    protocols = build_protocols(info.module, info.source, report)
    for protocol in protocols:
        check_protocol(protocol, info.source, report, materials=materials)
    return protocols


def build_protocols(module: ast.Module, source: Source, report: Report) -> tuple[Protocol, ...]:
    """Every `protocol` declaration of `module` as a model; problems go to `report`."""
    return tuple(
        _Builder(source, report).protocol(decl) for decl in module.decls if decl.kind == "protocol"
    )


def _dotted(expr: ast.Expr) -> str | None:
    match expr:
        case ast.Name():
            return expr.id
        case ast.Attribute():
            base = _dotted(expr.value)
            return f"{base}.{expr.name}" if base else None
        case ast.String():
            return expr.value
        case _:
            return None


class _Builder:
    def __init__(self, source: Source, report: Report) -> None:
        self.source = source
        self.report = report

    # -------------------------------------------------------- declarations
    def protocol(self, decl: ast.Decl) -> Protocol:
        realizes = self._realizes(decl.clauses)
        materials: list[Material] = []
        equipment: list[str] = []
        containers: list[Container] = []
        consumables: list[Consumable] = []
        steps: list[Step] = []
        members = decl.body.members if decl.body else ()
        skip = 0
        for index, member in enumerate(members):
            if index < skip:
                continue
            match member:
                case ast.Entry(keyword="step") if reserved := reserved_name(
                    members, index, self.source.text
                ):
                    word, named, skip = reserved
                    span = Span(named.span.start, named.span.start + len(word))
                    self.report.add(
                        "E0806",
                        f"`{word}` is a reserved word, so it cannot name a step",
                        self.source,
                        span,
                        label="a keyword of the language",
                        help=f"rename it, e.g. `{word}_`",
                        fix=Fix(f"rename it to `{word}_`", (Edit(span, f"{word}_"),)),
                    )
                case ast.Entry(keyword="step"):
                    step = self.step(member)
                    if step is not None:
                        steps.append(step)
                case ast.Field(key="materials"):
                    materials.extend(resources.materials(self, member.value))
                case ast.Field(key="equipment"):
                    equipment.extend(name for name, _ in self._names(member.value, "equipment"))
                case ast.Field(key="containers"):
                    containers.extend(resources.containers(self, member.value))
                case ast.Field(key="consumables"):
                    consumables.extend(resources.consumables(self, member.value))
                case ast.Field(key="realizes"):
                    realizes = _dotted(member.value)
                case _:
                    self._unknown(
                        member,
                        "in a protocol; expected `step`, `materials`, "
                        "`equipment`, `containers`, `consumables` or `realizes`",
                    )
        return Protocol(
            name=decl.name,
            title=decl.title,
            realizes=realizes,
            materials=tuple(materials),
            equipment=tuple(equipment),
            containers=tuple(containers),
            consumables=tuple(consumables),
            steps=tuple(steps),
            span=decl.span,
        )

    def _realizes(self, clauses: Iterable[ast.Clause]) -> str | None:
        for clause in clauses:
            if clause.keyword == "realizes" and not isinstance(clause.value, ast.Assignment):
                return _dotted(clause.value)
        return None

    def _unknown(self, member: ast.Member, where: str) -> None:
        what = member.key if isinstance(member, ast.Field) else getattr(member, "keyword", None)
        span = member.key_span if isinstance(member, ast.Field) else member.span
        self.report.add(
            "E0807",
            f"`{what}` is not understood {where}"
            if what
            else f"this member is not understood {where}",
            self.source,
            span,
            label="not understood here",
        )

    def _names(self, expr: ast.Expr, what: str) -> list[tuple[str, Span]]:
        items = expr.items if isinstance(expr, ast.ListExpr) else (expr,)
        names = []
        for item in items:
            name = _dotted(item)
            if name is None:
                self._expected(item, f"a {what} name")
            else:
                names.append((name, item.span))
        return names

    # -------------------------------------------------------- steps
    def step(self, entry: ast.Entry) -> Step | None:
        name = entry.name or "<unnamed>"
        if entry.name is None:
            self.report.add(
                "E0806",
                "a step has no name",
                self.source,
                entry.span,
                label="unnamed step",
                help="write `step NAME { ... }`",
            )
        fields: dict[str, ast.Field] = {}
        cycle: ast.Entry | None = None
        for member in entry.body.members if entry.body else ():
            match member:
                case ast.Field():
                    if member.key in fields:
                        self.report.add(
                            "E0807",
                            f"field `{member.key}` appears twice in step `{name}`",
                            self.source,
                            member.key_span,
                            label="repeated field",
                        )
                    fields[member.key] = member
                case ast.Entry(keyword="thermocycle"):
                    cycle = member
                case ast.ExprEntry(keyword="wait"):
                    # `wait 5 min` is keyword syntax; treat it as the field `wait: 5 min`
                    fields["wait"] = ast.Field(
                        key="wait",
                        key_span=member.span,
                        value=member.value,
                        clauses=member.clauses,
                        span=member.span,
                    )
                case _:
                    self._unknown(member, f"in step `{name}`")
        actions = [key for key in fields if key in ACTION_FIELDS and key != "note"]
        if cycle is not None:
            actions.insert(0, "thermocycle")
        if not actions and "note" in fields:
            actions = ["note"]
        if len(actions) > 1:
            self.report.add(
                "E0808",
                f"step `{name}` has more than one action: " + ", ".join(f"`{a}`" for a in actions),
                self.source,
                entry.name_span or entry.span,
                label="one action per step",
                help="split it into one step per action",
            )
            return None
        if not actions:
            self.report.add(
                "E0806",
                f"step `{name}` has no action",
                self.source,
                entry.name_span or entry.span,
                label="no action",
                help="add one of: " + ", ".join(f"`{a}:`" for a in ACTION_FIELDS),
            )
            return None
        kind = actions[0]
        for key, member in fields.items():
            allowed = key == kind or key in STEP_FIELDS or key in ACTION_FIELDS[kind]
            if not allowed:
                self._unknown_step_field(kind, key, member)
        for key, member in fields.items():
            if key != kind and member.clauses:
                self._stray_clause(kind, key, member.clauses[0])
        spans = {key: member.value.span for key, member in fields.items()}
        self.spans = spans
        action = self._action(kind, name, fields, cycle)
        if action is None:
            return None
        container = _dotted(fields["container"].value) if "container" in fields else None
        realizes = self._realizes(entry.clauses)
        if "realizes" in fields:
            realizes = _dotted(fields["realizes"].value)
        note = None
        if kind != "note" and "note" in fields:
            note = self._text(fields["note"].value, "a note")
        marked: tuple[str, ...] = ()
        if "hazard" in fields:
            marked = resources.hazards(self, fields["hazard"].value, f"(step `{name}`)")
        return Step(
            name=name,
            title=entry.title,
            action=action,
            container=container,
            realizes=realizes,
            note=note,
            hazards=marked,
            span=entry.span,
            spans=spans,
        )

    def _stray_clause(self, kind: str, key: str, clause: ast.Clause) -> None:
        """E0807 for a clause after a field other than the action (`times: 3  for 5 min`):
        it would otherwise be dropped, so the step would silently lose its duration."""
        self.report.add(
            "E0807",
            f"`{clause.keyword}` after `{key}:` is not understood; it belongs to the "
            f"`{kind}:` action",
            self.source,
            clause.span,
            label=f"`{key}:` takes no `{clause.keyword}`",
            help=f"write it right after the action's value, e.g. `{kind}: ... "
            f"{clause.keyword} ...`, or as its own field (`time: 5 min`)",
        )

    def _unknown_step_field(self, kind: str, key: str, member: ast.Field) -> None:
        """E0807 naming the field the action wants: a synonym (`duration` is `time`) or
        the closest accepted field, with the rename as a fix."""
        from lablang.check.names import did_you_mean

        accepted = sorted(ACTION_FIELDS[kind] | STEP_FIELDS)
        wanted = FIELD_SYNONYMS.get(key)
        if wanted not in accepted:
            wanted = did_you_mean(key, accepted)
        listed = ", ".join(f"`{a}`" for a in accepted)
        article = "an" if kind[0] in "aeiou" else "a"
        help_text = f"{article} `{kind}` step accepts: {listed}"
        fix = None
        if wanted is not None:
            fix = Fix(f"use `{wanted}`", (Edit(member.key_span, wanted),))
            help_text = f"write `{wanted}:`; {help_text}"
            if wanted == "time" and kind in ("incubate", "centrifuge", "mix"):
                help_text = (
                    f"{article} `{kind}` step takes its duration after `for` in the action "
                    f"(`{_DURATION_EXAMPLES[kind]}`) or as `time:`; {listed}"
                )
        self.report.add(
            "E0807",
            f"`{key}` is not a field of {article} `{kind}` step",
            self.source,
            member.key_span,
            label="not understood here",
            help=help_text,
            fix=fix,
        )

    def _action(
        self, kind: str, name: str, fields: dict[str, ast.Field], cycle: ast.Entry | None
    ) -> Action | None:
        where = f"of step `{name}`"
        if kind == "thermocycle":
            body = cycle.body if cycle is not None else fields["thermocycle"].value
            if not isinstance(body, ast.Block):
                self.report.add(
                    "E0806",
                    f"the thermocycle of step `{name}` has no segments",
                    self.source,
                    cycle.span if cycle is not None else fields["thermocycle"].value.span,
                    label="expected a `{ ... }` block of segments",
                    help="write `thermocycle { 98 C for 30 s; repeat 30 { ... } }`",
                )
                return None
            return Thermocycle(stages=self._stages(body, name))
        field = fields[kind]
        value = field.value
        clauses = {c.keyword: c for c in field.clauses}

        def clause_amount(keyword: str, dims: tuple[str, ...], what: str) -> Amount | None:
            clause = clauses.get(keyword)
            if clause is None or isinstance(clause.value, ast.Assignment):
                return None
            self.spans[f"{keyword}_clause"] = clause.value.span
            return self._amount(clause.value, dims, what)

        def amount(key: str, dims: tuple[str, ...], what: str) -> Amount | None:
            return self._amount(fields[key].value, dims, what) if key in fields else None

        def name_of(key: str) -> str | None:
            return _dotted(fields[key].value) if key in fields else None

        def duration() -> Amount | None:
            found = clause_amount("for", ("time",), f"the duration {where}")
            if found is not None:
                self.spans["duration"] = self.spans.pop("for_clause")
            return (
                found if found is not None else amount("time", ("time",), f"the duration {where}")
            )

        match kind:
            case "add" | "wash" | "cleanup":
                quantity, material = self._of(value)
                # an `add` is a liquid's volume or a solid's mass (weighed out)
                dims = {"cleanup": ("fold",), "add": ("volume", "mass")}.get(kind, ("volume",))
                noun = {"cleanup": "the bead ratio", "add": "the amount"}.get(kind, "the volume")
                measured = (
                    self._amount(quantity, dims, f"{noun} {where}")
                    if quantity is not None
                    else None
                )
                parameter = "ratio" if kind == "cleanup" else "volume"
                if measured is not None and measured.dimension == "mass":
                    parameter = "mass"
                self.spans[parameter] = quantity.span if quantity else value.span
                if material is not None:
                    self.spans["material"] = material.span
                material_name = _dotted(material) if material is not None else None
                if kind == "add":
                    destination = _dotted(fields["to"].value) if "to" in fields else None
                    if "to" in fields:
                        self.spans["destination"] = fields["to"].value.span
                    if measured is not None and measured.dimension == "mass":
                        return Add(
                            volume=None,
                            mass=measured,
                            material=material_name,
                            destination=destination,
                        )
                    return Add(volume=measured, material=material_name, destination=destination)
                if kind == "wash":
                    return Wash(
                        volume=measured,
                        material=material_name,
                        times=self._count(fields.get("times"), where),
                        duration=duration(),
                    )
                return Cleanup(
                    ratio=measured,
                    material=material_name,
                    elute=amount("elute", ("volume",), f"the elution volume {where}"),
                    keep=name_of("keep"),
                    then=amount("then", ("fold",), f"the second bead ratio {where}"),
                )
            case "transfer":
                origin = clauses.get("from")
                source_name = None
                if origin is not None and not isinstance(origin.value, ast.Assignment):
                    source_name = _dotted(origin.value)
                    self.spans["source"] = origin.value.span
                elif "source" in fields:
                    source_name = _dotted(fields["source"].value)
                    self.spans["source"] = fields["source"].value.span
                volume = None
                if not (isinstance(value, ast.Name) and value.id == "all"):
                    volume = self._amount(value, ("volume",), f"the volume {where}")
                self.spans["volume"] = value.span
                destination = _dotted(fields["to"].value) if "to" in fields else None
                if "to" in fields:
                    self.spans["destination"] = fields["to"].value.span
                return Transfer(volume=volume, source=source_name, destination=destination)
            case "mix":
                return Mix(
                    method=_dotted(value),
                    count=self._count(fields.get("count"), where),
                    speed=amount("speed", ("rotation_speed",), f"the speed {where}"),
                    duration=duration(),
                    volume=amount("volume", ("volume",), f"the volume {where}"),
                )
            case "incubate":
                self.spans["temperature"] = value.span
                return Incubate(
                    temperature=self._amount(value, ("temperature",), f"the temperature {where}"),
                    duration=duration(),
                )
            case "centrifuge":
                self.spans["speed"] = value.span
                return Centrifuge(
                    speed=self._amount(
                        value,
                        ("rotation_speed", "relative_centrifugal_force"),
                        f"the speed {where}",
                    ),
                    duration=duration(),
                    temperature=amount("temperature", ("temperature",), f"the temperature {where}"),
                    discard=name_of("discard"),
                )
            case "measure":
                return Measure(
                    what=self._text(value, "what is measured") or "",
                    volume=amount("volume", ("volume",), f"the volume {where}"),
                    instrument=name_of("instrument"),
                    standards=self._count(fields.get("standards"), where),
                    standard_size=amount(
                        "standard_size", ("sequence_length",), f"the standards' length {where}"
                    ),
                    replicates=self._count(fields.get("replicates"), where),
                    melt_curve=name_of("melt_curve"),
                )
            case "run":
                return Run(
                    instrument=_dotted(value),
                    voltage=amount("voltage", ("voltage",), f"the voltage {where}"),
                    current=amount("current", ("current",), f"the current {where}"),
                    power=amount("power", ("power",), f"the power {where}"),
                    mode=name_of("mode"),
                    duration=duration(),
                    temperature=amount("temperature", ("temperature",), f"the temperature {where}"),
                    consumable=name_of("consumable"),
                )
            case "wait":
                self.spans["duration"] = value.span
                return Wait(duration=self._amount(value, ("time",), f"the duration {where}"))
            case "note":
                return Note(text=self._text(value, "a note") or "")
        raise AssertionError(kind)  # ACTION_FIELDS and this match list the same kinds

    def _of(self, value: ast.Expr) -> tuple[ast.Expr | None, ast.Expr | None]:
        """`50 uL of amp_mix` -> (quantity, material); a bare name is a material."""
        if isinstance(value, ast.Binary) and value.op == "of":
            return value.left, value.right
        if isinstance(value, ast.Name | ast.Attribute):
            return None, value
        return value, None

    def _stages(self, body: ast.Block, name: str) -> tuple[Stage, ...]:
        stages: list[Stage] = []
        for member in body.members[:MAX_STAGES]:
            match member:
                case ast.ExprStmt():
                    segment = self._segment(member.value, member.clauses, member.span, name)
                    if segment is not None:
                        stages.append(segment)
                case ast.ExprEntry(keyword="repeat"):
                    count = self._count_expr(member.value, f"of step `{name}`")
                    inner: list[Segment] = []
                    for child in member.body.members if member.body else ():
                        if isinstance(child, ast.ExprStmt):
                            segment = self._segment(child.value, child.clauses, child.span, name)
                            if segment is not None:
                                inner.append(segment)
                        else:
                            self._unknown(child, "inside `repeat`; expected `TEMP for TIME`")
                    if not inner:
                        self.report.add(
                            "E0806",
                            f"a `repeat` of step `{name}` has no segments",
                            self.source,
                            member.span,
                            label="empty repeat",
                            help="write `repeat N { 98 C for 10 s; 60 C for 30 s }`",
                        )
                    if count is not None:
                        stages.append(Repeat(count=count, segments=tuple(inner), span=member.span))
                case ast.ExprEntry(keyword="hold"):
                    temperature = self._amount(
                        member.value, ("temperature",), f"the hold temperature of step `{name}`"
                    )
                    hold_time = None
                    for clause in member.clauses:
                        if clause.keyword == "for" and not isinstance(clause.value, ast.Assignment):
                            hold_time = self._amount(
                                clause.value, ("time",), f"the hold time of step `{name}`"
                            )
                    if temperature is not None:
                        stages.append(
                            Hold(temperature=temperature, duration=hold_time, span=member.span)
                        )
                case _:
                    self._unknown(
                        member,
                        "in a thermocycle; expected `TEMP for TIME`, "
                        "`repeat N { ... }` or `hold TEMP`",
                    )
        if len(body.members) > MAX_STAGES:
            self.report.add(
                "E0807",
                f"a thermocycle has more than {MAX_STAGES} stages",
                self.source,
                body.span,
                label="too many stages",
            )
        return tuple(stages)

    def _segment(
        self, value: ast.Expr, clauses: tuple[ast.Clause, ...], span: Span, name: str
    ) -> Segment | None:
        temperature = self._amount(
            value, ("temperature",), f"a thermocycler temperature of step `{name}`"
        )
        duration = None
        for clause in clauses:
            if clause.keyword == "for" and not isinstance(clause.value, ast.Assignment):
                duration = self._amount(
                    clause.value, ("time",), f"a thermocycler time of step `{name}`"
                )
            else:
                self.report.add(
                    "E0807",
                    f"`{clause.keyword}` is not understood in a thermocycler segment",
                    self.source,
                    clause.span,
                    label="expected `for TIME`",
                )
        if duration is None and not any(c.keyword == "for" for c in clauses):
            self.report.add(
                "E0806",
                f"a thermocycler segment of step `{name}` has no time",
                self.source,
                span,
                label="no `for TIME`",
                help="write `TEMP for TIME`, e.g. `98 C for 15 s`",
            )
        if temperature is None:
            return None
        return Segment(temperature=temperature, duration=duration, span=span)

    # -------------------------------------------------------- values
    def _amount(self, expr: ast.Expr, dims: tuple[str, ...], what: str) -> Amount | None:
        sign = 1
        while isinstance(expr, ast.Unary) and expr.op in ("-", "+"):
            sign = -sign if expr.op == "-" else sign
            expr = expr.operand
        match expr:
            case ast.Quantity():
                if not is_unit(expr.unit):
                    self.report.add(
                        "E0810",
                        f"unknown unit `{expr.unit}` in {what}",
                        self.source,
                        expr.span,
                        label="unknown unit",
                    )
                    return None
                amount = Amount.parse(expr.number, expr.unit)
                if amount.dimension not in dims:
                    self.report.add(
                        "E0801",
                        f"{what} must be {_dims_text(dims)}, not `{expr.number} {expr.unit}` "
                        f"({amount.dimension.replace('_', ' ')})",
                        self.source,
                        expr.span,
                        label=f"a {amount.dimension.replace('_', ' ')}",
                        help=f"use a unit of {_dims_text(dims)}",
                    )
                    return None
                if sign < 0:
                    if amount.dimension == "temperature":
                        base = Amount.parse("-" + expr.number, expr.unit)
                        return Amount(base.value, base.dimension, f"-{amount.text}")
                    return Amount(-amount.value, amount.dimension, f"-{amount.text}")
                return amount
            case ast.Number():
                self.report.add(
                    "E0810",
                    f"{what} needs a unit: `{expr.text}` alone is a plain number",
                    self.source,
                    expr.span,
                    label="no unit",
                    help=f"write a unit of {_dims_text(dims)}, e.g. "
                    f"`{expr.text} {_example_unit(dims[0])}`",
                )
                return None
            case _:
                self._expected(expr, f"{what} as a quantity with a unit")
                return None

    def _count(self, field: ast.Field | None, where: str) -> int | None:
        return self._count_expr(field.value, where) if field is not None else None

    def _count_expr(self, expr: ast.Expr, where: str) -> int | None:
        sign = 1
        if isinstance(expr, ast.Unary) and expr.op == "-":
            sign, expr = -1, expr.operand
        text = None
        if isinstance(expr, ast.Number):
            text = expr.text
        elif isinstance(expr, ast.Quantity) and expr.unit in ("cycles", "x", "X"):
            text = expr.number
        if text is not None:
            value = Fraction(text)
            if value.denominator == 1:
                return sign * value.numerator
        self.report.add(
            "E0801",
            f"a count {where} must be a whole number",
            self.source,
            expr.span,
            label="not a whole number",
        )
        return None

    def _text(self, expr: ast.Expr, what: str) -> str | None:
        text = _dotted(expr)
        if text is None:
            self._expected(expr, what + " as text or a name")
        return text

    def _expected(self, expr: ast.Expr, what: str) -> None:
        self.report.add(
            "E0801", f"expected {what}", self.source, expr.span, label="unexpected value"
        )


_EXAMPLE_UNITS = {
    "volume": "uL",
    "mass": "g",
    "time": "s",
    "temperature": "C",
    "rotation_speed": "rpm",
    "relative_centrifugal_force": "xg",
    "fold": "x",
    "percent": "%",
    "sequence_length": "bp",
    "voltage": "V",
    "current": "mA",
    "power": "W",
}


def _example_unit(dimension: str) -> str:
    return _EXAMPLE_UNITS.get(dimension, "")


def _dims_text(dims: tuple[str, ...]) -> str:
    names = {
        "rotation_speed": "a rotation speed (rpm)",
        "relative_centrifugal_force": "a relative centrifugal force (xg)",
        "fold": "a ratio (x)",
        "percent": "a percentage (%)",
        "molar_concentration": "a molar concentration (mM)",
        "mass_concentration": "a mass concentration (mg/mL)",
        "sequence_length": "a length in bp",
        "voltage": "a voltage (V)",
        "current": "a current (mA)",
        "power": "a power (W)",
        "temperature": "a temperature",
        "time": "a time",
        "volume": "a volume",
        "mass": "a mass (g)",
    }
    return " or ".join(names.get(d, d) for d in dims)


def describe(name: str) -> str | None:
    """Documentation of a protocol step action for editors (hover), or None if unknown.

    >>> print(describe("add"))
    `add:` — step action: Add a `volume` (liquid) or `mass` (solid) of a material to a container.
    <BLANKLINE>
    fields: `to`
    """
    import inspect

    from lablang.protocols.model import ACTION_KINDS

    for cls, kind in ACTION_KINDS.items():
        if kind == name:
            doc = (inspect.getdoc(cls) or "").split("\n\n")[0]
            fields = ", ".join(f"`{f}`" for f in sorted(ACTION_FIELDS.get(kind, ())))
            extra = f"\n\nfields: {fields}" if fields else ""
            return f"`{kind}:` — step action: {doc}{extra}"
    return None
