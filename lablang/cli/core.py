"""The core verbs: check, fmt, export, schema, explain, spec."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from lablang.cli.terminal import color_option, echo, echo_diagnostics, use_color
from lablang.export_targets import EXPORTERS, PROTOCOL_ID_TARGETS

PATH_OPTION = click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable).",
)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _lab_files(paths: tuple[str, ...]) -> list[str]:
    from lablang.driver import lab_files

    files = lab_files(paths)
    if not files:
        raise click.UsageError(f"no .lab files in {', '.join(paths)}")
    return files


PATHS_ARGUMENT = click.argument(
    "paths", metavar="PATHS...", nargs=-1, required=True, type=click.Path(allow_dash=True)
)


@click.command("check")
@PATHS_ARGUMENT
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option(
    "--warnings-as-errors",
    is_flag=True,
    help="Exit 1 when there are warnings too (for CI).",
)
@PATH_OPTION
@color_option
def check_command(
    paths: tuple[str, ...], as_json: bool, warnings_as_errors: bool, roots: tuple[str, ...]
) -> None:
    """Check .lab files: PATHS are files, directories (their .lab files, recursively) or
    `-` for standard input.

    Exit 0 when clean, 1 on errors (or on warnings, with --warnings-as-errors), 2 on usage
    errors. Diagnostics and the summary go to stderr, as in every verb.

    Example: `lablang check examples/tenx_3p_v3.lab --json`
    """
    from lablang.cli.checking import check_paths

    code = check_paths(paths, as_json, warnings_as_errors, roots, color=use_color())
    if code is None:
        raise click.UsageError(f"no .lab files in {', '.join(paths)}")
    sys.exit(code)


@click.command("fmt")
@PATHS_ARGUMENT
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a file would change."
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Write nothing; print a unified diff of the changes on stdout; exit 1 if any.",
)
@color_option
def fmt_command(paths: tuple[str, ...], check_only: bool, show_diff: bool) -> None:
    """Rewrite .lab files in the canonical layout (comments kept; refuses any change of
    meaning). PATHS are files, directories (their .lab files, recursively) or `-`, which
    formats standard input to standard output.

    Exit 0 when done (or nothing would change), 1 if a file would change under --check or
    --diff or cannot be formatted, 2 on usage errors. Messages go to stderr.

    Example: `lablang fmt --check examples/tenx_3p_v3.lab`
    """
    import difflib

    from lablang.diagnostics import Report
    from lablang.driver import STDIN, read_source
    from lablang.fmt import format_source
    from lablang.output import write_atomic

    files = _lab_files(paths)
    changed = failed = 0
    dry = check_only or show_diff
    for file in files:
        report = Report()
        source = read_source(file, report)
        formatted = format_source(source, report) if source is not None else None
        if formatted is None or source is None:
            echo_diagnostics(report.sorted())
            failed += 1
            continue
        if file == STDIN and not dry:
            click.echo(formatted, nl=False)
        if formatted == source.text:
            continue
        changed += 1
        if show_diff:
            name = source.name
            lines = difflib.unified_diff(
                source.text.splitlines(keepends=True),
                formatted.splitlines(keepends=True),
                fromfile=name,
                tofile=name,
            )
            echo("".join(lines), nl=False)
        elif check_only:
            echo(f"would reformat {file}", err=True)
        elif file != STDIN:
            write_atomic(Path(file), formatted, replaces_input=True)
            echo(f"reformatted {file}", err=True)
    if files != [STDIN] or dry:
        unchanged = len(files) - changed - failed
        summary = (
            f"{_plural(changed, 'file')} would be reformatted, {unchanged} already formatted"
            if dry
            else f"{_plural(changed, 'file')} reformatted, {unchanged} left unchanged"
        )
        if failed:
            summary += f", {failed} could not be formatted"
        echo(summary, err=True)
    sys.exit(1 if failed or (dry and changed) else 0)


@click.command("export")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--to",
    "target",
    default="json",
    show_default=True,
    type=click.Choice(list(EXPORTERS)),
    help="json (the program), LibStructBench Task 1-3 JSON, or seqspec YAML: `seqspec` is "
    "the 0.3.1 format the seqspec release on PyPI loads (also `seqspec-0.3`), `seqspec-0.4` "
    "the 0.4.0 format of seqspec's repository.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."
)
@click.option(
    "--protocol-id",
    metavar="ID",
    help="libstruct-t1|t2|t3 only: the benchmark's id of the protocol answered (default: "
    "the module's name); the grader scores a document whose id is not the reference's 0.",
)
@PATH_OPTION
def export_command(
    file: str, target: str, output: str | None, protocol_id: str | None, roots: tuple[str, ...]
) -> None:
    """Export a checked program.

    Example: `lablang export examples/tenx_3p_v3.lab --to json`
    """
    from lablang.driver import check_file
    from lablang.export import export
    from lablang.output import write_atomic

    if protocol_id is not None:
        if target not in PROTOCOL_ID_TARGETS:
            raise click.UsageError(f"--protocol-id is for libstruct-t1|t2|t3, not `{target}`")
        from lablang.molecular.libstruct import protocol_id_problem

        if problem := protocol_id_problem(protocol_id):
            raise click.BadParameter(problem, param_hint="--protocol-id")
    result = check_file(file, roots)
    if not result.ok:
        echo_diagnostics(result.report.sorted())
        sys.exit(1)
    text, report = export(result, target, protocol_id=protocol_id)
    echo_diagnostics(report.sorted())  # the warnings too (an onlist file not found)
    if text is None:
        sys.exit(1)
    if output:
        write_atomic(Path(output), text)
    else:
        click.echo(text, nl=False)


@click.command("schema")
@click.option(
    "--of",
    "what",
    type=click.Choice(["program", "certificate"]),
    default="program",
    show_default=True,
    help="program: the JSON of `lablang export --to json`; certificate: a certificate of "
    "`lablang certify`, with its sensitivity section.",
)
def schema_command(what: str) -> None:
    """Print the JSON Schema of `lablang export --to json` (or of a certificate).

    Example: `lablang schema --of certificate`
    """
    if what == "certificate":
        from lablang.sim.certificate_schema import certificate_schema

        click.echo(json.dumps(certificate_schema(), indent=2))
        return
    from lablang.export import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@click.command("explain")
@click.argument("code")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@PATH_OPTION
def explain_command(code: str, file: str | None, roots: tuple[str, ...]) -> None:
    """Explain a diagnostic CODE, with a failing and a fixed example, a molecular
    operation (its arguments and rationale) or a simulator skill (its arguments and
    preconditions), a restriction enzyme (`lablang explain enzymes` lists them); with a
    FILE, a workflow step (`workflow.step` or `step`) or an oligo
    of that file: its substrates, products, and each primer's site and melting
    temperature there.

    Example: `lablang explain E0203`, `lablang explain pcr`, `lablang explain vortex`,
    `lablang explain gex.amp examples/tenx_3p_v3.lab`
    """
    from lablang.check.names import did_you_mean

    if file is not None:
        from lablang.cli.molecular import checked_model
        from lablang.molecular.explain_names import explain_in_model, explainable_names

        model = checked_model(file, roots)
        text = explain_in_model(model, code)
        if text is None:
            guess = did_you_mean(code, explainable_names(model))
            hint = f" (did you mean `{guess}`?)" if guess else ""
            echo(f"error: `{file}` has no workflow step or oligo `{code}`{hint}", err=True)
            sys.exit(2)
        echo(text, nl=False)
        return
    from lablang.diagnostics.codes import CODES, explain
    from lablang.molecular.enzyme_docs import describe_enzyme
    from lablang.molecular.front import describe
    from lablang.sim.catalog import explain_skill

    operation = describe(code) or explain_skill(code) or describe_enzyme(code)
    if operation is not None:
        echo(operation)
        return
    if code.upper() not in CODES:
        guess = did_you_mean(code.upper(), list(CODES))
        hint = f" (did you mean {guess}?)" if guess else ""
        echo(f"error: no diagnostic code `{code}`{hint}", err=True)
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


@click.command("grammar")
@click.option(
    "--for",
    "target",
    type=click.Choice(["lark", "llguidance"]),
    default="lark",
    show_default=True,
    help="lark: the grammar lablang parses with; llguidance: the stricter grammar llguidance "
    "compiles for constrained decoding.",
)
def grammar_command(target: str) -> None:
    """Print the grammar, for constrained decoding.

    Example: `lablang grammar --for llguidance`
    """
    if target == "llguidance":
        from lablang.syntax.llguidance import derived_grammar

        click.echo(derived_grammar(), nl=False)
    else:
        from lablang.syntax.grammar import grammar_text

        click.echo(grammar_text(), nl=False)
