"""Re-parsing only the changed declarations (`lablang.syntax.reuse`) gives a cold parse's
tree and diagnostics, and the checks built on it give a cold check's diagnostics."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lablang.diagnostics import Diagnostic, Report
from lablang.driver import check_source
from lablang.limits import DEFAULT_LIMITS
from lablang.source import Source, Span
from lablang.syntax import parse
from lablang.syntax.recover import declaration_chunks
from lablang.syntax.reuse import ParseCache

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    [
        *ROOT.glob("examples/*.lab"),
        *ROOT.glob("examples/protocols/*.lab"),
        *ROOT.glob("examples/contracts/*.lab"),
        *ROOT.glob("examples/tasks/*.lab"),
        *ROOT.glob("stdlib/**/*.lab"),
    ]
)
# what an edit inserts: whole words and lines, the brackets and quotes that break a
# declaration, declaration keywords that start a new piece, and a header out of place
INSERTS = (
    "x", " ", "\n", "}", "{", "(", '"', "'", "#", "# a comment\n", "50 uL", "20 sec",
    "oligo ", "\noligo o2 { seq: 5'-ACGT-3' }\n", "\nsegment S9 = umi(8)\n",
    "\nmodule late\n", "\nuse illumina.{P5}\n", "5'-ACGT-3'", "1e999", ";",
    "\nmaterial m9\n", "\nprotocol q9 {\n  step a { add: 5 uL of m9 to: t }\n}\n",
)  # fmt: skip
WHOLE = (
    "# a comment line\n", "oligo o7 { seq: 5'-ACGTACGT-3' }\n", "segment S7 = umi(8)\n",
    "material m7\n", "protocol q7 {\n  step a { add: 5 uL of m7 to: t }\n}\n",
    "use illumina.{P7}\n", "module late\n", "oligo broken { seq: 5'-ACGT\n",
)  # fmt: skip


def _mutate(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    line_start = text.rfind("\n", 0, at) + 1
    pieces = declaration_chunks(text)
    choice = rng.random()
    if choice < 0.25:  # what typing does: a character, a word, a broken bracket
        return text[:at] + rng.choice(INSERTS) + text[at:]
    if choice < 0.35:
        return text[:at] + text[at + rng.randrange(1, 40) :]
    if choice < 0.55:  # a number changes, often to one of another length
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        if digits:
            i = rng.choice(digits)
            return text[:i] + rng.choice(("7", "42", "", "1000")) + text[i + 1 :]
    if choice < 0.7:  # a whole declaration or comment line, where a line starts
        return text[:line_start] + rng.choice(WHOLE) + text[line_start:]
    if choice < 0.85 and len(pieces) > 1:  # a declaration removed, or two swapped
        i, j = sorted(rng.sample(range(len(pieces)), 2))
        texts = [piece for _, piece in pieces]
        if rng.random() < 0.5:
            del texts[i]
        else:
            texts[i], texts[j] = texts[j], texts[i]
        return "".join(texts)
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text + "\n"
    i, j = sorted(rng.sample(range(len(lines)), 2))
    lines[i], lines[j] = lines[j], lines[i]  # moves whole declarations, or breaks them
    return "".join(lines)


def _key(diagnostics: list[Diagnostic]) -> list[tuple]:
    return [
        (d.code, d.severity, d.span, d.message, d.help, d.labels, d.fix, d.source.text)
        if d.source is not None
        else (d.code, d.severity, d.span, d.message, d.help, d.labels, d.fix, None)
        for d in diagnostics
    ]


def _edit_sequences(count: int, length: int, seed: int) -> list[list[str]]:
    """Edit sequences from shipped files; after a version that does not parse, the next
    edit is made half the time to the last version that did (the writer fixes it)."""
    rng = random.Random(seed)
    sequences = []
    for _ in range(count):
        text = clean = rng.choice(CORPUS).read_text("utf-8")
        versions = [text]
        for _ in range(length):
            if text != clean and rng.random() < 0.5:
                text = clean
            text = _mutate(text, rng)
            versions.append(text)
            report = Report()
            parse(Source(text), report)
            if not report.diagnostics:
                clean = text
        sequences.append(versions)
    return sequences


@pytest.mark.parametrize("seed", range(3))
def test_parse_reusing_pieces_equals_a_cold_parse_along_random_edit_sequences(seed: int) -> None:
    """After each random edit the reused parse returns the cold parse's module and reports
    exactly the cold parse's diagnostics (syntax errors, spelled units, misplaced headers
    included)."""
    clean = total = 0
    for versions in _edit_sequences(count=5, length=20, seed=seed):
        cache = ParseCache()
        for text in versions:
            source = Source(text, "edited.lab")
            cold_report, warm_report = Report(), Report()
            cold = parse(source, cold_report)
            warm = cache.parse(source, warm_report)
            assert warm == cold
            assert _key(list(warm_report)) == _key(list(cold_report))
            assert warm_report.dropped == cold_report.dropped
            clean += not cold_report.diagnostics
            total += 1
    assert clean > total // 5  # both routes taken: reused pieces, and the cold fallback


def test_check_reusing_pieces_reports_what_a_cold_check_reports() -> None:
    """A whole check (resolve, core checks, backends) on reused trees gives the cold
    check's diagnostics after each edit of a random sequence."""
    roots = [ROOT / "examples"]
    for versions in _edit_sequences(count=3, length=12, seed=99):
        cache = ParseCache()
        for text in versions:
            source = Source(text, str(ROOT / "examples" / "edited.lab"))
            cold = check_source(source, roots)
            warm = check_source(source, roots, parser=cache.parse)
            assert _key(cold.report.sorted()) == _key(warm.report.sorted())


def test_an_edit_parses_only_the_declaration_it_touched() -> None:
    """Changing one declaration of many parses that one piece again, and the others'
    trees are moved to their new offsets (the edit changes the length)."""
    text = "".join(f"segment S{i} = umi({i + 1})\n" for i in range(50))
    cache = ParseCache()
    cache.parse(Source(text), Report())
    assert cache.parsed_pieces == 50
    edited = text.replace("umi(3)", "umi(300)")
    module = cache.parse(Source(edited), Report())
    assert cache.parsed_pieces == 51
    assert module == parse(Source(edited), Report())


def test_one_broken_declaration_is_parsed_alone_and_reported_as_a_cold_parse_does() -> None:
    """While one declaration of many is broken, only it is parsed again, and its error
    (position, line numbers in the help, fix) and the dropped name are a cold parse's."""
    text = "".join(f"segment S{i} = umi({i + 1})\n" for i in range(30))
    text += "oligo O { seq: 5'-ACGT-3' role: }\n"
    text += "".join(f"segment T{i} = umi({i + 1})\n" for i in range(30))
    cache = ParseCache()
    cache.parse(Source(text.replace("role: }", "}")), Report())
    parsed = cache.parsed_pieces
    warm_report, cold_report = Report(), Report()
    warm = cache.parse(Source(text), warm_report)
    assert cache.parsed_pieces == parsed + 1
    assert warm == parse(Source(text), cold_report)
    assert [d.code for d in warm_report] == ["E0101"]
    assert _key(list(warm_report)) == _key(list(cold_report))
    assert warm_report.dropped == cold_report.dropped == {"O"}


def test_a_bound_in_one_piece_empties_the_module_as_a_cold_parse_does() -> None:
    """A number out of bounds (`1e999`, E0020) stops the cold parse with the empty module
    (no declarations, span 0..0): the reused parse returns that too, not the other pieces'
    trees in a module spanning the text. Found by the random edits (`1e999` typed into a
    file of one declaration gave span 0..1854 against the cold parse's 0..0)."""
    for text in ("segment B = umi(1e999)\n", "segment A = umi(8)\nsegment B = umi(1e999)\n"):
        cache = ParseCache()
        cache.parse(Source(text.replace("1e999", "8")), Report())
        warm_report, cold_report = Report(), Report()
        warm = cache.parse(Source(text), warm_report)
        cold = parse(Source(text), cold_report)
        assert cold.span == Span(0, 0) and not cold.decls
        assert warm == cold
        assert [d.code for d in warm_report] == ["E0020"]
        assert _key(list(warm_report)) == _key(list(cold_report))


def test_kept_texts_are_bounded_by_characters() -> None:
    """The cache never keeps more characters of piece texts than it is given (untrusted
    texts cannot grow it without bound)."""
    cache = ParseCache(characters=500)
    for i in range(40):
        cache.parse(Source(f"segment S{i} = umi(8)\nsegment T{i} = umi(9)\n"), Report())
    assert cache.kept <= 500
    assert sum(len(text) for text in cache.pieces) == cache.kept


def _spans(node: object) -> list:
    from attrs import fields, has

    if isinstance(node, Span):
        return [node]
    if isinstance(node, tuple):
        return [s for item in node for s in _spans(item)]
    if has(type(node)):
        return [s for f in fields(type(node)) for s in _spans(getattr(node, f.name))]
    return []


def test_partial_trees_of_broken_edits_lie_inside_their_text() -> None:
    """Along random edit sequences, the partial tree (what parses, inside broken
    declarations too) is built without an exception, every span in it lies inside the
    text, and for a text whose pieces all parse alone it is the cold parse's tree."""
    repaired = 0
    for versions in _edit_sequences(count=5, length=20, seed=7):
        cache = ParseCache()
        for text in versions:
            report = Report()
            cold = parse(Source(text), report)
            partial = cache.partial(Source(text))
            for span in _spans(partial):
                assert 0 <= span.start <= span.end <= len(text)
            whole = cache._assemble(Source(text), DEFAULT_LIMITS, repair=False)
            if whole is not None:  # every piece parses alone
                assert partial == cold == whole
            elif len(partial.decls) > len(cold.decls):
                repaired += 1
    assert repaired > 0  # some broken declarations were recovered, not only skipped


def test_a_partial_tree_repairs_a_bounded_number_of_new_broken_declarations() -> None:
    """A file of many broken declarations gets at most `MAX_REPAIRS_PER_CALL` new repairs
    per partial tree (the work per edit is bounded); later calls repair more."""
    from lablang.syntax import reuse

    text = "".join(f"oligo O{i} {{ seq: 5'-ACGT-3' role: }}\n" for i in range(40))
    cache = ParseCache()
    first = cache.partial(Source(text))
    assert len(cache.repaired) == len(first.decls) == reuse.MAX_REPAIRS_PER_CALL
    second = cache.partial(Source(text))
    assert len(second.decls) == 2 * reuse.MAX_REPAIRS_PER_CALL
    assert [d.name for d in second.decls[:4]] == ["O0", "O1", "O2", "O3"]
