"""The wheel's build hook: lark analyses `grammar/lablang.lark` into the parser tables that
lablang's runtime reads (`lablang/syntax/tables.py`), shipped as `lablang/_data/tables.lalr`
so that no check after an install analyses the grammar or imports lark.

The lark that analyses is `[build-system].requires`' pinned one (the version whose
serialized parser, from `Lark.memo_serialize`, `tables.py` reads and the tests run against);
any other stops the build. A
wheel gets a fresh file; an editable install writes it into the checkout (ignored by
git), where the runtime, imported from the checkout, finds it. `tables.py` and
`output.py` are loaded by path: the build environment has lark, not lablang's
dependencies.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TABLES = "lablang/_data/tables.lalr"


class ParserTablesHook(BuildHookInterface):  # type: ignore[type-arg, misc, unused-ignore]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        blob = _tables_file(root)
        if version == "editable":
            _module(root, "output").write_atomic(root / TABLES, blob)
            return
        self.tables_folder = tempfile.mkdtemp(prefix="lablang-tables-")
        made = Path(self.tables_folder) / "tables.lalr"
        made.write_bytes(blob)
        build_data["force_include"][str(made)] = TABLES

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "tables_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _module(root: Path, name: str) -> ModuleType:
    path = root / "lablang" / f"{name.replace('.', '/')}.py"
    spec = importlib.util.spec_from_file_location(f"_lablang_build_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tables_file(root: Path) -> bytes:
    tables = _module(root, "syntax.tables")
    try:
        from lark import __version__ as found
    except ImportError:
        found = "none"
    if found != tables.LARK_VERSION:
        raise RuntimeError(
            f"lablang's parser tables are made with lark {tables.LARK_VERSION} "
            f"(`[build-system].requires`); the build environment's lark: {found}. Build "
            f"with build isolation, or install lark=={tables.LARK_VERSION} where you build"
        )
    text = (root / "grammar" / "lablang.lark").read_text("utf-8")
    blob: bytes = tables.tables_file(text)
    return blob
