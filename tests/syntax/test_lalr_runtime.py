"""The LALR runtime's contract with the rest of lablang: a warm check never imports lark,
and what the runtime does not reproduce of lark is refused when the tables are made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lablang.syntax import lalr, tables

ROOT = Path(__file__).resolve().parents[2]

_CHECK = """
import os, sys
from lablang.cli import run
try:
    run(["check", sys.argv[1]])
except SystemExit:
    pass
from lablang.syntax import _parser
print(_parser()._runtime.lablang_tables, sorted(os.listdir(os.environ["LABLANG_CACHE"]))
    if os.path.isdir(os.environ["LABLANG_CACHE"]) else [])
print(sorted(m for m in sys.modules if m == "lark" or m.startswith("lark.")))
"""


def _check_process(env: dict[str, str]) -> tuple[str, str]:
    """Where a `lablang check` process of the 10x example took its tables from (and the
    cache folder's files after it), and the lark modules it loaded."""
    example = str(ROOT / "examples" / "tenx_3p_v3.lab")
    run = subprocess.run(
        [sys.executable, "-c", _CHECK, example],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    tables, modules = run.stdout.strip().splitlines()[-2:]
    return tables, modules


def test_a_check_after_install_reads_the_shipped_tables_without_lark(tmp_path: Path) -> None:
    """With the tables the install made (`lablang/_data/tables.lalr`), the first check
    with an empty cache imports no lark module and writes no cache file."""
    env = {"LABLANG_CACHE": str(tmp_path / "cache")}
    assert _check_process(env) == ("shipped []", "[]")


def test_a_check_without_shipped_tables_analyses_once_then_reads_the_cache(
    tmp_path: Path,
) -> None:
    """Without shipped tables for the grammar (a checkout's grammar edited since its
    install), lark analyses it once and writes the cache; the next check imports no lark."""
    env = {"LABLANG_CACHE": str(tmp_path / "cache"), "LABLANG_TABLES": str(tmp_path / "none")}
    cold_tables, cold_modules = _check_process(env)
    warm_tables, warm_modules = _check_process(env)
    assert cold_tables.startswith("analysed ['grammar-") and "'lark'" in cold_modules
    assert warm_tables == cold_tables.replace("analysed", "cache") and warm_modules == "[]"


def test_tables_with_regex_flags_are_refused() -> None:
    """A grammar terminal with regex flags (which the runtime's keyword table does not
    model) stops the analysis with the terminal's name instead of parsing differently."""
    with pytest.raises(NotImplementedError, match="regex flags"):
        tables.analyse('start: "a"i\n')


# A state after `q` accepts the literal `ab` and W, not NAME. The lexer over all terminals
# folds `ab` into NAME, whose lookahead then fails on `ab1`, and matches W (`a`): the
# state's own lexer takes `ab`, so the runtime must not take the root's match there.
_SHADOWING = r"""
!start: "q" ("ab" D | W "b" D) | NAME
NAME: /[a-z]+(?![a-z0-9])/
W: /a(?=b)/
D: /[0-9]/
%ignore " "
"""


def _shape(value: Any) -> Any:
    if hasattr(value, "data"):
        return (str(value.data), [_shape(child) for child in value.children])
    return (value.type, str(value))


def test_a_literal_the_root_lexer_folds_away_is_still_matched_where_a_state_has_it() -> None:
    """Where the lexer over all terminals matches a later terminal because it folded one
    of the state's literals into a pattern, the runtime parses as lark does (the literal)."""
    import lark

    runtime = lalr.Runtime(tables.analyse(_SHADOWING), None, {})
    assert any(scanner.shadowed for scanner in runtime._scanners.values())
    reference = lark.Lark(_SHADOWING, **tables.OPTIONS)
    for text in ("q ab1", "q ab 2", "abc"):
        assert _shape(runtime.parse(text)) == _shape(reference.parse(text)), text
    assert _shape(runtime.parse("q ab1")) == ("start", [("Q", "q"), ("AB", "ab"), ("D", "1")])
