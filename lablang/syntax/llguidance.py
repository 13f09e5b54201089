"""Derive an llguidance grammar from `grammar/lablang.lark`, for constrained decoding.

`lablang grammar --for llguidance` prints it (`llguidance.LLMatcher.grammar_from_lark`
compiles it); `lablang grammar` alone prints the Lark grammar as lablang reads it.

lablang's grammar is written for Lark's LALR parser with a contextual lexer.
llguidance (an Earley parser over a greedy lexer whose regexes are Rust `regex`)
has no terminal priorities and no look-arounds, and its lexer does not treat
keywords the way Lark's contextual lexer does. The derived grammar is therefore
made *stricter* than lablang's, never looser, so that every text it lets a model
write parses with lablang (tested in `tests/editor/test_llguidance.py`):

- blanks and comments may open the text (llguidance skips ignored text only between
  lexemes);
- terminal priorities are dropped (the parser state decides which lexemes apply);
- a keyword that can stand where no name can (declaration kinds, `use`, `module`,
  clause keywords, `and`, `or`, `of`, `in`, `as`) must be followed by whitespace, so
  the greedy lexer cannot split `protocolx` into a keyword and a name. The others
  (entry and expression keywords, `not`, `forall`, `exists`, `true`, `false`,
  `none`, the `in(` call) stand only where a name may too, and the greedy lexer
  already reads `stepx` as one name, so `strand: bottom` and `wait(5 s)` keep their
  Lark reading;
- names exclude keywords (llguidance's `&` and `~` on lexemes). Lark's contextual
  lexer reads a keyword as a name in parser states that cannot take the keyword;
  LALR states are shared, so after an expression or a separator nearly every
  keyword is reserved (a declaration kind too: a top-level item could follow).
  Hence `MNAME`, a name opening a member (key, binding, bare expression, entry
  name), excludes every keyword; `NAME`, a name where an expression starts (after
  `:`, an operator, a clause keyword, `(` or `,`: `from library`, `weight(mass: 5 g)`,
  `within: 0.5 uL` as an argument), excludes only the keywords that can start an
  expression; the first member of a block may be keyed by a `KEY`, any word but
  those that can open a member (`{library: 20 uL}`, `{ from: gex.lib }`);
  `MEMBER`, after a `.`, is any word;
- `END` (`5'`, `3'`) must be followed by whitespace instead of "not by `-`"; its
  one-strand form (`top 3'`, `bottom 5'`) holds a blank, which a greedy lexer cannot
  give back (`pair top ~ bottom`), so here a strand end is written quoted
  (`end: "top 3'"`, which the parser also reads);
- a sequence literal's body is spelled out part by part (bases, `[ROLE:LEN]`,
  `(T)30`, `{ref}`, `/mod/`, `rG`, `+G`, `*`) as `lablang.syntax.sequence` reads it,
  instead of "anything up to `-3'`";
- a bare expression member (`pick(tube_A)`, `98 C for 15 s`) must start with a name,
  number, quantity, string or sequence and may only continue with calls, members and
  indexes: members need no separator, and where the Earley parser would read
  `a` newline `[b]` as two members, Lark's LALR parser reads one index;
- an entry without a name (`do { }`, `strand: bottom`) must have some other part:
  Lark reads a name after the keyword as the entry's name, never as the next member;
- `QUANTITY` loses its look-ahead and `NUMBER` takes the blanks after it: a greedy
  lexer that has read `5 ` cannot give the blank back when `}` follows, so `5 ` must
  be a complete number lexeme as well as the start of `5 uL`;
- an integer glued to `..` (`0..5`) is one lexeme, for the same reason (the `.`
  after `0` could have begun `0.5`);
- `x g` (with a blank) is not a unit, `xg` is: after `0.8 x` a greedy lexer that has
  read the blank cannot give it back when `of` follows;
- `%` is not a unit (`70 %` is outside the derived grammar): without look-ahead the
  greedy lexer would read `5 % 3` as the quantity `5 %` followed by `3`.

Known divergence (`KNOWN_DIVERGENCE` below): a number followed by a word that starts
with a unit symbol (`2 material`, `5 m(x)`): the greedy lexer takes `2 m` as a
quantity, where Lark's look-ahead refuses the unit and reads a number and a word.
"""

from __future__ import annotations

import re

__all__ = ["PERCENT_QUANTITY", "derived_grammar", "known_divergence", "llguidance_grammar"]

_NAME = "[A-Za-z_][A-Za-z0-9_]*"
_IUPAC = "ACGTUNRYSWKMBDHV"
# The parts of a sequence literal, as lablang.syntax.sequence reads them.
_SEQUENCE_PART = "|".join(
    (
        r"\s",
        r"\/[0-9A-Za-z_-]+\/",
        rf"\[{_NAME}(?::\d+(?:-\d+)?)?'?(?: ?\"[{_IUPAC}]+\")?\]",
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
first_field: KEY ":" expr clause*"""
# An entry without a name must have some part (`strand: bottom`, `do { ... }`): Lark's
# LALR parser takes a name after the keyword as the entry's name (`step a`), never as
# the start of the next member, so a bare keyword cannot end an entry.
_ENTRY = """entry: entry_kw MNAME params? STRING? type_clause? clause* (block clause*)?
     | entry_kw entry_rest
entry_rest: params STRING? type_clause? clause* (block clause*)?
          | STRING type_clause? clause* (block clause*)?
          | type_clause clause* (block clause*)?
          | clause+ (block clause*)?
          | block clause*"""
# A percent quantity (`70 %`), which the derived grammar leaves out: the `%` as
# lablang reads it, a unit when no operand follows.
PERCENT_QUANTITY = re.compile(r"(\d[ \t]*)%(?![ \t]*[\w(])")


def known_divergence(units: str) -> re.Pattern[str]:
    """Texts the derived grammar may accept while lablang reads them otherwise."""
    return re.compile(rf"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[ \t]*(?:{units})[\w(:']")


# `0..5`: the lexer cannot end the number `0` after reading the `.` that could have
# begun `0.5`, so an integer directly followed by `..` is one lexeme.
_RANGE = """?range_expr: sum
           | sum ".." sum                -> range_expr
           | INT_RANGE sum               -> range_expr
INT_RANGE: /\\d+\\.\\./"""
# The keywords that can open an expression: the only ones Lark reads as keywords
# where an expression starts (after `:`, `=`, an operator, a clause keyword, `(`, `,`).
_EXPRESSION_START = {"not", "forall", "exists", "true", "false", "none", "in"}
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


def _rule_words(rules: str, *names: str) -> set[str]:
    words: set[str] = set()
    for name in names:
        body = re.search(rf"^!{name}:(.*?)(?=^\S|^$)", rules, re.S | re.M)
        if body is None:
            raise ValueError(f"grammar has no `{name}` rule")
        words.update(re.findall(r'"([a-z]+)"', body.group(1)))
    return words


def llguidance_grammar(lark_text: str) -> str:
    """Rewrite lablang's Lark grammar into a stricter grammar llguidance compiles.

    >>> from lablang.syntax.grammar import grammar_text
    >>> derived = llguidance_grammar(grammar_text())
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
    expression_start = "|".join(sorted(_EXPRESSION_START))
    everything = "|".join(keywords)
    openers = "|".join(sorted(_EXPRESSION_START | _rule_words(rules, "entry_kw", "expr_kw")))
    text = _replace_terminal(
        text,
        "NAME",
        f"/{_NAME}/ & ~/(?:{expression_start})/\nMNAME: /{_NAME}/ & ~/(?:{everything})/"
        f"\nMEMBER: /{_NAME}/\nKEY: /{_NAME}/ & ~/(?:{openers})/",
    )
    range_rule = r'^\?range_expr: sum\n\s+\| sum "\.\." sum\s+-> range_expr$'
    if not re.search(range_rule, text, flags=re.M):
        raise ValueError("grammar has no `range_expr` rule of the expected shape")
    text = re.sub(range_rule, lambda _: _RANGE, text, flags=re.M)
    for rule, strict in (
        (r"^\?field_key: NAME \| NUMBER \| STRING$", "?field_key: MNAME | NUMBER | STRING"),
        (r'^binding: NAME "=" expr$', 'binding: MNAME "=" expr'),
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
    free = _ATOMS | {"not", "forall", "exists"} | _rule_words(rules, "entry_kw", "expr_kw")
    text = _KEYWORD.sub(
        lambda m: m.group(0) if m.group(1) in free else f"/{m.group(1)}{_BLANK}/", text
    )
    # `in(` is a call, a primary: wherever it may stand a name may too, so the greedy
    # lexer already reads `inx(` as a name and `in` needs no following blank there.
    text = text.replace(f'!in_call: /in{_BLANK}/ "("', '!in_call: "in" "("')
    if "(?!" in text or "(?=" in text or "*?" in text:
        raise ValueError("grammar has a construct this script does not rewrite")
    return text


def derived_grammar() -> str:
    """The llguidance grammar of the lablang grammar this installation parses with."""
    from lablang.syntax.grammar import grammar_text

    return llguidance_grammar(grammar_text())
