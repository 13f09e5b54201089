"""The verbs of `lablang`: each verb's module, the click command in it, and its help line.

A table of its own, below both the package (whose `run` reaches the checker without
click) and the click group (`group`, which loads a verb's module when it is run).
"""

from __future__ import annotations

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
    "replay": ("lablang.cli.episodes", "replay_command", "Re-score a recorded episode."),
    "demos": (
        "lablang.cli.demos",
        "demos_command",
        "Record expert demonstrations as robomimic-style HDF5.",
    ),
    "branch": (
        "lablang.cli.episodes",
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
