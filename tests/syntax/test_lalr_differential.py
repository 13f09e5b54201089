"""lablang's LALR runtime parses exactly as lark's own LALR parser built from the grammar
with the same options, transformer and lexer callbacks: the same AST (spans, comments and
the diagnostics sequence literals report), the same limit aborts, or the same error (class,
position, line and column, parser state, expected set, token, token history).

The texts: every shipped `.lab` (examples/, stdlib/, tests/), each also truncated and
mutated (the edits agents make), and programs generated from the round-trip tests' AST
strategies, printed, then mutated."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lark
import lark.lexer
import lark.parsers.lalr_parser
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lablang.diagnostics import Report
from lablang.fmt import format_module
from lablang.limits import Limits
from lablang.source import Source
from lablang.syntax import grammar, lalr
from lablang.syntax.parser import Parser, _Abort
from tests.core.mutations import mutate
from tests.core.strategies import modules

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    p for folder in ("examples", "stdlib", "tests") for p in (ROOT / folder).rglob("*.lab")
)
CUTS = 6
MUTATIONS = 10


class _LarkMadeToken(lalr.Token):
    """The runtime's token class, made by lark's lexer and parser while the twin parses,
    so that the one transformer (which tells tokens from nodes by class) sees one kind."""

    __slots__ = ()

    @classmethod
    def new_borrow_pos(cls, type_: str, value: str, borrow: Any) -> _LarkMadeToken:
        return cls(
            type_,
            value,
            borrow.start_pos,
            borrow.line,
            borrow.column,
            borrow.end_line,
            borrow.end_column,
            borrow.end_pos,
        )


@contextlib.contextmanager
def _lark_makes_runtime_tokens() -> Iterator[None]:
    saved = lark.lexer.Token, lark.parsers.lalr_parser.Token
    lark.lexer.Token = lark.parsers.lalr_parser.Token = _LarkMadeToken  # type: ignore[misc]
    try:
        yield
    finally:
        lark.lexer.Token, lark.parsers.lalr_parser.Token = saved  # type: ignore[misc]


class _Twins:
    """One parse context with two parsers over it: the runtime and lark's LALR."""

    def __init__(self) -> None:
        self.parser = Parser()
        self.runtime = self.parser._runtime
        self.lark = self.parser._build(grammar.lark_parser)

    def outcome(self, which: Any, text: str, limits: Limits) -> tuple[Any, ...]:
        context = self.parser._context
        report = Report()
        context.reset(Source(text, "t.lab"), report, limits)
        making = _lark_makes_runtime_tokens() if which is self.lark else contextlib.nullcontext()
        try:
            with making:
                result: tuple[Any, ...] = ("tree", repr(which.parse(text)))
        except _Abort:
            result = ("abort",)
        except (lalr.UnexpectedInput, lark.exceptions.UnexpectedInput) as error:
            result = ("error", *_error(error, self.runtime))
        finally:
            context.expr_depth.clear()
        return (*result, [(d.code, d.message, d.span.start, d.span.end) for d in report])

    def assert_same(self, text: str, limits: Limits | None = None) -> tuple[Any, ...]:
        limits = limits or Limits()
        ours = self.outcome(self.runtime, text, limits)
        assert ours == self.outcome(self.lark, text, limits), text
        return ours


def _token(token: Any) -> tuple[Any, ...] | None:
    if token is None:
        return None
    return (
        token.type,
        str(token),
        token.start_pos,
        token.end_pos,
        token.line,
        token.column,
        token.end_line,
        token.end_column,
    )


def _error(error: Any, runtime: lalr.Runtime) -> tuple[Any, ...]:
    # states are numbered per analysis (lark's numbering varies between processes): a
    # state is compared as the symbols its row of the table has
    if isinstance(error.state, int):
        state = sorted(runtime._rows.get(error.state) or runtime._row(error.state))
    else:
        state = sorted(error.state.parse_conf.states[error.state.position])
    history = error.token_history
    place = (error.pos_in_stream, error.line, error.column, state)
    history = None if history is None else [_token(t) for t in history]
    if isinstance(error, (lalr.UnexpectedCharacters, lark.exceptions.UnexpectedCharacters)):
        return ("characters", *place, sorted(error.allowed), error.char, history)
    assert isinstance(error, (lalr.UnexpectedToken, lark.exceptions.UnexpectedToken))
    return ("token", *place, sorted(error.expected), _token(error.token), history)


@pytest.fixture(scope="module")
def twins() -> _Twins:
    return _Twins()


def _variants(text: str, seed: str) -> Iterator[str]:
    """The text, cut at a few places, and mutated a few times (reproducibly per seed)."""
    yield text
    for k in range(1, CUTS + 1):
        yield text[: len(text) * k // (CUTS + 1)]
    rng = random.Random(seed)
    for _ in range(MUTATIONS):
        yield mutate(text, rng)


def test_the_corpus_is_every_shipped_lab_file() -> None:
    """The differential corpus holds the examples, the stdlib and the tests' inputs."""
    folders = {p.relative_to(ROOT).parts[0] for p in FILES}
    assert folders == {"examples", "stdlib", "tests"}
    assert len(FILES) > 200


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_file_and_its_cuts_and_mutations_parse_as_with_lark(
    twins: _Twins, path: Path
) -> None:
    """A shipped file, its truncations and its mutations give the runtime lark's outcome."""
    text = path.read_text("utf-8", errors="surrogateescape")
    for variant in _variants(text, str(path.relative_to(ROOT))):
        twins.assert_same(variant)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules, st.randoms(use_true_random=False))
def test_generated_programs_and_their_mutations_parse_as_with_lark(module, rng) -> None:  # type: ignore[no-untyped-def]
    """A program printed from a generated AST, and edits of it, give lark's outcome."""
    twins = _shared()
    text = format_module(module)
    twins.assert_same(text)
    for _ in range(5):
        twins.assert_same(mutate(text, rng))


_SHARED: list[_Twins] = []


def _shared() -> _Twins:
    if not _SHARED:
        _SHARED.append(_Twins())
    return _SHARED[0]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n# only a comment\n",
        "oligo",
        "oligo X { seq: 5'-ACGT-3'",
        "oligo X { seq: 3'-ACGT-5' }",
        'oligo X { seq: "open\n}',
        "oligo X { step: 1 }",
        "protocol p { step a { wait 1 parsec } }",
        "segment A = umi(12) )",
        "oligo X { a: 1 @ 2 }",
        "oligo X {\n  a: [1,\n  2,\n  # c\n  ",
        "use a.{b, c} as d\nmodule m",
    ],
)
def test_edge_texts_parse_as_with_lark(twins: _Twins, text: str) -> None:
    """Empty, comment-only, unfinished, misplaced and unknown-character texts give lark's
    outcome (both the parser's and the lexers' errors)."""
    twins.assert_same(text)


def test_every_error_path_is_compared(twins: _Twins) -> None:
    """The comparison covers each error path: the parser's unexpected token (mid-text and
    at the end of input), a token the state's lexer cannot match that the lexer over all
    terminals names (it carries the token history), and a character no terminal matches."""
    # outcome: ("error", kind, position, line, column, state's symbols, expected, token, history, ...)
    at_end = twins.assert_same("oligo")
    assert at_end[:2] == ("error", "token") and at_end[7][0] == "$END" and at_end[8] is None
    named = twins.assert_same("oligo X ]")
    assert named[:2] == ("error", "token") and named[7][0] == "RSQB" and named[8] is not None
    character = twins.assert_same("oligo X { a: 1 @ 2 }")
    assert character[:2] == ("error", "characters") and character[7] == "@"


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("oligo X { a: " + "(" * 40 + "1" + ")" * 40 + " }", Limits(max_nesting=10)),
        ("oligo X { a: 1e999999 }", Limits()),
        ("oligo X { a: " + "-" * 80 + "1 }", Limits(max_expression_depth=20)),
        ("oligo X { a: [" + "1," * 50 + "] }", Limits(max_list_items=10)),
    ],
    ids=["nesting", "number", "expression-depth", "list-items"],
)
def test_limit_aborts_happen_where_lark_has_them(twins: _Twins, text: str, limits: Limits) -> None:
    """A bracket, number, expression or list limit aborts the parse with the same
    diagnostic on both parsers (the callbacks run at the same tokens and reductions)."""
    outcome = twins.assert_same(text, limits)
    assert outcome[0] == "abort" and outcome[-1]
