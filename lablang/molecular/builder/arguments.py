"""A workflow step's call: its arguments read, checked against the registry, applied."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from lablang import ast
from lablang.check.names import did_you_mean
from lablang.diagnostics import Edit, Fix
from lablang.molecular import operations as ops
from lablang.molecular.builder.common import (
    Failure,
    Unknown,
    dotted,
)
from lablang.molecular.builder.declarations import (
    Declarations,
)
from lablang.molecular.molecule import (
    Disposition,
    Duplex,
    Pool,
    Product,
)
from lablang.molecular.ops import REGISTRY, Operation, Param
from lablang.molecular.ops.core import parse_end
from lablang.molecular.ops.registry import KINDS
from lablang.molecular.sequence import (
    SequenceError,
    plain,
    render,
)
from lablang.source import Span


class Arguments(Declarations):
    partner_steps: list[str]  # the earlier steps the step being derived names (`workflow`)

    def call_args(self, call: ast.Call | ast.Name, oligo_names: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if isinstance(call, ast.Name):
            return out
        for arg in call.args[1:] if call.args and call.args[0].name is None else call.args:
            if arg.name is None:
                raise Failure("E0412", "only the first argument may be unnamed", arg.span)
            out[arg.name] = self.arg_value(arg.value, oligo_names)
        return out

    def arg_value(self, expr: ast.Expr, oligo_names: list[str]) -> Any:
        match expr:
            case ast.Name(id=ident):
                found = self.lookup(self.info, [ident])
                if found is not None and found[1].kind == "oligo":
                    oligo_names.append(ident)
                    return self.oligo(*found).as_oligo()
                return ident
            case ast.Attribute():
                path = dotted(expr)
                found = self.lookup(self.info, path.split("."))
                if found is not None and found[1].kind == "oligo":
                    oligo_names.append(path)
                    return self.oligo(*found).as_oligo()
                return path
            case ast.ListExpr(items=items):
                return [self.arg_value(item, oligo_names) for item in items]
            case ast.String(value=value):
                return value
            case ast.Number(text=text):
                return int(Fraction(text))
            case ast.Quantity(number=number, unit=unit):
                scale = {"kb": 1000}.get(unit, 1)
                return int(Fraction(number) * scale)
            case ast.End() as end:
                return ast.end_text(end)
            case ast.Bool(value=value):
                return value
            case ast.Sequence():
                return self.sequence(self.info, expr)
        raise Failure(
            "E0412", "this argument is not a name, list, number, length or string", expr.span
        )

    def step_value(self, ident: str) -> Any:
        """An earlier step of the workflow named for a `partner` argument (a ligation
        partner): its carried products, recorded as a substrate of the step; a step that
        was not derived makes this one unknown too. Any other name stays itself."""
        self.known_or_raise(ident)
        if ident not in self.step_pools:
            return ident
        self.partner_steps.append(ident)
        return ops.Fragments(ident, tuple(p.molecule for p in self.step_pools[ident].carried))

    def known_or_raise(self, ident: str) -> None:
        """`Unknown` when `ident` is a step that was not derived, or one product of it
        (`d_2` of a failed `d`): what names it is not derived either."""
        if ident in self.step_pools:
            return
        step = ident.rpartition("_")[0] if ident.rpartition("_")[2].isdigit() else ident
        for each in (ident, step):
            if each in self.unknown_steps:
                raise Unknown(each)

    def apply(
        self, op_name: str, call: ast.Call | ast.Name, pool: Pool, kwargs: dict[str, Any]
    ) -> Pool:
        op = REGISTRY.get(op_name)
        if op is None:
            raise Failure(
                "E0412",
                f"`{op_name}` is not a molecular operation",
                call.span,
                help="operations: " + ", ".join(sorted(REGISTRY)),
            )
        kwargs = self.check_args(op, call, kwargs)
        circle = any(_circular(p.molecule) for p in pool.carried)
        if circle and not (op.circular or op.on_pool):
            raise Failure(
                "E0428",
                f"`{op_name}` needs a linear molecule, and this one is circular (it has no ends)",
                call.span,
                help="open the circle first: `digest` it at a site (one site linearizes it); "
                "`pcr` and `digest` take circles",
            )
        if "min_anneal" in op.uses:
            kwargs = {"min_match": self.params["min_anneal"], **kwargs}
        if "nontemplated" in op.uses:
            kwargs = {"nontemplated": self.params["nontemplated"], **kwargs}
        try:
            if op.on_pool:
                result = op.function(pool, **kwargs)
                out = result if isinstance(result, Pool) else Pool.of(result)
            else:
                out = self.map_pool(op, call, pool, kwargs)
        except ops.OperationFailure as failure:
            raise Failure(
                failure.code, failure.message, call.span, notes=failure.notes, help=failure.help
            ) from None
        except SequenceError as error:
            raise Failure("E0412", f"`{op_name}`: {error}", call.span) from None
        for code, message, help in dict.fromkeys(out.cautions):
            self.error(code, message, call.span, help=help)
        return out

    def map_pool(
        self, op: Operation, call: ast.Call | ast.Name, pool: Pool, kwargs: dict[str, Any]
    ) -> Pool:
        """Run `op` on each carried molecule of the pool.

        In a mix, a molecule the operation cannot act on (no primer site, ends that
        cannot ligate, no promoter) is not carried on, with the reason, as a PCR leaves
        what it does not amplify; an enzyme registered `untouched="carried"` leaves a
        molecule it has no substrate in (`NoSubstrate`) in the tube unchanged. Only when
        every molecule is refused is it an error.
        """
        products: list[Product] = []
        cautions: list[tuple[str, str, str]] = []
        refused: list[ops.OperationFailure] = []
        carried = pool.carried
        for product in carried:
            try:
                result = op.function(product.molecule, **kwargs)
            except ops.OperationFailure as failure:
                if failure.code == "E0415" or len(carried) == 1:
                    raise
                refused.append(failure)
                if op.untouched == "carried" and isinstance(failure, ops.NoSubstrate):
                    products.append(
                        Product(
                            product.molecule,
                            Disposition.CARRIED,
                            f"untouched by `{op.name}`: {failure.message}",
                            name=product.name,
                        )
                    )
                    continue
                products.append(
                    Product(
                        product.molecule,
                        Disposition.DISCARDED,
                        failure.message.split(":")[0] + ": not carried"
                        if failure.code == "E0401"
                        else f"not carried: {failure.message}",
                        name=product.name,
                    )
                )
                continue
            if isinstance(result, Pool):
                products.extend(result.products)
                cautions.extend(result.cautions)
            else:
                products.append(Product(result, name=product.name))
            if len(products) > ops.MAX_PRODUCTS:
                raise Failure(
                    "E0415",
                    f"`{op.name}` gives more than {ops.MAX_PRODUCTS} products",
                    call.span,
                )
        if refused and len(refused) == len(carried):
            raise refused[0]
        return Pool(_distinct(products), tuple(cautions))

    def check_args(
        self, op: Operation, call: ast.Call | ast.Name, given: dict[str, Any]
    ) -> dict[str, Any]:
        """The keyword arguments for `op.function`, every argument checked against the
        registry: unknown (E0412), of the wrong kind (E0412), required but missing (E0418)."""
        known = ", ".join(f"`{p.name}`" for p in op.params) or "none"
        out: dict[str, Any] = {}
        for key, value in given.items():
            param = op.param(key)
            if param is None:
                raise self.unknown_argument(op, call, key, known)
            self.check_oligo_names(param, call, key)
            value = self.checked_value(op, param, value, call)
            if param.keyword is not None:
                out[param.keyword] = value
        missing = [p for p in op.params if p.required and p.name not in given]
        if missing:
            names = ", ".join(f"`{p.name}`" for p in missing)
            first = missing[0]
            raise Failure(
                "E0418",
                f"`{op.name}` needs {names}",
                call.span,
                label=f"`{first.name}` is missing",
                notes=[f"`{p.name}`: {p.doc} ({KINDS[p.kind]})" for p in missing],
                help=f"write `{op.signature()}`",
            )
        return out

    def unknown_argument(
        self, op: Operation, call: ast.Call | ast.Name, key: str, known: str
    ) -> Failure:
        """E0412 with "did you mean" over this operation's arguments and the rename."""
        guess = did_you_mean(key, [p.name for p in op.params])
        arg = _named_arg(call, key)
        span = Span(arg.span.start, arg.span.start + len(key)) if arg is not None else call.span
        fix = Fix(f"use `{guess}`", (Edit(span, guess),)) if guess and arg is not None else None
        listed = f"arguments of `{op.signature()}`: {known}"
        return Failure(
            "E0412",
            f"`{op.name}` has no argument `{key}`",
            span,
            label="not an argument of this operation",
            help=f"did you mean `{guess}`? {listed}" if guess else listed,
            fix=fix,
        )

    def check_oligo_names(self, param: Param, call: ast.Call | ast.Name, key: str) -> None:
        """A name given for an oligo that no oligo in scope has: E0203, with the closest
        oligo name and the rename as its fix."""
        if param.kind not in ("oligo", "oligos", "probe", "partner"):
            return
        arg = _named_arg(call, key)
        if arg is None:
            return
        names = arg.value.items if isinstance(arg.value, ast.ListExpr) else (arg.value,)
        for node in names:
            if not isinstance(node, ast.Name):
                continue
            found = self.lookup(self.info, [node.id])
            if found is None and param.kind == "partner":
                self.known_or_raise(node.id)  # a partner step that failed: unknown
                if node.id in self.step_pools:
                    continue
            if found is not None:
                continue
            if param.kind == "probe":
                continue  # a probe may be a segment role or a modification name
            candidates = [d.name for d in self.info.module.decls if d.kind == "oligo"]
            candidates += [n for n, sym in self.info.imported.items() if sym.decl.kind == "oligo"]
            guess = did_you_mean(node.id, candidates)
            raise Failure(
                "E0203",
                f"oligo `{node.id}` is not declared",
                node.span,
                label="not declared in this module or its imports",
                help=f"did you mean `{guess}`?"
                if guess
                else "declare it with `oligo`, or import it with `use`",
                fix=Fix(f"use `{guess}`", (Edit(node.span, guess),)) if guess else None,
            )

    def checked_value(
        self, op: Operation, param: Param, value: Any, call: ast.Call | ast.Name
    ) -> Any:
        kind = param.kind
        if kind == "partner" and isinstance(value, str):
            value = self.step_value(value)
        ok = {
            "oligo": isinstance(value, ops.Oligo),
            "oligos": isinstance(value, list) and all(isinstance(v, ops.Oligo) for v in value),
            "partner": isinstance(value, ops.Oligo | ops.Fragments),
            "probe": isinstance(value, ops.Oligo | str),
            "text": isinstance(value, str),
            "names": isinstance(value, str)
            or (isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)),
            "end": isinstance(value, str) and parse_end(value) is not None,
            "number": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            "bool": isinstance(value, bool),
            "any": True,
        }[kind]
        if ok and param.choices and value not in param.choices:
            raise Failure(
                "E0412",
                f"`{param.name}` of `{op.name}` must be one of {', '.join(param.choices)}, "
                f"not `{value}`",
                call.span,
            )
        if not ok:
            raise Failure(
                "E0412",
                f"`{param.name}` of `{op.name}` must be {KINDS[kind]}",
                call.span,
                help="declare the oligo with `oligo` and pass its name"
                + (", or name an earlier step" if kind == "partner" else "")
                if kind in ("oligo", "oligos", "partner")
                else f"`{param.name}`: {param.doc}",
            )
        return value


def _circular(molecule: object) -> bool:
    return isinstance(molecule, Duplex) and molecule.circular


def _named_arg(call: ast.Call | ast.Name, key: str) -> ast.Arg | None:
    if isinstance(call, ast.Name):
        return None
    return next((a for a in call.args if a.name == key), None)


def _distinct(products: list[Product]) -> tuple[Product, ...]:
    """Products that are the same molecule (made from different inputs of a mix) once."""
    from lablang.molecular.molecule import strands as molecule_strands

    seen: set[tuple[str, ...]] = set()
    out = []
    for product in products:
        key = (
            product.disposition.value,
            *(render(plain(s.seq)) for s in molecule_strands(product.molecule)),
        )
        if key not in seen:
            seen.add(key)
            out.append(product)
    return tuple(out)
