"""`lablang grade FILE --benchmark NAME` with `--answers` and `--json`: machine-checked items
are graded from each task's answers, the JSON validates against the published schema, each
task equals grading it alone, and a benchmark's rubrics may be imported from other modules."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from lablang.cli import main
from lablang.rubrics.benchmark import benchmark_schema

# three tasks over two source protocols; each rubric has a machine check and a judged item
RUBRICS = {
    "warm": ("incubate", "answer.step(heat).temperature == 65 C"),
    "long": ("incubate", "answer.step(heat).duration == 20 min"),
    "more": ("add", "answer.step(load).volume == 10 uL"),
}
TASKS = {"t_warm": ("warm", "p1"), "t_long": ("long", "p1"), "t_more": ("more", "p2")}
# per task, per attempt: whether the answer meets the check, and the judged item's score
ATTEMPTS = {
    "t_warm": {"1": (True, 2), "2": (False, 1), "3": (True, 0)},
    "t_long": {"1": (False, 2), "2": (False, 2)},
    "t_more": {"1": (True, 1), "2": (True, 2), "3": (False, 0)},
}


def rubric_text(name: str) -> str:
    _, check = RUBRICS[name]
    return (
        f"rubric {name} {{\n"
        f'  item checked "meets the change" weight 2 {{ check: {check} }}\n'
        f'  item why "explains why" weight 1\n'
        f'  item bad "breaks the protocol" weight -1\n'
        "}\n"
    )


def answer_text(task: str, meets: bool) -> str:
    name = TASKS[task][0]
    temperature = "65 C" if meets and name == "warm" else "60 C"
    duration = "20 min" if meets and name == "long" else "10 min"
    volume = "10 uL" if meets and name == "more" else "5 uL"
    return (
        "protocol answer {\n  materials: [water]\n  containers: [t]\n"
        f"  step load {{ add: {volume} of water  to: t }}\n"
        f"  step heat {{ incubate: {temperature} for {duration}  container: t }}\n}}\n"
    )


def benchmark_text(rubric_refs: dict[str, str] | None = None) -> str:
    refs = rubric_refs or {t: r for t, (r, _) in TASKS.items()}
    entries = "".join(
        f"  item {t} {{ rubric: {refs[t]}  published: {s}  domain: dna }}\n"
        for t, (_, s) in TASKS.items()
    )
    return f"benchmark mods {{\n  domains: [dna]\n{entries}}}\n"


def judgment_lines(key: str, task: str, protocol: str | None = None) -> list[str]:
    return [
        json.dumps({key: protocol or task, "attempt": a, "item": i, "score": s})
        for a, (_, why) in ATTEMPTS[task].items()
        for i, s in (("why", why), ("bad", 0))
    ]


def write_answers(root: Path, task: str, folder: str) -> None:
    for attempt, (meets, _) in ATTEMPTS[task].items():
        path = root / folder / f"{attempt}.lab"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(answer_text(task, meets))


def grade(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["grade", *args, "--resamples", "200", "--seed", "1"])
    return result.exit_code, result.output


def test_benchmark_with_answers_json_validates_and_equals_each_task_graded_alone(tmp_path):
    """`grade --benchmark --answers DIR --json` grades each task's checked item from
    DIR/TASK/ATTEMPT.lab; its JSON is valid under the schema, and every task's mean,
    best-of-k, scores and machine-checked items equal `grade RUBRIC --answers` on that task
    alone (judgments naming its source protocol, answers in DIR/SOURCE/ATTEMPT.lab)."""
    lab = tmp_path / "bench.lab"
    lab.write_text("".join(rubric_text(r) for r in RUBRICS) + benchmark_text())
    lines = [line for task in TASKS for line in judgment_lines("task", task)]
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    for task in TASKS:
        write_answers(tmp_path / "answers", task, task)
    code, out = grade(str(lab), "--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"),
                      "--answers", str(tmp_path / "answers"), "--json")  # fmt: skip
    assert code == 0, out
    report = json.loads(out)
    jsonschema.validate(report, benchmark_schema())
    assert report["sources"] == 2 and sorted(report["tasks"]) == sorted(TASKS)
    for task, (rubric, source) in TASKS.items():
        alone = tmp_path / task
        write_answers(alone / "answers", task, source)
        (alone / "j.jsonl").write_text("\n".join(judgment_lines("protocol", task, source)) + "\n")
        code, out = grade(str(lab), "--rubric", rubric, "--judgments", str(alone / "j.jsonl"),
                          "--answers", str(alone / "answers"), "--json")  # fmt: skip
        assert code == 0, out
        single = json.loads(out)
        got = report["tasks"][task]
        assert got["mean"] == single["mean"], task
        assert got["best_of_k"] == single["protocols"][source]["best_of_k"], task
        assert got["scores"] == {a["attempt"]: a["score"] for a in single["attempts"]}, task
        assert got["machine_checked"] == single["machine_checked"] == ["checked"], task
    # the checked item is what tells the attempts apart: t_long never meets its check
    assert report["tasks"]["t_long"]["scores"] == {"1": 2 / 6, "2": 2 / 6}


def test_benchmark_json_schema_rejects_a_report_missing_its_tasks():
    """The schema is not vacuous: a report without `tasks`, or with a mean above 1, fails."""
    group = {"tasks": 1, "mean": 0.5, "best_of_k": {"1": 0.5}, "ci": {"mean": [0.5, 0.5]}}
    good = {"benchmark": "b", "sources": 1, "overall": group, "domains": {}, "tasks": {},
            "ci_method": "x"}  # fmt: skip
    jsonschema.validate(good, benchmark_schema())
    for bad in ({k: v for k, v in good.items() if k != "tasks"},
                {**good, "overall": {**group, "mean": 1.5}}):  # fmt: skip
        try:
            jsonschema.validate(bad, benchmark_schema())
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"accepted {bad}")


def test_benchmark_judging_a_machine_checked_item_is_E0836(tmp_path):
    """With --answers, a judgment of a task's machine-checked item is an error, as it is
    for one rubric: lablang decides that item from the answer."""
    lab = tmp_path / "bench.lab"
    lab.write_text("".join(rubric_text(r) for r in RUBRICS) + benchmark_text())
    lines = [line for task in TASKS for line in judgment_lines("task", task)]
    lines.append(json.dumps({"task": "t_more", "attempt": 1, "item": "checked", "score": 2}))
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    for task in TASKS:
        write_answers(tmp_path / "answers", task, task)
    code, out = grade(str(lab), "--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"),
                      "--answers", str(tmp_path / "answers"))  # fmt: skip
    assert code == 1 and "E0836" in out


def test_benchmark_rubrics_imported_from_other_modules_grade_as_inline_ones(tmp_path):
    """A benchmark whose rubrics come from another module (`use tasks.{warm, long}` and
    `use more_tasks` with `rubric: more_tasks.more`) prints the same report as the same
    benchmark with its rubrics in its own file."""
    lines = [line for task in TASKS for line in judgment_lines("task", task)]
    lines += [json.dumps({"task": t, "attempt": a, "item": "checked", "score": 2})
              for t in TASKS for a in ATTEMPTS[t]]  # fmt: skip
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    inline = tmp_path / "inline.lab"
    inline.write_text("".join(rubric_text(r) for r in RUBRICS) + benchmark_text())
    (tmp_path / "tasks.lab").write_text(rubric_text("warm") + rubric_text("long"))
    (tmp_path / "more_tasks.lab").write_text(rubric_text("more"))
    imported = tmp_path / "imported.lab"
    refs = {"t_warm": "warm", "t_long": "long", "t_more": "more_tasks.more"}
    imported.write_text("use tasks.{warm, long}\nuse more_tasks\n" + benchmark_text(refs))
    args = ("--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"))
    code_inline, out_inline = grade(str(inline), *args)
    code_imported, out_imported = grade(str(imported), *args)
    assert code_inline == code_imported == 0, out_imported
    assert out_imported == out_inline


def test_benchmark_rubric_import_missing_or_not_a_rubric_is_an_error(tmp_path):
    """A rubric imported from a module that does not exist is the resolver's E0201 (once:
    the benchmark does not report it again); a module without that name is E0207; an
    imported protocol named as a rubric is E0850; `lablang grade` exits 1 on each."""
    (tmp_path / "j.jsonl").write_text(judgment_lines("task", "t_warm")[0] + "\n")
    (tmp_path / "tasks.lab").write_text(
        rubric_text("warm") + "protocol p { step s { add: 5 uL of water  to: t } }\n"
    )
    cases = {
        "use nowhere.{warm}\n": ["E0201"],
        "use tasks.{nothing}\n": ["E0207"],
        "use tasks.{p}\n": ["E0850"],
    }
    for header, expected in cases.items():
        name = header.split(".{")[1].rstrip("}\n")
        lab = tmp_path / "bench.lab"
        lab.write_text(
            header + "benchmark mods {\n  domains: [dna]\n"
            f"  item t_warm {{ rubric: {name}  published: p1  domain: dna }}\n}}\n"
        )
        code, out = grade(str(lab), "--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"))
        found = sorted(c for c in ("E0201", "E0207", "E0850") if f"error[{c}]" in out)
        assert code == 1 and found == expected, (header, out)
        assert out.count("error[") == 1, out


def test_a_benchmark_task_without_judgments_is_named_not_silently_dropped(tmp_path):
    """A task none of whose attempts is judged is warned about (W0838, naming it), and the
    benchmark is graded over the others, as the report's task count says."""
    lab = tmp_path / "bench.lab"
    lab.write_text("".join(rubric_text(r) for r in RUBRICS) + benchmark_text())
    lines = [line for task in ("t_warm", "t_more") for line in judgment_lines("task", task)]
    lines += [json.dumps({"task": t, "attempt": a, "item": "checked", "score": 2})
              for t in ("t_warm", "t_more") for a in ATTEMPTS[t]]  # fmt: skip
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    code, out = grade(str(lab), "--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"))
    assert code == 0, out
    assert "warning[W0838]: no judgments for task `t_long`: graded over 2 of" in out
    assert "benchmark `mods`: 2 tasks over 2 source protocols" in out


def test_an_imported_rubrics_own_errors_are_reported_in_its_module(tmp_path):
    """An imported rubric with no positive weight is E0824, located in the module that
    declares it (only the root module's rubrics are checked otherwise), once although the
    benchmark names it twice; `grade` exits 1 instead of grading with it."""
    (tmp_path / "tasks.lab").write_text('rubric broken { item a "only a penalty" weight -1 }\n')
    lab = tmp_path / "bench.lab"
    lab.write_text(
        "use tasks.{broken}\nuse tasks\nbenchmark mods {\n  domains: [dna]\n"
        "  item t1 { rubric: broken  published: p1  domain: dna }\n"
        "  item t2 { rubric: tasks.broken  published: p2  domain: dna }\n}\n"
    )
    (tmp_path / "j.jsonl").write_text(json.dumps({"task": "t1", "attempt": 1, "item": "a",
                                                  "score": 0}) + "\n")  # fmt: skip
    code, out = grade(str(lab), "--benchmark", "mods", "--judgments", str(tmp_path / "j.jsonl"))
    assert code == 1
    assert out.count("error[E0824]") == 1 and "tasks.lab:1" in out, out
