"""Every editor feature answers on any text, never with an exception."""

from __future__ import annotations

import random
from pathlib import Path

from lablang.diagnostics import Report
from lablang.fmt import format_source
from lablang.lsp.analysis import analyze
from lablang.lsp.complete import complete
from lablang.lsp.hover import hover
from lablang.lsp.incremental import ChunkCache, quick_diagnostics
from lablang.lsp.navigate import definition, outline
from lablang.source import Source

ROOT = Path(__file__).resolve().parents[2]
TOUR = (ROOT / "tests" / "data" / "tour.lab").read_text("utf-8")
PIECES = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "5'-",
    "-3'",
    '"',
    "#",
    ".",
    ":",
    "=",
    "\n",
    "ACGT",
    "50 uL",
]


def _mutants(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        text = TOUR
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            match rng.randrange(3):
                case 0:
                    text = text[:at] + rng.choice(PIECES) + text[at:]
                case 1:
                    text = text[:at] + text[at + rng.randint(1, 12) :]
                case _:
                    text = text[:at]
        texts.append(text)
    return texts


def test_features_answer_on_mutated_programs_without_raising(tmp_path: Path):
    """On 40 seeded mutations of the tour (insertions, deletions, truncations), hover,
    definition, completion, outline, formatting and the fast path all return."""
    cache = ChunkCache()
    previous = analyze(TOUR, str(tmp_path / "tour.lab"))
    for text in _mutants(40, seed=7):
        analysis = analyze(text, str(tmp_path / "tour.lab"))
        for offset in range(0, len(text) + 1, 23):
            hover(analysis, offset)
            definition(analysis, offset)
            complete(text, offset, analysis)
        outline(analysis.module)
        format_source(Source(text, "tour.lab"), Report())
        quick_diagnostics(text, "tour.lab", previous, cache)
        previous = analysis


def test_positions_round_trip_through_utf16_columns():
    """Offsets map to LSP positions and back, with astral characters counted twice."""
    text = "oligo X \"𝛼β\" { seq: 5'-ACGT-3' }\nsegment Y = umi(8)\n"
    analysis = analyze(text, "x.lab")
    for offset in range(len(text) + 1):
        line, character = analysis.lines.position(offset)
        assert analysis.lines.offset(line, character) == offset
    assert analysis.lines.position(text.index("β")) == (0, 11)


def test_chunk_cache_keeps_at_most_its_character_budget():
    """The fast path's cache evicts the oldest chunks once it holds too many characters."""
    cache = ChunkCache(characters=100)
    for index in range(20):
        cache.syntax(f"segment s{index} = umi(8)\n", "x.lab")
    assert cache.kept <= 100
    assert sum(len(chunk) for chunk in cache.entries) == cache.kept
    assert "segment s19 = umi(8)\n" in cache.entries
