"""Derive an llguidance grammar from `grammar/lablang.lark`, for constrained decoding.

lablang's grammar is written for Lark's LALR parser with a contextual lexer.
llguidance (an Earley parser over a greedy lexer whose regexes are Rust `regex`)
has no terminal priorities and no look-arounds, and its lexer does not treat
keywords the way Lark's contextual lexer does. The derived grammar is therefore
made *stricter* than lablang's, never looser, so that every text it lets a model
write parses with lablang (tested in `tests/editor/test_llguidance.py`):

- blanks and comments may open the text (llguidance skips ignored text only between
  lexemes);
- terminal priorities are dropped (the parser state decides which lexemes apply);
- a word keyword (`segment`, `step`, `requires`...) must be followed by whitespace,
  so the greedy lexer cannot split `protocolx` into a keyword and a name
  (`true`, `false`, `none` and the `in(` call excepted: a name is allowed wherever
  they are, so the greedy lexer reads `truex` as one name);
- names exclude keywords (llguidance's `&` and `~` on lexemes). Lark's contextual
  lexer reads a keyword as a name only in parser states that cannot take the
  keyword; LALR states are shared, so a declaration kind is reserved wherever a
  top-level item could also follow (after an expression or a separator). Hence:
  `MNAME` (a name opening a member: key, binding, bare expression, argument name)
  excludes every keyword; `NAME` (a name inside an expression, after an operator,
  clause or bracket: `from library`) excludes all but the declaration kinds, `use`
  and `module`; the first member of a block may be keyed by any `NAME`
  (`{library: 20 uL}`); `MEMBER`, after a `.`, is any word (`answer.step(cycle)`);
- `END` (`5'`, `3'`) must be followed by whitespace instead of "not by `-`";
- a sequence literal's body is spelled out part by part (bases, `[ROLE:LEN]`,
  `(T)30`, `{ref}`, `/mod/`, `rG`, `+G`, `*`) as `lablang.syntax.sequence` reads it,
  instead of "anything up to `-3'`";
- a bare expression member (`pick(tube_A)`, `98 C for 15 s`) must start with a name,
  number, quantity, string or sequence and may only continue with calls, members and
  indexes: members need no separator, and where the Earley parser would read
  `a` newline `[b]` as two members, Lark's LALR parser reads one index;
- an entry without a name (`do`, `levels`, `thermocycle`) must have a body: Lark
  reads a name after the keyword as the entry's name, never as the next member;
- `QUANTITY` loses its look-ahead and `NUMBER` takes the blanks after it: a greedy
  lexer that has read `5 ` cannot give the blank back when `}` follows, so `5 ` must
  be a complete number lexeme as well as the start of `5 uL`;
- `x g` (with a blank) is not a unit, `xg` is: after `0.8 x` a greedy lexer that has
  read the blank cannot give it back when `of` follows;
- `%` is not a unit (`70 %` is outside the derived grammar): without look-ahead the
  greedy lexer would read `5 % 3` as the quantity `5 %` followed by `3`.

Known divergence (`KNOWN_DIVERGENCE` below): a number followed by a word that starts
with a unit symbol (`2 material`, `5 m(x)`): the greedy lexer takes `2 m` as a
quantity, where Lark's look-ahead refuses the unit and reads a number and a word.

    python examples/agent/llguidance_grammar.py > lablang.llguidance.lark
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "lablang.lark"

_NAME = "[A-Za-z_][A-Za-z0-9_]*"
_IUPAC = "ACGTUNRYSWKMBDHV"
# The parts of a sequence literal, as lablang.syntax.sequence reads them.
_SEQUENCE_PART = "|".join(
    (
        r"\s",
        r"\/[0-9A-Za-z_-]+\/",
        rf"\[{_NAME}(?::\d+(?:-\d+)?)?'?\]",
        rf"\([{_IUPAC}]\)\d+",
        rf"\{{{_NAME}(?:\.{_NAME})*'?\}}",
        r"r[ACGUN]",
        r"\+[ACGTUN]",
        r"\*",
        rf"[{_IUPAC}]",
    )
)
# A bare expression as a block member, restricted to a name, number, quantity, string
# (not `in(...)`: after an expression Lark reads `in` as the comparison) or typed sequence (`RNA 5'-...-3'`: after a name, Lark reads a bare sequence as that
# name's molecule type) followed by calls, members and indexes: members need no separator, and
# Lark's LALR parser reads `a` newline `(b)` or `a [b]` as one call or index, where
# an Earley parser would also accept two members.
_STATEMENT = """expr_stmt: stmt_expr clause*
?stmt_expr: stmt_primary
          | stmt_expr "(" [arg ("," arg)* ","?] ")"
          | stmt_expr "." MEMBER
          | stmt_expr "[" expr "]"
          | stmt_expr "?"
stmt_primary: MNAME | NUMBER | QUANTITY | STRING | MNAME SEQUENCE"""
# The first member of a block may be keyed by a declaration kind (`{library: 20 uL}`):
# Lark reserves those words only where a top-level item could follow, as after a
# separator or an expression, never right after `{` (with no separator between).
_BLOCK = """!block: "{" (first_field _sep*)? _sep* (_member _sep*)* "}"
first_field: NAME ":" expr clause*"""
# An entry without a name must have a body: Lark's LALR parser takes a name after
# the keyword as the entry's name (`step a`), never as the start of the next member.
_ENTRY = """entry: entry_kw NAME params? STRING? type_clause? clause* (block clause*)?
     | entry_kw params? STRING? type_clause? clause* block clause*"""
# A percent quantity (`70 %`), which the derived grammar leaves out: the `%` as
# lablang reads it, a unit when no operand follows.
PERCENT_QUANTITY = re.compile(r"(\d[ \t]*)%(?![ \t]*[\w(])")


def known_divergence(units: str) -> re.Pattern[str]:
    """Texts the derived grammar may accept while lablang reads them otherwise."""
    return re.compile(rf"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[ \t]*(?:{units})[\w(:']")


_KEYWORD = re.compile(r'(?<![/\\])"([a-z]+)"')
_ATOMS = {"true", "false", "none"}
_BLANK = r"[ \t\r\n]"


def _terminal(text: str, name: str) -> re.Match[str]:
    match = re.search(rf"^{name}(?:\.\d+)?: /(.*)/$", text, re.M)
    if match is None:
        raise ValueError(f"grammar has no terminal {name} of the expected shape")
    return match


def _replace_terminal(text: str, name: str, definition: str) -> str:
    match = _terminal(text, name)
    return text[: match.start()] + f"{name}: {definition}" + text[match.end() :]


def _top_level_words(rules: str) -> set[str]:
    """Declaration kinds, `use` and `module`: keywords only at the top level, where no
    name can stand, so inside a block Lark always reads them as names (`from library`)."""
    body = re.search(r"^!decl_kind:(.*?)(?=^\S|^$)", rules, re.S | re.M)
    if body is None:
        raise ValueError("grammar has no `decl_kind` rule")
    return {"use", "module", *re.findall(r'"([a-z]+)"', body.group(1))}


def llguidance_grammar(lark_text: str) -> str:
    """Rewrite lablang's Lark grammar into a stricter grammar llguidance compiles.

    >>> derived = llguidance_grammar(GRAMMAR.read_text("utf-8"))
    >>> "(?!" in derived, "NAME: /[A-Za-z_][A-Za-z0-9_]*/ & ~/" in derived
    (False, True)
    """
    rules = re.sub(r"//[^\n]*", "", lark_text)  # comments quote words that are not keywords
    keywords = sorted(set(_KEYWORD.findall(rules)))
    units = re.search(r"\(\?:\(\?:(.*?)\)\(\?!", _terminal(lark_text, "QUANTITY").group(1))
    if units is None:
        raise ValueError("the QUANTITY terminal has no unit list of the expected shape")

    number = _terminal(lark_text, "NUMBER").group(1)
    # a unit holding a blank (`x g`) cannot be given back by a greedy lexer (`0.8 x of`)
    unit_list = "|".join(u for u in units.group(1).split("|") if " " not in u)
    text = _replace_terminal(lark_text, "QUANTITY", f"/{number}[ \\t]*(?:{unit_list})/")
    text = _replace_terminal(text, "NUMBER", f"/{number}[ \\t]*/")

    text = _replace_terminal(text, "SEQUENCE", f"/5'-(?:{_SEQUENCE_PART})*-3'/")
    text = _replace_terminal(text, "END", f"/[35]'{_BLANK}/")
    top_level = _top_level_words(rules)
    inner = "|".join(k for k in keywords if k not in top_level)
    everything = "|".join(keywords)
    text = _replace_terminal(
        text,
        "NAME",
        f"/{_NAME}/ & ~/(?:{inner})/\nMNAME: /{_NAME}/ & ~/(?:{everything})/\nMEMBER: /{_NAME}/",
    )
    for rule, strict in (
        (r"^\?field_key: NAME \| NUMBER \| STRING$", "?field_key: MNAME | NUMBER | STRING"),
        (r'^binding: NAME "=" expr$', 'binding: MNAME "=" expr'),
        (r'^arg: \(NAME ":"\)\? expr$', 'arg: (MNAME ":")? expr'),
        (r'^!block: "\{" _sep\* \(_member _sep\*\)\* "\}"$', _BLOCK),
    ):
        if not re.search(rule, text, flags=re.M):
            raise ValueError(f"grammar has no rule of the shape {rule}")
        text = re.sub(rule, strict.replace("\\", "\\\\"), text, flags=re.M)
    text = re.sub(
        r'^attribute: postfix "\." NAME$', 'attribute: postfix "." MEMBER', text, flags=re.M
    )
    if 'postfix "." MEMBER' not in text:
        raise ValueError("grammar has no `attribute` rule of the expected shape")

    if not re.search(r"^expr_stmt: expr clause\*$", text, flags=re.M):
        raise ValueError("grammar has no `expr_stmt` rule of the expected shape")
    text = re.sub(r"^expr_stmt: expr clause\*$", _STATEMENT, text, flags=re.M)

    entry = (
        r"^entry: entry_kw NAME\? params\? STRING\? type_clause\? clause\* \(block clause\*\)\?$"
    )
    if not re.search(entry, text, flags=re.M):
        raise ValueError("grammar has no `entry` rule of the expected shape")
    text = re.sub(entry, _ENTRY, text, flags=re.M)

    # llguidance ignores blanks and comments between lexemes but not before the first.
    start = r"^start: "
    if not re.search(start, text, flags=re.M):
        raise ValueError("grammar has no `start` rule")
    text = re.sub(start, "start: LEADING? ", text, count=1, flags=re.M)
    text += "LEADING: /(?:[ \\t\\r\\n\\f]|#[^\\n]*)+/\n"

    text = re.sub(r"^([A-Z_]+)\.\d+:", r"\1:", text, flags=re.M)
    text = _KEYWORD.sub(
        lambda m: m.group(0) if m.group(1) in _ATOMS else f"/{m.group(1)}{_BLANK}/", text
    )
    # `in(` is a call, a primary: wherever it may stand a name may too, so the greedy
    # lexer already reads `inx(` as a name and `in` needs no following blank there.
    text = text.replace(f'!in_call: /in{_BLANK}/ "("', '!in_call: "in" "("')
    if "(?!" in text or "(?=" in text or "*?" in text:
        raise ValueError("grammar has a construct this script does not rewrite")
    return text


if __name__ == "__main__":
    sys.stdout.write(llguidance_grammar(GRAMMAR.read_text("utf-8")))
