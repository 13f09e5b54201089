"""The `lablang` command line: a thin click front end over library functions.

Each verb lives in its own module and is imported only when it is run, so that
`lablang check` never pays for z3, mujoco or scipy; `lablang check PATHS...` without
options does not even load click (`run`, the console script).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

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
    "demos": (
        "lablang.cli.demos",
        "demos_command",
        "Record expert demonstrations as robomimic-style HDF5.",
    ),
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


def run(argv: list[str] | None = None) -> None:
    """The `lablang` command. `lablang check PATHS...` with no option goes straight to the
    checker (click's import is a tenth of a small check's start-up); everything else, and
    every case that check cannot finish (a usage error), goes through click. Called
    without `argv` it is the process's own command: a check then ends the process once
    its output is flushed (`_end_process`); with `argv` it raises `SystemExit`."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 and args[0] == "check" and all(a == "-" or a[:1] != "-" for a in args[1:]):
        import gc

        from lablang.limits import RELAXED_THRESHOLD

        # A check *process* (argv from the command line, not a caller's list) keeps what
        # it allocates (its ~250 classes, the tree) until it exits, so frequent young
        # collections only rescan it; a larger first threshold keeps the collector running
        # (memory stays bounded) but rarely. A caller's process is left as it was.
        own_process = argv is None
        if own_process:
            gc.set_threshold(RELAXED_THRESHOLD)
        from lablang.cli.checking import check_paths

        code = check_paths(args[1:])
        if code is not None:
            if own_process:
                _end_process(code)
            sys.exit(code)
    from lablang.cli.group import main

    main(args=args, prog_name="lablang")


def _end_process(code: int) -> NoReturn:
    """End a check process without the interpreter's teardown, as mypy ends its own: the
    teardown frees each of the check's modules, classes and tree nodes one by one and
    collects (2-3 ms of a check's start-up), and a check leaves nothing for it to do:
    its output is flushed here, it writes no file after reporting, starts no thread and
    registers no exit handler."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def __getattr__(name: str) -> Any:
    # `from lablang.cli import main` (the click group) loads click only when asked for
    if name in ("main", "LazyGroup"):
        from lablang.cli import group

        return getattr(group, name)
    raise AttributeError(f"module 'lablang.cli' has no attribute {name!r}")
