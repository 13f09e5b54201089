"""The core verbs: check, fmt, export, schema, explain, spec."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from lablang.diagnostics import Severity
from lablang.export_targets import EXPORTERS

PATH_OPTION = click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable).",
)


@click.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print diagnostics as JSON.")
@PATH_OPTION
def check_command(files: tuple[str, ...], as_json: bool, roots: tuple[str, ...]) -> None:
    """Check .lab FILES; exit 0 when clean, 1 on errors, 2 on usage errors.

    Example: `lablang check examples/tenx_3p_v3.lab --json`
    """
    from lablang.diagnostics.render import render_texts, to_json
    from lablang.driver import check_file

    results = [check_file(file, roots) for file in files]
    diagnostics = [d for result in results for d in result.report.sorted()]
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    if as_json:
        payload = {
            "result": "ok" if errors == 0 else "not-ok",
            "files": list(files),
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [to_json(d) for d in diagnostics],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        if diagnostics:
            click.echo(render_texts(diagnostics), err=False)
            click.echo()
        summary = f"{len(files)} file{'s' * (len(files) != 1)} checked: {errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        click.echo(summary)
    sys.exit(1 if errors else 0)


@click.command("fmt")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--check", "check_only", is_flag=True, help="Only report files that would change.")
def fmt_command(files: tuple[str, ...], check_only: bool) -> None:
    """Rewrite FILES in the canonical layout (comments kept; refuses any change of meaning).

    Example: `lablang fmt --check examples/tenx_3p_v3.lab`
    """
    from lablang.diagnostics import Report
    from lablang.diagnostics.render import render_texts
    from lablang.driver import read_source
    from lablang.fmt import format_source
    from lablang.output import write_atomic

    changed = failed = 0
    for file in files:
        report = Report()
        source = read_source(file, report)
        formatted = format_source(source, report) if source is not None else None
        if formatted is None or source is None:
            click.echo(render_texts(report.sorted()), err=True)
            failed += 1
            continue
        if formatted != source.text:
            changed += 1
            if check_only:
                click.echo(f"would reformat {file}")
            else:
                write_atomic(Path(file), formatted, replaces_input=True)
                click.echo(f"reformatted {file}")
    if failed:
        sys.exit(1)
    if check_only and changed:
        sys.exit(1)


@click.command("export")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--to",
    "target",
    default="json",
    show_default=True,
    type=click.Choice(list(EXPORTERS)),
    help="json (the program), LibStructBench Task 1-3 JSON, or seqspec YAML.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."
)
@PATH_OPTION
def export_command(file: str, target: str, output: str | None, roots: tuple[str, ...]) -> None:
    """Export a checked program.

    Example: `lablang export examples/tenx_3p_v3.lab --to json`
    """
    from lablang.diagnostics.render import render_texts
    from lablang.driver import check_file
    from lablang.export import export
    from lablang.output import write_atomic

    result = check_file(file, roots)
    if not result.ok:
        click.echo(render_texts(result.report.sorted()), err=True)
        sys.exit(1)
    text, report = export(result, target)
    if text is None or len(report):
        click.echo(render_texts(report.sorted()), err=True)  # warnings too (W0020)
    if text is None:
        sys.exit(1)
    if output:
        write_atomic(Path(output), text)
    else:
        click.echo(text, nl=False)


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of `lablang export --to json`."""
    from lablang.export import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Explain a diagnostic CODE, with a failing and a fixed example, or a molecular
    operation (its arguments and rationale).

    Example: `lablang explain E0203`, `lablang explain pcr`
    """
    from lablang.check.names import did_you_mean
    from lablang.diagnostics.codes import CODES, explain
    from lablang.molecular.front import describe

    operation = describe(code)
    if operation is not None:
        click.echo(operation)
        return
    if code.upper() not in CODES:
        guess = did_you_mean(code.upper(), list(CODES))
        hint = f" (did you mean {guess}?)" if guess else ""
        click.echo(f"error: no diagnostic code `{code}`{hint}", err=True)
        sys.exit(2)
    click.echo(explain(code), nl=False)


@click.command("spec")
@click.option(
    "--section",
    "sections",
    multiple=True,
    type=click.Choice(["core", "molecular", "protocols", "sim", "contracts", "rubrics"]),
    help="Print only this part (repeatable): core, molecular, protocols, sim, contracts, rubrics.",
)
def spec_command(sections: tuple[str, ...]) -> None:
    """Print the language reference (for people and for LLM prompts).

    Example: `lablang spec --section molecular`
    """
    from lablang.spec import spec_text

    click.echo(spec_text(sections), nl=False)
