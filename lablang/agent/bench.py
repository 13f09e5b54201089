"""`lablang bench libstruct`: an agent answers LibStructBench tasks in `.lab`, with repairs.

For each task folder the harness builds the prompt (the reference sections the task
needs and the task's protocol text), runs the agent (prompt on stdin, `.lab` on stdout,
with a time limit), checks the answer, applies the machine-applicable fixes, exports
Tasks 1-3 and scores them against the task's truth, and, while errors remain, sends the
JSON diagnostics back for up to K repair rounds. Every round is recorded.

A task folder (`--tasks DIR` holds one per task, named by its id):

    DIR/<task_id>/protocol.md     the protocol text the agent reads
    DIR/<task_id>/truth/          the truth bundle: LibStructBench T1-T3 JSON files
                                  (or DIR/<task_id>/truth.lab, a `.lab` reference answer)
    DIR/<task_id>/task.json       optional: {"sections": [...], "instructions": "..."}

`--replay DIR` replays recorded answers `DIR/<task_id>/round_<N>.lab` (N from 1), so the
harness runs with no model.

Isolation: an answer is an agent's file, so it is checked and scored with the standard
library and its own answer folder (`OUT/answers/<task_id>/`) as its only module roots;
the task folder, which holds the reference (`truth/`, `truth.lab`), is never on its path,
and nothing of the reference reaches a prompt. Every file read on the user's behalf is
opened by the guarded opener (`lablang.guarded`) inside its root: recorded answers inside
the `--replay` folder (at most `MAX_REPLAY_BYTES`), a task's `protocol.md` and `task.json`
inside its task folder (at most `max_data_bytes`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from attrs import frozen

from lablang.agent.rounds import HEADLINE, Round, per_round_means

__all__ = [
    "BenchError",
    "BenchResult",
    "CommandAgent",
    "ReplayAgent",
    "Round",
    "Task",
    "load_tasks",
    "run_bench",
]

DEFAULT_SECTIONS = ("core", "molecular")
DEFAULT_INSTRUCTIONS = (
    "Reconstruct, for the protocol below, (1) the final library structure as a `library` "
    "with its `seq` (Task 1), (2) the oligos as `oligo` declarations (Task 2), and (3) the "
    "molecular workflow as declared `state` and `transition` declarations (Task 3)."
)
MAX_ANSWER_CHARS = 1_000_000
# a recorded answer larger than this is a `refused` round, unread (4 bytes per character)
MAX_REPLAY_BYTES = 4 * MAX_ANSWER_CHARS
# an agent's stdout is read up to this many bytes (every answer character fits 4 bytes)
MAX_OUTPUT_BYTES = 4 * MAX_ANSWER_CHARS


class BenchError(Exception):
    """A task folder or an option the harness cannot work with."""


@frozen
class Task:
    id: str
    folder: Path
    protocol: str
    truth: Path
    sections: tuple[str, ...] = DEFAULT_SECTIONS
    instructions: str = DEFAULT_INSTRUCTIONS


@frozen
class Reply:
    text: str
    status: str  # ok | timeout | failed | no-answer | refused
    seconds: float = 0.0
    detail: str = ""


class Agent(Protocol):
    def answer(self, task: Task, round_number: int, prompt: str) -> Reply: ...


@frozen
class CommandAgent:
    """An agent run as a command: the prompt on stdin, the `.lab` answer on stdout.

    The command also gets `LABLANG_TASK` and `LABLANG_ROUND` in its environment.
    """

    command: str
    timeout: float = 300.0

    def answer(self, task: Task, round_number: int, prompt: str) -> Reply:
        from lablang.agent.command import run_command

        env = {**os.environ, "LABLANG_TASK": task.id, "LABLANG_ROUND": str(round_number)}
        start = time.perf_counter()
        try:
            done = run_command(
                shlex.split(self.command),
                prompt.encode("utf-8", "surrogatepass"),
                env=env,
                timeout=self.timeout,
                limit=MAX_OUTPUT_BYTES,
            )
        except OSError as error:
            return Reply("", "failed", time.perf_counter() - start, str(error))
        if done.timed_out:
            return Reply("", "timeout", done.seconds, f"over {self.timeout} s")
        text, undecodable = _decode_output(done.stdout, done.cut)
        if undecodable:
            return Reply("", "failed", done.seconds, undecodable)
        cut = f"output cut at {MAX_OUTPUT_BYTES} bytes" if done.cut else ""
        if done.returncode not in (0, None):
            stderr = done.stderr_tail.decode("utf-8", "replace")[-500:]
            detail = "; ".join(filter(None, (f"exit {done.returncode}: {stderr}", cut)))
            return Reply(text, "failed", done.seconds, detail)
        return Reply(text, "ok", done.seconds, cut)


def _decode_output(data: bytes, cut: bool) -> tuple[str, str]:
    """The agent's output as text, or "" and why it is not UTF-8 (a character split by
    the cut is dropped, not an error)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        return decoder.decode(data, final=not cut), ""
    except UnicodeDecodeError as error:
        return (
            "",
            f"output is not UTF-8: byte {error.start} is {data[error.start : error.start + 1]!r}",
        )


@frozen
class ReplayAgent:
    """Recorded answers, `FOLDER/<task_id>/round_<N>.lab`, in round order."""

    folder: Path

    def answer(self, task: Task, round_number: int, prompt: str) -> Reply:
        from lablang.guarded import Refused, read_guarded

        path = self.folder / task.id / f"round_{round_number}.lab"
        if not os.path.lexists(path):
            return Reply("", "no-answer", 0.0, f"no recorded answer {path.name}")
        start = time.perf_counter()
        try:
            data = read_guarded(
                path, [self.folder], max_bytes=MAX_REPLAY_BYTES, limit="MAX_REPLAY_BYTES"
            )
        except Refused as refused:  # outside the replay folder, a FIFO, too big
            return Reply("", "refused", time.perf_counter() - start, refused.message)
        text = data.decode("utf-8", errors="replace")
        return Reply(text, "ok", time.perf_counter() - start)


@frozen
class BenchResult:
    rounds: tuple[Round, ...]
    files: tuple[Path, ...]

    def per_round(self, metric: str = "reward") -> list[float]:
        """Mean score over tasks after each round (a task that stopped keeps its last)."""
        return per_round_means(self.rounds, metric)

    def summary_lines(self) -> list[str]:
        tasks = sorted({r.task for r in self.rounds})
        means = self.per_round()
        # the rounds counted as the lines below count them (a task that stopped early
        # keeps its last score in the later rounds), the replies apart
        lines = [
            f"{len(tasks)} tasks, {len(means)} rounds ({len(self.rounds)} replies in all; "
            "a task that stopped early keeps its last score)"
        ]
        for i, value in enumerate(means, start=1):
            lines.append(f"  after round {i}: mean reward {value:.4f}")
        lines += [f"  wrote {file}" for file in self.files]
        return lines


# ---------------------------------------------------------------- tasks


def load_tasks(folder: Path) -> list[Task]:
    """Every task folder under `folder`, sorted by id."""
    from lablang.spec import SECTIONS

    tasks = []
    for entry in sorted(p for p in folder.iterdir() if p.is_dir()):
        protocol = entry / "protocol.md"
        if not protocol.is_file():
            raise BenchError(f"task `{entry.name}` has no protocol.md")
        truth = entry / "truth"
        if not truth.is_dir():
            truth = entry / "truth.lab"
        if not truth.exists():
            raise BenchError(f"task `{entry.name}` has no truth/ folder or truth.lab")
        options: dict[str, Any] = {}
        config = entry / "task.json"
        if config.is_file():
            try:
                from lablang.datafile import load_json

                # bounded like every data file: deep nesting is an error, not RecursionError
                options = load_json(_read_task_file(config, entry), "task.json")
            except (ValueError, OSError) as error:
                raise BenchError(f"task `{entry.name}`: task.json is not JSON: {error}") from None
            if not isinstance(options, dict):
                raise BenchError(f"task `{entry.name}`: task.json must hold an object")
        sections = options.get("sections", list(DEFAULT_SECTIONS))
        if not isinstance(sections, list) or not all(s in SECTIONS for s in sections):
            raise BenchError(f"task `{entry.name}`: sections must be a list of {SECTIONS}")
        if "core" not in sections:
            sections = ["core", *sections]
        instructions = options.get("instructions", DEFAULT_INSTRUCTIONS)
        if not isinstance(instructions, str):
            raise BenchError(f"task `{entry.name}`: instructions must be a string")
        tasks.append(
            Task(
                entry.name,
                entry,
                _read_task_file(protocol, entry),
                truth,
                tuple(sections),
                instructions,
            )
        )
    if not tasks:
        raise BenchError(f"no task folders in `{folder}`")
    return tasks


def _read_task_file(path: Path, folder: Path) -> str:
    """A task's own file, inside its task folder (`lablang.guarded`), as text."""
    from lablang.guarded import Refused, read_guarded
    from lablang.limits import DEFAULT_LIMITS

    limit = DEFAULT_LIMITS.max_data_bytes
    try:
        data = read_guarded(path, [folder], max_bytes=limit, limit="max_data_bytes")
    except Refused as refused:
        raise BenchError(f"task `{path.parent.name}`: {refused.message}") from None
    return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------- prompts


def first_prompt(task: Task) -> str:
    from lablang.spec import spec_text

    return (
        "You answer in lablang (`.lab`). The language reference:\n\n"
        f"{spec_text(task.sections)}\n"
        f"# Task\n\n{task.instructions.strip()}\n\n"
        f"# Protocol\n\n{task.protocol.strip()}\n\n"
        "Answer with the `.lab` module only."
    )


def repair_prompt(task: Task, text: str, diagnostics: Sequence[dict[str, Any]]) -> str:
    """The answer and the errors `lablang check --json` reports, as data, for repair."""
    keep = ("code", "severity", "message", "line", "column", "end_line", "end_column", "help")
    shown = [{k: d.get(k) for k in keep} for d in diagnostics]
    return (
        f"# Task\n\n{task.instructions.strip()}\n\n"
        f"# Your answer\n\n```lab\n{text}\n```\n\n"
        "`lablang check --json` reports (machine-applicable fixes are already applied):\n\n"
        f"```json\n{json.dumps(shown, indent=1, ensure_ascii=False)}\n```\n\n"
        "Answer with the whole corrected `.lab` module only."
    )


_FENCE = re.compile(r"```(?:lab|lablang)?[ \t]*\n(.*?)```", re.S)


def extract_answer(text: str) -> str:
    """The `.lab` module in an agent's output: the first fenced block, or all of it."""
    match = _FENCE.search(text)
    answer = match.group(1) if match else text
    return answer[:MAX_ANSWER_CHARS]


# ---------------------------------------------------------------- the loop


def run_task(task: Task, out: Path, agent: Agent, repairs: int, autofix: bool) -> list[Round]:
    """All rounds of one task: the first answer and up to `repairs` repairs."""
    from lablang.agent.fixes import apply_fixes
    from lablang.diagnostics import Severity
    from lablang.diagnostics.render import to_json
    from lablang.driver import check_source
    from lablang.output import write_atomic
    from lablang.source import Source

    rounds: list[Round] = []
    prompt = first_prompt(task)
    folder = out / "answers" / task.id
    # the answer's only module roots: the standard library and its own folder, never the
    # task folder (it holds the reference answer)
    answer_roots = [folder]
    for number in range(1, repairs + 2):
        reply = agent.answer(task, number, prompt)
        answer_file = folder / f"round_{number}.lab"
        relative = answer_file.relative_to(out).as_posix()
        if reply.status != "ok":
            if number == 1 or reply.status != "no-answer":
                previous = rounds[-1].metrics if rounds else _zero_metrics(task)
                rounds.append(
                    Round(task.id, number, reply.status, 0, 0, (), 0, dict(previous),
                          reply.seconds, 0.0, 0.0, len(prompt), "", reply.detail)
                )  # fmt: skip
            break
        text = extract_answer(reply.text)
        name = f"{task.id}/round_{number}.lab"
        start = time.perf_counter()
        result = check_source(Source(text, name), answer_roots)
        applied = 0
        if autofix:
            own = [d for d in result.report if d.source is not None and d.source.name == name]
            fixed, applied = apply_fixes(text, own)
            if applied:
                text = fixed
                result = check_source(Source(text, name), answer_roots)
        check_seconds = time.perf_counter() - start
        write_atomic(answer_file, text)
        start = time.perf_counter()
        metrics = _score(answer_file, task)
        score_seconds = time.perf_counter() - start
        diagnostics = [to_json(d) for d in result.report.sorted()]
        errors = [d for d in result.report if d.severity is Severity.ERROR]
        rounds.append(
            Round(
                task.id,
                number,
                "clean" if not errors else "errors",
                len(errors),
                sum(d.severity is Severity.WARNING for d in result.report),
                tuple(sorted({d.code for d in errors})),
                applied,
                metrics,
                reply.seconds,
                check_seconds,
                score_seconds,
                len(prompt),
                relative,
                reply.detail,  # e.g. the output was cut at the limit
                tuple(diagnostics),
            )
        )
        if not errors:
            break
        prompt = repair_prompt(task, text, [d for d in diagnostics if d["severity"] == "error"])
    return rounds


def _score(answer: Path, task: Task) -> dict[str, float]:
    from lablang.scoring import score_files

    try:
        # no extra roots: the answer's are its own folder, the reference's its task folder
        return dict(score_files(answer, task.truth).metrics)
    except Exception:  # a lablang bug while scoring: the round scores 0, the run goes on
        return _zero_metrics(task)


def _zero_metrics(task: Task) -> dict[str, float]:
    return dict.fromkeys(HEADLINE, 0.0)


def run_bench(
    tasks_dir: Path,
    out: Path,
    agent: Agent,
    *,
    repairs: int = 3,
    jobs: int = 1,
    autofix: bool = True,
) -> BenchResult:
    """Run every task of `tasks_dir` and write the records and reports to `out`."""
    from lablang.agent.bench_report import write_reports

    tasks = load_tasks(tasks_dir)
    out.mkdir(parents=True, exist_ok=True)
    if jobs > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda t: run_task(t, out, agent, repairs, autofix), tasks))
    else:
        results = [run_task(t, out, agent, repairs, autofix) for t in tasks]
    rounds = tuple(r for task_rounds in results for r in task_rounds)
    files = write_reports(rounds, out)
    return BenchResult(rounds, tuple(files))
