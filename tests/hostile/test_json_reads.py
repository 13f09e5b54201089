"""JSON that a user's file holds is read by the bounded reader (`lablang.datafile`), so deep
nesting is a located error and never a RecursionError traceback: a task folder's
`task.json` under `bench`, and the first line `monitor` reads to tell a simulation record
from a plain events file. A meta-test keeps every other `json.loads` in lablang/ to the
places listed with why each reads no user's file.

Bounds: a normal two-task replay run takes about 0.7 s of CPU and 72 MB resident; each
run here gets 60 s of CPU and 1 GB of address space."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.hostile.bounded import ROOT, run_bounded

TASKS = ROOT / "tests" / "agents" / "tasks"
DEEP = "[" * 100_000 + "]" * 100_000

# module -> (the line's text, why it reads no user's file unbounded)
ALLOWED = {
    "lablang/lsp/framing.py": (
        "json.loads(body",
        "an LSP frame, bounded by its header and with RecursionError caught",
    ),
    "lablang/lsp/client.py": ("json.loads(stream.read", "the test client reads our own server"),
    "lablang/agent/serve.py": ("json.loads(line)", "a bounded request line, RecursionError caught"),
    "lablang/sim/records.py": ("json.loads(", "lines the episode itself wrote, or a round trip"),
    "lablang/sim/labference.py": ("json.loads(text)", "the package's own JSON Schema file"),
    "lablang/rubrics/benchmark.py": ("json.loads(text)", "the package's own JSON Schema file"),
    "lablang/export.py": (">>> import json", "a doctest"),
}


def test_bench_with_a_deeply_nested_task_json_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """A `task.json` nested 100,000 deep stops `bench` with an error naming the task and
    the file (exit 2), not a RecursionError traceback."""
    tasks = tmp_path / "tasks"
    shutil.copytree(TASKS / "mini_lig", tasks / "mini_lig")
    (tasks / "mini_lig" / "task.json").write_text(DEEP)
    run = run_bounded(
        ["bench", "libstruct", "--tasks", str(tasks), "--out", str(tmp_path / "out"),
         "--agent", "true", "--rounds", "0"],
        cpu_seconds=60,
        memory_mb=1024,
    )  # fmt: skip
    run.assert_clean()
    assert run.returncode == 2, run.output
    assert "mini_lig" in run.stderr and "task.json" in run.stderr, run.stderr


def test_monitor_of_a_deeply_nested_first_line_is_a_located_error(tmp_path: Path) -> None:
    """`monitor CONTRACT EVENTS` whose first line is nested 100,000 deep is read as an
    events file and refused with a message, not a RecursionError traceback."""
    events = tmp_path / "events.jsonl"
    events.write_text(DEEP + "\n")
    contract = ROOT / "examples" / "contracts" / "lidded_box.lab"
    run = run_bounded(["monitor", str(contract), str(events)], cpu_seconds=60, memory_mb=1024)
    run.assert_clean()
    assert run.returncode != 0, run.output
    assert "events.jsonl" in run.stderr, run.stderr


def test_every_json_loads_in_lablang_is_a_listed_place() -> None:
    """No module of lablang/ calls `json.loads`/`json.load` on text it read for a user
    except through `lablang.datafile`; the listed places say why theirs is not such text,
    and a listed place that no longer calls it fails too."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "lablang").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative == "lablang/datafile.py":
            continue
        for line in path.read_text("utf-8").splitlines():
            if re.search(r"\bjson\.loads?\(", line):
                found.setdefault(relative, []).append(line.strip())
    for relative, lines in found.items():
        assert relative in ALLOWED, f"{relative}: read user JSON with lablang.datafile: {lines}"
        needle = ALLOWED[relative][0]
        assert all(needle.split("(")[0] in line for line in lines), (relative, lines)
    assert set(ALLOWED) <= set(found), set(ALLOWED) - set(found)
