"""lablang's grammar drives constrained decoding with llguidance.

The derived grammar (`lablang grammar --for llguidance`, `lablang.syntax.llguidance`) must
compile, accept every shipped program, and everything it lets a model write must parse
with lablang.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from lablang.syntax import llguidance as derive

llguidance = pytest.importorskip("llguidance")

ROOT = Path(__file__).resolve().parents[2]


def _lark_grammar() -> str:
    return (ROOT / "grammar" / "lablang.lark").read_text("utf-8")


def _programs() -> list[Path]:
    files = [ROOT / "tests" / "data" / "tour.lab"]
    for folder in ("examples", "stdlib"):
        files.extend(sorted((ROOT / folder).rglob("*.lab")))
    return files


class _Vocabulary:
    """A word-level tokenizer in the shape llguidance's `TokenizerWrapper` expects.

    Each word carries a trailing space, as in the canonical layout, and the closers
    also come glued (`)`, `]`, `}`, `,`); a sample is a walk over these tokens.
    """

    WORDS = (
        # names, numbers, quantities, strings, ends
        "tube_A",
        "rack",
        "q1",
        "zeta",
        "0",
        "2",
        "16",
        "0.5",
        "98",
        "uL",
        "C",
        "s",
        "min",
        "mM",
        "x",
        '"t"',
        "5'",
        "3'",
        # sequences, built from their parts
        "5'-",
        "ACGT",
        "[CB:16]",
        "[UMI:8-10]",
        "[CDNA']",
        "(T)30",
        "{P5}",
        "{R2'}",
        "/5Phos/",
        "rG",
        "+G",
        "*",
        "-3'",
        "RNA",
        # punctuation and operators
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        ";",
        ":",
        ".",
        "=",
        "|>",
        "->",
        "==",
        "!=",
        "<",
        ">=",
        "~",
        "..",
        "+",
        "-",
        "/",
        "±",
        "?",
    )

    def __init__(self, keywords: list[str]) -> None:
        words = list(dict.fromkeys([*self.WORDS, *keywords]))
        spaced = [w if w == "5'-" else w + " " for w in words]
        glued = [")", "]", "}", ",", "\n"]
        self.tokens: list[bytes] = [t.encode() for t in (*spaced, *glued)] + [b"<eos>"]
        self.eos_token_id = len(self.tokens) - 1
        self.bos_token_id = None
        self.special_token_ids = [self.eos_token_id]
        self.closers = {
            i for i, t in enumerate(self.tokens) if t.strip() in {b")", b"]", b"}", b"-3'", b'"t"'}
        }

    def __call__(self, text: bytes) -> list[int]:
        raise NotImplementedError("samples are built token by token, never tokenized")


def _keywords(lark_text: str) -> list[str]:
    return sorted(set(re.findall(r'"([a-z]+)"', re.sub(r"//[^\n]*", "", lark_text))))


def _matcher_factory():
    vocabulary = _Vocabulary(_keywords(_lark_grammar()))
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(vocabulary))
    grammar = llguidance.LLMatcher.grammar_from_lark(derive.llguidance_grammar(_lark_grammar()))
    return vocabulary, tokenizer, grammar


def _allowed(matcher, size: int) -> list[int]:
    mask = matcher.compute_bitmask()
    return [t for t in range(size) if mask[t // 8] >> (t % 8) & 1]


def _sample(vocabulary, tokenizer, grammar, rng: random.Random, budget: int = 60) -> str | None:
    """One random text the derived grammar accepts in full, or None for a dead end."""
    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    out: list[int] = []
    eos = vocabulary.eos_token_id
    while len(out) < 4 * budget:
        accepting = matcher.is_accepting()
        if accepting and (len(out) >= budget or rng.random() < 0.05):
            return b"".join(vocabulary.tokens[t] for t in out).decode()
        choices = [t for t in _allowed(matcher, len(vocabulary.tokens)) if t != eos]
        if not choices:
            return b"".join(vocabulary.tokens[t] for t in out).decode() if accepting else None
        closing = [t for t in choices if t in vocabulary.closers]
        token = rng.choice(closing if len(out) >= budget and closing else choices)
        assert matcher.consume_token(token) and not matcher.is_error(), matcher.get_error()
        out.append(token)
    return None


def test_derived_grammar_compiles_with_llguidance_without_errors_or_warnings():
    """llguidance validates the derived grammar with no error and no warning."""
    grammar = llguidance.LLMatcher.grammar_from_lark(derive.llguidance_grammar(_lark_grammar()))
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar)
    assert (is_error, messages) == (False, [])


def test_grammar_as_written_needs_the_rewrite():
    """The Lark grammar itself uses priorities and look-arounds llguidance rejects."""
    grammar = llguidance.LLMatcher.grammar_from_lark(_lark_grammar())
    _, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar)
    assert messages, "the rewrite may no longer be needed: compile grammar/lablang.lark directly"


@pytest.mark.parametrize("path", _programs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_derived_grammar_accepts_every_example_program(path: Path):
    """Every bundled .lab program is a text the derived grammar accepts in full (once
    its percent quantities, which the derived grammar leaves out, are written in `x`)."""
    vocabulary = _Vocabulary([])
    del vocabulary  # programs are fed byte by byte, with a byte-level tokenizer

    class Bytes:
        tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
        eos_token_id, bos_token_id, special_token_ids = 256, None, [256]

        def __call__(self, text: bytes) -> list[int]:
            return list(text)

    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(Bytes()))
    grammar = llguidance.LLMatcher.grammar_from_lark(derive.llguidance_grammar(_lark_grammar()))
    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    text = derive.PERCENT_QUANTITY.sub(r"\1x", path.read_text("utf-8"))
    consumed = matcher.consume_tokens(list(text.encode("utf-8")))
    assert consumed and matcher.is_accepting(), matcher.get_error()


def test_texts_the_derived_grammar_allows_parse_with_lablang():
    """300 seeded random walks through the derived grammar parse without a diagnostic,
    except texts showing the one documented divergence (a unit glued to a word)."""
    from lablang.diagnostics import Report
    from lablang.source import Source
    from lablang.syntax import parse

    lark_text = _lark_grammar()
    units = re.search(r"\(\?:\(\?:(.*?)\)\(\?!", lark_text)
    assert units is not None
    divergence = derive.known_divergence(units.group(1))
    vocabulary, tokenizer, grammar = _matcher_factory()
    rng = random.Random(20261129)
    samples = [_sample(vocabulary, tokenizer, grammar, rng) for _ in range(300)]
    finished = [s for s in samples if s is not None]
    assert len(finished) >= 150
    rejected = []
    for text in finished:
        report = Report()
        parse(Source(text, "<sample>"), report)
        if report.diagnostics and not divergence.search(text):
            rejected.append((text, [d.message for d in report.diagnostics]))
    assert rejected == []


def test_grammar_command_prints_the_grammar_llguidance_compiles() -> None:
    """`lablang grammar --for llguidance` prints the derived grammar, which llguidance
    compiles; `lablang grammar` prints the Lark grammar lablang parses with."""
    from click.testing import CliRunner

    from lablang.cli import main

    runner = CliRunner()
    derived = runner.invoke(main, ["grammar", "--for", "llguidance"])
    assert derived.exit_code == 0
    assert derived.output == derive.llguidance_grammar(_lark_grammar())
    grammar = llguidance.LLMatcher.grammar_from_lark(derived.output)
    assert llguidance.LLMatcher.validate_grammar_with_warnings(grammar) == (False, [])
    lark = runner.invoke(main, ["grammar"])
    assert lark.exit_code == 0 and lark.output == _lark_grammar()
