"""`.lab` answers are checked, exported through the molecular backend and scored like JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lablang.cli.scoring import score_command
from lablang.diagnostics import Report
from lablang.scoring import score_files
from lablang.scoring.batch import score_batch
from lablang.scoring.lab import lab_documents

TENX = Path("examples/tenx_3p_v3.lab")
# the 10x Chromium 3' v3 truth of the shared scoring cases (official grader inputs)
TRUTH = Path(__file__).parent / "data" / "truth_10x"
HEADLINE = (
    "sequence_similarity",
    "t2_required_family_f1",
    "t2_exact_required_family_recall",
    "t3_molecular_transition_f1",
    "t3_state_f1",
    "t3_typed_edge_f1",
    "reward",
)


def test_a_lab_answer_scored_against_itself_is_1_on_every_metric() -> None:
    """examples/tenx_3p_v3.lab against itself: every metric 1 (to float rounding), no diagnostic."""
    result = score_files(TENX, TENX)
    assert result.tasks == ("t1", "t2", "t3") and result.prediction_valid
    assert result.diagnostics == ()
    assert set(HEADLINE) <= set(result.metrics)
    for name, value in result.metrics.items():
        # the official grader itself gives 0.9999999999999999 on identical T3 answers
        assert value == pytest.approx(1.0, abs=1e-12), name


def test_the_10x_lab_answer_against_the_official_truth_scores_what_its_differences_explain() -> (
    None
):
    """The .lab's known differences from the official 10x truth give hand-computable scores."""
    result = score_files(TENX, TRUTH)
    assert result.protocol_id == "10x_chromium_3p_v3" and result.prediction_valid
    m = result.metrics
    # T1: the .lab writes the bead's `(T)30 VN` and its exporter folds the N into the
    # cDNA payload, the truth keeps it: one deletion in 190 characters
    assert m["sequence_similarity"] == pytest.approx(189 / 190, abs=1e-9)
    # T2: seven required oligos matched one to one; roles differ for the bead oligo
    # (0.667 on role, weight 0.05 -> 0.98333) and for both library PCR primers (role 0
    # -> 0.95): F1 = (4 + 0.98333 + 2 x 0.95) / 7; exact only for the other four
    assert m["t2_required_family_f1"] == pytest.approx((4 + (1 - 0.05 / 3) + 1.9) / 7, abs=1e-6)
    assert m["t2_exact_required_family_recall"] == pytest.approx(4 / 7)
    # T3: the same six transitions and edges; states match one to one (the input
    # mRNA exactly) but the .lab splits strands into segments its own way, so below 1
    assert m["t3_molecular_transition_f1"] == pytest.approx(1.0)
    assert m["t3_typed_edge_f1"] == pytest.approx(1.0)
    assert 0.9 < m["t3_state_f1"] < 1.0
    assert m["reward"] == pytest.approx(0.3 * m["t2_required_family_f1"] + 0.7)
    states = [p for p in result.matches if p.kind == "state"]
    assert len(states) == 9 and not [u for u in result.unmatched if u.kind == "state"]


def test_a_lab_truth_takes_the_json_prediction_s_protocol_id(tmp_path: Path) -> None:
    """A JSON export of the .lab, scored against the .lab as truth, is 1 on every task."""
    documents = lab_documents(TENX, Report())
    for task, document in documents.items():
        document["protocol_id"] = "10x_any_id"
        (tmp_path / f"{task}.json").write_text(json.dumps(document))
    result = score_files(tmp_path, TENX)
    assert result.protocol_id == "10x_any_id" and result.prediction_valid
    assert all(result.metrics[name] == pytest.approx(1.0) for name in HEADLINE)


def test_explain_with_lab_input_lists_each_matched_pair_and_the_unmatched(
    tmp_path: Path,
) -> None:
    """`--explain` on a .lab answer prints the components of every matched pair per task."""
    result = CliRunner().invoke(score_command, [str(TENX), "--truth", str(TRUTH), "--explain"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "library gene expression <- gex_library: 0.9947" in text
    assert "oligo lib_pcr_1 <- lib_pcr_1: 0.9500" in text
    assert "transition [wf_10x_3p_v3] t_rt <- t_rt: 1.0000" in text
    assert "reference_strand" in text and "disposition" in text
    data = json.loads(
        CliRunner()
        .invoke(score_command, [str(TENX), "--truth", str(TRUTH), "--explain", "--json"])
        .output
    )
    assert {m["kind"] for m in data["matches"]} == {"library", "oligo", "state", "transition"}


def test_a_lab_answer_with_errors_scores_what_it_exports_and_says_why(tmp_path: Path) -> None:
    """An undeclared reference drops its oligo (E0203 + E0508); the rest is still scored."""
    good = "segment CB = barcode(16)\n"
    tso = "oligo tso { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACAT rG rG rG-3' }\n"
    bead = "oligo bead { seq: 5'-CTACACGACGCTCTTCCGATCT {%s} (T)30 VN-3' }\n"
    (tmp_path / "truth.lab").write_text(good + tso + bead % "CB")
    truth_t2 = lab_documents(tmp_path / "truth.lab", Report())["t2"]
    (tmp_path / "truth_t2.json").write_text(json.dumps(truth_t2))
    (tmp_path / "answer.lab").write_text(tso + bead % "CBX")
    result = CliRunner().invoke(
        score_command,
        [str(tmp_path / "answer.lab"), "--truth", str(tmp_path / "truth_t2.json"), "--json"],
    )
    assert result.exit_code == 1
    data = json.loads(result.output)
    codes = [d["code"] for d in data["diagnostics"]]
    assert "E0203" in codes and "E0508" in codes
    # truth {tso, bead} (all required without T3), answer {tso}: P = 1, R = 1/2, F1 = 2/3
    assert data["metrics"]["t2_required_family_precision"] == pytest.approx(1.0)
    assert data["metrics"]["t2_required_family_recall"] == pytest.approx(0.5)
    assert data["metrics"]["t2_required_family_f1"] == pytest.approx(2 / 3)


def test_an_unparsable_lab_answer_scores_0_on_every_task_without_a_traceback(
    tmp_path: Path,
) -> None:
    """A syntax error leaves no program: E0508 and every truth task scores 0."""
    (tmp_path / "answer.lab").write_text("oligo tso { seq: 5'-ACGT rQ-3' \n")
    result = score_files(tmp_path / "answer.lab", TRUTH)
    codes = {d.code for d in result.diagnostics}
    assert "E0508" in codes and not result.prediction_valid
    assert all(result.metrics[name] == 0.0 for name in HEADLINE)


def test_batch_mode_scores_lab_attempts_beside_json_attempts(tmp_path: Path) -> None:
    """A `<attempt>.lab` in a batch answers every task; a broken one does not stop the batch."""
    protocol = "10x_chromium_3p_v3"
    shutil.copytree(TRUTH, tmp_path / "truths" / protocol)
    preds = tmp_path / "preds" / protocol
    preds.mkdir(parents=True)
    shutil.copy(TENX, preds / "a0.lab")
    (preds / "a1.lab").write_text("oligo {\n")
    shutil.copytree(TRUTH, preds / "a2")  # the truth itself as a JSON answer
    result = score_batch(tmp_path / "preds", tmp_path / "truths", progress=False)
    rows = {row.attempt: row for row in result.rows}
    assert set(rows) == {"a0", "a1", "a2"}
    assert rows["a0"].valid and rows["a0"].metrics["reward"] == pytest.approx(0.995)
    assert not rows["a1"].valid and rows["a1"].metrics["reward"] == 0.0
    assert rows["a2"].metrics["reward"] == pytest.approx(1.0)
    assert result.summary["reward"].mean == pytest.approx((0.995 + 0 + 1) / 3)


def test_importing_the_scoring_package_loads_no_molecular_backend() -> None:
    """The molecular exporter is imported only when a `.lab` file is scored."""
    code = (
        "import sys, lablang.scoring, lablang.scoring.batch, lablang.cli.scoring\n"
        "print(sorted(m for m in sys.modules if m.startswith(('lablang.molecular', 'lark'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="."
    )
    assert out.stdout.strip() == "[]"


def test_path_adds_a_module_root_for_a_lab_answer_s_imports(tmp_path: Path) -> None:
    """`--path DIR` resolves a `.lab` answer's `use` of a module kept outside its folder."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "ans").mkdir()
    (tmp_path / "lib" / "parts.lab").write_text("segment CB = barcode(16)\n")
    answer = tmp_path / "ans" / "answer.lab"
    answer.write_text(
        "use parts.{CB}\noligo bead { seq: 5'-CTACACGACGCTCTTCCGATCT {CB} (T)30 VN-3' }\n"
    )
    args = [str(answer), "--truth", str(TRUTH), "--json"]
    without = json.loads(CliRunner().invoke(score_command, args).output)
    with_path = json.loads(
        CliRunner().invoke(score_command, [*args, "--path", str(tmp_path / "lib")]).output
    )
    assert "E0201" in {d["code"] for d in without["diagnostics"]}
    assert not {"E0201", "E0508"} & {d["code"] for d in with_path["diagnostics"]}
