"""Grading: judgments -> attempt scores, means, expected best-of-k, bootstrap CIs, tags.

Formulas (BenchBench-Protocol, HealthBench-style penalties):
- attempt score S = sum(w * g) / (2 * sum of positive w) over the rubric tree
  (`lablang.rubrics.model.node_value`); it can be negative with penalty items;
- per source protocol: the mean of its attempts' S, and the expected best-of-k
  B(k) = sum_{i=k..n} C(i-1, k-1) / C(n, k) * x_(i) over its n scores sorted ascending
  (the unbiased estimator of E[max of k attempts drawn without replacement]);
- reported values are means over protocols, clipped to [0, 1] after averaging;
- CIs: percentile cluster bootstrap over source protocols (a protocol is drawn with all
  of its attempts), seeded with numpy's PCG64, so the same seed gives the same CIs.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from attrs import frozen

from lablang.diagnostics import Report
from lablang.rubrics.model import Item, Rubric, node_value
from lablang.source import Source, Span

MAX_JUDGMENT_LINES = 1_000_000
MAX_RESAMPLES = 100_000


@frozen(kw_only=True)
class Judgment:
    protocol: str
    attempt: str
    item: str
    score: int
    explanation: str = ""
    line: int = 0  # 1-based line in the judgments file; 0 for machine grades


# ------------------------------------------------------------ reading judgments
def read_judgments(
    source: Source, report: Report, rejected: dict[tuple[str, str, str], int] | None = None
) -> list[Judgment]:
    """Parse a JSON-lines judgments file; each bad line is a diagnostic naming that line.

    Lines rejected for their score are added to `rejected` ((protocol, attempt, item) ->
    line),
    so that `collect_grades` does not also report those items as missing.

    >>> report = Report()
    >>> text = '{"protocol": "p", "attempt": 1, "item": "a", "score": 3}\\n'
    >>> read_judgments(Source(text, "j.jsonl"), report), [d.message for d in report]
    ([], ['line 1: score 3 of item `a` is not 0, 1 or 2'])
    """
    judgments: list[Judgment] = []
    offset = 0
    for number, line in enumerate(source.text.splitlines(keepends=True), start=1):
        span = Span(offset, offset + len(line.rstrip("\r\n")))
        offset += len(line)
        if number > MAX_JUDGMENT_LINES:
            report.add(
                "E0830",
                f"line {number}: more than {MAX_JUDGMENT_LINES} judgments",
                source,
                span,
                label="too many lines",
            )
            break
        if not line.strip():
            continue
        judgment = _judgment(line, number, span, source, report, rejected)
        if judgment is not None:
            judgments.append(judgment)
    return judgments


def _judgment(
    line: str,
    number: int,
    span: Span,
    source: Source,
    report: Report,
    rejected: dict[tuple[str, str, str], int] | None,
) -> Judgment | None:
    def bad(code: str, message: str, help: str | None = None) -> None:
        report.add(
            code, f"line {number}: {message}", source, span, label="this judgment", help=help
        )

    from lablang.datafile import DataFileError, load_json

    try:
        data = load_json(line)  # the guarded loader: depth, integer digits, finiteness
    except DataFileError as error:
        bad("E0830", str(error))
        return None
    if not isinstance(data, dict):
        bad("E0830", "a judgment must be a JSON object")
        return None
    if "task" in data:
        # a benchmark's judgments name the task; its source protocol is the task's
        data = {**data, "protocol": data["task"]}
    missing = [k for k in ("protocol", "attempt", "item", "score") if k not in data]
    if missing:
        bad(
            "E0830",
            "missing " + ", ".join(f"`{k}`" for k in missing),
            help='write {"protocol": ..., "attempt": ..., "item": ..., "score": 0|1|2, '
            '"explanation": ...}',
        )
        return None
    fields = {}
    for key in ("protocol", "attempt", "item"):
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, str | int):
            bad("E0830", f"`{key}` must be a string or an integer")
            return None
        fields[key] = str(value)
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, int) or score not in (0, 1, 2):
        if rejected is not None:
            rejected[(fields["protocol"], fields["attempt"], fields["item"])] = number
        bad(
            "E0831",
            f"score {json.dumps(score)} of item `{fields['item']}` is not 0, 1 or 2",
            help="judges grade each item 0 (not met), 1 (partly met) or 2 (met)",
        )
        return None
    explanation = data.get("explanation", "")
    if not isinstance(explanation, str):
        bad("E0830", "`explanation` must be a string")
        return None
    return Judgment(
        protocol=fields["protocol"],
        attempt=fields["attempt"],
        item=fields["item"],
        score=score,
        explanation=explanation,
        line=number,
    )


# ------------------------------------------------------------ the estimators
def best_of_k(scores: Sequence[float | Fraction], k: int) -> Fraction | float:
    """Expected maximum of `k` scores drawn without replacement from `scores`.

    Sorted ascending, x_(i) has weight C(i-1, k-1) / C(n, k). Exact for Fractions
    (integer weights by the recurrence C(i, k-1) = C(i-1, k-1) * i / (i-k+1), one pass).

    >>> best_of_k([Fraction(0), Fraction(1), Fraction(1, 2)], 2)   # subsets: 1, 1/2, 1
    Fraction(5, 6)
    """
    n = len(scores)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and {n}")
    ordered = sorted(scores)
    if all(isinstance(x, Fraction) for x in ordered):
        denominator = math.lcm(*(x.denominator for x in ordered))  # type: ignore[union-attr]
        weight, numerator = 1, 0  # weight = C(i-1, k-1), from i = k
        for i in range(k, n + 1):
            numerator += weight * int(ordered[i - 1] * denominator)
            weight = weight * i // (i - k + 1)
        return Fraction(numerator, math.comb(n, k) * denominator)
    return float(expected_best_of_ks([float(x) for x in ordered], [k])[0])


# Up to this many attempts per protocol best-of-k is computed exactly (Fractions, then one
# rounding); beyond, with floats in linear time per k (the weights' ratios, no big integers).
EXACT_BEST_OF_K = 64


def expected_best_of_ks(scores: Sequence[float], ks: Sequence[int]) -> list[float]:
    """Expected best-of-k for each k, in floats: O(n) per k after one sort.

    With x sorted ascending, the weight of x_(n) is k/n and each next-lower weight is
    the previous times (i-k)/(i-1): no binomial coefficient is formed (they overflow
    floats past n of about 1,000), and weights too small for a float vanish harmlessly.

    >>> [round(v, 12) for v in expected_best_of_ks([0.0, 1.0, 0.5], [1, 2, 3])]
    [0.5, 0.833333333333, 1.0]
    """
    import numpy as np

    ordered = np.sort(np.asarray(scores, dtype=float))
    n = len(ordered)
    results = []
    for k in ks:
        if not 1 <= k <= n:
            raise ValueError(f"k must be between 1 and {n}")
        i = np.arange(n, k, -1, dtype=float)  # n, n-1, ..., k+1
        ratios = (i - k) / (i - 1)
        weights = (k / n) * np.concatenate(([1.0], np.cumprod(ratios)))  # for x_(n) .. x_(k)
        results.append(float(np.dot(weights, ordered[k - 1 :][::-1])))
    return results


def _best_of_ks(scores: Sequence[Fraction], ks: Sequence[int]) -> list[float]:
    if len(scores) <= EXACT_BEST_OF_K:
        return [float(best_of_k(scores, k)) for k in ks]
    return expected_best_of_ks([float(x) for x in scores], ks)


def cluster_bootstrap(
    per_protocol: Sequence[Sequence[float]],
    *,
    seed: int,
    resamples: int,
    level: float = 0.95,
    executor: Any = None,
) -> list[tuple[float, float]]:
    """Percentile CIs of column means (clipped to [0, 1]) resampling rows (protocols).

    `per_protocol[p][m]` is statistic m of protocol p (computed from all its attempts).
    Resamples are drawn in seeded chunks (`lablang.executors.bootstrap`), on `executor`.

    >>> cluster_bootstrap([[0.0], [1.0]], seed=1, resamples=200)[0][0] <= 0.5
    True
    """
    from lablang.executors.bootstrap import bootstrap_means, percentile_intervals

    means = bootstrap_means(per_protocol, seed=seed, resamples=resamples, executor=executor)
    return percentile_intervals(means, level, clip=True)


def clip(value: float | Fraction) -> float:
    return float(min(max(value, 0), 1))


# ------------------------------------------------------------ grading
@frozen(kw_only=True)
class AttemptScore:
    protocol: str
    attempt: str
    score: Fraction  # unclipped
    grades: Mapping[str, int]


@frozen(kw_only=True)
class ProtocolScore:
    attempts: int
    mean: float
    best_of_k: Mapping[int, float]


@frozen(kw_only=True)
class TagScore:
    """`mean` and `ci` are None for a tag carried only by penalty items."""

    items: tuple[str, ...]
    mean: float | None
    ci: tuple[float, float] | None


@frozen(kw_only=True)
class Grade:
    rubric: str
    attempts: tuple[AttemptScore, ...]
    protocols: Mapping[str, ProtocolScore]
    mean: float
    best_of_k: Mapping[int, float]
    ci: Mapping[str, tuple[float, float]]
    tags: Mapping[str, TagScore]
    items: Mapping[str, float]
    seed: int
    resamples: int
    machine_checked: tuple[str, ...] = ()


def collect_grades(
    rubric: Rubric,
    judgments: Sequence[Judgment],
    source: Source | None,
    report: Report,
    *,
    machine: Mapping[tuple[str, str, str], Judgment] | None = None,
    rejected: dict[tuple[str, str, str], int] | None = None,
) -> dict[tuple[str, str], dict[str, int]]:
    """Grades per (protocol, attempt); unknown, inner, duplicate and missing items are errors.

    `machine` holds the grades of machine-checked items (when answers were given); a
    judgment for such an item is then an error, since lablang decides it.
    """
    leaves = {item.id for item in rubric.leaves()}
    inner = {item.id for item, _ in rubric.walk() if not item.is_leaf}
    machine = machine or {}
    machine_items = {item for _, _, item in machine}
    grades: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    first_line: dict[tuple[str, str], int] = {}
    seen: dict[tuple[str, str, str], int] = {}

    def at(line: int) -> Span:
        return _line_span(source, line)

    for j in judgments:
        key = (j.protocol, j.attempt)
        first_line.setdefault(key, j.line)
        if j.item in inner:
            report.add(
                "E0835",
                f"line {j.line}: item `{j.item}` has sub-items; judge its sub-items instead",
                source,
                at(j.line),
                label="an inner item",
            )
            continue
        if j.item not in leaves:
            report.add(
                "E0834",
                f"line {j.line}: the rubric has no item `{j.item}`",
                source,
                at(j.line),
                label="unknown item",
                help=_did_you_mean(j.item, leaves),
            )
            continue
        if j.item in machine_items:
            report.add(
                "E0836",
                f"line {j.line}: item `{j.item}` is machine-checked against the "
                "answer; remove this judgment",
                source,
                at(j.line),
                label="lablang grades this item",
            )
            continue
        triple = (j.protocol, j.attempt, j.item)
        if triple in seen:
            report.add(
                "E0832",
                f"line {j.line}: a second judgment of item `{j.item}` for "
                f"protocol `{j.protocol}` attempt `{j.attempt}` (the first is on line "
                f"{seen[triple]})",
                source,
                at(j.line),
                label="duplicate judgment",
            )
            continue
        seen[triple] = j.line
        grades[key][j.item] = j.score
    for (protocol, attempt, item), judgment in machine.items():
        grades[(protocol, attempt)][item] = judgment.score
    for (protocol, attempt, _), line in sorted((rejected or {}).items(), key=lambda kv: kv[1]):
        grades.setdefault((protocol, attempt), {})
        first_line[(protocol, attempt)] = min(first_line.get((protocol, attempt), line), line)
    _id_and_count_warnings(grades, first_line, source, report)
    for key in sorted(grades):
        judged = set(grades[key]) | {i for p, a, i in rejected or () if (p, a) == key}
        missing = sorted(leaves - judged)
        if missing:
            line = first_line.get(key, 0)
            report.add(
                "E0833",
                f"line {line}: protocol `{key[0]}` attempt `{key[1]}` has no "
                "judgment for " + ", ".join(f"`{m}`" for m in missing),
                source,
                at(line),
                label="this attempt's first judgment",
                help="judge every item of every attempt",
            )
    return dict(grades)


def _id_and_count_warnings(
    grades: Mapping[tuple[str, str], object],
    first_line: Mapping[tuple[str, str], int],
    source: Source | None,
    report: Report,
) -> None:
    """W0837 for a protocol id that differs from another only in blanks, case or `-`/`_`
    (ids are compared exactly, so `lib_pcr ` would be a protocol of its own), and W0838
    when protocols have unequal numbers of attempts (best-of-k over all protocols then
    stops at the fewest)."""
    by_protocol: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in grades:
        by_protocol[key[0]].append(key)
    canonical: dict[str, list[str]] = defaultdict(list)
    for name in sorted(by_protocol):
        canonical[_loose(name)].append(name)
    for names in canonical.values():
        if len(names) < 2:
            continue
        main = max(names, key=lambda n: (len(by_protocol[n]), n == n.strip(), n))
        for name in names:
            if name == main:
                continue
            line = min(first_line.get(k, 0) for k in by_protocol[name])
            report.add(
                "W0837",
                f"line {line}: protocol {json.dumps(name)} differs from {json.dumps(main)} "
                "only in blanks, case or separators; ids are compared exactly, so it is "
                f"graded as a protocol of its own ({len(by_protocol[name])} attempts)",
                source,
                _line_span(source, line),
                label="a near-duplicate protocol id",
                help=f"did you mean `{main}`?",
            )
    counts = {name: len(keys) for name, keys in by_protocol.items()}
    if len(set(counts.values())) > 1:
        fewest = min(counts.values())
        listed = ", ".join(f"`{n}` {c}" for n, c in sorted(counts.items()))
        report.add(
            "W0838",
            f"protocols have unequal numbers of attempts ({listed}): best-of-k over all "
            f"protocols is reported up to k = {fewest}, the fewest; each protocol's own "
            "best-of-k goes up to its own number of attempts",
            source,
            Span(0, 0),
            label="unequal attempt counts",
            help="give every source protocol the same number of attempts",
        )


def _loose(name: str) -> str:
    return "".join(c for c in name.casefold() if c not in " \t-_")


def grade(
    rubric: Rubric,
    grades: Mapping[tuple[str, str], Mapping[str, int]],
    *,
    seed: int = 0,
    resamples: int = 10_000,
    machine_checked: Sequence[str] = (),
    executor: Any = None,
) -> Grade:
    """Score complete grades (from `collect_grades` without errors).

    >>> from lablang.rubrics.model import Item
    >>> r = Rubric(name="r", items=(Item(id="a", criterion="", weight=Fraction(1)),))
    >>> g = grade(r, {("p", "1"): {"a": 2}, ("p", "2"): {"a": 0}}, resamples=100)
    >>> g.mean, dict(g.best_of_k)
    (0.5, {1: 0.5, 2: 1.0})
    """
    resamples = max(1, min(resamples, MAX_RESAMPLES))
    attempts = tuple(
        AttemptScore(protocol=p, attempt=a, score=node_value(rubric.items, dict(g)), grades=dict(g))
        for (p, a), g in sorted(grades.items(), key=lambda kv: (kv[0][0], _attempt_key(kv[0][1])))
    )
    by_protocol: dict[str, list[Fraction]] = defaultdict(list)
    for attempt in attempts:
        by_protocol[attempt.protocol].append(attempt.score)
    names = sorted(by_protocol)
    n_min = min((len(by_protocol[p]) for p in names), default=0)
    ks = list(range(1, n_min + 1))

    tag_roots = _tag_roots(rubric)
    tag_names = sorted(tag_roots)
    tag_scores: dict[str, dict[str, list[Fraction]]] = {t: defaultdict(list) for t in tag_names}
    for attempt in attempts:
        for tag in tag_names:
            value = _tag_value(tag_roots[tag], attempt.grades)
            if value is not None:
                tag_scores[tag][attempt.protocol].append(value)

    protocols: dict[str, ProtocolScore] = {}
    table: list[list[float]] = []
    for p in names:
        scores = by_protocol[p]
        mean_p = sum(scores, Fraction(0)) / len(scores)
        own = list(range(1, len(scores) + 1))
        bok_own = _best_of_ks(scores, own)  # the protocol's own best-of-k, k up to its n
        bok = bok_own[: len(ks)]
        row = [float(mean_p), *(float(b) for b in bok)]
        for tag in tag_names:
            values = tag_scores[tag].get(p)
            row.append(float(sum(values, Fraction(0)) / len(values)) if values else math.nan)
        table.append(row)
        protocols[p] = ProtocolScore(
            attempts=len(scores),
            mean=float(mean_p),
            best_of_k={k: float(b) for k, b in zip(own, bok_own, strict=True)},
        )

    columns = ["mean", *(f"best_of_{k}" for k in ks), *(f"tag:{t}" for t in tag_names)]
    means = (
        [sum(row[c] for row in table) / len(table) for c in range(len(columns))] if table else []
    )
    cis = (
        cluster_bootstrap(table, seed=seed, resamples=resamples, executor=executor) if table else []
    )
    ci = {name: cis[c] for c, name in enumerate(columns)} if cis else {}

    tags: dict[str, TagScore] = {}
    for offset, tag in enumerate(tag_names, start=1 + len(ks)):
        observed = [row[offset] for row in table if not math.isnan(row[offset])]
        tags[tag] = TagScore(
            items=tuple(i.id for i in tag_roots[tag]),
            mean=clip(sum(observed) / len(observed)) if observed else None,
            ci=ci.get(f"tag:{tag}") if observed else None,
        )
    item_means = {
        leaf.id: sum(a.grades[leaf.id] for a in attempts) / (2 * len(attempts))
        for leaf in rubric.leaves()
        if attempts
    }
    return Grade(
        rubric=rubric.name,
        attempts=attempts,
        protocols=protocols,
        mean=clip(means[0]) if means else 0.0,
        best_of_k={k: clip(means[k]) for k in ks},
        ci={
            ("mean" if name == "mean" else name): value
            for name, value in ci.items()
            if not name.startswith("tag:")
        },
        tags=tags,
        items=item_means,
        seed=seed,
        resamples=resamples,
        machine_checked=tuple(machine_checked),
    )


def _tag_roots(rubric: Rubric) -> dict[str, list[Item]]:
    """For each tag, the items carrying it whose ancestors do not (tags reach sub-items)."""
    roots: dict[str, list[Item]] = defaultdict(list)
    for item, ancestors in rubric.walk():
        inherited = {t for a in ancestors for t in a.tags}
        for tag in item.tags:
            if tag not in inherited:
                roots[tag].append(item)
    return dict(roots)


def _tag_value(items: list[Item], grades: Mapping[str, int]) -> Fraction | None:
    if not any(i.weight > 0 for i in items):
        return None  # only penalty items: no positive weight to normalize by
    return node_value(tuple(items), dict(grades))


def _attempt_key(attempt: str) -> tuple[int, int | str]:
    return (0, int(attempt)) if attempt.isdigit() else (1, attempt)


def _line_span(source: Source | None, line: int) -> Span:
    if source is None or line < 1:
        return Span(0, 0)
    start = source.offset(line, 1)
    return Span(start, start + len(source.line_text(line)))


def _did_you_mean(name: str, options: set[str]) -> str | None:
    from rapidfuzz import process

    match = process.extractOne(name, sorted(options), score_cutoff=60)
    return f"did you mean `{match[0]}`?" if match else None


# ------------------------------------------------------------ presentation
def grade_json(result: Grade) -> dict[str, object]:
    return {
        "rubric": result.rubric,
        "mean": result.mean,
        "best_of_k": {str(k): v for k, v in result.best_of_k.items()},
        "ci": {k: list(v) for k, v in result.ci.items()},
        "ci_method": "cluster bootstrap over source protocols, 95% percentile, "
        f"{result.resamples} resamples, seed {result.seed}",
        "protocols": {
            p: {
                "attempts": v.attempts,
                "mean": v.mean,
                "best_of_k": {str(k): b for k, b in v.best_of_k.items()},
            }
            for p, v in result.protocols.items()
        },
        "attempts": [
            {
                "protocol": a.protocol,
                "attempt": a.attempt,
                "score": float(a.score),
                "grades": dict(a.grades),
            }
            for a in result.attempts
        ],
        "tags": {
            t: {"items": list(v.items), "mean": v.mean, "ci": list(v.ci) if v.ci else None}
            for t, v in result.tags.items()
        },
        "items": result.items,
        "machine_checked": list(result.machine_checked),
    }


def render_grade(result: Grade) -> str:
    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    def interval(name: str) -> str:
        if name not in result.ci:
            return ""
        low, high = result.ci[name]
        return f"  [{pct(low)}, {pct(high)}]"

    lines = [
        f"rubric `{result.rubric}`: {len(result.protocols)} protocols, "
        f"{len(result.attempts)} attempts",
    ]
    # one column for the values, whatever the labels' lengths (`best-of-10` included)
    rows = [("mean score", result.mean, "mean")] + [
        (f"best-of-{k}", value, f"best_of_{k}") for k, value in result.best_of_k.items()
    ]
    column = max(len(label) for label, _, _ in rows) + 3
    lines += [f"{label:<{column}}{pct(v):>6}{interval(key)}" for label, v, key in rows]
    lines.append("")
    lines.append("per protocol:")
    for p, data in result.protocols.items():
        lines.append(f"  {p}: mean {pct(data.mean)} over {data.attempts} attempts")
    if result.tags:
        lines.append("")
        lines.append("per tag:")
        for tag, score in result.tags.items():
            shown = "n/a (penalty items only)" if score.mean is None else pct(score.mean)
            extra = f"  [{pct(score.ci[0])}, {pct(score.ci[1])}]" if score.ci else ""
            lines.append(f"  {tag}: {shown}{extra}")
    lines.append("")
    lines.append("per item (mean grade / 2):")
    for item, value in result.items.items():
        lines.append(f"  {item}: {pct(value)}")
    if result.machine_checked:
        lines.append("")
        lines.append("machine-checked: " + ", ".join(f"`{i}`" for i in result.machine_checked))
    lines.append("")
    lines.append(
        f"CIs: 95% cluster bootstrap over source protocols, {result.resamples} "
        f"resamples, seed {result.seed}"
    )
    return "\n".join(lines) + "\n"
