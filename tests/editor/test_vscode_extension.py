"""The VS Code extension stays in step with the grammar and the parser.

The TextMate grammar is tested token by token with vscode-tmgrammar-test (`npm test`
in editors/vscode); these tests check, without Node, what must follow the language
itself: the unit list, every keyword, and snippets that expand to valid lablang.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.source import Source
from lablang.syntax import parse

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
LARK = (ROOT / "grammar" / "lablang.lark").read_text("utf-8")
TEXTMATE = json.loads((EXTENSION / "syntaxes" / "lablang.tmLanguage.json").read_text("utf-8"))


def _grammar_units() -> set[str]:
    match = re.search(r"^QUANTITY(?:\.\d+)?: /.*?\(\?:\(\?:(.*?)\)\(\?!", LARK, re.M)
    assert match is not None
    return {unit.replace("\\/", "/") for unit in match.group(1).split("|")}


def _textmate_units() -> set[str]:
    [rule] = TEXTMATE["repository"]["quantity"]["patterns"]
    match = re.search(r"\[ \\t\]\*\(\?:\((.*?)\)\(\?!", rule["match"])
    assert match is not None
    return {unit.replace("\\/", "/") for unit in match.group(1).split("|")}


def test_textmate_units_are_the_grammars_units():
    """The highlighter knows exactly the units the QUANTITY terminal accepts, and refuses
    a unit before the same characters."""
    assert _textmate_units() == _grammar_units()
    [rule] = TEXTMATE["repository"]["quantity"]["patterns"]
    after_unit = re.compile(r"°\)\)?(\(\?!\[[^\]]*\]\))")
    grammar = after_unit.search(LARK)
    textmate = after_unit.search(rule["match"])
    assert grammar is not None and textmate is not None
    assert textmate.group(1) == grammar.group(1)


@pytest.mark.parametrize("rule", ["decl_kind", "entry_kw", "expr_kw", "clause_kw", "quant_kw"])
def test_every_keyword_of_the_grammar_is_highlighted(rule: str):
    """Each keyword of a grammar keyword rule appears as a word in the TextMate grammar."""
    body = re.search(rf"^!{rule}:(.*?)(?=^\S|^$)", LARK, re.S | re.M)
    assert body is not None
    keywords = re.findall(r'"([a-z]+)"', body.group(1))
    assert keywords
    patterns = json.dumps(TEXTMATE["repository"])
    missing = [k for k in keywords if not re.search(rf"[(|:]{k}[|)]", patterns)]
    assert missing == []


def _expand(body: list[str]) -> str:
    """A snippet's text with each placeholder replaced by its default (or first choice)."""
    text = "\n".join(body).replace("\t", "  ")
    for _ in range(5):  # placeholders nest: ${1:{P5\\} [CDNA]}
        text = re.sub(r"\$\{\d+\|([^,|}]*)[^}]*\|\}", r"\1", text)
        text = re.sub(r"\$\{\d+:((?:[^$}\\]|\\.)*)\}", r"\1", text)
        text = re.sub(r"\$\{\d+\}|\$\d+", "", text)
    return text.replace("\\}", "}").replace("\\$", "$")


SNIPPETS = json.loads((EXTENSION / "snippets" / "lablang.code-snippets").read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_expands_to_text_that_parses(name: str):
    """Accepting a snippet with its defaults leaves a declaration lablang parses."""
    text = _expand(SNIPPETS[name]["body"])
    if name == "use":
        text += "segment x = umi(8)\n"
    report = Report()
    module = parse(Source(text, f"<snippet {name}>"), report)
    assert [d.message for d in report] == [], text
    if name in {"module", "use"}:
        return
    assert [d.kind for d in module.decls] == [name]


def _sample_lines() -> list[str]:
    lines: list[str] = []
    for sample in sorted((EXTENSION / "tests").glob("*.test.lab")):
        lines += [
            line for line in sample.read_text("utf-8").splitlines() if not line.startswith("#")
        ]
    return lines


def test_annotated_samples_use_every_keyword_and_unit():
    """The tmgrammar-test samples exercise every keyword and every unit of the grammar."""
    words = set(re.findall(r"[A-Za-z_]\w*", "\n".join(_sample_lines())))
    keywords = set(re.findall(r'"([a-z]+)"', re.sub(r"//[^\n]*", "", LARK)))
    assert sorted(keywords - words) == []
    text = "\n".join(_sample_lines())
    used = {u for u in _grammar_units() if re.search(rf"\d[ \t]*{re.escape(u)}(?![\w(:'])", text)}
    assert sorted(_grammar_units() - used) == []
