"""The language and message items of issue 13: duplicate operations, shadowing
parameters, `--param` checking, JSON diagnostics, `--state` JSON, pairs over parameters."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

from lablang.cli import main
from lablang.contracts.checks import HOLDS, VIOLATED, verify
from tests.contracts.loading import ROOT, compile_text


def run(*args: str):  # type: ignore[no-untyped-def]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(cwd)


def test_a_duplicate_operation_is_an_error() -> None:
    """Two `op put` declarations are E0605 on the second, naming the first's line."""
    _, report = compile_text(
        "contract c(N: 4) {\n  var a: slot?\n  op put(k: slot) requires a == none effect a = k\n"
        "  op put requires a != none effect a = none\n}\n"
    )
    [error] = report.errors
    assert error.code == "E0605" and "operation `put` is declared twice" in error.message


def test_a_parameter_shadowing_a_variable_is_a_warning() -> None:
    """`op put(a: slot)` next to `var a` warns W0601 and still compiles."""
    compiled, report = compile_text(
        "contract c(N: 4) {\n  var a: slot?\n  op put(a: slot) requires a != none effect a = a\n}\n"
    )
    assert compiled and [d.code for d in report] == ["W0601"]


def test_an_unknown_param_is_an_error_listing_the_parameters() -> None:
    """`--param X=5` for a contract without `X` exits 1 with E0610 (it used to be ignored)."""
    result = run("verify", "stdlib/contracts/centrifuge.lab", "--param", "X=5")
    assert result.exit_code == 1
    assert "E0610" in result.output and "its parameters are `N`" in result.output


def test_an_out_of_range_param_gives_the_range_and_no_cascade() -> None:
    """`--param N=100000` gives one E0611 with the range that compiles (it used to print
    59 follow-on lines)."""
    result = run("verify", "stdlib/contracts/centrifuge.lab", "--param", "N=100000")
    assert result.exit_code == 1
    assert result.output.count("error[") == 1
    assert "compiles for N from 1 to 2044" in result.output


def test_verify_json_prints_compile_errors_as_json() -> None:
    """`verify --json` on a file with errors prints the diagnostics as JSON on stdout."""
    result = run("verify", "stdlib/contracts/centrifuge.lab", "--param", "X=5", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["passed"] is False and data["diagnostics"][0]["code"] == "E0610"


def test_a_json_state_that_is_not_an_object_is_not_a_path() -> None:
    """`--state '[]'` is refused as JSON that is not an object, not read as a file name."""
    result = run("legal", "stdlib/contracts/centrifuge.lab", "--state", "[]")
    assert result.exit_code == 1
    assert "the state must be a JSON object" in result.output


def test_pair_sides_can_be_expressions_over_parameters() -> None:
    """`{ actual = I } vs { actual = I + 1 }` pins evidence to parameter expressions; the
    pair holds when the legal sets differ and fails when they share an operation."""
    text = (
        "contract c(N: 4, I: 1) {\n  evidence actual: slot\n  var b: slot?\n"
        "  op put(k: slot) requires b == none and k == (actual + 2) % N effect b = k\n"
        "  pair p { actual = I } vs { actual = I + 1 } at put\n}\n"
    )
    (contract,), report = compile_text(text)
    assert not report.has_errors
    [pair] = [r for r in verify(contract, 3) if r.check == "pair"]
    assert pair.status == HOLDS, pair.message
    (same,), _ = compile_text(text.replace("I + 1", "I + 0"))
    [pair] = [r for r in verify(same, 3) if r.check == "pair"]
    assert pair.status == VIOLATED and "not answer-changing" in pair.message


EXPLAIN = (
    "contract c(N: 6) {\n  var a: slot?\n  var b: slot?\n  var lid: bool\n"
    "  opposite: (a + 3) % N\n  balanced: b == opposite\n"
    "  op place_a(k: slot) requires a == none effect a = k\n"
    "  op place_b(k: slot) requires a != none and b == none effect b = k\n"
    "  op close requires b != none and not lid effect lid = true\n"
    "  op never requires lid and not lid and b == none effect lid = false\n"
    "  invariant lid -> balanced\n}\n"
)


def test_a_counterexample_expands_the_derived_predicates_it_violates() -> None:
    """A violated `lid -> balanced` shows `balanced` with the values it reads and the
    expected slot `opposite`."""
    (contract,), _ = compile_text(EXPLAIN)
    inv = next(r for r in verify(contract, 4) if r.check == "invariant")
    assert inv.status == VIOLATED
    last = inv.traces[0].states[-1]
    expected = (last["a"] + 3) % 6
    assert f"`opposite` = {expected}: a={last['a']}" in inv.details
    assert f"`balanced` = false: a={last['a']}, b={last['b']}, opposite={expected}" in inv.details


def test_a_dead_operation_names_the_requirements_that_contradict() -> None:
    """`requires lid and not lid and b == none` is reported with `lid` and `not lid`."""
    (contract,), _ = compile_text(EXPLAIN)
    never = next(r for r in verify(contract, 4) if r.item == "operation `never`")
    assert never.status == VIOLATED
    assert "(`lid` and `not lid` cannot hold together)" in never.message
