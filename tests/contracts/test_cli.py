"""The `verify`, `legal` and `monitor` verbs: output, JSON and exit codes."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from lablang.cli import main
from tests.contracts.loading import DATA, ROOT, STDLIB


def run(*args: str):  # type: ignore[no-untyped-def]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(cwd)


def test_verify_clean_contract_exits_zero() -> None:
    """`lablang verify` on a stdlib contract prints every check and exits 0."""
    result = run("verify", "stdlib/contracts/placement_recall.lab", "--depth", "6")
    assert result.exit_code == 0, result.output
    assert "16 of 16 checks passed" in result.output  # with goal liveness


def test_verify_broken_contract_exits_one_with_json_trace() -> None:
    """`--json` on a broken contract reports the violated check with an ITF trace; exit 1."""
    result = run("verify", str(DATA / "centrifuge_no_remove.lab"), "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    deadlock = next(r for r in data["contracts"][0]["results"] if r["check"] == "deadlock")
    assert deadlock["status"] == "violated"
    assert deadlock["traces"][0]["states"][-1]["#meta"]["action"] == "confirm_b"


def test_verify_param_override_changes_the_ground_operations() -> None:
    """`--param N=4` verifies the centrifuge with four slots."""
    result = run("verify", "stdlib/contracts/centrifuge.lab", "--param", "N=4", "--depth", "6")
    assert result.exit_code == 0, result.output
    assert "place_b(" in result.output and "place_b(5)" not in result.output


def test_verify_reports_diagnostics_for_a_bad_contract(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A contract with an unknown name is a diagnostic (exit 1), not a traceback."""
    bad = tmp_path / "bad.lab"
    bad.write_text("contract c { var lid: bool  op close requires not lidd effect lid = true }\n")
    result = run("verify", str(bad))
    assert result.exit_code == 1
    assert "E0601" in result.output and "did you mean `lid`?" in result.output


def test_legal_lists_the_ground_operations() -> None:
    """`lablang legal` prints the legal operations of a JSON state, one per line."""
    state = '{"aim_a": 2, "a": 3, "conf_a": true}'
    result = run("legal", "stdlib/contracts/centrifuge.lab", "--state", state)
    assert result.exit_code == 0 and result.output == "place_b(7)\n"
    result = run("legal", "stdlib/contracts/centrifuge.lab", "--state", state, "--json")
    assert json.loads(result.output) == ["place_b(7)"]


def test_legal_rejects_a_bad_state() -> None:
    """A state value outside its type is an error naming the variable."""
    result = run("legal", "stdlib/contracts/centrifuge.lab", "--state", '{"a": 12}')
    assert result.exit_code == 1 and "`a`" in result.output


def test_monitor_prints_the_three_measures() -> None:
    """`lablang monitor --json` separates choice, execution and completion."""
    result = run(
        "monitor",
        "stdlib/contracts/centrifuge.lab",
        "examples/contracts/centrifuge_wrong_choice.jsonl",
        "--json",
    )
    assert result.exit_code == 2, result.output  # the choice was incorrect
    data = json.loads(result.output)
    assert data["choice"]["correct"] is False
    assert data["execution"]["obligations"] == 8  # confirm_b is needed twice
    assert data["completion"] == "recovered"


def test_stdlib_contracts_pass_lablang_check() -> None:
    """`lablang check` accepts every stdlib contract (the compile hook runs without z3)."""
    result = run("check", *(str(p.relative_to(ROOT)) for p in sorted(STDLIB.glob("*.lab"))))
    assert result.exit_code == 0, result.output


def test_check_of_a_contract_does_not_import_z3() -> None:
    """`lablang check` compiles contracts without loading the solver."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from lablang.driver import check_file\n"
        "result = check_file('stdlib/contracts/centrifuge.lab')\n"
        "assert result.ok, [d.message for d in result.report]\n"
        "print('z3' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(ROOT)
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("verb", ["verify", "legal", "monitor"])
def test_the_example_in_each_verbs_help_runs(verb: str) -> None:
    """The `Example:` line of each verb's docstring runs and exits 0."""
    import re
    import shlex

    from lablang.cli import contracts as module

    command = getattr(module, f"{verb}_command")
    example = re.search(r"Example: `lablang (.*?)`\n", command.help or "")
    assert example is not None
    result = run(*shlex.split(example.group(1)))
    assert result.exit_code == 0, result.output


def test_verify_writes_itf_trace_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`--itf DIR` writes one ITF file per side of a violated pair."""
    result = run("verify", str(DATA / "centrifuge_intended.lab"), "--itf", str(tmp_path))
    assert result.exit_code == 1
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [n for n in names if n.startswith("centrifuge.pair.")] and len(names) == 2
    data = json.loads((tmp_path / names[0]).read_text("utf-8"))
    assert data["#meta"]["check"] == "pair" and data["#meta"]["side"] == "left"
