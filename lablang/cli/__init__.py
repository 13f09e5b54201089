"""The `lablang` command line: a thin click front end over library functions.

Each verb lives in its own module and is imported only when it is run, so that
`lablang check` never pays for z3, mujoco or scipy.
"""

from __future__ import annotations

import importlib
import sys
from typing import NoReturn

import click

from lablang.cli.terminal import color_option

# verb -> (module, attribute, one-line help). The module is imported lazily.
VERBS: dict[str, tuple[str, str, str]] = {
    "check": ("lablang.cli.core", "check_command", "Check .lab files and report diagnostics."),
    "fmt": ("lablang.cli.core", "fmt_command", "Format .lab files in the canonical layout."),
    "export": (
        "lablang.cli.core",
        "export_command",
        "Export a checked program (json, libstruct, seqspec).",
    ),
    "schema": (
        "lablang.cli.core",
        "schema_command",
        "Print the JSON Schema of `lablang export --to json`.",
    ),
    "explain": ("lablang.cli.core", "explain_command", "Explain a diagnostic code with examples."),
    "spec": ("lablang.cli.core", "spec_command", "Print the language reference."),
    "grammar": (
        "lablang.cli.core",
        "grammar_command",
        "Print the grammar (Lark, or llguidance for constrained decoding).",
    ),
    "import": (
        "lablang.cli.molecular",
        "import_command",
        "Import LibStructBench JSON or seqspec YAML as .lab.",
    ),
    "graph": (
        "lablang.cli.molecular",
        "graph_command",
        "Write a workflow's molecular graph (dot, graphml, mermaid, json).",
    ),
    "draw": (
        "lablang.cli.molecular",
        "draw_command",
        "Draw a library structure or workflow as SVG/HTML.",
    ),
    "score": (
        "lablang.cli.scoring",
        "score_command",
        "Score a reconstruction against a reference (LibStructBench).",
    ),
    "verify": ("lablang.cli.contracts", "verify_command", "Verify contracts with Z3."),
    "legal": (
        "lablang.cli.contracts",
        "legal_command",
        "List the legal operations of a contract in a state.",
    ),
    "monitor": (
        "lablang.cli.contracts",
        "monitor_command",
        "Replay an event log against a contract.",
    ),
    "simulate": (
        "lablang.cli.sim",
        "simulate_command",
        "Simulate a task's expert program in MuJoCo.",
    ),
    "certify": ("lablang.cli.sim", "certify_command", "Certify a task under randomization."),
    "evaluate": ("lablang.cli.sim", "evaluate_command", "Evaluate a policy on a task."),
    "replay": ("lablang.cli.sim", "replay_command", "Re-score a recorded episode."),
    "branch": (
        "lablang.cli.sim",
        "branch_command",
        "Run a matched continuation (base and supported branch) from a checkpoint.",
    ),
    "diff": ("lablang.cli.protocols", "diff_command", "Semantic diff of two protocols."),
    "grade": ("lablang.cli.protocols", "grade_command", "Grade judgments against a rubric."),
    "judge-prompts": (
        "lablang.cli.protocols",
        "judge_prompts_command",
        "Write one judge prompt per rubric item.",
    ),
    "lsp": ("lablang.cli.lsp", "lsp_command", "Run the language server over stdio."),
    "serve": (
        "lablang.cli.agents",
        "serve_command",
        "Answer check/fix/export/score requests as JSON lines on stdio.",
    ),
    "bench": (
        "lablang.cli.agents",
        "bench_group",
        "Run an agent on benchmark tasks (libstruct) with .lab answers.",
    ),
}


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        from lablang.output import OutputError, forget_inputs

        forget_inputs()
        try:
            return super().invoke(ctx)
        except OutputError as error:
            _output_refused(error)
            raise  # not reached: the refusal exits

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in VERBS:
            return None
        module_name, attribute, help_text = VERBS[cmd_name]
        try:
            module = importlib.import_module(module_name)
            command = getattr(module, attribute)
        except (ImportError, AttributeError):
            return _unavailable(cmd_name, help_text)
        assert isinstance(command, click.Command)
        return command


def _output_refused(error: Exception) -> NoReturn:
    """An output that must not or cannot be written is E0023; nothing was written."""
    from lablang.diagnostics import Report
    from lablang.diagnostics.render import render_texts

    report = Report()
    report.add("E0023", str(error), None, help="choose another output path")
    click.echo(render_texts(report.sorted()), err=True)
    sys.exit(1)


def _unavailable(name: str, help_text: str) -> click.Command:
    @click.command(
        name=name,
        help=f"{help_text} (not available in this build)",
        context_settings={"ignore_unknown_options": True},
    )
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        click.echo(
            f"error: `lablang {name}` is not available in this build (partial: "
            "its backend has not landed yet)",
            err=True,
        )
        sys.exit(2)

    return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lablang")
@color_option
def main() -> None:
    """lablang: check, format, score, verify, simulate and grade `.lab` programs."""
