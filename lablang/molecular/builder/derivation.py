"""Derived workflows: each step run through the interpreter, state by state."""

from __future__ import annotations

from typing import cast

from attrs import evolve

from lablang import ast
from lablang.diagnostics import Edit, Fix
from lablang.molecular import operations as ops
from lablang.molecular.builder.arguments import (
    Arguments,
)
from lablang.molecular.builder.common import (
    MAX_WORKFLOW_STEPS,
    PARAMETER_DEFAULTS,
    Failure,
    Unknown,
    func_name,
    modality_of,
    word_of,
)
from lablang.molecular.builder.compare import (
    sequence_difference,
)
from lablang.molecular.growth import Growth
from lablang.molecular.model import (
    Graph,
    StateDef,
    TransitionDef,
    state_from_molecule,
)
from lablang.molecular.molecule import (
    Disposition,
    Duplex,
    MolType,
    Pool,
    Product,
    Single,
    Strand,
    top_strand,
)
from lablang.molecular.ops import REGISTRY
from lablang.molecular.sequence import (
    render,
)
from lablang.molecular.thermo import BUFFER_FIELDS, buffer_amount
from lablang.source import Span
from lablang.units import QuantityValue


def _bounded(too_much: str | None, span: Span) -> None:
    """E0460 when the workflow's products, summed over its steps, pass a limit."""
    if too_much is not None:
        help = "derive fewer or shorter products: split the workflow, or raise the limit"
        raise Failure("E0460", too_much, span, help=help)


class Derivation(Arguments):
    def workflow(self, decl: ast.Decl) -> tuple[Graph, dict[str, Pool]]:
        self.params = dict(PARAMETER_DEFAULTS)
        env: dict[str, Pool] = {}
        states: list[StateDef] = []
        transitions: list[TransitionDef] = []
        initial: list[str] = []
        finals: list[tuple[str, str]] = []
        outputs: list[tuple[str, str]] = []
        state_names: dict[str, tuple[str, ...]] = {}
        step_of: dict[str, str] = {}  # each product state's step
        # steps not derived because they failed or depend on one that did: reported once
        unknown: dict[str, str] = {}
        self.unknown_steps = unknown
        self.step_pools = env  # earlier steps an argument may name (a ligation partner)
        self.partner_steps = []
        members, growth = (decl.body.members if decl.body else ()), Growth()
        if len(members) > MAX_WORKFLOW_STEPS:
            raise Failure(
                "E0415",
                f"workflow has {len(members)} steps, more than {MAX_WORKFLOW_STEPS}",
                decl.name_span,
            )
        for member in members:
            try:
                match member:
                    case ast.Entry(keyword="input", name=name) if name:
                        pool = self.input_pool(member)
                        env[name] = pool
                        given = _named_state(name, pool.products[0], member.title or "")
                        states.append(
                            evolve(given, status="declared", status_reason="workflow input")
                        )
                        state_names[name] = (name,)
                        initial.append(name)
                    case ast.Binding(name=name, value=value):
                        pool, transition = self.step(decl.name, name, value, env, state_names)
                        _bounded(growth.exceeded(pool), member.span)  # E0460
                        env[name] = pool
                        product_names = []
                        for idx, product in enumerate(pool.products):
                            pname = name if len(pool.products) == 1 else f"{name}_{idx + 1}"
                            product_names.append(pname)
                            step_of[pname] = name
                            states.append(_named_state(pname, product, product.name))
                        state_names[name] = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.CARRIED
                        )
                        _name_products(env, state_names, name, product_names, pool)
                        carried = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.CARRIED
                        )
                        discarded = tuple(
                            n
                            for n, p in zip(product_names, pool.products, strict=True)
                            if p.disposition is Disposition.DISCARDED
                        )
                        transitions.append(
                            evolve(
                                transition,
                                products=tuple(product_names),
                                carried=carried,
                                discarded=discarded,
                            )
                        )
                        if not carried:
                            reasons = "; ".join(
                                sorted({p.reason for p in pool.products if p.reason})
                            )
                            raise Failure(
                                "E0404",
                                f"step `{name}` leaves no product to carry forward",
                                member.span,
                                notes=[reasons] if reasons else (),
                                help="check primers and adapters: every product was discarded",
                            )
                    case ast.ExprEntry(keyword="output", value=ast.Name(id=out)):
                        modality = "gene expression"
                        for clause in member.clauses:
                            if clause.keyword == "as" and isinstance(
                                clause.value, ast.Name | ast.String
                            ):
                                modality = modality_of(word_of(clause.value) or "")
                        if out in unknown:
                            continue
                        if out not in state_names:
                            raise Failure(
                                "E0412",
                                f"output `{out}` is not a step of this workflow",
                                member.value.span,
                            )
                        finals.extend((s, modality) for s in state_names[out])
                        outputs.extend((s, out) for s in state_names[out])
                    case ast.ExprEntry(keyword="expect", value=value):
                        self.expect(value, env)
                    case ast.Entry(keyword="param"):
                        self.param(member)
                    case _:
                        pass
            except Unknown as missing:
                # depends on a step that failed: not derived, and not a second error
                _mark_unknown(
                    member, env, unknown, f"depends on `{missing}`, which was not derived"
                )
            except Failure as failure:
                self.fail(failure)
                _mark_unknown(member, env, unknown, f"step failed with {failure.code}")
            except ops.OperationFailure as failure:
                self.error(
                    failure.code,
                    failure.message,
                    member.span,
                    notes=failure.notes,
                    help=failure.help,
                )
                _mark_unknown(member, env, unknown, f"step failed with {failure.code}")
        if not finals and transitions:
            last = transitions[-1]
            finals = [(s, "gene expression") for s in last.carried]
        graph = Graph(
            decl.name,
            _unknown_products(states, step_of, unknown),
            tuple(transitions),
            tuple(initial),
            tuple(finals),
            derived=True,
            outputs=tuple(outputs),
            unknown=tuple(unknown),
        )
        self.unknown.update({f"{decl.name}.{k}": v for k, v in unknown.items()})
        return graph, env

    def param(self, entry: ast.Entry) -> None:
        """`param min_anneal: 15` / `param nontemplated: "CC"`: an interpreter parameter
        for the steps of this workflow that follow (defaults: `stdlib/molecular.lab`)."""
        name = entry.name or ""
        if name not in PARAMETER_DEFAULTS:
            raise Failure(
                "E0412",
                f"`{name}` is not a parameter of the molecular interpreter",
                entry.span,
                help="parameters: " + ", ".join(f"`{k}`" for k in PARAMETER_DEFAULTS),
            )
        value = entry.type
        if name in BUFFER_FIELDS:
            self.params[name] = buffer_param(name, value, entry.span)
        elif name == "min_anneal":
            if not isinstance(value, ast.Number | ast.Quantity):
                raise Failure("E0412", "`min_anneal` is a number of bases", entry.span)
            count = self.arg_value(value, [])
            if not 1 <= count <= 200:
                raise Failure(
                    "E0412",
                    f"`min_anneal` must be between 1 and 200 bases, not {count}",
                    entry.span,
                )
            self.params[name] = count
        elif name == "nontemplated":
            text = value.value if isinstance(value, ast.String) else None
            if text is None or len(text) > 10 or set(text) - set("ACGT"):
                raise Failure(
                    "E0412", '`nontemplated` is a short string of bases, e.g. "CCC"', entry.span
                )
            self.params[name] = text

    def input_pool(self, entry: ast.Entry) -> Pool:
        if not isinstance(entry.type, ast.Sequence):
            raise Failure(
                "E0412",
                f"input `{entry.name}` needs a sequence such as `RNA 5'-[CDNA] (A)30-3'`",
                entry.span,
            )
        seq = self.sequence(self.info, entry.type)
        moltype = MolType.RNA if entry.type.moltype == "RNA" else MolType.DNA
        name = entry.name or "input"
        shape = _input_shape(entry)
        if shape in ("duplex", "circular"):  # `as circular`: a plasmid, read from an origin
            circle = shape == "circular"
            duplex = Duplex(core=seq, top_name=name, bottom_name=f"{name}'", circular=circle)
            return Pool.of(duplex, name)
        return Pool.of(Single(Strand(seq, moltype, name)), name)

    def step(
        self,
        workflow: str,
        name: str,
        value: ast.Expr,
        env: dict[str, Pool],
        state_names: dict[str, tuple[str, ...]],
    ) -> tuple[Pool, TransitionDef]:
        chain: list[tuple[str, ast.Call | ast.Name]] = []
        node: ast.Expr = value
        while isinstance(node, ast.Binary) and node.op == "|>":
            if not isinstance(node.right, ast.Call | ast.Name):
                raise Failure(
                    "E0412", "the right side of `|>` must be an operation", node.right.span
                )
            chain.append((func_name(node.right), node.right))
            node = node.left
        if not isinstance(node, ast.Call):
            raise Failure(
                "E0412",
                f"step `{name}` must call an operation, such as `pcr(x, primers: [F, R])`",
                node.span,
            )
        chain.append((func_name(node), node))
        chain.reverse()
        first_name, first_call = chain[0]
        assert isinstance(first_call, ast.Call)
        if not first_call.args or first_call.args[0].name is not None:
            raise Failure(
                "E0412",
                f"`{first_name}` needs the molecule it acts on as its first argument",
                first_call.span,
            )
        subject = first_call.args[0].value
        if isinstance(subject, ast.Call) and func_name(subject) == "merge" and subject.args:
            subject = subject.args[0].value  # `gap_fill(merge([a, b]))` is `gap_fill([a, b])`
        items = subject.items if isinstance(subject, ast.ListExpr) else [subject]
        sources: list[str] = []
        for item in items:
            if isinstance(item, ast.Name):
                self.known_or_raise(item.id)
            if not isinstance(item, ast.Name) or item.id not in env:
                raise Failure(
                    "E0412",
                    "the first argument must be an input or an earlier step of this workflow, "
                    "or a list of them (`[a, b]` or `merge([a, b])`)",
                    item.span,
                    help="known: " + ", ".join(f"`{k}`" for k in env),
                )
            sources.append(item.id)
        if not sources:
            raise Failure("E0412", "an empty list merges nothing", subject.span)
        pool = env[sources[0]] if len(sources) == 1 else _pooled([env[s] for s in sources])
        oligo_names: list[str] = []
        reagents: list[tuple[str, str]] = []
        self.partner_steps = []
        for op_name, call in chain:
            kwargs = self.call_args(call, oligo_names)
            pool = self.apply(op_name, call, pool, kwargs)
        found = REGISTRY.get(first_name)
        operation = found.lsb if found is not None else "other"
        detail = " |> ".join(n for n, _ in chain)
        transition = TransitionDef(
            name=name,
            operation=operation,
            substrates=_states_of((*sources, *self.partner_steps), state_names),
            oligos=tuple(dict.fromkeys(oligo_names)),
            reagents=tuple(reagents),
            detail=detail,
            params=tuple(sorted(self.params.items())),
        )
        return pool, transition

    def expect(self, value: ast.Expr, env: dict[str, Pool]) -> None:
        if not (
            isinstance(value, ast.Binary)
            and value.op == "=="
            and isinstance(value.right, ast.Sequence)
        ):
            return
        left = value.left
        strand_name = "top"
        if isinstance(left, ast.Attribute) and left.name in ("top", "bottom"):
            strand_name = left.name
            left = left.value
        if isinstance(left, ast.Name) and left.id in self.unknown_steps:
            return  # the step was not derived: its failure is already reported
        if not isinstance(left, ast.Name) or left.id not in env:
            raise Failure(
                "E0412",
                "`expect` compares a step's strand, as in `expect lib.top == 5'-...-3'`",
                value.left.span,
            )
        carried = env[left.id].carried
        if not carried:
            return
        molecule = carried[0].molecule
        got = (
            top_strand(molecule)
            if strand_name == "top" or isinstance(molecule, Single)
            else molecule.bottom
        )
        want = self.sequence(self.info, value.right)
        diff = sequence_difference(want, got)
        if diff is not None:
            raise Failure(
                "E0416",
                f"`{left.id}.{strand_name}` differs from the expected sequence at segment `{diff}`",
                value.span,
                notes=[f"expected: {render(want)}", f"derived:  {render(got)}"],
                help="correct the expectation or the workflow step that makes it",
            )

    # -- declared states and transitions


def _input_shape(entry: ast.Entry) -> str | None:
    """What an input's `as` says: `duplex`, `circular`, or None (a single strand)."""
    for clause in entry.clauses:
        if clause.keyword == "as" and not isinstance(clause.value, ast.Assignment):
            return word_of(clause.value)
    return None


def _states_of(steps: tuple[str, ...], state_names: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The states the named steps (inputs, earlier steps, ligation partners) stand for."""
    return tuple(dict.fromkeys(n for s in steps for n in state_names.get(s, (s,))))


def _name_products(
    env: dict[str, Pool],
    state_names: dict[str, tuple[str, ...]],
    step: str,
    product_names: list[str],
    pool: Pool,
) -> None:
    """Each carried product of a step with several (`d_2`, as its state is named) is a
    molecule a later step may take alone, as a gel band is cut out: `ligate(d_2,
    adapter: i_1)`, `expect d_2.top == ...`."""
    if len(product_names) < 2:
        return
    for pname, product in zip(product_names, pool.products, strict=True):
        if product.disposition is Disposition.CARRIED and pname not in env:
            env[pname] = Pool((product,))
            state_names[pname] = (pname,)


def _mark_unknown(
    member: ast.Member, env: dict[str, Pool], unknown: dict[str, str], why: str
) -> None:
    """A failed step (or one that depends on it) is unknown: later steps that use it
    are skipped silently, and what realizes it is reported as unknown, not wrong."""
    name = member.name if isinstance(member, ast.Binding | ast.Entry) else None
    if name:
        env.pop(name, None)
        unknown[name] = why


def _unknown_products(
    states: list[StateDef], step_of: dict[str, str], unknown: dict[str, str]
) -> tuple[StateDef, ...]:
    """The states, each product of a step that failed (its E0404 discarded them all)
    marked unknown: not derived, so nothing downstream is checked against it."""
    return tuple(
        evolve(s, status="unknown", status_reason=unknown[step_of[s.name]])
        if step_of.get(s.name) in unknown
        else s
        for s in states
    )


def _named_state(name: str, product: Product, title: str) -> StateDef:
    state = state_from_molecule(name, product.molecule, title)
    return evolve(state, disposition_reason=product.reason)


def _pooled(pools: list[Pool]) -> Pool:
    """The carried products of several steps in one pool (a `merge([a, b])` subject)."""
    return Pool(tuple(product for pool in pools for product in pool.carried))


def buffer_param(name: str, value: ast.Expr | None, span: Span) -> QuantityValue:
    """A buffer concentration (`param salt: 50 mM`): a molar concentration within the
    bounds of BUFFER_FIELDS, else E0429 with the default as its fix."""
    written = value if isinstance(value, ast.Quantity) else None
    amount, problem = buffer_amount(
        name, written.number if written else None, written.unit if written else None
    )
    if problem:
        default = PARAMETER_DEFAULTS[name]
        where = value.span if value is not None else span
        raise Failure(
            "E0429",
            problem + " (the buffer melting temperatures are computed in)",
            where,
            help=f"write the concentration in the reaction, e.g. `{default}` (primer3's default)",
            fix=Fix(f"use `{default}`", (Edit(where, str(default)),)),
        )
    return cast(QuantityValue, amount)
