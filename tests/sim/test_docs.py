"""docs/sim.md: its example file, its console session and its Python snippet work as shown."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path("docs/sim.md").read_text("utf-8")


def test_doc_example_is_the_example_file() -> None:
    """The `.lab` block in docs/sim.md is exactly examples/tasks/move_tube.lab (minus its comment)."""
    block = re.search(r"```lab\n(.*?)```", DOC, re.S)
    assert block is not None
    text = Path("examples/tasks/move_tube.lab").read_text("utf-8")
    assert text.split("\n", 1)[1] == block.group(1)


def test_doc_console_session_prints_what_the_doc_shows() -> None:
    """`lablang simulate` prints the shown lines (timings aside) with the shown trace digest."""
    session = re.search(r"```console\n\$ (lablang simulate [^\n]*)\n(.*?)\$ ", DOC, re.S)
    assert session is not None
    command, shown = session.group(1), session.group(2)
    out = subprocess.run(
        [sys.executable, "-m", "lablang", *command.split()[1:]], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    strip = lambda s: re.sub(r"\s*[\d.]+ ms wall|in [\d.]+ s", "", s)  # noqa: E731
    assert strip(out.stdout) == strip(shown)


def test_doc_python_snippet_runs() -> None:
    """The Python block of docs/sim.md runs and its assertions hold."""
    block = re.search(r"```python\n(.*?)```", DOC, re.S)
    assert block is not None
    exec(compile(block.group(1), "docs/sim.md", "exec"), {})


CERTIFICATION = DOC.split("## Certification: a wrong program must fail", 1)[1].split("\n## ", 1)[0]


def test_doc_certification_session_prints_what_the_doc_shows(tmp_path: Path) -> None:
    """The certification section's sorting task is `docs/examples/vacuous_sort.lab`;
    certified as shown, it prints the shown lines (the surviving mutants and the luck of
    `success: true`) and exits 1, and the section's Python snippet's assertions hold."""
    lab = re.search(r"```lab\n(.*?)```", CERTIFICATION, re.S)
    session = re.search(r"```console\n\$ (lablang certify [^\n]*)\n(.*?)```", CERTIFICATION, re.S)
    snippet = re.search(r"```python\n(.*?)```", CERTIFICATION, re.S)
    assert lab is not None and session is not None and snippet is not None
    file = Path("docs/examples/vacuous_sort.lab")
    assert file.read_text("utf-8").split("\n", 2)[2] == lab.group(1)
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    (tmp_path / file).write_text(file.read_text("utf-8"), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "lablang", *session.group(1).split()[1:]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert out.returncode == 1, out.stderr
    assert out.stdout == session.group(2)
    exec(compile(snippet.group(1), "docs/sim.md", "exec"), {})


def test_the_docs_tables_name_every_registered_skill_and_asset() -> None:
    """docs/sim.md's skills table names every skill of `catalog.SKILL_SIGNATURES` and its
    assets table every asset of `catalog.ASSET_KINDS`, so a skill or asset registered
    without its documentation fails here."""
    from lablang.sim import catalog

    skills = DOC[DOC.index("## Skills") : DOC.index("## Tasks traced to protocols")]
    for name in catalog.SKILL_SIGNATURES:
        assert f"`{name}(" in skills, name
    for asset in catalog.ASSET_KINDS:
        assert f"| `{asset}` |" in DOC, asset


BOUND = DOC.split("### Tasks bound to contracts", 1)[1].split("\n### ", 1)[0]


def test_doc_bound_task_example_is_the_example_file_and_monitor_prints_it(tmp_path: Path) -> None:
    """The bound-task section's `operations:` map is the centrifuge example's, verbatim, and
    its `simulate --record` then `monitor` session prints the shown lines."""
    block = re.search(r"```text\n(.*?)```", BOUND, re.S)
    session = re.search(r"```console\n\$ (.*?)\n(.*?)```", BOUND, re.S)
    assert block is not None and session is not None
    assert block.group(1) in Path("examples/tasks/centrifuge_loading.lab").read_text("utf-8")
    from click.testing import CliRunner

    from lablang.cli import main

    record = str(tmp_path / "episode.jsonl")
    printed = ""
    for command in session.group(1).split(" && "):
        args = [record if a == "episode.jsonl" else a for a in command.split()[1:]]
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 0, out.output
        printed = out.output
    assert printed == session.group(2)
