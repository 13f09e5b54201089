"""`lablang verify`, `lablang legal` and `lablang monitor`: thin wrappers over
`lablang.contracts`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from lablang.cli.terminal import echo, echo_diagnostics

MAX_DEPTH = 64


def _load(
    file: str,
    params: tuple[str, ...],
    name: str | None,
    roots: tuple[str, ...] = (),
    as_json: bool = False,
) -> list[Any]:
    """Parse, check and compile the contracts of FILE; exits 1 with diagnostics on errors."""
    from lablang.contracts.front import compile_contracts
    from lablang.diagnostics import Report
    from lablang.driver import check_source, read_source

    overrides: dict[str, int] = {}
    for item in params:
        key, _, value = item.partition("=")
        try:
            overrides[key.strip()] = int(value)
        except ValueError:
            raise click.UsageError(f"--param expects NAME=INTEGER, got `{item}`") from None
    report = Report()
    source = read_source(file, report)
    contracts: list[Any] = []
    if source is not None:
        result = check_source(source, [Path(file).parent, *roots], report=report, backends=False)
        if not report.has_errors:
            contracts = compile_contracts(result.program.root.module, source, report, overrides)
    if report.has_errors:
        _fail(report, as_json)
    if name is not None:
        contracts = [c for c in contracts if c.name == name]
    if not contracts:
        echo(f"error: no contract{f' `{name}`' if name else ''} in {file}", err=True)
        sys.exit(1)
    return contracts


def _fail(report: Any, as_json: bool) -> None:
    if as_json:
        from lablang.diagnostics.render import to_json

        data = {"passed": False, "diagnostics": [to_json(d) for d in report.sorted()]}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        echo_diagnostics(report.sorted())
    sys.exit(1)


def _finish(every: list[Any], reports: list[Any], as_json: bool) -> None:
    """Print the JSON report (with `--json`) and exit with `verify`'s status."""
    from lablang.contracts.results import exit_status

    code = exit_status(every)
    if as_json:
        data = {"passed": all(r.passed for r in every), "exit": code, "contracts": reports}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    sys.exit(code)


def _verify_every_value(
    file: str,
    name: str | None,
    roots: tuple[str, ...],
    as_json: bool,
    depth: int,
    budget: int | None,
    chc: bool,
    total: int | None,
) -> None:
    """`verify --all-params`: each contract of FILE for every value of its parameters."""
    from lablang.contracts.every_value import verify_every_value
    from lablang.contracts.render import render_every_value, report_json
    from lablang.diagnostics import Report
    from lablang.driver import check_source, read_source

    _load(file, (), name, roots, as_json)  # the contracts compile with their declared values
    report = Report()
    source = read_source(file, report)
    assert source is not None  # _load read it
    program = check_source(source, [Path(file).parent, *roots], report=report, backends=False)
    decls = [d for d in program.program.root.module.decls if d.kind == "contract"]
    decls = [d for d in decls if name is None or d.name == name]
    every, reports = [], []
    for index, decl in enumerate(decls):
        done = verify_every_value(decl, source, report, depth, budget, chc, total)
        if done is None:
            _fail(report, as_json)
            return
        space, runs = done
        every += [r for run in runs for r in run.results]
        if as_json:
            reports.append(
                {
                    "contract": decl.name,
                    "values": space.described,
                    "runs": [
                        {"params": run.params, **report_json(run.contract, run.results, depth)}
                        for run in runs
                    ],
                }
            )
        else:
            echo(("\n" if index else "") + render_every_value(space, runs, depth), nl=False)
    _finish(every, reports, as_json)


_CONTRACT = click.option("--contract", "name", help="Only this contract of the file.")
_ROOTS = click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable).",
)
_PARAM = click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a contract parameter, e.g. --param N=16 (repeatable).",
)


@click.command("verify")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--depth",
    default=8,
    show_default=True,
    type=click.IntRange(0, MAX_DEPTH),
    help="Bound on the number of steps explored.",
)
@click.option(
    "--rlimit",
    "budget",
    default=None,
    type=click.IntRange(1, None),
    help="Z3 resource units allowed per query (deterministic budget).",
)
@click.option(
    "--total-rlimit",
    "total",
    default=None,
    type=click.IntRange(1, None),
    help="Z3 resource units allowed for all the queries of one contract (default 200,000,000).",
)
@click.option("--json", "as_json", is_flag=True, help="Print results and ITF traces as JSON.")
@click.option(
    "--chc",
    is_flag=True,
    help="Try to prove bounded invariants and deadlock freedom for every depth with Z3's "
    "CHC engine (slower).",
)
@click.option(
    "--itf",
    "itf_dir",
    type=click.Path(file_okay=False),
    help="Also write each counterexample as an ITF trace file into this directory.",
)
@click.option(
    "--all-params",
    is_flag=True,
    help="Verify every value of the parameters' declared ranges that meets the contract's "
    "requirements (at most 64 values).",
)
@_CONTRACT
@_PARAM
@_ROOTS
def verify_command(
    file: str,
    depth: int,
    budget: int | None,
    total: int | None,
    as_json: bool,
    chc: bool,
    itf_dir: str | None,
    name: str | None,
    params: tuple[str, ...],
    roots: tuple[str, ...],
    all_params: bool = False,
) -> None:
    """Verify the contracts of FILE with Z3; exit 0 when every check passes, 1 when one
    fails or the solver stopped, 3 when none did but some are open (not decided within
    the depth).

    Example: `lablang verify stdlib/contracts/centrifuge.lab --depth 8`
    """
    from lablang.contracts import verify
    from lablang.contracts.render import itf_files, render_text, report_json
    from lablang.output import write_atomic

    if all_params:
        if params:
            raise click.UsageError("--all-params checks every value: drop --param")
        _verify_every_value(file, name, roots, as_json, depth, budget, chc, total)
        return
    contracts = _load(file, params, name, roots, as_json)
    reports, every = [], []
    for index, contract in enumerate(contracts):
        results = verify(contract, depth, budget, chc, total)
        every += results
        if itf_dir is not None:
            for file_name, data in itf_files(contract, results):
                text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
                write_atomic(Path(itf_dir) / file_name, text)
        if as_json:
            reports.append(report_json(contract, results, depth))
        else:
            echo(("\n" if index else "") + render_text(contract, results, depth), nl=False)
    _finish(every, reports, as_json)


@click.command("legal")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--state",
    "state_text",
    required=True,
    help="The state as a JSON object (or a path to a JSON file); missing variables "
    "take their initial values; an `evidence` key gives evidence.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@_CONTRACT
@_PARAM
@_ROOTS
def legal_command(
    file: str,
    state_text: str,
    as_json: bool,
    name: str | None,
    params: tuple[str, ...],
    roots: tuple[str, ...],
) -> None:
    """Print the legal ground operations of a contract in a state, one per line.

    Example: `lablang legal stdlib/contracts/centrifuge.lab --state '{"a": 2, "aim_a": 2, "conf_a": true}'`
    """
    from lablang.contracts.semantics import legal_operations, read_state

    contract = _load(file, params, name, roots, as_json)[0]
    from lablang.cli.datafiles import data_file_refused
    from lablang.datafile import DataFileError, load_json

    # JSON text (an object, or anything else JSON, which is then refused) or a file path
    text = state_text if _looks_like_json(state_text) else _read(state_text)
    try:
        raw = load_json(text, "--state")
    except DataFileError as error:
        data_file_refused(error, "--state")
    try:
        if not isinstance(raw, dict):
            raise ValueError("the state must be a JSON object")
        state, evidence = read_state(contract, raw)
    except ValueError as error:
        echo(f"error: --state: {error}", err=True)
        sys.exit(1)
    legal = legal_operations(contract, state, evidence)
    click.echo(
        json.dumps(legal) if as_json else "\n".join(legal) if legal else "(no legal operation)"
    )


@click.command("monitor")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("events", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_CONTRACT
@_PARAM
@_ROOTS
def monitor_command(
    file: str,
    events: str,
    as_json: bool,
    name: str | None,
    params: tuple[str, ...],
    roots: tuple[str, ...],
) -> None:
    """Replay EVENTS (JSON lines) against a contract: choice, execution, completion.

    Exit status: 0 when the choice was correct and every invariant held, 2 when the
    choice was incorrect, 3 when an invariant was violated, 1 when the contract or the
    log cannot be read.

    EVENTS may also be a simulation record (`lablang simulate --record`, `lablang evaluate
    --records`): its transfers are scored by the simulation's one Labference scorer
    against the contract's legal sets, with the parameters the task binds (the record's
    header) unless `--param` gives others; exit 0 when every choice was correct, 2 when one
    was not.

    Example: `lablang monitor stdlib/contracts/centrifuge.lab examples/contracts/centrifuge_clean.jsonl`
    """
    from lablang.bound import log_score, looks_like_sim_record
    from lablang.cli.sim import score_line
    from lablang.contracts.replay import MonitorError, monitor, read_events, render_monitor

    text = _read(events)
    if looks_like_sim_record(text):
        _monitor_sim_record(file, events, params, name, roots, as_json)
        return
    contract = _load(file, params, name, roots, as_json)[0]
    try:
        report = monitor(contract, read_events(text))
    except MonitorError as error:
        echo(f"error: {events}: {error}", err=True)
        sys.exit(1)
    score = log_score(report)  # the one Labference scorer, as for a simulation record
    if as_json:
        click.echo(json.dumps({**report.to_json(), "score": score}, indent=2, ensure_ascii=False))
    else:
        echo(render_monitor(report), nl=False)
        echo("labference: " + score_line(score))
    sys.exit(report.exit_code)


def _monitor_sim_record(
    file: str,
    events: str,
    params: tuple[str, ...],
    name: str | None,
    roots: tuple[str, ...],
    as_json: bool,
) -> None:
    """`monitor` on a simulation record: the one scorer, with the contract's legal sets."""
    from lablang.bound import monitor_record
    from lablang.cli.sim import score_line
    from lablang.sim.records import RecordError, replay

    try:
        header = replay(Path(events)).header
    except (RecordError, OSError) as error:
        click.echo(f"error: {events}: {error}", err=True)
        sys.exit(1)
    raw = header.get("contract")
    bound: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if not params and isinstance(bound.get("params"), dict):
        params = tuple(f"{k}={v}" for k, v in bound["params"].items())
    contract = _load(file, params, name or bound.get("contract"), roots, as_json)[0]
    result = monitor_record(contract, Path(events))
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        params_text = ", ".join(f"{k}: {v}" for k, v in result["params"].items())
        click.echo(
            f"episode of task {header.get('task')}, seed {header.get('seed')}, "
            f"against `{contract.name}({params_text})`"
        )
        for c in result["score"]["choice"]["frozen"]:
            verdict = "correct" if c["correct"] else "incorrect"
            what = (
                f"is `{c['contract_operation']}`"
                if c["contract_operation"]
                else "(no contract operation: the task's own legal set)"
            )
            click.echo(
                f"  {c['time']:8.2f} s  {c['attempt']:6} {c['operation']} {what}: {verdict}; "
                f"legal: {', '.join(c['legal']) or '(none)'}"
            )
        click.echo(score_line(result["score"]))
    sys.exit(0 if not result["score"]["choice"]["incorrect"] else 2)


def _looks_like_json(text: str) -> bool:
    if text.lstrip()[:1] in ("{", "[", '"') or text.strip() in ("null", "true", "false"):
        return True
    from lablang.datafile import load_json

    try:
        load_json(text)  # bounded: deep nesting is "not JSON we read", never RecursionError
    except ValueError:
        return False
    return True


def _read(path: str) -> str:
    from lablang.cli.datafiles import data_file_refused
    from lablang.datafile import DataFileError, read_data_text

    try:
        return read_data_text(path)
    except DataFileError as error:
        data_file_refused(error, path)
