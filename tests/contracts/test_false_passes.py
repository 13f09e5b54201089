"""The four classes of false pass `verify` used to give, each with the contract that
used to pass (issue 13)."""

from __future__ import annotations

from lablang.contracts.checks import _LEDGER, BOUNDED, HOLDS, UNKNOWN, VIOLATED, Ledger, verify
from lablang.contracts.model import (
    BoolType,
    Contract,
    Effect,
    IntType,
    Item,
    Operation,
    Ref,
    Unary,
    Variable,
)
from lablang.contracts.reference import answers
from tests.contracts.loading import STDLIB, compile_text, load


def _one(text: str) -> Contract:
    compiled, report = compile_text(text)
    assert not report.has_errors, [d.message for d in report]
    return compiled[0]


# ------------------------------------------------------------------ 1. no initial state
def test_a_self_referencing_init_is_rejected_by_check() -> None:
    """`var y: bool { init: not y }` is E0608 (it used to leave no initial state and
    prove every invariant)."""
    _, report = compile_text(
        "contract c {\n  var y: bool { init: not y }\n  var n: int[0..5] { init: 3 }\n"
        "  op inc requires n < 5 effect n = n + 1\n  invariant n == 3\n}\n"
    )
    assert [d.code for d in report.errors] == ["E0608"]
    assert "`y`" in report.errors[0].message


def test_cyclic_inits_are_rejected_with_every_variable_of_the_cycle() -> None:
    """Inits that read each other (`x` from `z`, `z` from `x`, through a derived
    expression too) are E0608 naming both."""
    _, report = compile_text(
        "contract c {\n  sum: z + 1\n  var x: int[0..3] { init: sum }\n"
        "  var z: int[0..3] { init: x }\n}\n"
    )
    assert [d.code for d in report.errors] == ["E0608"]
    assert "`x`, `z`" in report.errors[0].message


def test_acyclic_inits_read_the_initialised_value_at_run_time() -> None:
    """An `init` reading another variable sees that variable's own `init`, in the
    runtime as in the solver (the runtime used to read the default)."""
    from lablang.contracts.semantics import initial_state

    c = _one(
        "contract c {\n  var b: int[0..3] { init: a + 1 }\n  var a: int[0..3] { init: 2 }\n"
        "  op noop requires a == 9 effect a = 0\n  invariant b == 3\n}\n"
    )
    assert initial_state(c, {}) == {"b": 3, "a": 2}
    inv = next(r for r in verify(c, 2) if r.check == "invariant")
    assert inv.status != VIOLATED


def test_contradictory_inits_of_a_python_contract_are_an_error_naming_them() -> None:
    """A contract built in Python whose `init`s have no solution gets one failing
    `initial` result naming the variable, never a vacuous proof."""
    y = Ref(kind="var", name="y")
    c = Contract(
        name="c",
        variables=(
            Variable(name="y", type=BoolType(), init=Unary(op="not", operand=y)),
            Variable(name="n", type=IntType(lo=0, hi=5)),
        ),
        operations=(
            Operation(name="op", effects=(Effect(var="n", value=Ref(kind="var", name="n")),)),
        ),
        invariants=(Item(expr=y, text="y"),),
    )
    results = verify(c, 3)
    assert [(r.check, r.status) for r in results] == [("initial", VIOLATED)]
    assert "`y`" in results[0].message


# ------------------------------------------------------------------ 2. goal liveness
LID = (
    "contract c(N: 4) {\n  var a: slot?\n  var b: slot?\n  var lid: bool\n"
    "  op place_a(k: slot) requires a == none effect a = k\n"
    "  op place_b(k: slot) requires a != none and b == none and not lid effect b = k\n"
    "  op close_lid requires a != none and not lid effect lid = true\n"
    "  goal lid and b != none\n  terminal lid\n}\n"
)


def test_a_goal_that_can_become_unreachable_fails_with_the_closing_operation() -> None:
    """`close_lid` before the second tube ends the episode without the goal: the
    liveness check fails with the trace into that terminal state and names
    `close_lid` as the operation that closed the way (it used to verify 7/7)."""
    c = _one(LID)
    live = next(r for r in verify(c, 6) if r.check == "liveness")
    assert live.status == VIOLATED
    assert live.depth == 2 and "terminal" in live.message
    assert [s.op for s in live.traces[0].steps][-1] == "close_lid"
    assert "`close_lid` (step 2) closed the way" in live.details[0]
    assert answers(c, 6).dead_end == (2,)


def test_a_dead_end_that_is_not_terminal_is_found() -> None:
    """A state where no operation can lead back to the goal (not terminal: other
    operations stay legal) is a dead end too."""
    c = _one(
        "contract c {\n  var x: int[0..3]\n  var broken: bool\n"
        "  op up requires x < 3 and not broken effect x = x + 1\n"
        "  op spill requires not broken effect broken = true\n"
        "  op wipe requires broken effect x = 0\n  goal x == 3\n}\n"
    )
    live = next(r for r in verify(c, 5) if r.check == "liveness")
    assert live.status == VIOLATED and live.depth == 1
    assert "`spill`" in live.details[0]


def test_the_stdlib_contracts_keep_their_goals_reachable() -> None:
    """The shipped contracts pass the liveness check (no false alarm at the default depth)."""
    for path in sorted(STDLIB.glob("*.lab")):
        results = verify(load(path), 8)
        live = [r for r in results if r.check == "liveness"]
        assert live and all(r.status == HOLDS for r in live), (path, [r.message for r in live])


# ------------------------------------------------------------------ 3. non-interference
LEAK = (
    "contract c(N: 4) {\n  evidence slipped: bool { authorized: conf_a }\n"
    "  var a: slot?\n  var conf_a: bool\n  var b: slot?\n"
    "  op place_a requires a == none effect a = if(slipped, 1, 0)\n"
    "  op confirm_a requires a != none and not conf_a effect conf_a = true\n"
    "  op place_b(k: slot) requires a != none and b == none and k == (a + 2) % N effect b = k\n"
    "  goal b != none\n  terminal b != none\n}\n"
)


def test_a_visible_variable_revealing_unauthorized_evidence_is_the_leak() -> None:
    """`a` is visible and depends on `slipped` before `confirm_a` authorizes it: the
    leak is reported on `a` (non-interference used to be proved)."""
    ni = next(r for r in verify(_one(LEAK), 6) if r.check == "noninterference")
    assert ni.status == VIOLATED and ni.depth == 1
    assert "visible `a` reveals unauthorized evidence `slipped`" in ni.message
    assert answers(_one(LEAK), 6).leak == 1


def test_hiding_the_variable_until_authorized_removes_the_leak() -> None:
    """With `a` visible only after `confirm_a`, and `place_b` waiting for it, the same
    contract passes (hiding `a` alone is not enough: the legal set of `place_b`
    would still reveal it)."""
    fixed = LEAK.replace("  var a: slot?\n", "  var a: slot? { visible: conf_a }\n").replace(
        "requires a != none and b == none", "requires conf_a and a != none and b == none"
    )
    ni = next(r for r in verify(_one(fixed), 6) if r.check == "noninterference")
    assert ni.status == HOLDS, ni.message


# ------------------------------------------------------------------ 4. stopped solver
def test_no_note_of_a_stopped_search_states_a_fact() -> None:
    """Under every total budget from tiny to ample, a `never enabled` note names only
    ground operations the reference checker finds never legal within the depth, and
    a result is unknown rather than passing once the budget is gone, and the goal the
    depth does not reach is never a pass."""
    c = load(STDLIB / "centrifuge.lab")
    ref = answers(c, 4, max_states=200_000)
    for total in (1_000, 20_000, 60_000, 150_000, 400_000, 1_000_000):
        token = _LEDGER.set(Ledger(total))
        try:
            results = checks_run(c, 4)
        finally:
            _LEDGER.reset(token)
        for r in results:
            for note in r.details:
                if note.startswith("never enabled within depth"):
                    names = note.split(": ", 1)[1].split(", ")
                    assert all(ref.enabled[n] is None or ref.enabled[n] > 4 for n in names), note
        # the goal needs more than 4 steps: with ample budget it is open (bounded), with
        # too little the solver stops first (unknown); never a pass
        assert any(r.status == UNKNOWN for r in results) or total >= 150_000
        goal = next(r for r in results if r.check == "goal")
        assert goal.status in (UNKNOWN, BOUNDED), goal


def checks_run(c: Contract, depth: int) -> list:  # type: ignore[type-arg]
    from lablang.contracts.checks import bmc

    return bmc(c, depth, 20_000_000)
