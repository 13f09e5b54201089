"""The `diff`, `grade` and `judge-prompts` verbs on the bundled example and on bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

from lablang.cli import main

ROOT = Path(__file__).parents[2] / "examples" / "protocols"
RUBRIC = str(ROOT / "gc_rich_rubric.lab")
JUDGMENTS = str(ROOT / "judgments.jsonl")
ANSWERS = str(ROOT / "answers")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_grade_example_matches_the_committed_report():
    """`lablang grade` on the example prints exactly examples/protocols/report.txt."""
    result = run("grade", RUBRIC, "--judgments", JUDGMENTS, "--answers", ANSWERS)
    assert result.exit_code == 0, result.output
    assert result.output == (ROOT / "report.txt").read_text()


def test_grade_json_has_hand_checked_attempt_scores():
    """lib_pcr attempt 3 scores (3 + 2 + 1 + 2*1/2 - 2 - 1) / 12 = 7/24 (hand computed)."""
    result = run("grade", RUBRIC, "--judgments", JUDGMENTS, "--answers", ANSWERS, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data == json.loads((ROOT / "report.json").read_text())
    scores = {(a["protocol"], a["attempt"]): a["score"] for a in data["attempts"]}
    assert scores[("lib_pcr", "3")] == float(Fraction(7, 24))
    assert scores[("lib_pcr", "1")] == 1.0
    assert set(data["best_of_k"]) == {"1", "2", "3"}
    assert data["best_of_k"]["1"] == data["mean"]


def test_grade_without_answers_needs_judgments_for_machine_items():
    """Without --answers the machine-checked items must be judged: E0833 names them."""
    result = run("grade", RUBRIC, "--judgments", JUDGMENTS)
    assert result.exit_code == 1
    assert "E0833" in result.output and "`dmso`" in result.output


def test_judging_a_machine_checked_item_with_answers_is_E0836(tmp_path):
    """With --answers, a judgment of a machine-checked item is an error naming its line."""
    extra = tmp_path / "j.jsonl"
    extra.write_text(
        (ROOT / "judgments.jsonl").read_text()
        + json.dumps({"protocol": "lib_pcr", "attempt": 1, "item": "dmso", "score": 2})
        + "\n"
    )
    result = run("grade", RUBRIC, "--judgments", str(extra), "--answers", ANSWERS)
    assert result.exit_code == 1
    assert "E0836" in result.output and "line 19" in result.output


def test_missing_answer_file_grades_zero_with_a_warning(tmp_path):
    """An attempt without an answer file gets 0 on machine items and a W0820 warning."""
    extra = tmp_path / "j.jsonl"
    extra.write_text(
        json.dumps({"protocol": "lib_pcr", "attempt": 9, "item": "rationale", "score": 2})
        + "\n"
        + json.dumps({"protocol": "lib_pcr", "attempt": 9, "item": "qc_order", "score": 2})
        + "\n"
    )
    result = run("grade", RUBRIC, "--judgments", str(extra), "--answers", ANSWERS, "--json")
    assert result.exit_code == 0
    assert "W0820" in result.stderr
    data = json.loads(result.stdout)
    # 2*1 + 1*1 judged, every machine item 0: 3 / 12
    assert data["attempts"][0]["score"] == 0.25


def test_judge_prompts_one_line_per_leaf_item():
    """judge-prompts writes one JSON line per leaf item (10 for the example rubric)."""
    answer = str(ROOT / "answers" / "lib_pcr" / "2.lab")
    result = run(
        "judge-prompts", RUBRIC, "--answer", answer, "--protocol", "lib_pcr", "--attempt", "2"
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.output.splitlines()]
    assert [r["item"] for r in records] == [
        "dmso",
        "denat_initial",
        "denat_cycle",
        "anneal",
        "cycles",
        "ratio",
        "rationale",
        "qc_order",
        "low_extension",
        "too_many_cycles",
    ]
    low = records[-2]
    assert low["weight"] == -2 and "describes a mistake" in low["prompt"]
    assert "step template" in low["prompt"]  # the answer is in the prompt
    assert records[6]["machine_check"] is None


def test_diff_task_and_output_file(tmp_path):
    """`diff --task -o FILE` writes the draft atomically; it is the committed draft."""
    target = tmp_path / "task.lab"
    result = run(
        "diff",
        str(ROOT / "pcr_published.lab"),
        str(ROOT / "pcr_gc_rich.lab"),
        "--task",
        "-o",
        str(target),
    )
    assert result.exit_code == 0, result.output
    assert target.read_text() == (ROOT / "task_draft.lab").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["task.lab"]  # no temporary left behind


def test_diff_of_a_file_with_errors_exits_1(tmp_path):
    """A protocol with an over-drawn container is reported and no diff is printed."""
    bad = tmp_path / "bad.lab"
    bad.write_text(
        "protocol p {\n  materials: [w]\n  containers: [t, u]\n"
        "  step a { transfer: 5 uL from t  to: u }\n}\n"
    )
    result = run("diff", str(bad), str(ROOT / "pcr_gc_rich.lab"))
    assert result.exit_code == 1
    assert "E0803" in result.output


def test_diff_of_a_file_without_protocol_exits_1(tmp_path):
    """A file with no protocol declaration is an error, not a traceback."""
    empty = tmp_path / "empty.lab"
    empty.write_text('rubric r { item a "x" weight 1 }\n')
    result = run("diff", str(empty), str(ROOT / "pcr_gc_rich.lab"))
    assert result.exit_code == 1
    assert "E0806" in result.output and "has no `protocol` declaration" in result.output


def test_judge_prompts_with_published_carries_the_published_protocol(tmp_path):
    """`judge-prompts --published FILE` puts the published protocol in every prompt; a
    free-text answer is judged against it."""
    answer = tmp_path / "answer.txt"
    answer.write_text("Raise the annealing to 65 C and add 5% DMSO.\n")
    published = ROOT / "pcr_published.lab"
    result = run("judge-prompts", RUBRIC, "--answer", str(answer), "--published", str(published))
    assert result.exit_code == 0, result.output
    prompts = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert prompts and all(
        'protocol lib_pcr "Illumina library amplification' in p["prompt"]
        and "Raise the annealing to 65 C" in p["prompt"]
        for p in prompts
    )
    plain = run("judge-prompts", RUBRIC, "--answer", str(answer))
    assert "protocol lib_pcr" not in plain.output


def test_diff_task_on_a_pair_as_examples_readme_shows():
    """`lablang diff pairs/western_nitrocellulose.lab pairs/western_pvdf.lab --task` (the
    command examples/protocols/README.md shows) drafts a rubric with the membrane decision."""
    pairs = ROOT / "pairs"
    result = run(
        "diff", str(pairs / "western_nitrocellulose.lab"), str(pairs / "western_pvdf.lab"), "--task"
    )
    assert result.exit_code == 0, result.output
    assert "item consumable_membrane" in result.output
    assert "check: answer.consumables.membrane.material == pvdf" in result.output
