"""The syntax stage: every construct of the design's language sketch (../shared/DESIGN.md)
parses to the expected tree, with positions."""

from __future__ import annotations

from pathlib import Path

from lablang import ast
from lablang.diagnostics import Report
from lablang.source import Source
from lablang.syntax import parse

TOUR = Path(__file__).resolve().parents[1] / "data" / "tour.lab"


def parse_ok(text: str) -> ast.Module:
    report = Report()
    module = parse(Source(text), report)
    assert not report.has_errors, [(d.code, d.message) for d in report]
    return module


def test_the_tour_with_every_declaration_kind_parses() -> None:
    """tests/data/tour.lab (one of every construct in the design sketch) parses cleanly."""
    module = parse_ok(TOUR.read_text())
    assert [d.kind for d in module.decls] == [
        "segment",
        "oligo",
        "workflow",
        "state",
        "protocol",
        "scene",
        "task",
        "contract",
        "rubric",
    ]
    assert module.name == "tenx_3p_v3"
    assert module.uses[0].path == ("illumina",)
    assert module.uses[0].names == ("P5", "P7", "TruSeq_R1", "TruSeq_R2")


def test_sequence_literal_parts_are_read_and_located() -> None:
    """`5'-/5Biosg/ACGT [CB:16] [BC:8-11] (T)30 {P7'} rG +G * [CDNA']-3'` yields typed parts."""
    text = "oligo X { seq: 5'-/5Biosg/ACGT [CB:16] [BC:8-11] (T)30 {P7'} rG +G * [CDNA']-3' }"
    seq = parse_ok(text).decls[0].body.members[0].value  # type: ignore[union-attr]
    assert isinstance(seq, ast.Sequence)
    kinds = [type(p).__name__ for p in seq.parts]
    assert kinds == [
        "Modification",
        "Bases",
        "Placeholder",
        "Placeholder",
        "Homopolymer",
        "SeqRef",
        "Ribo",
        "LNA",
        "Thioate",
        "Placeholder",
    ]
    cb, bc = seq.parts[2], seq.parts[3]
    assert (cb.role, cb.min_len, cb.max_len) == ("CB", 16, 16)  # type: ignore[union-attr]
    assert (bc.min_len, bc.max_len) == (8, 11)  # type: ignore[union-attr]
    assert seq.parts[5] == ast.SeqRef(path=("P7",), revcomp=True, span=seq.parts[5].span)
    assert seq.parts[-1].revcomp  # type: ignore[union-attr]
    assert text[seq.parts[2].span.start : seq.parts[2].span.end] == "[CB:16]"


def test_quantities_keep_number_and_unit() -> None:
    """`98 C`, `0.5 s`, `ng/uL`, `70 %` and `2 x` are quantities; `a % N` stays modulo."""
    module = parse_ok("protocol p { a: 98 C  b: 0.5 s  c: 10 ng/uL  d: 70 %, e: 2 x  f: k % N }")
    values = [m.value for m in module.decls[0].body.members]  # type: ignore[union-attr]
    assert [(v.number, v.unit) for v in values[:5]] == [  # type: ignore[union-attr]
        ("98", "C"),
        ("0.5", "s"),
        ("10", "ng/uL"),
        ("70", "%"),
        ("2", "x"),
    ]
    assert isinstance(values[5], ast.Binary) and values[5].op == "%"


def test_operator_precedence_follows_the_reference() -> None:
    """`not a and b or c -> d` groups as `((not a) and b) or c) -> d`."""
    module = parse_ok("contract c { goal not a and b or c -> d }")
    goal = module.decls[0].body.members[0].value  # type: ignore[union-attr]
    assert isinstance(goal, ast.Binary) and goal.op == "->"
    assert goal.left.op == "or" and goal.left.left.op == "and"  # type: ignore[union-attr]
    assert goal.left.left.left.op == "not"  # type: ignore[union-attr]


def test_keywords_are_names_after_a_dot() -> None:
    """`answer.step(cycle)` works although `step` is a keyword (the lexer is contextual)."""
    module = parse_ok("rubric r { item x { check: answer.step(cycle).denaturation >= 98 C } }")
    item = module.decls[0].body.members[0]  # type: ignore[union-attr]
    check = item.body.members[0].value  # type: ignore[union-attr]
    assert check.left.value.func.name == "step"  # type: ignore[union-attr]


def test_in_is_both_an_operator_and_a_predicate_call() -> None:
    """`in(a, b)` is a call and `a in b` a comparison."""
    module = parse_ok("task t { step s { success: in(a, b.slot[0]) and x in ys } }")
    success = module.decls[0].body.members[0].body.members[0].value  # type: ignore[union-attr]
    assert isinstance(success.left, ast.Call) and success.left.func.id == "in"  # type: ignore[union-attr]
    assert success.right.op == "in"  # type: ignore[union-attr]


def test_contract_constructs_parse_to_entries_and_clauses() -> None:
    """`op f(k: slot) requires ... effect b = k` and `pair p {..} vs {..} at f` keep their parts."""
    module = parse_ok(
        "contract c(N: 8) { op f(k: slot) requires k < N effect b = k\n"
        " pair p {a = 2} vs {a = 3} at f }"
    )
    op, pair = module.decls[0].body.members  # type: ignore[union-attr]
    assert isinstance(op, ast.Entry) and op.params[0].name == "k"  # type: ignore[index]
    assert [c.keyword for c in op.clauses] == ["requires", "effect"]
    assert isinstance(op.clauses[1].value, ast.Assignment)
    assert isinstance(pair, ast.ExprEntry) and pair.body is not None
    assert [c.keyword for c in pair.clauses] == ["vs", "at"]


def test_spans_point_at_the_source_text() -> None:
    """Every declaration's name span covers exactly its name."""
    text = TOUR.read_text()
    for decl in parse_ok(text).decls:
        assert text[decl.name_span.start : decl.name_span.end] == decl.name


def test_comments_are_kept_with_positions() -> None:
    """Comments are collected for the formatter, with their spans."""
    text = "# a\noligo X { seq: 5'-A-3' } # b\n"
    module = parse_ok(text)
    assert [c.text for c in module.comments] == ["# a", "# b"]
    assert text[module.comments[1].span.start :].startswith("# b")


def test_a_syntax_error_says_what_was_expected_and_which_block_is_open() -> None:
    """An unexpected `}` names the expected value and points at the open block."""
    report = Report()
    parse(Source("protocol p {\n  step s { volume: }\n}\n"), report)
    (diagnostic,) = report.diagnostics
    assert diagnostic.code == "E0101"
    assert diagnostic.label == "expected a value"
    assert diagnostic.labels[0].message == "block of `step s` opened here"


def test_a_declaration_inside_an_unclosed_block_says_to_close_the_block() -> None:
    """A new declaration while a block is open asks for the `}`, not for a new name."""
    report = Report()
    parse(Source("oligo X {\n  seq: 5'-ACGT-3'\ntransition t { }\n"), report)
    (diagnostic,) = report.diagnostics
    assert diagnostic.help == "close the block opened on line 1 with `}` before this declaration"


def test_lsp_columns_count_utf16_code_units() -> None:
    """A character outside the BMP before the error counts as two LSP columns."""
    from lablang.diagnostics.render import to_lsp

    report = Report()
    parse(Source('oligo X { note: "\U0001f9ea" role: }'), report)
    (diagnostic,) = report.diagnostics
    assert diagnostic.start == (1, 27)
    assert to_lsp(diagnostic)["range"]["start"] == {"line": 0, "character": 27}
