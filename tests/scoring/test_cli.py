"""`lablang score`: single answers, explanations, weights, batch reports and bad input."""

from __future__ import annotations

import csv
import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lablang.cli.scoring import score_command
from lablang.scoring.synthetic import make_truth, perturb

# a copy of /work/shared/data/scoring_cases (inputs and the official grader's outputs)
CASES = Path(__file__).parent / "data" / "official_cases"


def _write(folder: Path, documents: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for task, document in documents.items():
        (folder / f"{task}.json").write_text(json.dumps(document))
    return folder


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    rng = random.Random(3)
    truth = make_truth(rng, oligos=6, states=5, transitions=3, protocol="toy")
    return _write(tmp_path / "pred", perturb(truth, rng, 2)), _write(tmp_path / "truth", truth)


def test_json_output_carries_every_benchmark_metric(pair: tuple[Path, Path]) -> None:
    """`--json` prints the six libgen metrics, T1 similarity and precision/recall beside each F1."""
    pred, truth = pair
    result = CliRunner().invoke(score_command, [str(pred), "--truth", str(truth), "--json"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output)["metrics"]
    for name in ("reward", "sequence_similarity", "t2_required_family_f1", "t2_required_family_precision",
                 "t2_required_family_recall", "t2_exact_required_family_recall",
                 "t3_molecular_transition_f1", "t3_molecular_transition_precision",
                 "t3_state_f1", "t3_state_recall", "t3_typed_edge_f1", "t3_typed_edge_precision"):  # fmt: skip
        assert 0.0 <= metrics[name] <= 1.0, name


def test_explain_names_pairs_components_and_unmatched(tmp_path: Path) -> None:
    """`--explain` shows each matched pair's components and the unmatched truth entities."""
    rng = random.Random(5)
    truth = make_truth(rng, oligos=4, states=4, transitions=3, protocol="toy")
    pred = json.loads(json.dumps(truth))
    pred["t2"]["oligos"].pop()  # o3 goes missing everywhere
    for transition in pred["t3"]["workflows"][0]["transitions"]:
        transition["oligo_ids"] = [o for o in transition["oligo_ids"] if o != "o3"]
    for state in pred["t3"]["workflows"][0]["states"]:
        for strand in state["strands"]:
            for segment in strand["segments"]:
                segment["oligo_derivations"] = [
                    d for d in segment["oligo_derivations"] if d["oligo_id"] != "o3"
                ]
    pred["t1"] = {"schema_version": "libstruct.library_structure.v0", **pred["t1"]}
    args = [
        str(_write(tmp_path / "p", pred)),
        "--truth",
        str(_write(tmp_path / "t", truth)),
        "--explain",
    ]
    result = CliRunner().invoke(score_command, args)
    assert result.exit_code == 0, result.output
    assert "oligo o0 <- o0: 1.0000" in result.output
    assert "sequence 1.000, modifications 1.000" in result.output
    assert "missed truth oligo o3" in result.output
    data = json.loads(CliRunner().invoke(score_command, [*args, "--json"]).output)
    assert {"task": "t2", "kind": "oligo", "side": "truth", "id": "o3", "workflow": None} in data[
        "unmatched"
    ]


def test_weights_file_changes_the_reward(pair: tuple[Path, Path], tmp_path: Path) -> None:
    """`--weights` with reward 1.0/0.0 makes the reward equal the T2 F1."""
    pred, truth = pair
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"reward": {"t2": 1.0, "t3": 0.0}}))
    result = CliRunner().invoke(
        score_command, [str(pred), "--truth", str(truth), "--json", "--weights", str(weights)]
    )
    metrics = json.loads(result.output)["metrics"]
    assert metrics["reward"] == pytest.approx(metrics["t2_required_family_f1"])


def test_malformed_prediction_scores_zero_with_a_diagnostic(pair: tuple[Path, Path]) -> None:
    """Broken JSON in the T2 file is E0501, the libgen metrics are 0, and T1 is still scored."""
    pred, truth = pair
    (pred / "t2.json").write_text("{not json")
    result = CliRunner().invoke(score_command, [str(pred), "--truth", str(truth), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert "E0501" in {d["code"] for d in data["diagnostics"]}
    assert data["metrics"]["t3_molecular_transition_f1"] == 0.0  # T3 linked to an unreadable T2
    assert data["metrics"]["sequence_similarity"] > 0.0


def test_a_lab_answer_with_errors_exits_1_with_its_diagnostics(
    tmp_path: Path, pair: tuple[Path, Path]
) -> None:
    """A `.lab` answer with errors prints its check errors and E0508, scores, and exits 1."""
    answer = tmp_path / "answer.lab"
    answer.write_text("oligo TSO { seq: 5'-ACGT {nowhere}-3' }\n")
    result = CliRunner().invoke(score_command, [str(answer), "--truth", str(pair[1])])
    assert result.exit_code == 1
    assert "error[E0203]" in result.output and "error[E0508]" in result.output
    assert "t2_required_family_f1" in result.output


def test_batch_writes_jsonl_csv_summary_and_html(tmp_path: Path) -> None:
    """Batch mode scores every attempt, survives a broken one, and writes all four outputs."""
    preds, truths = tmp_path / "preds", tmp_path / "truths"
    for protocol, seed in (("alpha", 1), ("beta", 2)):
        rng = random.Random(seed)
        truth = make_truth(rng, oligos=5, states=4, transitions=3, protocol=protocol)
        _write(truths / protocol, truth)
        for attempt in range(3):
            _write(preds / protocol / f"a{attempt}", perturb(truth, rng, attempt))
    (preds / "beta" / "a2" / "t3.json").write_text("[]")  # not a T3 document any more
    (preds / "gamma" / "a0").mkdir(parents=True)  # a protocol without truth
    out = tmp_path / "report"
    result = CliRunner().invoke(
        score_command,
        ["--batch", str(preds), "--truth", str(truths), "--out", str(out), "--seed", "3"],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == 6
    broken = next(r for r in rows if r["protocol"] == "beta" and r["attempt"] == "a2")
    assert broken["metrics"]["reward"] == 0.0
    with (out / "scores.csv").open() as stream:
        assert len(list(csv.DictReader(stream))) == 6
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["metrics"]["reward"]["best_of_k"]) == {"1", "2", "3"}
    assert "E0507" in {d["code"] for d in summary["skipped"]}
    html = (out / "report.html").read_text()
    assert html.count("<svg") >= 2 and "alpha" in html and "<table>" in html
    assert "<div class='scroll'><table>" in html  # the per-protocol table scrolls, not the page
    again = tmp_path / "again"
    CliRunner().invoke(
        score_command,
        ["--batch", str(preds), "--truth", str(truths), "--out", str(again), "--seed", "3"],
    )
    assert (again / "summary.json").read_text() == (out / "summary.json").read_text()


@pytest.mark.skipif(not CASES.is_dir(), reason="shared scoring cases are not present")
def test_batch_over_the_official_cases_matches_the_grader(tmp_path: Path) -> None:
    """Laid out as a batch, the official cases reproduce the grader's reward per attempt."""
    preds, truths = tmp_path / "preds", tmp_path / "truths"
    expected = {}
    for protocol in ("10x_chromium_3p_v3", "drop_seq"):
        (truths / protocol).mkdir(parents=True)
        for task in ("t1", "t2", "t3"):
            shutil.copy(CASES / protocol / f"truth_{task}.json", truths / protocol / f"{task}.json")
        for file in (CASES / protocol).glob("expected_*.json"):
            case = file.stem.removeprefix("expected_")
            (preds / protocol / case).mkdir(parents=True)
            for task in ("t1", "t2", "t3"):
                shutil.copy(
                    CASES / protocol / f"pred_{case}_{task}.json",
                    preds / protocol / case / f"{task}.json",
                )
            expected[(protocol, case)] = json.loads(file.read_text())["libgen"]["reward"]["reward"]
    out = tmp_path / "out"
    CliRunner().invoke(
        score_command, ["--batch", str(preds), "--truth", str(truths), "--out", str(out)]
    )
    for line in (out / "scores.jsonl").read_text().splitlines():
        row = json.loads(line)
        assert row["metrics"]["reward"] == pytest.approx(
            expected[(row["protocol"], row["attempt"])], abs=1e-6
        )
