"""What `lablang check` defers to keep its start-up short gives the same results."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from attrs import fields, frozen, has

from lablang import ast
from lablang.diagnostics import Report
from lablang.diagnostics.codes import CODES, _Registry, registry_folder
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


def test_each_codes_severity_read_without_tomllib_is_the_parsed_one() -> None:
    """`CODES.severity(code)`, read from the section's `severity` line for reporting, is
    the severity parsing the whole registry files gives, for every code."""
    fresh = _Registry()
    for code, (_area, data) in _parsed_whole().items():
        assert fresh.severity(code).value == data["severity"], code
    assert fresh._codes == {}  # read without parsing any section


def test_every_code_lives_in_the_registry_file_of_its_range() -> None:
    """Each code is in the file its range names (E00xx-E03xx core, E04xx molecular, ...,
    as `lablang.diagnostics.codes` lists them), so looking one up reads that file alone,
    and a lookup from that file alone agrees with the whole registry, codes absent too."""
    from lablang.diagnostics.codes import _RANGE_FILES

    whole = _parsed_whole()
    assert {code: area for code, (area, _data) in whole.items()} == {
        code: _RANGE_FILES[code[2]] for code in whole
    }
    for code in [*whole, "E0899", "W0499"]:
        fresh = _Registry()
        assert (code in fresh) == (code in whole), code
        assert fresh._sections is None  # read without the whole index
    for code in ["E0999", "E9999", "X0101", "E01", "e0203"]:  # no range: the whole index
        assert code not in _Registry()


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
    """The AST's repr, written once (`lablang.records.Record`) instead of generated per class,
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
    assert classes == seen


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


def _benchmark() -> object:
    path = ROOT / "benchmarks" / "check_speed.py"
    spec = importlib.util.spec_from_file_location("check_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Third-party packages and lablang modules a check of the start-up files must not load:
# the solvers, the simulator, the numeric and graph stacks, the CLI framework, and the
# backends' parts that only export, draw, score or verify.
HEAVY_PACKAGES = {
    "z3", "mujoco", "numpy", "scipy", "networkx", "click", "yaml", "rapidfuzz", "cattrs",
    "pygls", "tqdm", "PIL", "gymnasium", "h5py", "ray", "jsonschema", "llguidance", "seqspec",
}  # fmt: skip
HEAVY_LABLANG = (
    "lablang.molecular.interchange", "lablang.molecular.draw", "lablang.molecular.seqspec",
    "lablang.molecular.seqspec_export",
    "lablang.molecular.libstruct", "lablang.molecular.graph", "lablang.molecular.atlas",
    "lablang.scoring", "lablang.rubrics", "lablang.sim", "lablang.fmt", "lablang.spec",
    "lablang.lsp", "lablang.cli.group", "lablang.cli.core", "lablang.export",
)  # fmt: skip
# the light parts of those packages a check reads: a lazy package's own module (PEP 562
# exports, nothing imported) and the Task 1 grader's score characters (W0406)
LIGHT_LABLANG = {"lablang.scoring", "lablang.scoring.library_chars"}
# Standard-library modules only a corner case needs (writing a file, explaining a code,
# a docstring, a non-ASCII caret, --json): lablang imports them where that case is, not
# on the way of every check. The syntax stage's own imports (its parser-table cache) are
# not listed here.
CORNER_CASE_STDLIB = {
    "tempfile", "shutil", "inspect", "pkgutil", "tomllib", "textwrap", "string", "pickle",
    "platform", "hashlib", "json", "datetime", "difflib", "subprocess", "logging",
    "dataclasses", "urllib", "unicodedata", "ast", "dis", "tokenize", "copy", "random",
}  # fmt: skip

# Runs `lablang check FILE` as the command does, recording each `import` statement that
# lablang's code executes (its importer and the name), then what is loaded at the end.
_PROBE = """
import builtins, json, os, sys
def ended(code):  # the check process's own end (lablang.cli._end_process), made an exit
    raise SystemExit(code)
os._exit = ended
statements = []
real = builtins.__import__
def probe(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if level == 0 and importer.startswith("lablang"):
        statements.append((importer, name))
    return real(name, globals, locals, fromlist, level)
builtins.__import__ = probe
from lablang.cli import run
sys.argv = ["lablang", "check", sys.argv[1]]
code = None
try:
    run()
except SystemExit as stop:
    code = stop.code
builtins.__import__ = real
print(json.dumps({"code": code, "statements": statements, "modules": sorted(sys.modules)}))
"""


def _startup_files(folder: Path) -> dict[str, tuple[Path, int]]:
    """The files of `check_speed.py --startup-only`, with the exit status each gives."""
    bench = _benchmark()
    small = folder / "small.lab"
    small.write_text(bench.UNIT.format(i=0))  # type: ignore[attr-defined]
    errors = folder / "errors.lab"
    errors.write_text(bench.WITH_ERRORS)  # type: ignore[attr-defined]
    files = {"small.lab (3 backends)": (small, 0), "protocol, 2 errors": (errors, 1)}
    for label, path in bench.STARTUP_FILES.items():  # type: ignore[attr-defined]
        files[label] = (path, 0)
    return files


@pytest.mark.parametrize(
    "label", ["small.lab (3 backends)", "protocol file", "10x example", "protocol, 2 errors"]
)
def test_checking_a_startup_file_loads_no_heavy_module_and_no_corner_case_import(
    label: str, tmp_path: Path
) -> None:
    """A `lablang check` process on each start-up benchmark file loads none of the heavy
    packages or lablang's export/draw/score/verify modules (nor, when it reports nothing,
    the code registry and the renderer), and lablang's own code runs no import of a
    standard-library module that only a corner case needs."""
    path, status = _startup_files(tmp_path)[label]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == status, done.stderr
    heavy = [
        m
        for m in seen["modules"]
        if m.partition(".")[0] in HEAVY_PACKAGES
        or (m not in LIGHT_LABLANG and any(m == h or m.startswith(h + ".") for h in HEAVY_LABLANG))
    ]
    assert heavy == []
    if status == 0:  # nothing reported: the code registry and the renderer are not read
        assert {"lablang.diagnostics.codes", "lablang.diagnostics.render"}.isdisjoint(
            seen["modules"]
        )
    corner = sorted(
        {
            f"{importer} imports {name}"
            for importer, name in seen["statements"]
            if name.partition(".")[0] in CORNER_CASE_STDLIB
            and not importer.startswith("lablang.syntax")
        }
    )
    assert corner == []


def test_the_operation_modules_found_without_pkgutil_are_pkgutils() -> None:
    """`lablang.molecular.ops` imports (and so registers) exactly the modules
    `pkgutil.iter_modules` lists in its folder, found without loading `pkgutil`."""
    import pkgutil

    from lablang.molecular import ops

    listed = sorted(m.name for m in pkgutil.iter_modules(ops.__path__))
    assert ops._submodules() == listed
    assert all(f"lablang.molecular.ops.{name}" in sys.modules for name in listed)


def test_the_benchmark_s_cpu_time_leaves_out_a_process_s_waiting() -> None:
    """`check_speed.run_timed` gives a child's wall time and its CPU time: a child that
    sleeps 0.3 s takes at least that long and uses far less CPU than that."""
    wall, cpu = _benchmark().run_timed([sys.executable, "-c", "import time; time.sleep(0.3)"])  # type: ignore[attr-defined]
    assert wall >= 0.3 and 0 < cpu < 0.25, (wall, cpu)


def test_the_benchmark_s_other_tree_is_the_one_its_check_processes_import(
    tmp_path: Path,
) -> None:
    """`check_speed.py --against TREE` runs `python -m lablang` from this tree's folder
    with `tree_env(TREE)`: the process imports TREE's lablang, not this tree's."""
    package = tmp_path / "lablang"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print(__file__)\n")
    shown = subprocess.run(
        [sys.executable, "-m", "lablang"],
        cwd=ROOT,
        env=_benchmark().tree_env(tmp_path),  # type: ignore[attr-defined]
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(shown).resolve() == (package / "__main__.py").resolve()


# records of layer 1, beside `lablang.records` (units of one layer are independent)
_BESIDE_RECORDS = {"lablang.source", "lablang.units", "lablang.units.table", "lablang.limits"}


def test_every_frozen_record_a_check_declares_shares_the_one_repr(tmp_path: Path) -> None:
    """Each frozen attrs class in the lablang modules a check of small.lab (all three
    backends) loads prints through `lablang.records.Record` and compares through
    `lablang.records.Compared` (or by identity), with no `__repr__` or `__eq__` attrs
    generated for it (two thirds of declaring the class), except the records of layer 1
    that cannot import them."""
    import importlib

    from lablang.records import Record

    path, _ = _startup_files(tmp_path)["small.lab (3 backends)"]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, cwd=ROOT
    )
    loaded = json.loads(done.stdout.splitlines()[-1])["modules"]
    generated = []
    for name in loaded:
        if not name.startswith("lablang.") or name in _BESIDE_RECORDS:
            continue
        for value in vars(importlib.import_module(name)).values():
            frozen_record = isinstance(value, type) and has(value) and value.__module__ == name
            frozen_record = frozen_record and value.__setattr__ is not object.__setattr__
            own = vars(value) if frozen_record else {}
            if ("__repr__" in own and not issubclass(value, Record)) or "__eq__" in own:
                generated.append(f"{name}.{value.__qualname__}")
    assert "lablang.contracts.model" in loaded and generated == []
