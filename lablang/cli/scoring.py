"""`lablang score`: a thin click front end over `lablang.scoring`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from lablang.cli.executor import executor_from, executor_options
from lablang.cli.terminal import echo


@click.command(name="score")
@click.argument("pred", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--truth",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Truth `.lab` file, JSON file or folder (with --batch: a folder of protocol folders).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--weights",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="JSON or TOML file overriding grader weights and thresholds.",
)
@click.option("--explain", is_flag=True, help="Explain each match and list unmatched entities.")
@click.option(
    "--batch",
    "batch_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Score every PRED_DIR/<protocol>/<attempt> against TRUTH/<protocol>.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Batch report folder (JSONL, CSV, summary JSON, HTML).",
)
@click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Extra module root for the `use` imports of a `.lab` answer (repeatable).",
)
@click.option("--seed", default=0, show_default=True, help="Bootstrap seed (batch).")
@click.option("--resamples", default=2000, show_default=True, help="Bootstrap resamples (batch).")
@executor_options
def score_command(
    pred: Path | None,
    truth: Path,
    as_json: bool,
    weights: Path | None,
    explain: bool,
    batch_dir: Path | None,
    out: Path | None,
    roots: tuple[Path, ...],
    seed: int,
    resamples: int,
    jobs: int,
    executor_kind: str,
    address: str | None,
) -> None:
    """Score a reconstruction against a reference with the LibStructBench grader.

    PRED and --truth are each a `.lab` answer (checked, then exported to T1-T3),
    one LibStructBench JSON file (its task is recognized from the content) or a folder
    of T1-T3 JSON files. Exit status: 0 scored, 1 scored with errors in the input
    (what could not be read scores 0), 2 usage.

    \b
    lablang score answer.lab --truth truth/ --explain
    lablang score pred/ --truth truth/ --explain
    lablang score --batch preds/ --truth truths/ --out report/
    lablang score --batch preds/ --truth truths/ --out report/ --executor ray --jobs 2

    With --batch, attempts are scored as units on --executor (local or ray), with
    byte-identical outputs either way.
    """
    from lablang.scoring import Weights, WeightsError

    try:
        loaded = Weights.from_file(weights) if weights else Weights()
    except (WeightsError, ValueError, OSError) as error:
        echo(f"error[E0505]: weights file `{weights}` is invalid: {error}", err=True)
        sys.exit(2)
    if batch_dir is not None:
        if pred is not None or out is None:
            raise click.UsageError("--batch takes no PRED argument and needs --out")
        executor = executor_from(executor_kind, jobs, address)
        _batch(batch_dir, truth, out, loaded, roots, seed, resamples, as_json, executor)
        return
    if pred is None:
        raise click.UsageError("give PRED (or --batch PRED_DIR)")
    from lablang.scoring import score_files
    from lablang.scoring.explain import render_explanation, render_metrics

    try:
        result = score_files(pred, truth, loaded, roots=roots)
    except Exception as error:  # a bug in lablang, never the input's fault: no traceback
        echo(f"error[E0000]: internal error while scoring `{pred}`: "
                   f"{type(error).__name__}: {error}", err=True)  # fmt: skip
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(result.to_json(explain=explain), indent=2))
    else:
        for d in result.diagnostics:
            echo(f"{d.severity.value}[{d.code}]: {d.message}", err=True)
            if d.help:
                echo(f"  = help: {d.help}", err=True)
        echo(render_metrics(result))
        if explain:
            echo(render_explanation(result))
    sys.exit(1 if any(d.severity.value == "error" for d in result.diagnostics) else 0)


def _batch(
    batch_dir: Path,
    truth: Path,
    out: Path,
    weights: object,
    roots: tuple[Path, ...],
    seed: int,
    resamples: int,
    as_json: bool,
    executor: object,
) -> None:
    from lablang.executors import ExecutorError
    from lablang.scoring.batch import score_batch, write_outputs
    from lablang.scoring.weights import Weights

    assert isinstance(weights, Weights)
    try:
        result = score_batch(
            batch_dir, truth, weights=weights, roots=roots, seed=seed, resamples=resamples,
            executor=executor,
        )  # fmt: skip
    except ExecutorError as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    files = write_outputs(result, out)
    if as_json:
        click.echo((out / "summary.json").read_text(encoding="utf-8"))
        return
    echo(
        f"scored {len(result.rows)} attempts of {len({r.protocol for r in result.rows})} protocols"
    )
    for name in ("reward", "sequence_similarity"):
        if name in result.summary:
            s = result.summary[name]
            echo(f"  {name}: {s.mean:.4f} [{s.ci_low:.4f}, {s.ci_high:.4f}]")
    for file in files:
        echo(f"  wrote {file}")
