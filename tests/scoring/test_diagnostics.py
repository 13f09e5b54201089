"""Each scoring diagnostic code (E05xx/W05xx) fires on the input it describes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lablang.cli.scoring import score_command
from lablang.diagnostics.codes import CODES
from lablang.scoring import score_documents, score_files
from lablang.scoring.batch import score_batch

V0 = "libstruct.library_structure.v0"
T1_TRUTH = {"protocol_id": "p", "libraries": [{"modality": "rna", "library_sequence": "ACGT"}]}
T1_PRED = {
    "schema_version": V0,
    "protocol_id": "p",
    "libraries": [{"library_id": "rna", "library_sequence": "ACGT"}],
}


def _codes(result: object) -> set[str]:
    return {d.code for d in result.diagnostics}  # type: ignore[attr-defined]


def _file(tmp_path: Path, name: str, content: object) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_every_scoring_code_is_registered_with_examples() -> None:
    """Every E05xx/W05xx code has a title, an explanation and bad/good examples."""
    codes = [c for c in CODES if c[1:3] == "05"]
    assert len(codes) == 11
    for code in codes:
        entry = CODES[code]
        assert (
            entry.area == "scoring"
            and entry.title
            and entry.explanation
            and entry.bad
            and entry.good
        )


def test_E0501_unreadable_json(tmp_path: Path) -> None:
    """Broken JSON is E0501 and scores nothing."""
    result = score_files(_file(tmp_path, "p.json", "{oops"), _file(tmp_path, "t.json", T1_TRUTH))
    assert "E0501" in _codes(result) and result.metrics == {}


def test_E0502_not_a_libstruct_document(tmp_path: Path) -> None:
    """JSON without `libraries`, `oligos` or `workflows` is E0502."""
    result = score_files(
        _file(tmp_path, "p.json", {"answer": 1}), _file(tmp_path, "t.json", T1_TRUTH)
    )
    assert "E0502" in _codes(result)


def test_E0503_empty_libraries_score_zero() -> None:
    """An empty T1 `libraries` array is E0503 and every T1 metric is 0, as in the grader."""
    result = score_documents({"t1": {**T1_PRED, "libraries": []}}, {"t1": T1_TRUTH})
    assert "E0503" in _codes(result)
    assert result.metrics["sequence_similarity"] == 0.0 and not result.prediction_valid


def test_E0503_a_prediction_for_another_protocol_names_both_ids() -> None:
    """A T1, T2 or T3 document whose `protocol_id` is not the reference's scores 0 with E0503 naming both ids and `--protocol-id` (not E0504 or the `libraries` help)."""
    other = {**T1_PRED, "protocol_id": "q"}
    t1 = score_documents({"t1": other}, {"t1": T1_TRUTH})
    (diagnostic,) = t1.diagnostics
    assert diagnostic.code == "E0503" and t1.metrics["sequence_similarity"] == 0.0
    assert (
        diagnostic.message
        == "the T1 prediction scores 0: its protocol_id `q` differs from the reference's `p`"
    )
    assert "--protocol-id p" in (diagnostic.help or "") and "libraries" not in (
        diagnostic.help or ""
    )
    truth = {"t2": {"protocol_id": "p", "oligos": []}, "t3": {"protocol_id": "p", "workflows": [
        {"workflow_id": "w", "states": [], "transitions": [], "initial_state_ids": [], "final_outputs": []}]}}  # fmt: skip
    pred = json.loads(json.dumps(truth))
    pred["t3"]["protocol_id"] = "q"
    libgen = score_documents(pred, truth)
    assert [d.code for d in libgen.diagnostics] == ["E0503"] and not libgen.prediction_valid
    assert "`q` differs from the reference's `p`" in libgen.diagnostics[0].message
    assert libgen.metrics["reward"] == 0.0


def test_E0504_empty_workflows_zero_every_libgen_metric() -> None:
    """An empty `workflows` makes the libgen prediction invalid: all six metrics 0."""
    truth = {"t2": {"protocol_id": "p", "oligos": []}, "t3": {"protocol_id": "p", "workflows": [
        {"workflow_id": "w", "states": [], "transitions": [], "initial_state_ids": [], "final_outputs": []}]}}  # fmt: skip
    pred = {"t2": {"protocol_id": "p", "oligos": []}, "t3": {"protocol_id": "p", "workflows": []}}
    result = score_documents(pred, truth)
    assert "E0504" in _codes(result)
    assert result.metrics["reward"] == 0.0 and result.metrics["t2_required_family_f1"] == 0.0


def test_E0505_invalid_weights_file(tmp_path: Path) -> None:
    """A weights file naming an unknown weight is E0505 and a usage error."""
    weights = _file(tmp_path, "w.toml", "[reward]\nt4 = 0.5\n")
    pred, truth = _file(tmp_path, "p.json", T1_PRED), _file(tmp_path, "t.json", T1_TRUTH)
    result = CliRunner().invoke(
        score_command, [str(pred), "--truth", str(truth), "--weights", str(weights)]
    )
    assert result.exit_code == 2 and "E0505" in result.output


def test_E0506_unreadable_truth() -> None:
    """A truth library without a sequence is E0506: the task cannot be scored."""
    result = score_documents({"t1": T1_PRED}, {"t1": {"libraries": [{"modality": "rna"}]}})
    assert "E0506" in _codes(result)


def test_E0507_batch_protocol_without_truth(tmp_path: Path) -> None:
    """A prediction protocol with no truth folder is E0507 and skipped."""
    (tmp_path / "preds" / "lonely" / "a0").mkdir(parents=True)
    (tmp_path / "truths").mkdir()
    result = score_batch(tmp_path / "preds", tmp_path / "truths", progress=False)
    assert result.rows == () and result.skipped[0]["code"] == "E0507"


def test_E0508_lab_answer_with_errors(tmp_path: Path) -> None:
    """A `.lab` answer that does not check clean is E0508 beside its own errors."""
    result = score_files(
        _file(tmp_path, "a.lab", "oligo x { seq: 5'-A {nowhere}-3' }"),
        _file(tmp_path, "t.json", T1_TRUTH),
    )
    assert {"E0203", "E0508"} <= _codes(result)
    assert result.metrics["sequence_similarity"] == 0.0


def test_W0501_task_on_one_side_only() -> None:
    """A task only the truth has is W0501 and is left out, not counted as 0."""
    truth = {"t1": T1_TRUTH, "t2": {"protocol_id": "p", "oligos": []}}
    result = score_documents({"t1": T1_PRED}, truth)
    assert "W0501" in _codes(result) and result.tasks == ("t1",)


def test_W0502_t3_without_t2_compares_oligos_by_id() -> None:
    """Scoring T3 alone is W0502: linked oligos fall back to ids."""
    t3 = {"protocol_id": "p", "workflows": [
        {"workflow_id": "w", "states": [], "transitions": [], "initial_state_ids": [], "final_outputs": []}]}  # fmt: skip
    result = score_documents({"t3": t3}, {"t3": t3})
    assert "W0502" in _codes(result) and result.metrics["t3_state_f1"] == 1.0
