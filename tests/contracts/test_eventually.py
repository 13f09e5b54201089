"""`eventually(c, fair: [ops])`: lassos under weak fairness, proofs, open results, messages."""

from __future__ import annotations

import json

from click.testing import CliRunner

from lablang.cli import main
from lablang.contracts.checks import verify
from lablang.contracts.model import Contract
from lablang.contracts.reference import answers
from lablang.contracts.render import render_result, report_json
from lablang.contracts.results import BOUNDED, PROVED, VIOLATED, Result, exit_status
from lablang.contracts.semantics import apply, find_ground, legal_ground
from tests.contracts.loading import DATA, ROOT, compile_text, load
from tests.contracts.random_contracts import disagreements

QUEUE = ROOT / "examples" / "contracts" / "reader_queue.lab"


def _eventually(contract: Contract, depth: int = 8) -> list[Result]:
    return [r for r in verify(contract, depth) if r.check == "eventually"]


def _one(text: str, depth: int = 6) -> tuple[Contract, Result]:
    compiled, report = compile_text("contract c {\n" + text + "\n}\n")
    assert not report.has_errors, [d.message for d in report]
    (contract,) = compiled
    (result,) = _eventually(contract, depth)
    return contract, result


def _replay_lasso(contract: Contract, r: Result) -> None:
    """Every step is legal at run time, no state meets the condition, and the last state is
    the loop's first one (or no operation is legal in it)."""
    (trace,) = r.traces
    assert r.loop is not None
    state, evidence = dict(trace.raw_states[0]), trace.raw_evidence
    for step in trace.steps:
        g = find_ground(contract, step.op)
        assert g is not None and g in legal_ground(contract, state, evidence), step.op
        state = apply(contract, state, evidence, g, step.raw_outcomes)
    assert state == trace.raw_states[-1]
    if r.loop == len(trace.steps):
        assert legal_ground(contract, state, evidence) == []
    else:
        assert trace.raw_states[r.loop] == state


def test_a_livelock_is_a_lasso_that_weak_fairness_of_measure_rules_out() -> None:
    """Shaking a queued plate forever avoids the reading (a lasso: enqueue, then shake twice
    again and again); with `measure` fair that loop is unfair, no lasso exists, and the
    claim is open (a run still avoids the reading for any number of steps)."""
    contract = load(QUEUE)
    unfair, fair = _eventually(contract)
    assert (unfair.status, unfair.depth, unfair.loop) == (VIOLATED, 3, 1)
    assert [s.op for s in unfair.traces[0].steps] == ["enqueue", "shake", "shake"]
    _replay_lasso(contract, unfair)
    assert fair.status == BOUNDED and fair.bounded_by == 8 and not fair.passed
    ref = answers(contract, 8)
    assert ref.lassos == (3, None)  # the fair claim has no lasso at any length


def test_weak_fairness_does_not_help_an_operation_that_is_disabled_in_the_loop() -> None:
    """Other plates keep taking the reader: `measure` is enabled and disabled in turn, so a
    loop that never takes it is still weakly fair; the details say why for each operation."""
    contract = load(DATA / "reader_busy.lab")
    (r,) = _eventually(contract)
    assert r.status == VIOLATED and r.loop == 1
    _replay_lasso(contract, r)
    assert "fair `measure`: not legal in the state of step 2, so not always legal" in r.details
    assert "fair `release`: taken in the loop (step 3)" in r.details


def test_a_run_that_stops_without_the_condition_is_a_lasso_on_its_last_state() -> None:
    """A terminal state where the condition is false ends a violating run (the loop is that
    state: nothing is legal there, so fairness asks for nothing)."""
    contract, r = _one(
        "var a: bool\nvar b: bool\nop x requires not a effect a = true\nterminal a\n"
        "eventually(b, fair: [x])"
    )
    assert (r.status, r.depth, r.loop) == (VIOLATED, 1, 1)
    assert "stops in a terminal state" in r.message
    _replay_lasso(contract, r)
    assert "(loop: no operation is legal here" in "\n".join(render_result(contract, r))


def test_a_claim_every_run_reaches_within_the_depth_is_proved() -> None:
    """When no run of k steps avoids the condition, every execution reaches it: proved;
    below that depth it is open, and the note names the depth that decides it."""
    text = "var a: int[0..3]\nop up requires a < 3 effect a = a + 1\nterminal a == 3\n"
    _, r = _one(text + "eventually(a == 3)")
    assert (r.status, r.depth) == (PROVED, 3)
    assert "every execution reaches it within 3 steps" in r.message
    _, shallow = _one(text + "eventually(a == 3)", depth=2)
    assert shallow.status == BOUNDED
    assert shallow.details == ("a proof at depth 3: run with --depth 3",)


def test_the_fair_operation_is_taken_or_the_lasso_is_longer() -> None:
    """Two self-loops with both fair: the shortest lasso takes each once (two steps), and
    the reference agrees on its length; at depth 1 it is open, not a pass, with a note
    that depth 2 finds the lasso."""
    text = (
        "var g: bool\nvar s: bool\nop a requires not g\nop b requires not g\n"
        "op c requires s effect g = true\neventually(g, fair: [a, b])"
    )
    contract, r = _one(text, depth=4)
    assert (r.status, r.depth, r.loop) == (VIOLATED, 2, 0)
    assert sorted(s.op for s in r.traces[0].steps) == ["a", "b"]
    assert disagreements(contract, verify(contract, 4), answers(contract, 4), 4) == []
    _, shallow = _one(text, depth=1)
    assert shallow.status == BOUNDED
    assert shallow.details == ("a lasso at depth 2: run with --depth 2",)


def test_a_lasso_prints_and_serializes_its_loop() -> None:
    """Text marks where the loop begins; `--json` gives `loop` and the ITF trace its loop
    index; an open claim makes the exit 3 when nothing fails."""
    result = CliRunner().invoke(main, ["verify", str(QUEUE), "--json"])
    data = json.loads(result.output)
    (report,) = data["contracts"]
    unfair, fair = (r for r in report["results"] if r["check"] == "eventually")
    assert unfair["loop"] == 1 and unfair["traces"][0]["loop"] == 1
    assert fair["loop"] is None and fair["bounded_by"] == 8 and fair["status"] == "bounded"
    assert result.exit_code == 1
    text = CliRunner().invoke(main, ["verify", str(QUEUE)]).output
    assert "(loop: steps 2 to 3 repeat forever, back to the state of step 1)" in text
    contract = load(QUEUE)
    results = verify(contract, 8)
    assert report_json(contract, results, 8)["exit"] == 1
    open_only = [r for r in results if r.check != "eventually" or r.status == BOUNDED]
    assert exit_status(open_only) == 3


def test_malformed_claims_are_coded() -> None:
    """A fair list that is not a list, two conditions or an unknown operation are errors
    (E0613, E0601 with the closest name); `fair: x` carries the fix `[x]`."""
    head = "contract c {\nvar d: bool\nop serve requires not d effect d = true\n"
    for claim, code in (
        ("eventually(d, fair: serve)", "E0613"),
        ("eventually(d, d)", "E0613"),
        ("eventually(d, fair: [serve, serve])", "E0613"),
        ("eventually(d, fair: [serv])", "E0601"),
        ("eventually(d, when: [serve])", "E0613"),
    ):
        _, report = compile_text(head + claim + "\n}\n")
        codes = [d.code for d in report]
        assert codes == [code], (claim, [d.message for d in report])
    _, report = compile_text(head + "eventually(d, fair: serve)\n}\n")
    (diag,) = list(report)
    assert diag.fix is not None and diag.fix.edits[0].replacement == "[serve]"
    _, report = compile_text(head + "eventually(d, fair: [serv])\n}\n")
    assert "serve" in str(next(iter(report)).help)
