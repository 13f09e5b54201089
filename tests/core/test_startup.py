"""What `lablang check` defers to keep its start-up short gives the same results."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from lablang import ast
from lablang.diagnostics import Report
from lablang.diagnostics.codes import CODES, _Registry, registry_folder
from lablang.record import fields, frozen, has
from lablang.source import Source
from lablang.syntax import parse

ROOT = Path(__file__).resolve().parents[2]


def _parsed_whole() -> dict[str, tuple[str, dict]]:
    entries: dict[str, tuple[str, dict]] = {}
    for path in sorted(registry_folder().glob("*.toml")):
        for code, data in tomllib.loads(path.read_text("utf-8")).items():
            assert code not in entries, f"{code} registered twice"
            entries[code] = (path.stem, data)
    return entries


def test_registry_read_per_code_equals_the_whole_files_parsed() -> None:
    """Each code's section, parsed alone, gives the entry that parsing its whole file
    gives, and the per-code index lists exactly the codes the files define."""
    whole = _parsed_whole()
    fresh = _Registry()
    assert sorted(fresh) == sorted(whole)
    for code, (area, data) in whole.items():
        entry = fresh[code]
        assert entry.area == area
        assert entry.severity.value == data["severity"]
        assert entry.title == data["title"]
        assert entry.explanation == data["explanation"].strip()
        assert entry.bad == data.get("bad", "").strip("\n")
        assert entry.good == data.get("good", "").strip("\n")


def test_reporting_one_diagnostic_parses_only_its_code() -> None:
    """Looking up one code's severity parses that code's section, not the registry."""
    fresh = _Registry()
    assert "E0203" in fresh and "E9999" not in fresh
    fresh["E0203"]
    assert list(fresh._codes) == ["E0203"]
    assert len(CODES) == len(fresh)


def test_check_process_exit_status_and_output_are_unchanged_by_the_fast_path() -> None:
    """`lablang check FILE` (the option-less fast path, with its collector settings)
    prints and exits exactly as the click command `lablang check --color never FILE`."""
    bad = "protocol p {\n  step a { add: 50 uL of mix to: tube1 }\n}\n"
    runs = [
        subprocess.run(
            [sys.executable, "-m", "lablang", "check", *extra, "-"],
            input=bad,
            capture_output=True,
            text=True,
            check=False,
        )
        for extra in ([], ["--color", "never"])
    ]
    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stderr == runs[1].stderr
    assert "E0804" in runs[0].stderr


def _nodes(node: object) -> list[object]:
    if isinstance(node, tuple):
        return [n for item in node for n in _nodes(item)]
    if not has(type(node)):
        return []
    found = [node]
    for field in fields(type(node)):
        found += _nodes(getattr(node, field.name))
    return found


def _generated_repr(node: object) -> str:
    """The repr records generate, from a twin class with the generated `__repr__`."""
    kind = type(node)
    names = [f.name for f in fields(kind)]
    body = {"__annotations__": dict.fromkeys(names, "object"), "__qualname__": kind.__qualname__}
    twin = frozen(kw_only=True)(type(kind.__name__, (), body))
    return repr(twin(**{name: getattr(node, name) for name in names}))


def test_every_ast_node_repr_is_the_text_records_generate() -> None:
    """The AST's repr, written once (`lablang.ast._Node`) instead of generated per class,
    is the generated text (attrs' format) for every node of the shipped examples, the stdlib and the golden
    cases, and every node class is among them."""
    files = [*ROOT.glob("examples/**/*.lab"), *ROOT.glob("stdlib/**/*.lab")]
    files += ROOT.glob("tests/goldens/**/*.lab")
    modules = [parse(Source(p.read_text("utf-8", "replace")), Report()) for p in sorted(files)]
    seen: set[type] = set()
    for module in modules:
        for node in _nodes(module):
            if type(node).__module__ == "lablang.ast":
                seen.add(type(node))
                assert repr(node) == _generated_repr(node)
    classes = {
        c for c in vars(ast).values() if isinstance(c, type) and c.__module__ == "lablang.ast"
    }
    assert classes - {ast._Node} == seen


def test_check_run_in_a_callers_process_leaves_its_garbage_collector_as_it_was() -> None:
    """`lablang.cli.run(["check", FILE])` called in-process tunes the collector only for a
    process of its own: the caller's thresholds stay and nothing of its heap is frozen."""
    import gc

    import pytest

    from lablang.cli import run

    before = (gc.get_threshold(), gc.get_freeze_count())
    with pytest.raises(SystemExit) as stopped:
        run(["check", str(ROOT / "examples" / "tenx_3p_v3.lab")])
    assert stopped.value.code == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
