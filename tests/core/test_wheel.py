"""The installed wheel carries the grammar, the standard library and the code registry."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
    )
    (path,) = out.glob("lablang-*.whl")
    return path


def test_wheel_contains_grammar_stdlib_spec_and_registry(wheel: Path) -> None:
    """Package data needed at run time is inside the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "lablang/_data/grammar/lablang.lark" in names
    assert "lablang/spec.md" in names
    assert "lablang/diagnostics/registry/core.toml" in names


def test_installed_wheel_checks_a_file_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    """From a wheel install (not the checkout), the grammar loads and `lablang check` works."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # the new venv sees the test environment's installed dependencies (CI's own fresh
    # venv, not the base interpreter's site-packages) through a plain path file, which
    # does not run the `.pth` hooks there, so an editable lablang stays invisible
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    inner = env_dir / "lib" / version / "site-packages"
    outer = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (inner / "test-environment.pth").write_text("\n".join(sorted(outer)) + "\n")
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
    probe = (
        "import lablang, lablang.syntax.grammar as g, pathlib;"
        "print(pathlib.Path(lablang.__file__).parent);"
        "print('lablang/_data/grammar' in str(g.__file__) or g.grammar_text()[:2])"
    )
    out = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd=work, check=True
    )
    assert str(ROOT) not in out.stdout.splitlines()[0]
    result = subprocess.run(
        [str(python), "-m", "lablang", "check", "a.lab"], capture_output=True, text=True, cwd=work
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stderr  # diagnostics and summary go to stderr
