"""Untrusted input: mutated protocols and rubrics never crash the backend (no E0000, no
traceback), and the diff and task draft run on whatever builds."""

from __future__ import annotations

import random
from pathlib import Path

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.protocols.diff import semantic_diff
from lablang.protocols.front import build_protocols
from lablang.protocols.task import draft_task
from lablang.source import Source
from lablang.syntax import parse

ROOT = Path(__file__).parents[2] / "examples" / "protocols"
SEEDS = [
    (ROOT / n).read_text() for n in ("pcr_published.lab", "pcr_gc_rich.lab", "gc_rich_rubric.lab")
]
TOKENS = [
    "0",
    "-1",
    "1e9",
    "0.0001",
    "uL",
    "C",
    "xg",
    "rpm",
    "x",
    "{",
    "}",
    ":",
    "of",
    "from",
    "for",
    "repeat",
    "hold",
    "wait",
    "step",
    "item",
    "weight",
    "check:",
    "none",
    "all",
    "unknown",
    "to:",
    '"t"',
    "[",
    "]",
    ";",
    "answer.step(x).y",
    "999999 cycles",
]


def _mutate(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        position = rng.randrange(len(words))
        if choice < 0.4:
            words[position] = rng.choice(TOKENS)
        elif choice < 0.7:
            del words[position]
        else:
            words.insert(position, rng.choice(TOKENS))
    mutated = " ".join(words)
    if rng.random() < 0.1:
        mutated = mutated[: rng.randrange(len(mutated))]
    return mutated


def test_mutated_inputs_never_crash():
    """600 mutated examples: every one gets diagnostics or a model, never an internal error."""
    rng = random.Random(8)
    seed_source = Source(SEEDS[0], "seed.lab")
    original = build_protocols(parse(seed_source, Report()), seed_source, Report())[0]
    for n in range(600):
        text = _mutate(SEEDS[n % 3], rng)
        report = check_text(text).report
        internal = [d.message for d in report if d.code == "E0000"]
        assert not internal, (internal, text)
        if n % 3 == 2:
            continue
        source = Source(text, "m.lab")
        module_report = Report()
        module = parse(source, module_report)
        built = build_protocols(module, source, module_report)
        if built:
            diff = semantic_diff(original, built[0])
            draft = draft_task(diff, original, built[0])
            if n % 10 == 0:
                assert not [d for d in check_text(draft).report if d.code == "E0000"], draft
