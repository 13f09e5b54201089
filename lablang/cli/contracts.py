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
        if as_json:
            from lablang.diagnostics.render import to_json

            data = {"passed": False, "diagnostics": [to_json(d) for d in report.sorted()]}
            click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            echo_diagnostics(report.sorted())
        sys.exit(1)
    if name is not None:
        contracts = [c for c in contracts if c.name == name]
    if not contracts:
        echo(f"error: no contract{f' `{name}`' if name else ''} in {file}", err=True)
        sys.exit(1)
    return contracts


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
) -> None:
    """Verify the contracts of FILE with Z3; exit 0 when every check passes, 1 otherwise.

    Example: `lablang verify stdlib/contracts/centrifuge.lab --depth 8`
    """
    from lablang.contracts import verify
    from lablang.contracts.render import itf_files, render_text, report_json
    from lablang.output import write_atomic

    contracts = _load(file, params, name, roots, as_json)
    reports, ok = [], True
    for index, contract in enumerate(contracts):
        results = verify(contract, depth, budget, chc, total)
        ok = ok and all(r.passed for r in results)
        if itf_dir is not None:
            for file_name, data in itf_files(contract, results):
                text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
                write_atomic(Path(itf_dir) / file_name, text)
        if as_json:
            reports.append(report_json(contract, results, depth))
        else:
            echo(("\n" if index else "") + render_text(contract, results, depth), nl=False)
    if as_json:
        click.echo(json.dumps({"passed": ok, "contracts": reports}, indent=2, ensure_ascii=False))
    sys.exit(0 if ok else 1)


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
    from lablang.bound import looks_like_sim_record
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
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        echo(render_monitor(report), nl=False)
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
            click.echo(
                f"  {c['time']:8.2f} s  {c['attempt']:6} {c['operation']} is "
                f"`{c['contract_operation'] or '(no operation)'}`: {verdict}; legal: "
                f"{', '.join(c['legal']) or '(none)'}"
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
