"""The parser tables are made from lark's public serialization (`Lark.memo_serialize`) alone: no
private name of lark is used, and our rules for what the serialized data leaves implicit
(lexer order, keywords, line-spanning terminals, tree shaping) agree with lark's parsers."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from lablang.syntax import lalr, tables

ROOT = Path(__file__).resolve().parents[2]
# the modules that make the tables or run on them, and the other lark user in lablang
CHECKED = ("lablang/syntax/tables.py", "lablang/syntax/lalr.py", "hatch_build.py")
LARK_USERS = (*CHECKED, "lablang/syntax/grammar.py")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(path: Path) -> list[str]:
    """Each private name of lark the file names: a `lark.x._y` path, an import of a name
    starting with `_` from lark, an attribute starting with `_` (a dunder aside) or a
    `getattr`/`hasattr` of such a name in a file that imports lark."""
    text = path.read_text("utf-8")
    found = [m.group(0) for m in re.finditer(r"lark\.[a-z_.]*\._\w*", text)]
    tree = ast.parse(text)
    imports_lark = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "lark" for a in node.names):
            imports_lark = True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lark":
            imports_lark = True
            found += [f"from {node.module} import {a.name}" for a in node.names if _private(a.name)]
    if not imports_lark:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            found.append(f"line {node.lineno}: .{node.attr}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and _private(str(node.args[1].value))
        ):
            found.append(f"line {node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


@pytest.mark.parametrize("name", LARK_USERS)
def test_no_private_name_of_lark_is_used(name: str) -> None:
    """The table builder, the runtime, the build hook and the grammar module use no
    private name of lark (only `Lark`, `Lark.memo_serialize`, `__version__` and lark's parsers)."""
    assert _private_uses(ROOT / name) == []


@pytest.mark.parametrize("name", LARK_USERS)
def test_no_pickle_is_loaded_by_the_tables_builder(name: str) -> None:
    """The table builder, the runtime, the build hook and the grammar module never import
    `pickle`: lark's serialization is taken as plain data (`Lark.memo_serialize`), so no
    bytes are unpickled on the way to the tables."""
    tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert not imported & {"pickle", "_pickle", "cPickle", "dill"}, imported


def test_the_private_name_check_finds_what_the_old_builder_used(tmp_path: Path) -> None:
    """The check above catches each kind of private use the tables builder once had."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import lark\nfrom lark.lexer import _create_unless\n"
        "p = lark.Lark('')\nx = p._parse_tree_builder\ny = getattr(p, '_x')\n"
        "z = lark.parsers._lalr\nok = lark.__version__\n",
        "utf-8",
    )
    assert sorted(_private_uses(sample)) == [
        "from lark.lexer import _create_unless",
        "lark.parsers._lalr",
        "line 4: ._parse_tree_builder",
        "line 5: getattr(..., '_x')",
        "line 6: ._lalr",
    ]


def test_the_runtime_imports_no_lark() -> None:
    """`lalr.py` parses without lark: it imports nothing of it."""
    tree = ast.parse((ROOT / "lablang/syntax/lalr.py").read_text("utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [name for name in names if name.split(".")[0] == "lark"]


def _terminal(name: str, kind: str, value: str, priority: int = 0, widest: int = 0) -> dict:
    pattern: dict[str, Any] = {"__type__": kind, "value": value, "flags": []}
    if kind == "PatternRE":
        pattern["_width"] = [1, widest]
    return {"__type__": "TerminalDef", "name": name, "pattern": pattern, "priority": priority}


def test_lexer_order_is_priority_then_widest_match_then_length_then_name() -> None:
    """Terminals are tried by priority, then their widest match, then pattern length,
    then name."""
    order, _, _, _ = tables.lexer_layout(
        [
            _terminal("B", "PatternStr", "=="),
            _terminal("A", "PatternStr", "!="),
            _terminal("WORD", "PatternRE", "[a-z]+", widest=10**9),
            _terminal("EQ", "PatternStr", "="),
            _terminal("TOP", "PatternStr", "x", priority=2),
            _terminal("DIGIT", "PatternRE", "[0-9]", widest=1),
        ]
    )
    assert order == ("TOP", "WORD", "A", "B", "DIGIT", "EQ")


def test_a_keyword_is_a_string_a_pattern_of_its_priority_matches_whole() -> None:
    """A string terminal becomes a keyword of a regexp terminal (folded into it, re-typed
    after its match) when the regexp's leftmost match of the string is all of it and the
    priorities are equal; a shorter leftmost match or another priority leaves it alone."""
    _, _, embedded, retypes = tables.lexer_layout(
        [
            _terminal("NAME", "PatternRE", "[a-z]+", widest=10**9),
            _terminal("IF", "PatternStr", "if"),
            _terminal("ELSE", "PatternStr", "else"),
            _terminal("HIGH", "PatternStr", "then", priority=1),
            _terminal("AB", "PatternStr", "ab+"),  # NAME stops before the `+`
            _terminal("SHORT", "PatternRE", "a|ab", widest=2),
            _terminal("ABX", "PatternStr", "ab"),  # SHORT's leftmost match is `a`
        ]
    )
    assert retypes == {"NAME": ("ELSE", "ABX", "IF")}
    assert embedded == ("ELSE", "ABX", "IF")


def test_a_regexp_without_its_serialized_width_stops_the_analysis() -> None:
    """A regexp terminal whose serialized data lacks the width lark computed (another
    serialization format) stops the analysis with its name rather than ordering wrongly."""
    terminal = _terminal("NAME", "PatternRE", "[a-z]+")
    del terminal["pattern"]["_width"]
    with pytest.raises(NotImplementedError, match="NAME"):
        tables.lexer_layout([terminal])


@pytest.mark.parametrize(
    ("regexp", "spans"),
    [
        ("[a-z]+", False),
        ("\n", True),
        (r"\n+", True),
        (r"[ \t]*\s", True),
        (r"#[^x]*", True),
        ("(?s:.*)", True),
        ("a.b", False),
    ],
)
def test_a_terminal_may_span_lines_by_its_regexp_text(regexp: str, spans: bool) -> None:
    """A newline, `\\n`, `\\s`, a negated class or `.` under `(?s` marks a terminal whose
    tokens are searched for line breaks; others are not."""
    assert tables.may_span_lines(regexp) is spans


# each shaping rule of `rule_shape`: filtered anonymous tokens, `_rule` inlined, `[x]`
# placeholders, `?rule` with and without alias, `!rule` keeping tokens, a template, and
# keywords of NAME next to a string NAME does not match whole
_SHAPES = r"""
start: item+
item: "let" NAME ["=" value] ";"          -> binding
    | "do" _args ";"
    | "if" cond "then" NAME ";"
    | tagged{NAME} ";"
    | keep ";"
?cond: NAME | NAME "and" NAME              -> both
_args: value ("," value)*
?value: NAME | NUMBER | "(" value ")"
!keep: "keep" NAME "!"?
tagged{x}: "<" x ">"
NAME: /[a-z]+/
NUMBER: /[0-9]+/
%ignore /[ \n]+/
"""
_TEXTS = (
    "let a = 1; let b;",
    "do a, (2), c;",
    "if x then y; if x and z then w;",
    "<q>; keep k!; keep j;",
    "let\nthen = 3;",  # a keyword where only NAME is accepted: a NAME (contextual lexer)
    "let a = 1; x;",  # NAME where only keywords are accepted: the root lexer names it
    "let a = ;",
    "do ;",
    "<let>;",
    "let a = 1",
)


def _shape(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "data"):
        return (str(value.data), [_shape(child) for child in value.children])
    return (value.type, str(value), value.line, value.column)


def _outcome(parse: Any, text: str) -> Any:
    try:
        return _shape(parse(text))
    except Exception as error:  # lark's and the runtime's errors, compared by place
        return (type(error).__name__, getattr(error, "line", None), getattr(error, "column", None))


def test_tree_shaping_and_keywords_parse_as_lark_does_on_a_small_grammar() -> None:
    """On a grammar using every shaping rule and keyword re-typing, the runtime over
    `analyse`'s tables gives lark's trees and lark's error kinds and places."""
    import lark

    runtime = lalr.Runtime(tables.analyse(_SHAPES), None, {})
    reference = lark.Lark(_SHAPES, **tables.OPTIONS)
    for text in _TEXTS:
        assert _outcome(runtime.parse, text) == _outcome(reference.parse, text), text
    kinds = {str(tree[0]) for tree in _outcome(runtime.parse, _TEXTS[0])[1]}
    assert kinds == {"binding"}
