"""The installed wheel carries the grammar, its parser tables, the standard library and the
code registry, and checks a file in an environment without lark."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from lablang.syntax import tables

ROOT = Path(__file__).resolve().parents[2]


def _vscode_readme_commands() -> list[str]:
    """The install commands of editors/vscode/README.md (its `sh` block)."""
    text = (ROOT / "editors" / "vscode" / "README.md").read_text("utf-8")
    (block,) = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    return block.strip().splitlines()


def test_vscode_readme_installs_from_a_checkout_or_a_wheel_built_there() -> None:
    """The extension's README says how to install lablang without a package index: from
    the checkout, or from the wheel it builds there (the command the `wheel` fixture runs)."""
    direct, wheel_then_install = _vscode_readme_commands()
    assert direct == "pip install ."
    build, install = wheel_then_install.split(" && ")
    assert build.split() == ["pip", "wheel", "--no-deps", "-w", "dist", "."]
    assert install == "pip install dist/lablang-*.whl"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built by editors/vscode/README.md's command, into a temporary `dist`
    (without build isolation: the test environment has the build requirements)."""
    out = tmp_path_factory.mktemp("dist")
    build = _vscode_readme_commands()[1].split(" && ")[0].split()
    assert build[:2] == ["pip", "wheel"] and build[-3:] == ["-w", "dist", "."]
    subprocess.run(
        [sys.executable, "-m", *build[:-3], "--no-build-isolation", "-q", "-w", str(out), "."],
        cwd=ROOT,
        check=True,
    )
    (path,) = out.glob("lablang-*.whl")  # the README's `dist/lablang-*.whl`
    return path


def test_wheel_contains_grammar_stdlib_spec_and_registry(wheel: Path) -> None:
    """Package data needed at run time is inside the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "lablang/_data/grammar/lablang.lark" in names
    assert "lablang/spec.md" in names
    assert "lablang/diagnostics/registry/core.toml" in names


def test_wheel_ships_the_parser_tables_of_its_grammar(wheel: Path) -> None:
    """The build hook put the tables lark made of the wheel's own grammar in the wheel."""
    archive = zipfile.ZipFile(wheel)
    blob = archive.read("lablang/_data/tables.lalr")
    saved = marshal.loads(blob[len(tables.FORMAT) + 32 :])
    grammar_text = archive.read("lablang/_data/grammar/lablang.lark").decode("utf-8")
    assert saved["grammar"] == tables.grammar_digest(grammar_text)
    assert saved["lark"] == tables.LARK_VERSION


def test_lark_is_pinned_for_the_build_and_the_tests_and_not_for_users() -> None:
    """The lark that makes the tables (`[build-system].requires`) and the one the tests
    compare the runtime with (`test-core`) are `tables.LARK_VERSION`; users get no lark."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    pin = f"lark=={tables.LARK_VERSION}"
    assert pin in project["build-system"]["requires"]
    assert pin in project["project"]["optional-dependencies"]["test-core"]
    assert not [d for d in project["project"]["dependencies"] if d.startswith("lark")]


def _without_lark(env_dir: Path, folder: Path) -> None:
    """Lets the venv at `env_dir` see the test environment's installed packages (CI's own
    fresh venv, not the base interpreter's site-packages) except lark and lablang: each is
    linked into `folder`, which a plain path file adds (its own `.pth` hooks, such as the
    editable lablang's, are not run)."""
    folder.mkdir()
    for outer in sorted({sysconfig.get_paths()[key] for key in ("purelib", "platlib")}):
        for entry in sorted(Path(outer).iterdir()):
            name = entry.name.lower()
            skipped = name.endswith(".pth") or name.startswith(("lark", "lablang", "_lablang"))
            if not skipped and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    inner = env_dir / "lib" / version / "site-packages"
    (inner / "test-environment.pth").write_text(f"{folder}\n")


_PROBE = """
import os, sys
from lablang.syntax import _parser
print(_parser()._runtime.lablang_tables)
print(sorted(m for m in sys.modules if m == "lark" or m.startswith("lark.")))
"""


def test_installed_wheel_checks_a_file_without_lark_or_analysis(
    wheel: Path, tmp_path: Path
) -> None:
    """From a wheel installed where lark is absent (not the checkout), `lablang check`
    reads the shipped tables: exit 0, no lark module, no parser cache written; `lablang
    grammar` (both forms) needs no lark either."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    _without_lark(env_dir, tmp_path / "site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.lab").write_text("oligo X { seq: 5'-ACGT-3'  support: explicit }\n")
    cache = tmp_path / "cache"
    env = {**os.environ, "LABLANG_CACHE": str(cache)}
    env.pop("LABLANG_TABLES", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), *args], capture_output=True, text=True, cwd=work, env=env
        )

    assert run("-c", "import lark").returncode != 0
    where = run("-c", "import lablang, pathlib; print(pathlib.Path(lablang.__file__).parent)")
    assert where.returncode == 0 and str(ROOT) not in where.stdout, where.stdout + where.stderr
    result = run("-m", "lablang", "check", "a.lab")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stderr  # diagnostics and summary go to stderr
    probe = run("-c", _PROBE)
    assert probe.stdout.split("\n")[:2] == ["shipped", "[]"], probe.stdout + probe.stderr
    assert not cache.exists()
    for target in ("lark", "llguidance"):
        printed = run("-m", "lablang", "grammar", "--for", target)
        assert printed.returncode == 0 and "start" in printed.stdout, printed.stderr


@pytest.mark.parametrize("lark_version", [None, "1.0.0"], ids=["no-lark", "other-lark"])
def test_the_build_hook_refuses_a_lark_other_than_the_pinned_one(
    lark_version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built without lark or with another version than `LARK_VERSION` (no build
    isolation), the build stops and names the pinned version instead of shipping tables
    made from a serialization and an analysis the tests did not compare."""
    import importlib.util
    import types

    fake = None if lark_version is None else types.ModuleType("lark")
    if fake is not None:
        fake.__version__ = lark_version  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lark", fake)
    spec = importlib.util.spec_from_file_location("_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    with pytest.raises(RuntimeError, match=f"lark=={tables.LARK_VERSION} where you build"):
        hook._tables_file(ROOT)
