"""A hypothesis strategy for random small contracts (as `.lab` text), and the comparison
of `verify`'s verdicts with the reference explicit-state checker's answers."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from lablang.contracts.model import Contract
from lablang.contracts.reference import Answers
from lablang.contracts.results import BOUNDED, HOLDS, PROVED, UNKNOWN, VIOLATED, Result


@st.composite
def contracts(draw: Any) -> str:
    """A contract of 1-3 small variables, optional evidence and outcome, 1-3 operations
    (some with a parameter), a goal, maybe a terminal, invariants, a pair, a
    commutation claim and an `eventually` with fair operations."""
    n_vars = draw(st.integers(1, 3))
    ints: dict[str, int] = {}  # name -> highest value (all ranges start at 0)
    bools: list[str] = []
    lines = []
    for i in range(n_vars):
        name = f"v{i}"
        if draw(st.booleans()):
            bools.append(name)
            lines.append(f"  var {name}: bool" + _visible(draw, bools[:-1]))
        else:
            hi = draw(st.integers(1, 3))
            ints[name] = hi
            init = draw(st.sampled_from(["", f" init: {draw(st.integers(0, hi))}"]))
            vis = _visible(draw, bools, inner=True)
            body = " ".join(x for x in (init.strip(), vis) if x)
            lines.append(f"  var {name}: int[0..{hi}]" + (f" {{ {body} }}" if body else ""))
    evidence = draw(st.booleans())
    if evidence:
        auth = draw(st.sampled_from(["false", "true", *(bools or ["false"])]))
        lines.append(f"  evidence e: bool {{ authorized: {auth} }}")
    outcome = draw(st.booleans())
    if outcome:
        lines.append("  outcome o: bool")
    conds = _conditions(bools, ints, evidence)
    ops = []
    for j in range(draw(st.integers(1, 3))):
        param = draw(st.booleans()) and bool(ints)
        local = conds + ([f"k == {v}" for v in ints] if param else [])
        req = _expr(draw, local)
        effects = []
        for name in draw(st.lists(st.sampled_from(bools + list(ints)), max_size=2, unique=True)):
            effects.append(f"{name} = {_value(draw, name, bools, ints, evidence, outcome, param)}")
        head = f"  op op{j}" + ("(k: int[0..2])" if param else "")
        ops.append(f"op{j}")
        lines.append(
            head
            + f" requires {req}"
            + (" {\n    " + "\n    ".join(effects) + "\n  }" if effects else "")
        )
    lines.append(f"  goal {_expr(draw, conds)}")
    if draw(st.booleans()):
        lines.append(f"  terminal {_expr(draw, conds)}")
    for _ in range(draw(st.integers(0, 2))):
        lines.append(f"  invariant {_expr(draw, conds)}")
    if draw(st.booleans()):
        lines.append(f"  invariant {_expr(draw, conds)} -> {_expr(draw, conds)}")
    if evidence and draw(st.booleans()):
        lines.append(f"  pair p {{ e = false }} vs {{ e = true }} at {draw(st.sampled_from(ops))}")
    if len(ops) >= 2 and draw(st.booleans()):
        lines.append(f"  commute({ops[0]}, {ops[-1]})")
    if draw(st.booleans()):
        fair = draw(st.lists(st.sampled_from(ops), max_size=2, unique=True))
        goal = _expr(draw, conds)
        if draw(st.booleans()):
            # an operation that ends it, always legal until then, beside one that changes
            # nothing: the idle loop avoids the condition only if `finish` is not fair
            lines += ["  var w: bool", "  op finish requires not w effect w = true"]
            lines.append(f"  op idle requires {_expr(draw, conds)}")
            fair = draw(st.lists(st.sampled_from(["finish", *fair]), max_size=2, unique=True))
            goal = f"w or {goal}"
        shown = f", fair: [{', '.join(fair)}]" if fair else ""
        lines.append(f"  eventually({goal}{shown})")
    return "contract r {\n" + "\n".join(lines) + "\n}\n"


def _visible(draw: Any, bools: list[str], inner: bool = False) -> str:
    if not bools or not draw(st.booleans()):
        return ""
    text = f"visible: {draw(st.sampled_from(bools))}"
    return text if inner else f" {{ {text} }}"


def _conditions(bools: list[str], ints: dict[str, int], evidence: bool) -> list[str]:
    conds = list(bools) + [f"not {b}" for b in bools]
    for name, hi in ints.items():
        conds += [f"{name} == {hi}", f"{name} < {hi}", f"{name} != 0", f"{name} == 0"]
    if evidence:
        conds += ["e", "not e"]
    return conds


def _expr(draw: Any, atoms: list[str]) -> str:
    if not atoms:
        return "true"
    first = draw(st.sampled_from(atoms))
    shape = draw(st.integers(0, 3))
    if shape == 0:
        return first
    second = draw(st.sampled_from(atoms))
    return f"({first} {'and' if shape < 3 else 'or'} {second})"


def _value(
    draw: Any,
    name: str,
    bools: list[str],
    ints: dict[str, int],
    evidence: bool,
    outcome: bool,
    param: bool,
) -> str:
    if name in bools:
        choices = ["true", "false", f"not {name}", *bools]
        if evidence:
            choices.append("e")
        if outcome:
            choices.append("o")
        return draw(st.sampled_from(choices))
    hi = ints[name]
    choices = [str(draw(st.integers(0, hi))), f"({name} + 1) % {hi + 1}", f"{name} + 1"]
    if param:
        choices.append("k")
    if bools:
        choices.append(f"if({draw(st.sampled_from(bools))}, 0, {hi})")
    if evidence:
        choices.append(f"if(e, {hi}, 0)")
    if outcome:
        choices.append(f"if(o, 0, {name})")
    return draw(st.sampled_from(choices))


# ------------------------------------------------------------------ the comparison
def disagreements(contract: Contract, results: list[Result], ref: Answers, depth: int) -> list[str]:
    """Every verdict of `verify` that the reference answers contradict (empty: agreement).
    `unknown` is never a disagreement: it claims nothing."""
    out: list[str] = []

    def first(r: Result, witness: int | None, what: str) -> None:
        """A check whose witness is a finding: violated at k iff the first witness is at
        k <= depth; holds iff none up to the depth; proved iff none at any depth."""
        if r.status == UNKNOWN:
            return
        if r.status == BOUNDED and witness != r.depth:
            out.append(f"{what}: verify open at {r.depth}, reference first witness {witness}")
        if r.status == VIOLATED and witness != r.depth:
            out.append(f"{what}: verify violated at {r.depth}, reference first witness {witness}")
        if r.status == HOLDS and witness is not None and witness <= depth:
            out.append(f"{what}: verify holds, reference witness at {witness}")
        if r.status == PROVED and witness is not None:
            out.append(f"{what}: verify proved, reference witness at {witness}")
        if r.status == VIOLATED and witness is None and not ref.exact:
            out.pop()  # beyond the reference's horizon: it cannot tell

    by_check: dict[str, list[Result]] = {}
    for r in results:
        by_check.setdefault(r.check, []).append(r)
    if "initial" in by_check:
        out.append("verify found no initial state; the reference always has one")
        return out
    for goal, r, reached in zip(contract.goals, by_check.get("goal", []), ref.goal, strict=False):
        if r.status == HOLDS and r.depth != reached:
            out.append(f"goal {goal.text}: verify reaches it at {r.depth}, reference {reached}")
        if r.status != HOLDS and r.status != UNKNOWN and reached is not None and reached <= depth:
            out.append(f"goal {goal.text}: verify {r.status}, reference reaches it at {reached}")
        if r.status == VIOLATED and reached is not None and ref.exact:
            out.append(f"goal {goal.text}: verify unreachable, reference reaches it at {reached}")
    for r in by_check.get("deadlock", []):
        first(r, ref.deadlock, "deadlock")
    for r in by_check.get("range", []):
        first(r, ref.range, "range")
    invariants = [r for r in results if r.check == "invariant"]
    for inv, r in zip(contract.invariants, invariants, strict=True):
        first(r, ref.invariants[contract.invariants.index(inv)], f"invariant {inv.text}")
    for r in by_check.get("vacuity", []):
        if r.status == UNKNOWN or not r.item.startswith("operation"):
            continue
        name = r.item.split("`")[1]
        firsts = [d for g, d in ref.enabled.items() if g.split("(")[0] == name and d is not None]
        seen = min(firsts) if firsts and min(firsts) <= depth else None
        if r.status == HOLDS and not r.message.startswith(f"first enabled after {seen} steps"):
            out.append(f"vacuity {name}: verify `{r.message}`, reference first enabled {seen}")
        if r.status == BOUNDED and seen is not None:
            out.append(f"vacuity {name}: verify not enabled, reference enabled at {seen}")
        ever = [d for g, d in ref.enabled.items() if g.split("(")[0] == name and d is not None]
        if r.status == VIOLATED and ever and ref.exact:
            out.append(f"vacuity {name}: verify never enabled, reference enabled at {min(ever)}")
        for note in r.details:
            if note.startswith("never enabled within depth"):
                for g in note.split(": ", 1)[1].split(", "):
                    d = ref.enabled[g]
                    if d is not None and d <= depth:
                        out.append(f"vacuity note: {g} said never enabled, reference at {d}")
    live = by_check.get("liveness", [])
    for r in live:
        j = next(i for i, g in enumerate(contract.goals) if r.item.endswith(g.text))
        first(r, ref.dead_end[j], f"liveness {contract.goals[j].text}")
        if r.status == VIOLATED and ref.exact and ref.lost[j] != r.depth:
            out.append(
                f"liveness {contract.goals[j].text}: verify says the goal is lost after "
                f"{r.depth} steps, reference first loses it at {ref.lost[j]}"
            )
    for pair, r in zip(contract.pairs, by_check.get("pair", []), strict=True):
        kind, k = ref.pairs[contract.pairs.index(pair)]
        if r.status == UNKNOWN:
            continue
        if r.status == BOUNDED and kind != "vacuous":
            out.append(f"pair {pair.name}: verify vacuous, reference {kind} {k}")
        if r.status == VIOLATED and (kind, k) != ("overlap", r.depth):
            out.append(f"pair {pair.name}: verify overlap at {r.depth}, reference {kind} {k}")
        if r.status == HOLDS and kind != "ok":
            out.append(f"pair {pair.name}: verify holds, reference {kind} {k}")
    for claim, r in zip(contract.commutes, by_check.get("commute", []), strict=True):
        first(r, ref.commutes[contract.commutes.index(claim)], f"commute {claim.a}, {claim.b}")
    for claim, r in zip(contract.eventually, by_check.get("eventually", []), strict=True):
        j = contract.eventually.index(claim)
        what = f"eventually {claim.goal.text} fair {list(claim.fair)}"
        if r.status == UNKNOWN or not ref.exact:
            continue  # a partial exploration cannot rule a lasso out
        lasso, ends = ref.lassos[j], ref.ends[j]
        if r.status == VIOLATED and lasso != r.depth:
            out.append(f"{what}: verify lasso of {r.depth} steps, reference shortest {lasso}")
        if r.status != VIOLATED and lasso is not None and lasso <= depth:
            out.append(f"{what}: verify {r.status}, reference lasso of {lasso} steps")
        if r.status == PROVED and (lasso is not None or ends != r.depth):
            out.append(f"{what}: verify proved at {r.depth}, reference {lasso}, runs end {ends}")
        if r.status == BOUNDED and ends is not None:
            out.append(f"{what}: verify open, reference: no run of {ends} steps avoids it")
    for r in by_check.get("noninterference", []):
        found = [d for d in (ref.leak, ref.interference) if d is not None]
        first(r, min(found) if found else None, "noninterference")
        if r.status == VIOLATED and "reveals" in r.message and ref.leak != r.depth:
            out.append(f"noninterference: verify leak at {r.depth}, reference leak {ref.leak}")
    return out
