"""Score a reconstruction against a reference: the public entry points.

`score_documents` is the seam every input goes through: it takes, per task (`t1`,
`t2`, `t3`), one loaded LibStructBench JSON document on each side. `score_files`
loads files or folders into that form; a `.lab` answer is checked and exported to the
same documents by `lablang.scoring.lab` (the one place that reaches into the molecular
backend, lazily).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import evolve, frozen

from lablang.diagnostics import Diagnostic, Report
from lablang.scoring.graph import GraphScore, GraphScorer
from lablang.scoring.lab import adopt_protocol_id, lab_documents
from lablang.scoring.library import (
    LibraryInputError,
    LibraryScore,
    library_entries,
    score_libraries,
    zero_library_metrics,
)
from lablang.scoring.oligos import OligoScore, OligoScorer, required_oligo_ids, score_oligos
from lablang.scoring.validate import t2_problems, t3_problems
from lablang.scoring.weights import Weights
from lablang.source import Source

TASKS = ("t1", "t2", "t3")
LIBGEN_METRICS = (
    "reward",
    "t2_required_family_f1",
    "t2_exact_required_family_recall",
    "t3_molecular_transition_f1",
    "t3_state_f1",
    "t3_typed_edge_f1",
)
MAX_INPUT_BYTES = 20_000_000


@frozen
class MatchedPair:
    """A truth entity and the prediction matched to it, with the score's components."""

    task: str
    kind: str  # library | oligo | state | transition
    truth_id: str
    prediction_id: str
    score: float | None  # None: the truth entity is neutral (not scored)
    assignment_score: float | None
    components: Mapping[str, float | None]
    workflow: str | None = None


@frozen
class Unmatched:
    """An entity left without a partner: a truth requirement missed, or an extra prediction."""

    task: str
    kind: str  # library | oligo | state | transition | edge
    side: str  # truth | prediction
    id: str
    workflow: str | None = None


@frozen
class ScoreResult:
    """Every metric under the benchmark's own names, the explanation, and the diagnostics."""

    protocol_id: str | None
    metrics: Mapping[str, float]
    task_metrics: Mapping[str, Mapping[str, float]]
    tasks: tuple[str, ...]
    prediction_valid: bool
    matches: tuple[MatchedPair, ...]
    unmatched: tuple[Unmatched, ...]
    diagnostics: tuple[Diagnostic, ...]

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        """Plain JSON data (metrics always; matches and unmatched entities with `explain`)."""
        data: dict[str, Any] = {
            "protocol_id": self.protocol_id,
            "tasks": list(self.tasks),
            "prediction_valid": self.prediction_valid,
            "metrics": dict(self.metrics),
            "diagnostics": [_diagnostic_json(d) for d in self.diagnostics],
        }
        if explain:
            data["task_metrics"] = {k: dict(v) for k, v in self.task_metrics.items()}
            data["matches"] = [
                {**asdict(m), "components": dict(m.components)} for m in self.matches
            ]
            data["unmatched"] = [asdict(u) for u in self.unmatched]
        return data


def _diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "file": diagnostic.file,
        "message": diagnostic.message,
        "notes": list(diagnostic.notes),
        "help": diagnostic.help,
    }


# ---- loading ---------------------------------------------------------------------------


def detect_task(document: Any) -> str | None:
    """Which task a LibStructBench document answers, from its content.

    >>> detect_task({"libraries": []}), detect_task({"oligos": []}), detect_task({"workflows": []})
    ('t1', 't2', 't3')
    """
    if not isinstance(document, dict):
        return None
    if "workflows" in document:
        return "t3"
    if "oligos" in document:
        return "t2"
    if (
        "libraries" in document
        or "library_sequence" in document
        or (str(document.get("schema_version", "")).startswith("libstruct.library_structure"))
    ):
        return "t1"
    return None


def load_documents(
    path: str | Path,
    report: Report,
    roots: Sequence[str | Path] = (),
    within: Sequence[str | Path] | None = None,
) -> dict[str, Any]:
    """One file (its task only), a `.lab` answer (every task) or a folder of T1-T3 JSON files.

    `roots` are extra module roots for a `.lab` file's `use` imports; with `within`, every
    file read must lie inside those folders after symlinks are resolved (`lablang serve`).
    """
    path = Path(path)
    if path.suffix == ".lab":
        return lab_documents(path, report, roots, within)
    if path.is_dir():
        documents: dict[str, Any] = {}
        files = sorted(p for p in path.iterdir() if p.suffix == ".json" and p.is_file())
        for file in files:
            document = _read_json(file, report, within)
            if document is None:
                continue
            task = detect_task(document)
            if task is None:
                continue
            if task in documents:
                report.add(
                    "E0503",
                    f"two {task.upper()} documents in `{path}`; `{file.name}` is ignored",
                    Source("", str(file)),
                    help="keep one JSON file per task in a folder",
                )
                continue
            documents[task] = document
        if not documents:
            report.add("E0502", f"no LibStructBench T1-T3 JSON document in `{path}`", Source("", str(path)),
                       help="a folder holds T1 (`libraries`), T2 (`oligos`) or T3 (`workflows`) files")  # fmt: skip
        return documents
    document = _read_json(path, report, within)
    if document is None:
        return {}
    task = detect_task(document)
    if task is None:
        report.add(
            "E0502",
            f"`{path.name}` is not a LibStructBench T1, T2 or T3 document",
            Source("", str(path)),
            help="a T1 document has `libraries`, T2 `oligos`, T3 `workflows`",
        )
        return {}
    return {task: document}


# the fix of a file the guarded opener refused, by its reason (`lablang.guarded.REASONS`)
_REFUSAL_FIXES = {
    "outside": "give a file inside the allowed folders",
    "special": "give a regular file",
    "unreadable": "check the path and its permissions",
}


def _read_json(
    path: Path, report: Report, within: Sequence[str | Path] | None = None
) -> Any | None:
    from lablang.datafile import DataFileError, load_json, read_data_text
    from lablang.limits import DEFAULT_LIMITS

    limits = evolve(
        DEFAULT_LIMITS, max_data_bytes=min(MAX_INPUT_BYTES, DEFAULT_LIMITS.max_data_bytes)
    )
    try:
        return load_json(read_data_text(path, limits, within), path.name, limits)
    except DataFileError as error:
        fix = _REFUSAL_FIXES.get(error.reason, "fix the JSON, or raise the limit it names")
        report.add("E0501", str(error), Source("", str(path)), help=fix)
        return None


def score_files(
    pred_path: str | Path,
    truth_path: str | Path,
    weights: Weights | None = None,
    *,
    roots: Sequence[str | Path] = (),
    within: Sequence[str | Path] | None = None,
) -> ScoreResult:
    """Score a prediction file or folder against a truth file or folder (`.lab` or JSON).

    With `within`, every file read must lie inside those folders (see `load_documents`).

    >>> from lablang.scoring import score_files
    >>> folder = "tests/scoring/data/tiny"
    >>> result = score_files(f"{folder}/pred_t1.json", f"{folder}/truth_t1.json")
    >>> round(result.metrics["sequence_similarity"], 4)
    0.9
    >>> own = score_files("examples/tenx_3p_v3.lab", "examples/tenx_3p_v3.lab")
    >>> round(own.metrics["reward"], 9), round(own.metrics["sequence_similarity"], 9)
    (1.0, 1.0)
    """
    report = Report()
    predictions = load_documents(pred_path, report, roots, within)
    truth = load_documents(truth_path, report, roots, within)
    predictions, truth = align_protocol_ids(predictions, truth, pred_path, truth_path)
    expected = tuple(truth) if answers_every_task(pred_path) else None
    return score_documents(
        predictions, truth, weights, report=report, prediction_name=str(pred_path), tasks=expected
    )


def answers_every_task(path: str | Path) -> bool:
    """A folder or a `.lab` answer answers every task of the truth; a JSON file its own only."""
    return Path(path).suffix == ".lab" or Path(path).is_dir()


def align_protocol_ids(
    predictions: Mapping[str, Any],
    truth: Mapping[str, Any],
    pred_path: str | Path,
    truth_path: str | Path,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Documents exported from a `.lab` side take the other side's `protocol_id`."""
    if Path(pred_path).suffix == ".lab":
        return adopt_protocol_id(predictions, truth), dict(truth)
    if Path(truth_path).suffix == ".lab":
        return dict(predictions), adopt_protocol_id(truth, predictions)
    return dict(predictions), dict(truth)


def score_documents(
    predictions: Mapping[str, Any],
    truth: Mapping[str, Any],
    weights: Weights | None = None,
    *,
    report: Report | None = None,
    prediction_name: str = "<prediction>",
    tasks: tuple[str, ...] | None = None,
) -> ScoreResult:
    """Score loaded documents (`{"t1": doc, "t2": doc, "t3": doc}`, any subset) per task.

    `tasks` names the tasks the prediction is meant to answer (default: those it has);
    one it lacks scores 0, as the grader scores a missing prediction file. `.lab` input
    joins here too, exported to these per-task documents by `lablang.scoring.lab`.
    """
    weights = weights or Weights()
    report = report or Report()
    source = Source("", prediction_name)
    wanted = set(tasks) if tasks is not None else set(predictions)
    predictions = dict(predictions)
    for task in TASKS:
        if task in wanted and task in truth and task not in predictions:
            report.add("E0502", f"the prediction has no readable {task.upper()} document; it scores 0",
                       source, help=f"add the {task.upper()} answer to the prediction")  # fmt: skip
            predictions[task] = _MISSING
    truth = dict(truth)
    for task in TASKS:
        if task in predictions and task in truth:
            _refuse_oversized(task, predictions, truth, report, source)
    tasks = tuple(t for t in TASKS if t in predictions and t in truth)
    for task in TASKS:
        if (task in predictions) != (task in truth):
            side = "truth" if task in predictions else "prediction"
            report.add("W0501", f"{task.upper()} is not scored: the {side} has no {task.upper()} document",
                       source, help=f"give a {task.upper()} {side} to score it")  # fmt: skip
    metrics: dict[str, float] = {}
    task_metrics: dict[str, dict[str, float]] = {}
    matches: list[MatchedPair] = []
    unmatched: list[Unmatched] = []
    protocol_id = _protocol_id(truth) or _protocol_id(predictions)
    valid = True

    if "t1" in tasks:
        t1_metrics, t1_matches, t1_unmatched = _score_t1(
            predictions["t1"], truth["t1"], report, source
        )
        valid = valid and t1_metrics["prediction_parse_valid"] == 1.0
        task_metrics["t1"] = t1_metrics
        metrics["sequence_similarity"] = t1_metrics["sequence_similarity"]
        for key in ("library_precision", "library_recall", "library_f1"):
            metrics[key] = t1_metrics[key]
        matches += t1_matches
        unmatched += t1_unmatched

    libgen: list[str] = [t for t in ("t2", "t3") if t in tasks]
    if libgen:
        try:
            libgen_valid = _libgen_valid(predictions, truth, libgen, report, source)
            valid = valid and libgen_valid
            oligo_scorer = OligoScorer(weights)
            t2: OligoScore | None = None
            t3: GraphScore | None = None
            if libgen_valid and "t2" in libgen:
                if "t3" in truth:
                    required = required_oligo_ids(truth["t3"])
                else:
                    required = {o["oligo_id"] for o in truth["t2"].get("oligos", [])}
                    report.add("W0502", "no T3 truth: every truth oligo counts as required",
                                   source, help="give the T3 truth to score only the oligos its graph uses")  # fmt: skip
                t2 = score_oligos(
                        list(predictions["t2"]["oligos"]), list(truth["t2"]["oligos"]),
                        required_ids=required, scorer=oligo_scorer,
                    )  # fmt: skip
            if libgen_valid and "t3" in libgen:
                predicted_oligos = _oligo_index(predictions.get("t2"))
                truth_oligos = _oligo_index(truth.get("t2"))
                if predicted_oligos is None or truth_oligos is None:
                    report.add("W0502", "without T2 documents on both sides, linked oligos compare by id",
                                   source, help="score T2 and T3 together for the grader's oligo dimension")  # fmt: skip
                    predicted_oligos = truth_oligos = None
                t3 = GraphScorer(weights, oligo_scorer, predicted_oligos, truth_oligos).score(
                    predictions["t3"], truth["t3"]
                )
            _libgen_metrics(libgen, t2, t3, weights, metrics, task_metrics)
            if t2 is not None:
                matches += _t2_pairs(t2)
                unmatched += [Unmatched("t2", "oligo", "truth", i) for i in t2.unmatched_truth]
                unmatched += [
                    Unmatched("t2", "oligo", "prediction", i) for i in t2.unmatched_predictions
                ]
            if t3 is not None:
                pairs, missing = _t3_pairs(t3)
                matches += pairs
                unmatched += missing
        except _SHAPE_ERRORS as error:
            _shape_error(report, source, "/".join(t.upper() for t in libgen), error)
            valid = False
            _libgen_metrics(libgen, None, None, weights, metrics, task_metrics)
            matches = [m for m in matches if m.task == "t1"]
            unmatched = [u for u in unmatched if u.task == "t1"]

    return ScoreResult(
        protocol_id=protocol_id,
        metrics=metrics,
        task_metrics=task_metrics,
        tasks=tasks,
        prediction_valid=valid,
        matches=tuple(matches),
        unmatched=tuple(unmatched),
        diagnostics=tuple(report.diagnostics),
    )


_MISSING: dict[str, Any] = {"__missing__": True}


def _refuse_oversized(
    task: str, predictions: dict[str, Any], truth: dict[str, Any], report: Report, source: Source
) -> None:
    """E0530 for a document too large to compare: a prediction scores 0, a truth is dropped."""
    from lablang.scoring.bounds import oversized

    problem = oversized(task, truth[task])
    if problem is not None:
        report.add("E0530", f"the truth is too large to score: {problem}", source,
                   help=f"{task.upper()} is not scored; raise the limit to score it")  # fmt: skip
        del truth[task]
        return
    problem = oversized(task, predictions[task])
    if problem is not None:
        report.add("E0530", f"the prediction is too large to score: {problem}; it scores 0", source,
                   help="a reconstruction this large is not an answer; raise the limit to score it")  # fmt: skip
        predictions[task] = _MISSING


# a prediction whose fields have unexpected shapes (beyond what validation checks)
_SHAPE_ERRORS = (TypeError, KeyError, AttributeError, ValueError, IndexError, RecursionError)


def _shape_error(report: Report, source: Source, task: str, error: BaseException) -> None:
    report.add(
        "E0504",
        f"the {task} prediction has a field of an unexpected shape ({type(error).__name__}: {error})",
        source,
        notes=("what cannot be read scores 0",),
        help="follow the benchmark's schema for every field",
    )


def _protocol_id(documents: Mapping[str, Any]) -> str | None:
    for task in TASKS:
        document = documents.get(task)
        if isinstance(document, dict) and isinstance(document.get("protocol_id"), str):
            return str(document["protocol_id"])
    return None


def _oligo_index(document: Any) -> dict[str, Any] | None:
    if not isinstance(document, dict) or not isinstance(document.get("oligos"), list):
        return None
    return {o["oligo_id"]: o for o in document["oligos"] if isinstance(o, dict) and "oligo_id" in o}


def _score_t1(
    prediction: Any, truth: Any, report: Report, source: Source
) -> tuple[dict[str, float], list[MatchedPair], list[Unmatched]]:
    try:
        truth_entries = library_entries(truth, prediction=False)
    except LibraryInputError as error:
        report.add(
            "E0506", f"the T1 truth cannot be read: {error}", source, help="fix the truth document"
        )
        return zero_library_metrics(), [], []
    expected = truth.get("protocol_id")
    if prediction is _MISSING:
        return zero_library_metrics(), [], []
    if (
        isinstance(prediction, dict)
        and expected is not None
        and prediction.get("protocol_id") not in (None, expected)
    ):
        report.add("E0503", f"the T1 prediction scores 0: its protocol_id {_ids_differ(prediction, expected)}",
                   source, help=_protocol_help("t1", expected))  # fmt: skip
        return zero_library_metrics(), [], []
    try:
        predicted_entries = library_entries(prediction, prediction=True)
    except LibraryInputError as error:
        report.add("E0503", f"the T1 prediction scores 0: {error}", source,
                   help="give a `libraries` array of objects with a non-empty `library_sequence`")  # fmt: skip
        return zero_library_metrics(), [], []
    score: LibraryScore = score_libraries(predicted_entries, truth_entries)
    pairs = [
        MatchedPair(
            "t1",
            "library",
            m.truth_id,
            m.prediction_id or "",
            m.similarity,
            None,
            {
                "sequence_similarity": m.similarity,
                "edit_distance": float(m.edit_distance),
                "truth_length": float(len(m.truth_sequence)),
                "predicted_length": float(len(m.predicted_sequence)),
            },
        )
        for m in score.matches
        if m.prediction_index is not None
    ]
    missing = [
        Unmatched("t1", "library", "truth", m.truth_id)
        for m in score.matches
        if m.prediction_index is None
    ]
    missing += [Unmatched("t1", "library", "prediction", i) for i in score.unmatched_predictions]
    return dict(score.metrics), pairs, missing


def _libgen_valid(
    predictions: Mapping[str, Any],
    truth: Mapping[str, Any],
    tasks: list[str],
    report: Report,
    source: Source,
) -> bool:
    problems: list[tuple[str, str]] = []
    expected = _protocol_id(truth)
    oligo_ids = None
    for task in tasks:
        if predictions[task] is _MISSING:
            problems.append((task.upper(), "no readable document"))
    if "t2" in tasks and predictions["t2"] is not _MISSING:
        problems += [("T2", p) for p in t2_problems(predictions["t2"])]
    if isinstance(predictions.get("t2"), dict) and isinstance(
        predictions["t2"].get("oligos"), list
    ):
        oligo_ids = {
            str(o.get("oligo_id")): o for o in predictions["t2"]["oligos"] if isinstance(o, dict)
        }
    if "t3" in tasks and predictions["t3"] is not _MISSING:
        problems += [("T3", p) for p in t3_problems(predictions["t3"], oligo_ids)]
    for task, problem in problems[:12]:
        report.add("E0504", f"the {task} prediction is invalid: {problem}", source,
                   notes=("an invalid T2/T3 prediction scores 0 on every libgen metric",),
                   help="fix the prediction so it follows the benchmark's schema and graph rules")  # fmt: skip
    answers_another = False
    for task in tasks:
        document = predictions[task]
        if (
            document is not _MISSING
            and isinstance(document, dict)
            and expected is not None
            and document.get("protocol_id") != expected
        ):
            answers_another = True
            report.add("E0503", f"the {task.upper()} prediction scores 0: its protocol_id {_ids_differ(document, expected)}",
                       source, notes=("the grader scores a document that answers another protocol 0",),
                       help=_protocol_help(task, expected))  # fmt: skip
    return not problems and not answers_another


def _ids_differ(document: Mapping[str, Any], expected: str) -> str:
    return f"`{document.get('protocol_id')}` differs from the reference's `{expected}`"


def _protocol_help(task: str, expected: str) -> str:
    return (
        f"set the prediction's `protocol_id` to `{expected}`; a `.lab` answer's export takes it "
        f"with `lablang export FILE --to libstruct-{task} --protocol-id {expected}`"
    )


def _libgen_metrics(
    tasks: list[str],
    t2: OligoScore | None,
    t3: GraphScore | None,
    weights: Weights,
    metrics: dict[str, float],
    task_metrics: dict[str, dict[str, float]],
) -> None:
    if "t2" in tasks:
        m = dict(t2.metrics) if t2 else {}
        task_metrics["t2"] = m
        for name in ("f1", "precision", "recall"):
            metrics[f"t2_required_family_{name}"] = m.get(f"required_family_{name}", 0.0)
        metrics["t2_exact_required_family_recall"] = m.get("exact_required_family_recall", 0.0)
    if "t3" in tasks:
        m = dict(t3.metrics) if t3 else {}
        task_metrics["t3"] = m
        for group in ("molecular_transition", "state", "typed_edge"):
            for name in ("f1", "precision", "recall"):
                metrics[f"t3_{group}_{name}"] = m.get(f"{group}_{name}", 0.0)
    if "t2" in tasks and "t3" in tasks:
        metrics["reward"] = (
            weights.reward.t2 * metrics["t2_required_family_f1"]
            + weights.reward.t3 * metrics["t3_molecular_transition_f1"]
        )


def _t2_pairs(t2: OligoScore) -> list[MatchedPair]:
    return [
        MatchedPair(
            "t2",
            "oligo",
            m.truth_id,
            m.prediction_id,
            m.score,
            m.assignment_score,
            dict(m.dimensions),
        )
        for m in t2.matches
    ]


def _t3_pairs(t3: GraphScore) -> tuple[list[MatchedPair], list[Unmatched]]:
    pairs: list[MatchedPair] = []
    missing: list[Unmatched] = []
    for w in t3.workflows:
        name = w.truth_id or w.prediction_id
        for kind, entities in (("state", w.states), ("transition", w.transitions)):
            pairs += [
                MatchedPair(
                    "t3",
                    kind,
                    e.truth_id,
                    e.prediction_id,
                    e.score,
                    e.assignment_score,
                    dict(e.dimensions),
                    name,
                )
                for e in entities
            ]
        for kind, side, ids in (
            ("state", "truth", w.unmatched_truth_states),
            ("state", "prediction", w.unmatched_prediction_states),
            ("transition", "truth", w.unmatched_truth_transitions),
            ("transition", "prediction", w.unmatched_prediction_transitions),
            ("edge", "truth", tuple(":".join(e) for e in w.missing_edges)),
            ("edge", "prediction", tuple(":".join(e) for e in w.extra_edges)),
        ):
            missing += [Unmatched("t3", kind, side, i, name) for i in ids]
    return pairs, missing


__all__ = [
    "LIBGEN_METRICS",
    "MatchedPair",
    "ScoreResult",
    "Unmatched",
    "align_protocol_ids",
    "answers_every_task",
    "detect_task",
    "load_documents",
    "score_documents",
    "score_files",
]
