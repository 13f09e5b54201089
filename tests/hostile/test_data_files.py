"""Crafted data files (deep JSON, huge integers, YAML alias bombs) are refused by every
command that reads data, with the limit named, in bounded time and memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from lablang.datafile import DataFileError, load_json, load_json_lines, load_yaml
from lablang.limits import Limits
from tests.hostile.bounded import ROOT, run_bounded

DEEP_JSON = "[" * 50_000 + "]" * 50_000
BIG_INT_JSON = '{"T1": ' + "9" * 5000 + "}"
# a billion-laughs YAML: ten levels of ten aliases each (10^10 nodes once expanded)
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9)
)
RECURSIVE_YAML = "a: &a [*a]\n"


def test_deep_json_is_refused_with_the_depth_limit() -> None:
    """Fifty thousand nested arrays are a DataFileError naming `max_data_depth`."""
    with pytest.raises(DataFileError, match="max_data_depth"):
        load_json(DEEP_JSON, "x.json")
    with pytest.raises(DataFileError, match="max_data_depth"):
        load_json("[" * 150 + "]" * 150, "x.json")


def test_integers_past_the_digit_limit_are_refused() -> None:
    """A 5,000-digit integer (Python's own limit) and a 200-digit one are refused alike."""
    with pytest.raises(DataFileError, match="refused"):
        load_json(BIG_INT_JSON, "x.json")
    with pytest.raises(DataFileError, match="max_data_integer_digits"):
        load_json("[" + "9" * 200 + "]", "x.json")


def test_non_finite_numbers_are_refused() -> None:
    """NaN, Infinity and 1e400 (which JSON reads as infinity) are not data."""
    for text in ("[NaN]", "[Infinity]", "[1e400]"):
        with pytest.raises(DataFileError, match="finite"):
            load_json(text, "x.json")


def test_yaml_aliases_are_refused_before_they_expand() -> None:
    """The alias bomb and a recursive alias are refused at the first alias."""
    for text in (ALIAS_BOMB, RECURSIVE_YAML):
        with pytest.raises(DataFileError, match="max_yaml_aliases"):
            load_yaml(text, "x.yaml")


def test_deep_yaml_is_refused_with_the_depth_limit() -> None:
    """YAML nested 50,000 deep is refused by depth, not by a RecursionError."""
    with pytest.raises(DataFileError, match="max_data_depth"):
        load_yaml("[" * 50_000 + "]" * 50_000, "x.yaml")


def test_json_lines_name_the_refused_line() -> None:
    """A bad line of a JSON lines file is named by its number."""
    with pytest.raises(DataFileError, match=r"^line 2: "):
        list(load_json_lines('{"a": 1}\n' + DEEP_JSON + "\n"))


def test_the_size_limit_applies_before_parsing() -> None:
    """A document over `max_data_bytes` is refused without being parsed."""
    with pytest.raises(DataFileError, match="max_data_bytes"):
        load_json("[1]" + " " * 100, "x.json", Limits(max_data_bytes=10))


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def _commands(folder: Path) -> dict[str, tuple[list[str], str]]:
    """Each data-reading command with a crafted input, and the code it must report."""
    deep = _write(folder, "deep.json", DEEP_JSON)
    big = _write(folder, "big.json", BIG_INT_JSON)
    bomb = _write(folder, "bomb.yaml", "library_spec: []\n" + ALIAS_BOMB)
    deep_lines = _write(folder, "deep.jsonl", DEEP_JSON + "\n")
    big_lines = _write(folder, "big.jsonl", '{"time": ' + "9" * 5000 + "}\n")
    contract = str(ROOT / "stdlib" / "contracts" / "centrifuge.lab")
    rubric = str(ROOT / "examples" / "protocols" / "gc_rich_rubric.lab")
    truth = str(ROOT / "tests" / "scoring" / "data" / "tiny")
    return {
        "import-deep": (["import", deep], "E0417"),
        "import-bigint": (["import", big], "E0417"),
        "import-alias-bomb": (["import", bomb], "E0417"),
        "score-deep": (["score", deep, "--truth", truth], "E0501"),
        "score-bigint": (["score", big, "--truth", truth], "E0501"),
        "legal-deep": (["legal", contract, "--state", deep], "E0022"),
        "legal-bigint-inline": (
            ["legal", contract, "--state", '{"a": ' + "9" * 5000 + "}"],
            "E0022",
        ),
        "monitor-deep": (["monitor", contract, deep_lines], "line 1:"),
        "monitor-bigint": (["monitor", contract, big_lines], "line 1:"),
        "grade-deep": (["grade", rubric, "--judgments", deep_lines], "E0830"),
        "grade-bigint": (["grade", rubric, "--judgments", big_lines], "E0830"),
        "replay-deep": (["replay", deep_lines], "line 1:"),
        "replay-bigint": (["replay", big_lines], "line 1:"),
    }


CASES = (
    "import-deep", "import-bigint", "import-alias-bomb", "score-deep", "score-bigint",
    "legal-deep", "legal-bigint-inline", "monitor-deep", "monitor-bigint", "grade-deep",
    "grade-bigint", "replay-deep", "replay-bigint",
)  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_every_data_reader_refuses_crafted_files_in_bounds(case: str, tmp_path: Path) -> None:
    """import, score, legal, monitor, grade and replay report the crafted file, no traceback."""
    args, expected = _commands(tmp_path)[case]
    run = run_bounded(args, cpu_seconds=30, memory_mb=1500)
    run.assert_clean()
    assert run.returncode != 0, run.output
    assert expected in run.output, run.output[-2000:]
    assert "RecursionError" not in run.output and "ValueError" not in run.output


def test_yaml_with_characters_the_reader_refuses_is_a_data_error() -> None:
    """A NUL inside YAML (refused by PyYAML's reader, a fuzz traceback) is a DataFileError."""
    with pytest.raises(DataFileError, match="not valid YAML"):
        load_yaml("library_spec: [a\x00]\n", "x.yaml")


def test_large_yaml_is_refused_by_size_before_parsing() -> None:
    """3 MB of YAML (24 s in PyYAML, a fuzz hang) is refused by `max_yaml_bytes`."""
    with pytest.raises(DataFileError, match="max_yaml_bytes"):
        load_yaml("a: [" + "1, " * 1_000_000 + "1]\n", "x.yaml")
