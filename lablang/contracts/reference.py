"""A reference explicit-state model checker, for differential testing of `verify`.

Written for clarity, not speed: it enumerates every evidence value and every outcome
of every step, explores the finite state space breadth-first with the runtime
semantics (`lablang.contracts.semantics`, no solver), and answers each question
`verify` asks with the depth of its first witness. A depth of `None` means "no
witness at any depth" (the whole reachable space was explored); every answer is exact
for the contract, so `verify`'s `holds` (no witness up to the depth), `proved` (none at
any depth) and `violated at k` (the first witness is at k) can each be compared.

Only for small contracts: `max_states` bounds the exploration (ReferenceTooLarge).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from typing import Any

from attrs import frozen

from lablang.contracts.model import (
    Binary,
    Contract,
    GroundOp,
    Pair,
    domain,
    ground,
)
from lablang.contracts.semantics import (
    Evaluator,
    State,
    apply,
    in_domain,
    initial_state,
    is_terminal,
    legal_ground,
    state_env,
)

Node = tuple[tuple[Any, ...], tuple[Any, ...]]  # (evidence values, variable values)


class ReferenceTooLarge(Exception):
    """The contract has more states than the reference checker explores."""


@frozen(kw_only=True)
class Answers:
    """The first depth of a witness for each question (None: none at any depth)."""

    goal: tuple[int | None, ...]  # first depth where each goal holds
    deadlock: int | None
    range: int | None
    invariants: tuple[int | None, ...]
    enabled: dict[str, int | None]  # ground operation name -> first depth it is legal
    premises: dict[int, int | None]  # invariant index of `p -> q` -> first depth p holds
    dead_end: tuple[int | None, ...]  # per goal, for the bound: first depth of a dead end
    commutes: tuple[int | None, ...]  # per `commute(a, b)`: first depth where order matters
    lassos: tuple[int | None, ...]  # per `eventually`: steps of the shortest fair lasso
    ends: tuple[int | None, ...]  # per `eventually`: the fewest k (at most the depth) such
    # that no run of k steps avoids its condition (None: some run of `depth` steps does)
    lost: tuple[int | None, ...]  # per goal: first depth of a state from which no execution
    # of any length reaches it (exact only when the whole space was explored)
    pairs: tuple[tuple[str, int | None], ...]  # per pair: ("overlap"|"vacuous"|"ok", depth)
    leak: int | None  # first depth a visible variable reveals unauthorized evidence
    interference: int | None  # first depth two equal views have different legal sets
    exact: bool  # False: the space is too large (values left their types), so only
    # depths up to `horizon` were explored and "none" means "none up to the horizon"
    horizon: int | None


class Explorer:
    """The contract's transition graph, built on demand from the runtime semantics."""

    def __init__(self, contract: Contract, max_states: int = 20_000) -> None:
        self.c = contract
        self.max_states = max_states
        self.vars = [v.name for v in contract.variables]
        self.ev_names = [e.name for e in contract.evidence]
        self.ops = ground(contract)
        self.outcome_choices = [
            dict(zip([o.name for o in contract.outcomes], values, strict=True))
            for values in itertools.product(*(domain(o.type) for o in contract.outcomes))
        ]

    # ---- nodes
    def node(self, evidence: dict[str, object], state: State) -> Node:
        return (
            tuple(evidence[n] for n in self.ev_names),
            tuple(state[n] for n in self.vars),
        )

    def unpack(self, node: Node) -> tuple[dict[str, object], State]:
        return dict(zip(self.ev_names, node[0], strict=True)), dict(
            zip(self.vars, node[1], strict=True)
        )

    def initial(self) -> list[Node]:
        result = []
        for values in itertools.product(*(domain(e.type) for e in self.c.evidence)):
            evidence = dict(zip(self.ev_names, values, strict=True))
            result.append(self.node(evidence, initial_state(self.c, evidence)))
        return result

    def legal(self, node: Node) -> list[GroundOp]:
        evidence, state = self.unpack(node)
        return legal_ground(self.c, state, evidence)

    def successors(self, node: Node, g: GroundOp) -> list[tuple[dict[str, object], Node]]:
        """Per outcome choice, the next node after `g` (legal in `node`)."""
        evidence, state = self.unpack(node)
        return [
            (outs, self.node(evidence, apply(self.c, state, evidence, g, outs)))
            for outs in self.outcome_choices
        ]

    def step(self, node: Node) -> Iterator[tuple[GroundOp, Node]]:
        for g in self.legal(node):
            for _, nxt in self.successors(node, g):
                yield g, nxt

    def holds(self, node: Node, expr: Any) -> bool:
        evidence, state = self.unpack(node)
        return bool(Evaluator(self.c).evaluate(expr, state_env(self.c, state, evidence)))

    def terminal(self, node: Node) -> bool:
        evidence, state = self.unpack(node)
        return is_terminal(self.c, state, evidence)

    # ---- breadth-first layers
    def layers(self, horizon: int | None = None) -> dict[Node, int]:
        """Every reachable node with its distance from an initial node (only up to
        distance `horizon` when given)."""
        dist: dict[Node, int] = {}
        queue: deque[Node] = deque()
        for n in self.initial():
            if n not in dist:
                dist[n] = 0
                queue.append(n)
        while queue:
            n = queue.popleft()
            if horizon is not None and dist[n] >= horizon:
                continue
            for _, nxt in self.step(n):
                if nxt not in dist:
                    if len(dist) >= self.max_states:
                        raise ReferenceTooLarge(f"more than {self.max_states} states")
                    dist[nxt] = dist[n] + 1
                    queue.append(nxt)
        return dist


def _first(dist: dict[Node, int], pred: Any) -> int | None:
    depths = [d for n, d in dist.items() if pred(n)]
    return min(depths) if depths else None


def answers(contract: Contract, depth: int, max_states: int = 20_000) -> Answers:
    """Every question `verify` asks, answered by explicit enumeration."""
    x = Explorer(contract, max_states)
    horizon: int | None = None
    try:
        dist = x.layers()
    except ReferenceTooLarge:
        # typically an effect that leaves its type and counts on forever: explore far
        # enough for every bounded question (liveness looks `depth` steps further)
        horizon = 2 * depth + 1
        dist = x.layers(horizon)
    c = contract
    goal = tuple(_first(dist, lambda n, g=g: x.holds(n, g.expr)) for g in c.goals)
    deadlock = _first(dist, lambda n: not x.terminal(n) and not x.legal(n))
    rng = _first(
        dist,
        lambda n: (
            not all(in_domain(v.type, value) for v, value in zip(c.variables, n[1], strict=True))
        ),
    )
    invariants = tuple(_first(dist, lambda n, i=i: not x.holds(n, i.expr)) for i in c.invariants)
    enabled: dict[str, int | None] = {g.name: None for g in x.ops}
    for n, d in dist.items():
        for g in x.legal(n):
            if enabled[g.name] is None or d < enabled[g.name]:  # type: ignore[operator]
                enabled[g.name] = d
    premises = {
        j: _first(dist, lambda n, p=inv.expr.left: x.holds(n, p))
        for j, inv in enumerate(c.invariants)
        if isinstance(inv.expr, Binary) and inv.expr.op == "implies"
    }
    to_goal = [_steps_to_goal(x, dist, g.expr) for g in c.goals]
    dead_end = tuple(_dead_end(dist, steps, depth) for steps in to_goal)
    lost = tuple(_dead_end(dist, steps, depth, forever=True) for steps in to_goal)
    commutes = tuple(_order_matters(x, dist, claim.a, claim.b) for claim in c.commutes)
    # lassos only over the whole space: a partial exploration cannot rule one out
    lassos = tuple(
        _shortest_lasso(x, claim.goal.expr, claim.fair) if horizon is None else None
        for claim in c.eventually
    )
    ends = tuple(_avoiding_runs_end(x, claim.goal.expr, depth) for claim in c.eventually)
    pairs = tuple(_pair(x, p, depth) for p in c.pairs)
    leak, interference = _noninterference(x, horizon)
    return Answers(
        goal=goal,
        deadlock=deadlock,
        range=rng,
        invariants=invariants,
        enabled=enabled,
        premises=premises,
        dead_end=dead_end,
        lost=lost,
        commutes=commutes,
        lassos=lassos,
        ends=ends,
        pairs=pairs,
        leak=leak,
        interference=interference,
        exact=horizon is None,
        horizon=horizon,
    )


def _steps_to_goal(x: Explorer, dist: dict[Node, int], goal: Any) -> dict[Node, int]:
    """For each explored node from which the goal can be reached, the fewest steps it
    takes (breadth-first over the reversed edges, from the goal states)."""
    back: dict[Node, set[Node]] = {n: set() for n in dist}
    for n in dist:
        for _, nxt in x.step(n):
            if nxt in dist:  # beyond the horizon of a partial exploration: unknown
                back[nxt].add(n)
    steps = {n: 0 for n in dist if x.holds(n, goal)}
    queue = deque(steps)
    while queue:
        n = queue.popleft()
        for before in back[n]:
            if before not in steps:
                steps[before] = steps[n] + 1
                queue.append(before)
    return steps


def _dead_end(
    dist: dict[Node, int], steps: dict[Node, int], bound: int, forever: bool = False
) -> int | None:
    """The first depth (at most `bound`) of a state from which no execution of at most
    `bound` steps (`forever`: of any length) reaches the goal; None if there is none
    within the bound."""
    dead = [
        d
        for n, d in dist.items()
        if d <= bound and (n not in steps or (not forever and steps[n] > bound))
    ]
    return min(dead) if dead else None


def _order_matters(x: Explorer, dist: dict[Node, int], a: str, b: str) -> int | None:
    """The first depth of a state where ground `a` and `b` are both legal and, for some
    outcomes (each operation's the same in either order), one order is illegal or the two
    end in different states."""
    found = []
    for node, d in dist.items():
        evidence, state = x.unpack(node)
        legal = x.legal(node)
        for ga, gb in itertools.product(legal, legal):
            if ga.op.name != a or gb.op.name != b:
                continue
            for oa, ob in itertools.product(x.outcome_choices, x.outcome_choices):
                ends: list[dict[str, object] | None] = []
                for g1, o1, g2, o2 in ((ga, oa, gb, ob), (gb, ob, ga, oa)):
                    mid = apply(x.c, state, evidence, g1, o1)
                    if g2 not in legal_ground(x.c, mid, evidence):
                        ends.append(None)
                    else:
                        ends.append(apply(x.c, mid, evidence, g2, o2))
                if None in ends or ends[0] != ends[1]:
                    found.append(d)
                    break
    return min(found) if found else None


def _avoiders(x: Explorer, goal: Any) -> tuple[dict[Node, int], dict[Node, list[tuple[str, Node]]]]:
    """The states reachable by runs on which `goal` never holds (with the fewest steps
    of such a run), and their edges among themselves (each labelled with its operation
    family; a terminal state stutters)."""
    dist: dict[Node, int] = {}
    edges: dict[Node, list[tuple[str, Node]]] = {}
    queue: deque[Node] = deque()
    for n in x.initial():
        if n not in dist and not x.holds(n, goal):
            dist[n] = 0
            queue.append(n)
    while queue:
        n = queue.popleft()
        out = [(g.op.name, nxt) for g, nxt in x.step(n)]
        if x.terminal(n):
            out.append(("", n))
        edges[n] = [(a, m) for a, m in out if not x.holds(m, goal)]
        for _, m in edges[n]:
            if m not in dist:
                if len(dist) >= x.max_states:
                    raise ReferenceTooLarge(f"more than {x.max_states} states")
                dist[m] = dist[n] + 1
                queue.append(m)
    return dist, edges


def _shortest_lasso(x: Explorer, goal: Any, fair: tuple[str, ...]) -> int | None:
    """The steps of the shortest lasso avoiding `goal`: the fewest steps to a state
    where no operation is legal, or to a state `v` plus the shortest loop from `v` back
    to `v` in which each fair operation family is taken on an edge or not legal in a
    state of the loop (a search over states and the set of fair operations served so
    far). None when there is none at any length."""
    dist, edges = _avoiders(x, goal)
    families = {f: i for i, f in enumerate(fair)}
    full = (1 << len(fair)) - 1

    def off(n: Node) -> int:
        legal = {g.op.name for g in x.legal(n)}
        return sum(1 << i for f, i in families.items() if f not in legal)

    best: int | None = None
    for v, d in sorted(dist.items(), key=lambda item: item[1]):
        if best is not None and d >= best:
            break
        if not x.legal(v):
            best = d
            continue
        start = (v, off(v))
        seen = {start: 0}
        queue = deque([start])
        while queue:
            n, mask = queue.popleft()
            for family, m in edges[n]:
                got = mask | (1 << families[family] if family in families else 0)
                if m == v and got == full:
                    loop = seen[(n, mask)] + 1
                    if best is None or d + loop < best:
                        best = d + loop
                    queue.clear()
                    break
                state = (m, got | off(m))
                if state not in seen:
                    seen[state] = seen[(n, mask)] + 1
                    queue.append(state)
    return best


def _avoiding_runs_end(x: Explorer, goal: Any, bound: int) -> int | None:
    """The fewest k <= `bound` such that no run of k steps (a terminal state stutters)
    avoids `goal` in every state; None when a run of `bound` steps avoids it."""
    layer = {n for n in x.initial() if not x.holds(n, goal)}
    for k in range(bound + 1):
        if not layer:
            return k
        if k == bound:
            return None
        nxt = set()
        for n in layer:
            if x.terminal(n):
                nxt.add(n)
            nxt |= {m for _, m in x.step(n) if not x.holds(m, goal)}
        layer = nxt
    return None


def _pair(x: Explorer, pair: Pair, bound: int) -> tuple[str, int | None]:
    """Two executions with the same operations (outcomes free on each side, unpinned
    evidence equal): the first depth at most `bound` where both sides meet their pins
    and their legal `at` sets overlap, else whether a choice was reached at all."""
    c = x.c
    ev = Evaluator(c)
    pinned = {p.name for p in pair.left + pair.right}
    variables = {v.name for v in c.variables}

    def meets(node: Node, pins: Any) -> bool:
        evidence, state = x.unpack(node)
        env = state_env(c, state, evidence)
        for pin in pins:
            want = ev.evaluate(pin.value, env)
            have = state[pin.name] if pin.name in variables else evidence[pin.name]
            if isinstance(want, dict):
                want = frozenset(k for k, v in want.items() if v)
            if have != want:
                return False
        return True

    def at_set(node: Node) -> set[str]:
        return {g.name for g in x.legal(node) if g.op.name in pair.at}

    starts = [
        (a, b)
        for a in x.initial()
        for b in x.initial()
        if all(
            va == vb
            for name, va, vb in zip(x.ev_names, a[0], b[0], strict=True)
            if name not in pinned
        )
    ]
    reached = False
    for k, layer in enumerate(_pair_layers(x, starts, bound, shared_outcomes=False)):
        for a, b in layer:
            if meets(a, pair.left) and meets(b, pair.right):
                la, lb = at_set(a), at_set(b)
                if la and lb:
                    reached = True
                    if la & lb:
                        return ("overlap", k)
    return ("ok", None) if reached else ("vacuous", None)


def _pair_layers(
    x: Explorer, starts: list[tuple[Node, Node]], bound: int | None, *, shared_outcomes: bool
) -> Iterator[set[tuple[Node, Node]]]:
    """The pairs of nodes reachable by the same operations, layer by layer (all pairs
    at exactly k steps); up to `bound`, or until no new pair appears (bound None)."""
    layer = set(starts)
    seen: set[tuple[Node, Node]] = set(layer)
    k = 0
    while layer:
        yield layer
        if bound is not None and k == bound:
            return
        nxt: set[tuple[Node, Node]] = set()
        for a, b in layer:
            if x.terminal(a) and x.terminal(b):
                nxt.add((a, b))  # both stutter
            la = {g.name: g for g in x.legal(a)}
            for g in x.legal(b):
                if g.name not in la:
                    continue
                sa, sb = x.successors(a, g), x.successors(b, g)
                if shared_outcomes:
                    nxt |= {(na, nb) for (oa, na), (ob, nb) in zip(sa, sb, strict=True)}
                else:
                    nxt |= {(na, nb) for _, na in sa for _, nb in sb}
        if bound is None:
            nxt -= seen
            if len(seen) + len(nxt) > x.max_states * 4:
                raise ReferenceTooLarge("too many pairs of states")
            seen |= nxt
        layer = nxt
        k += 1


def _view(x: Explorer, node: Node) -> tuple[Any, ...]:
    """What the agent sees: each variable's visibility and value if visible, each
    evidence's authorization and value if authorized."""
    c = x.c
    parts: list[Any] = []
    for v, value in zip(c.variables, node[1], strict=True):
        seen = x.holds(node, v.visible)
        parts.append((seen, value if seen else None))
    for e, value in zip(c.evidence, node[0], strict=True):
        known = x.holds(node, e.authorized)
        parts.append((known, value if known else None))
    return tuple(parts)


def _noninterference(x: Explorer, bound: int | None) -> tuple[int | None, int | None]:
    """(leak, interference): the first depth where two executions with the same
    operations and outcomes, equal on the evidence authorized then, look different; and
    the first depth where two executions with the same operations (outcomes free) look
    the same but have different legal sets. Exact (every depth) when the pair space is
    small enough (bound None), else up to `bound` steps."""
    c = x.c
    starts = [(a, b) for a in x.initial() for b in x.initial()]
    leak = None
    for k, layer in enumerate(_pair_layers(x, starts, bound, shared_outcomes=True)):
        if leak is not None:
            break
        for a, b in layer:
            if _evidence_known_equal(x, a, b) and _view(x, a) != _view(x, b):
                leak = k
                break
    interference = None
    for k, layer in enumerate(_pair_layers(x, starts, bound, shared_outcomes=False)):
        for a, b in layer:
            if _view(x, a) == _view(x, b) and {g.name for g in x.legal(a)} != {
                g.name for g in x.legal(b)
            }:
                interference = k
                break
        if interference is not None:
            break
    del c
    return leak, interference


def _evidence_known_equal(x: Explorer, a: Node, b: Node) -> bool:
    for e, va, vb in zip(x.c.evidence, a[0], b[0], strict=True):
        if (x.holds(a, e.authorized) or x.holds(b, e.authorized)) and va != vb:
            return False
    return True
