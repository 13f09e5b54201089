"""Derive an llguidance-compatible grammar from `grammar/lablang.lark`.

lablang's grammar is written for Lark's LALR parser with a contextual lexer. Two of
its devices have no counterpart in llguidance (an Earley parser over a greedy lexer
whose regexes are Rust `regex`): terminal priorities (`NAME.5`) and look-arounds
(`(?!...)`). This script rewrites exactly those and nothing else:

- priorities are dropped: llguidance's lexer only offers the terminals the parser can
  accept next, which is what the priorities arbitrate in Lark;
- the sequence regex's lazy `*?` becomes `*` (same language: a body holds no `'`);
- `END` (`5'`, `3'`) loses its `(?!-)`: a sequence `5'-...-3'` is the longer lexeme;
- `QUANTITY` becomes a parser rule `NUMBER UNIT`, and `UNIT` a terminal holding the
  same unit list. In Lark a quantity is one token (`[ \\t]*` between number and unit)
  whose look-ahead refuses a unit directly followed by a letter, digit, `(`, `:` or
  `'`; a greedy lexer cannot take back the whitespace it swallowed, so the number
  and the unit are separate lexemes here.

- a word keyword (`segment`, `step`, `requires`...) must be followed by whitespace:
  where Lark's lexer reads `protocolx` as one name, llguidance's would read the
  keyword `protocol` and the name `x`; requiring the space keeps the derived
  language inside lablang's (`do {`, not `do{`).

Known divergence (text the derived grammar accepts that lablang reads differently or
rejects): a unit written directly against `(` or `:` with no space (`5 m(x)`) and a
number and unit split across lines. The test in `tests/editor/test_llguidance.py`
samples the derived grammar and parses every sample with lablang.

    python examples/agent/llguidance_grammar.py > lablang.llguidance.lark
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark"

_QUANTITY = re.compile(r"^QUANTITY(?:\.\d+)?: /(?P<number>.*?)\[ \\t\]\*\(\?:\(\?:(?P<units>.*?)\)\(\?!.*$", re.M)


# A keyword literal in a rule: `"segment"`, but not inside a regex or a comment line.
_KEYWORD = re.compile(r'(?<![/\\])"([a-z]+)"')
# Atoms that may end a text or touch punctuation (`[true]`); everywhere they occur a
# NAME is also allowed, so the greedy lexer already reads `truex` as one name.
_ATOMS = {"true", "false", "none"}


def _keyword_with_boundary(match: re.Match[str]) -> str:
    word = match.group(1)
    if word in _ATOMS:
        return match.group(0)
    return f"/{word}[ \\t\\r\\n]/"


def llguidance_grammar(lark_text: str) -> str:
    """Rewrite lablang's Lark grammar into the Lark dialect llguidance compiles.

    >>> derived = llguidance_grammar(GRAMMAR.read_text("utf-8"))
    >>> "(?!" in derived, "quantity: NUMBER UNIT" in derived
    (False, True)
    """
    match = _QUANTITY.search(lark_text)
    if match is None:
        raise ValueError("grammar has no QUANTITY terminal of the expected shape")
    units = match.group("units")
    text = lark_text[: match.start()] + f"UNIT: /{units}|%/" + lark_text[match.end() :]
    text = re.sub(r"^([A-Z_]+)\.\d+:", r"\1:", text, flags=re.M)
    text = text.replace(r"/[35]'(?!-)/", r"/[35]'/")
    # llguidance lexemes are wholly greedy or lazy: no lazy `*?` inside a regex. A
    # sequence body cannot hold `'`, so the greedy form ends at the same `-3'`.
    text = text.replace(r"\])*?-3'/", r"\])*-3'/")
    text = text.replace("| QUANTITY                       -> quantity", "| quantity")
    text += "\nquantity: NUMBER UNIT\n"
    text = _KEYWORD.sub(_keyword_with_boundary, text)
    if "(?!" in text or "(?=" in text or "*?" in text or "QUANTITY" in text:
        raise ValueError("grammar has a look-around or QUANTITY use this script does not rewrite")
    return text


if __name__ == "__main__":
    sys.stdout.write(llguidance_grammar(GRAMMAR.read_text("utf-8")))
