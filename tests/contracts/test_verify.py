"""Verification of the stdlib contracts and of deliberately broken variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.contracts.checks import PROVED, UNKNOWN, VIOLATED, Result, Trace, verify
from lablang.contracts.model import Contract
from lablang.contracts.render import render_result, render_text, report_json
from lablang.contracts.semantics import apply, find_ground, legal_ground
from tests.contracts.loading import DATA, GOLDEN, STDLIB, load

STDLIB_FILES = sorted(STDLIB.glob("*.lab"))
DEPTH = 8


def _results(path: Path) -> tuple[Contract, list[Result]]:
    contract = load(path)
    return contract, verify(contract, DEPTH)


CACHE: dict[Path, tuple[Contract, list[Result]]] = {}


def results_of(path: Path) -> tuple[Contract, list[Result]]:
    if path not in CACHE:
        CACHE[path] = _results(path)
    return CACHE[path]


@pytest.mark.parametrize("path", STDLIB_FILES, ids=lambda p: p.stem)
def test_stdlib_contract_verifies_clean(path: Path) -> None:
    """Every check of every stdlib contract passes (holds or proved) at depth 8."""
    contract, results = results_of(path)
    failed = [render_result(contract, r) for r in results if not r.passed]
    assert not failed, failed
    assert {r.check for r in results} >= {
        "goal",
        "deadlock",
        "range",
        "invariant",
        "vacuity",
        "pair",
        "noninterference",
    }


def test_centrifuge_invariants_are_proved_by_induction() -> None:
    """`lid -> balanced` is proved for every depth (1-induction with its supporting invariants)."""
    _, results = results_of(STDLIB / "centrifuge.lab")
    lid = next(r for r in results if r.check == "invariant" and r.item == "lid -> balanced")
    assert lid.status == PROVED


def test_centrifuge_shortest_plan_has_six_steps() -> None:
    """The shortest plan places A, confirms it, places B opposite, confirms it, closes, spins."""
    _, results = results_of(STDLIB / "centrifuge.lab")
    goal = next(r for r in results if r.check == "goal")
    ops = [s.op.split("(")[0] for s in goal.traces[0].steps]
    assert ops == ["place_a", "confirm_a", "place_b", "confirm_b", "close_lid", "spin"]


BROKEN = [
    ("centrifuge_no_remove", "deadlock"),
    ("centrifuge_intended", "pair"),
    ("centrifuge_unconfirmed", "noninterference"),
    ("feedback_weighing_naive", "deadlock"),
    ("placement_recall_instructed", "invariant"),
    ("reader_busy", "eventually"),
]


@pytest.mark.parametrize(("stem", "check"), BROKEN)
def test_broken_variant_is_caught_with_a_readable_counterexample(
    stem: str, check: str, update_goldens: bool
) -> None:
    """Each broken variant is caught by its intended check; the rendering matches its golden file."""
    contract, results = results_of(DATA / f"{stem}.lab")
    caught = [r for r in results if r.check == check and r.status == VIOLATED]
    assert caught, render_text(contract, results, DEPTH)
    text = "\n".join(line for r in caught for line in render_result(contract, r)) + "\n"
    golden = GOLDEN / f"{stem}.{check}.txt"
    if update_goldens:
        golden.write_text(text, "utf-8")
    assert text == golden.read_text("utf-8")


def _replay(contract: Contract, trace: Trace) -> None:
    state, evidence = dict(trace.raw_states[0]), trace.raw_evidence
    for step, after in zip(trace.steps, trace.raw_states[1:], strict=True):
        if step.op.startswith("("):
            assert after == state
            continue
        g = find_ground(contract, step.op)
        assert g is not None
        assert g in legal_ground(contract, state, evidence), f"{step.op} not legal at runtime"
        state = apply(contract, state, evidence, g, step.raw_outcomes)
        assert state == after


@pytest.mark.parametrize(
    "path",
    [*STDLIB_FILES, *(DATA / f"{s}.lab" for s, _ in BROKEN), DATA / "expressions.lab"],
    ids=lambda p: p.stem,
)
def test_every_trace_replays_in_the_runtime(path: Path) -> None:
    """Every step of every trace Z3 returns is legal at runtime and leads to the next state."""
    contract, results = results_of(path)
    traces = [t for r in results for t in r.traces]
    assert traces
    for trace in traces:
        _replay(contract, trace)


def test_tiny_budget_is_unknown_never_a_pass() -> None:
    """With a budget of 50 rlimit units the solver stops; results are `unknown` and not passed."""
    contract = load(STDLIB / "centrifuge.lab")
    results = verify(contract, DEPTH, budget=50)
    unknown = [r for r in results if r.status == UNKNOWN]
    assert unknown
    assert all(not r.passed for r in unknown)
    assert "budget of 50 rlimit units" in unknown[0].message


def test_verification_is_deterministic() -> None:
    """Two runs give the same results, traces and rlimit counts."""
    contract = load(STDLIB / "placement_recall.lab")
    first = render_text(contract, verify(contract, 6), 6)
    assert render_text(contract, verify(contract, 6), 6) == first


def test_json_report_carries_itf_traces() -> None:
    """The JSON report has one ITF-style trace per side with `#meta` and a state per step."""
    contract, results = results_of(DATA / "centrifuge_intended.lab")
    data = report_json(contract, results, DEPTH)
    pair = next(r for r in data["results"] if r["check"] == "pair")
    assert pair["status"] == "violated" and not data["passed"]
    left, right = pair["traces"]
    assert left["#meta"]["format"] == "ITF" and right["#meta"]["side"] == "right"
    assert [s["#meta"].get("action") for s in left["states"]] == [None, "place_a(2)", "confirm_a"]
    assert left["states"][1]["a"] == 2 and right["states"][1]["a"] == 3
    text = (DATA / "centrifuge_intended.lab").read_text("utf-8")
    line = text[: text.index("pair slipped")].count("\n") + 1
    assert pair["location"] == f"tests/contracts/data/centrifuge_intended.lab:{line}:3"


def test_centrifuge_scales_to_32_slots() -> None:
    """With N = 32 the deadlock check still holds and place_b has 32 ground instances."""
    contract = load(STDLIB / "centrifuge.lab", {"N": 32})
    from lablang.contracts.checks import check_deadlock

    assert check_deadlock(contract, 6, 20_000_000).passed
    assert sum(1 for g in find_all(contract) if g.startswith("place_b(")) == 32


def find_all(contract: Contract) -> list[str]:
    from lablang.contracts.model import ground

    return [g.name for g in ground(contract)]


def test_unreachable_goal_names_the_blocking_requirements() -> None:
    """An impossible requirement on `close` makes the goal unreachable; the unsat core names
    the operations whose requirements block it."""
    from tests.contracts.loading import compile_text

    (contract,), report = compile_text(
        "contract stuck {\n"
        "  var full: bool  var lid: bool  var spun: bool\n"
        "  op fill requires not full effect full = true\n"
        "  op close requires full and not full effect lid = true\n"
        "  op spin requires lid effect spun = true\n"
        "  goal spun\n"
        "}\n"
    )
    assert not report.has_errors
    goal = verify(contract, 4)[0]
    assert goal.check == "goal" and goal.status == VIOLATED
    assert goal.details and "any one of `close`, `spin` makes the goal reachable" in goal.details[0]


def test_an_invariant_false_initially_never_proves_deadlock_freedom() -> None:
    """Induction only uses invariants that hold in the initial state, even when only the
    deadlock check is asked for: `n == 3` is inductive but false at the start."""
    from lablang.contracts.checks import check_deadlock
    from tests.contracts.loading import compile_text

    (contract,), report = compile_text(
        "contract counter {\n"
        "  var n: int[0..3]\n"
        "  op inc requires n < 2 effect n = n + 1\n"
        "  terminal n == 3\n"
        "  invariant n == 3\n"
        "}\n"
    )
    assert not report.has_errors
    result = check_deadlock(contract, 4, 1_000_000)
    assert (result.status, result.depth) == (VIOLATED, 2)


def test_chc_engine_proves_what_one_step_induction_cannot() -> None:
    """`n != 3` (n moves 0 -> 2; the unreachable n = 1 loops and can jump to 3) is not
    k-inductive for any k; with `chc=True` Spacer proves it."""
    from tests.contracts.loading import compile_text

    (contract,), report = compile_text(
        "contract even {\n"
        "  var n: int[0..4]\n"
        "  op inc requires n == 0 effect n = n + 2\n"
        "  op idle requires n == 1 effect n = 1\n"
        "  op jump requires n == 1 effect n = 3\n"
        "  terminal n == 2\n"
        "  invariant n != 3\n"
        "}\n"
    )
    assert not report.has_errors
    bounded = next(r for r in verify(contract, 4) if r.check == "invariant")
    assert bounded.status == "holds" and "not k-inductive" in bounded.message
    proved = next(r for r in verify(contract, 4, chc=True) if r.check == "invariant")
    assert proved.status == PROVED and "CHC engine" in proved.message


def test_chc_engine_finds_a_violation_beyond_the_depth() -> None:
    """An invariant broken only after nine steps (beyond the depth 2 plus the deeper
    search the failed induction runs) is `violated` by the CHC engine at depth 2."""
    from tests.contracts.loading import compile_text

    (contract,), report = compile_text(
        "contract slow {\n"
        "  var n: int[0..9]\n"
        "  op inc requires n < 9 effect n = n + 1\n"
        "  invariant n < 9\n"
        "}\n"
    )
    assert not report.has_errors
    result = next(r for r in verify(contract, 2, chc=True) if r.check == "invariant")
    assert result.status == VIOLATED and "more than 2 steps" in result.message


def test_k_induction_proves_an_invariant_that_one_induction_cannot() -> None:
    """`x == 0` with `x = y; y = 0` breaks from the unreachable state y = 3 in one step
    but never in two: it is proved by 2-induction, and the reference checker agrees."""
    from lablang.contracts.reference import answers
    from tests.contracts.loading import compile_text

    (contract,), report = compile_text(
        "contract k {\n  var x: int[0..3]\n  var y: int[0..3]\n"
        "  op shift requires true {\n    x = y\n    y = 0\n  }\n  invariant x == 0\n}\n"
    )
    assert not report.has_errors
    inv = next(r for r in verify(contract, 4) if r.check == "invariant")
    assert inv.status == "proved" and "2-induction" in inv.message
    assert answers(contract, 4).invariants == (None,)
