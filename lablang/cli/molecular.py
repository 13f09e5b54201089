"""The molecular verbs: import, graph, draw."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from lablang.cli.terminal import echo, echo_diagnostics

PATH_OPTION = click.option(
    "--path",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A directory to import modules from (repeatable).",
)


def checked_model(file: str, roots: tuple[str, ...]) -> Any:
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.front import build_model

    result = check_file(file, roots)
    if not result.ok:
        echo_diagnostics(result.report.sorted())
        sys.exit(1)
    return build_model(result.program, Report()).model


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write the .lab here instead of stdout."
)
@click.option("--name", help="Module name (default: from the file).")
def import_command(files: tuple[str, ...], output: str | None, name: str | None) -> None:
    """Import LibStructBench JSON (T1/T2/T3 files, merged) or one seqspec YAML as .lab.

    Repairs made to a seqspec that its own 0.4.0 checks reject are reported as W0401;
    a file that cannot be read is E0417.

    Example: `lablang import tests/scoring/data/official_cases/drop_seq/truth_t2.json tests/scoring/data/official_cases/drop_seq/truth_t3.json -o answer.lab`
    """
    from lablang.datafile import DataFileError, load_json, read_data_text, yaml_spans
    from lablang.diagnostics import Report
    from lablang.molecular.libstruct import ImportProblem, import_libstruct
    from lablang.molecular.seqspec import SeqspecProblem, import_seqspec, load_seqspec_yaml
    from lablang.output import write_atomic
    from lablang.source import Source, Span

    report = Report()
    text: str | None = None
    try:
        if files[0].endswith((".yaml", ".yml")) or _looks_like_seqspec(files[0]):
            if len(files) != 1:
                raise SeqspecProblem("import one seqspec file at a time")
            source = Source(read_data_text(files[0]), files[0])
            imported = import_seqspec(load_seqspec_yaml(source.text), name)
            spans = yaml_spans(source.text, files[0])
            for repair, path in zip(imported.repairs, imported.where, strict=True):
                # the YAML node the repair is about (its nearest enclosing node on record)
                while path and path not in spans:
                    path = path[:-1]
                start, end = spans.get(path, (0, 0))
                report.add("W0401", repair, source, Span(start, end), label="repaired")
            text = imported.text
            if imported.problems:
                text = (
                    "\n".join(
                        ["# seqspec 0.4.0 checks reject the file as published:"]
                        + [f"#   {p}" for p in imported.problems]
                        + ["# repaired on import:"]
                        + [f"#   {r}" for r in imported.repairs]
                    )
                    + "\n"
                    + text
                )
        else:
            merged: dict[str, Any] = {}
            for file in files:
                data = load_json(read_data_text(file), file)
                if not isinstance(data, dict):
                    raise ImportProblem(f"`{file}` is not a JSON object")
                for key, value in data.items():
                    if isinstance(value, list) and isinstance(merged.get(key), list):
                        merged[key] = merged[key] + value
                    else:
                        merged.setdefault(key, value)
            text = import_libstruct(merged, name)
    except (ImportProblem, SeqspecProblem, DataFileError) as error:
        report.add(
            "E0417",
            f"cannot import: {error}",
            Source("", files[0]),
            help="give LibStructBench JSON (T1/T2/T3) or a seqspec YAML file",
        )
    if report.diagnostics:
        echo_diagnostics(report.sorted())
    if text is None:
        sys.exit(1)
    if output:
        write_atomic(Path(output), text)
    else:
        click.echo(text, nl=False)


@click.command("graph")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["dot", "graphml", "mermaid", "json"]),
    default="dot",
    show_default=True,
)
@click.option("--workflow", help="Which workflow (default: the first; declared before derived).")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout."
)
@PATH_OPTION
def graph_command(
    file: str, fmt: str, workflow: str | None, output: str | None, roots: tuple[str, ...]
) -> None:
    """Write a workflow's molecular graph (typed state/transition nodes and edges).

    Example: `lablang graph examples/tenx_3p_v3.lab --format mermaid`
    """
    from lablang.molecular.graph import render_graph
    from lablang.output import write_atomic

    model = checked_model(file, roots)
    graphs = [g for g in model.graphs if workflow is None or g.name == workflow]
    if not graphs:
        names = ", ".join(f"`{g.name}`" for g in model.graphs) or "none"
        what = f"no workflow `{workflow}`" if workflow else "no workflow or declared states"
        echo(f"error: {what} in {file} (workflows: {names})", err=True)
        sys.exit(1)
    text = render_graph(graphs[0], fmt)
    if output:
        write_atomic(Path(output), text)
    else:
        click.echo(text, nl=False)


@click.command("draw")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Directory for the SVG and HTML files.",
)
@PATH_OPTION
def draw_command(file: str, out_dir: str, roots: tuple[str, ...]) -> None:
    """Draw each library (segments on both strands, read arrows) and workflow as SVG, plus
    one standalone HTML page.

    Example: `lablang draw examples/tenx_3p_v3.lab -o pictures/`
    """
    from lablang.molecular.draw import html_page, library_svg, workflow_svg
    from lablang.output import write_atomic

    model = checked_model(file, roots)
    folder = Path(out_dir)
    stem = Path(file).stem
    oligos = {o.name: o for o in model.oligos}
    written = []
    for library in model.libraries:
        path = folder / f"{stem}.{library.name}.svg"
        write_atomic(path, library_svg(library, oligos))
        written.append(path)
    for graph in model.graphs:
        path = folder / f"{stem}.{graph.name}.{'derived' if graph.derived else 'declared'}.svg"
        write_atomic(path, workflow_svg(graph, oligos))
        written.append(path)
    page = folder / f"{stem}.html"
    write_atomic(page, html_page(model))
    written.append(page)
    for path in written:
        echo(f"wrote {path}")


def _looks_like_seqspec(path: str) -> bool:
    """A file that is not JSON but parses as a YAML mapping with a `library_spec`."""
    from lablang.datafile import DataFileError, load_json, read_data_text
    from lablang.molecular.seqspec import load_seqspec_yaml

    if path.endswith(".json"):
        return False
    try:
        text = read_data_text(path)
    except DataFileError:
        return False
    try:
        load_json(text, path)
        return False
    except DataFileError:
        pass
    try:
        data = load_seqspec_yaml(text)
    except DataFileError:
        return True  # YAML-shaped but refused: import it as seqspec, to say why
    return isinstance(data, dict) and "library_spec" in data
