"""An agent's write-check-repair loop over lablang, runnable without any model.

The loop is what a harness around a language model does with lablang:

1. prompt: the task plus the language reference (`lablang spec`);
2. answer: the model writes a `.lab` module;
3. check: `lablang check --json` on the answer;
4. repair: every diagnostic that carries a machine-applicable `fix` is applied
   directly; if errors remain, the model gets a repair prompt holding its answer and
   the remaining diagnostics (line, column, message, help), and answers again;
5. re-check, until the answer is clean or the round budget is spent.

The model is any function `prompt -> answer`. `replay(folder)` is a model that returns
recorded answers (`answer_1.txt`, `answer_2.txt`, ...: raw model output, not bundled
`.lab` examples, since most of them are deliberately wrong) in order, so the loop runs in
tests and CI with no model and no network:

    python examples/agent/loop.py                      # replays examples/agent/recorded
    python examples/agent/loop.py --show-prompts       # also prints each prompt
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

Model = Callable[[str], str]


def reference() -> str:
    """The language reference for the prompt: `lablang spec`, or the grammar if absent."""
    try:
        from lablang.spec import spec_text
    except ImportError:
        grammar = (ROOT / "grammar" / "lablang.lark").read_text("utf-8")
        return (
            "(partial: `lablang spec` is not available in this build; the grammar follows)\n"
            + grammar
        )
    return str(spec_text())


def first_prompt(task: str) -> str:
    return (
        "You write lablang (.lab) modules. The language reference:\n\n"
        f"{reference()}\n\n"
        f"Task:\n{task.strip()}\n\n"
        "Answer with the .lab module only."
    )


def repair_prompt(task: str, text: str, diagnostics: Sequence[dict[str, Any]]) -> str:
    """Ask for a corrected module, quoting each remaining diagnostic as `check` gave it."""
    lines = []
    for d in diagnostics:
        where = f"{d['line']}:{d['column']}"
        help_line = f" (help: {d['help']})" if d.get("help") else ""
        lines.append(f"- {d['severity']} {d['code']} at {where}: {d['message']}{help_line}")
    return (
        f"Task:\n{task.strip()}\n\nYour module:\n```lab\n{text}```\n\n"
        "`lablang check` reports:\n" + "\n".join(lines) + "\n\n"
        "Answer with the whole corrected module only."
    )


def check(path: Path, roots: Sequence[Path] = ()) -> dict[str, Any]:
    """`lablang check --json PATH`, run as a separate process exactly as a harness would."""
    command = [sys.executable, "-m", "lablang", "check", "--json", str(path)]
    for root in roots:
        command += ["--path", str(root)]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"lablang check failed to run: {done.stderr.strip()}")
    return dict(json.loads(done.stdout))


def apply_fixes(text: str, diagnostics: Sequence[dict[str, Any]]) -> tuple[str, list[str]]:
    """Apply every machine-applicable fix none of whose edits clash with an earlier fix's.

    Fixes are taken in diagnostic order; two edits clash when their spans overlap or
    start at the same offset. Returns the new text and the codes whose fix was applied.
    """
    accepted: list[tuple[int, int, str, str]] = []
    for d in diagnostics:
        fix = d.get("fix")
        if not fix:
            continue
        edits = [(e["offset"], e["end_offset"], e["replacement"], d["code"]) for e in fix["edits"]]
        if not any(_clash(new, old) for new in edits for old in accepted):
            accepted.extend(edits)
    for start, end, replacement, _ in sorted(accepted, key=lambda e: e[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, sorted({code for *_, code in accepted})


def _clash(a: tuple[int, int, str, str], b: tuple[int, int, str, str]) -> bool:
    return a[0] == b[0] or (a[0] < b[1] and b[0] < a[1])


@frozen
class Round:
    """One check of an answer: where the answer came from and what `check` said."""

    number: int
    source: str  # "model" or "fixes"
    codes: tuple[str, ...]
    fixed: tuple[str, ...] = ()


@frozen
class Transcript:
    rounds: tuple[Round, ...]
    prompts: tuple[str, ...]
    text: str
    ok: bool


def run(
    task: str, model: Model, folder: Path, roots: Sequence[Path] = (), max_rounds: int = 6
) -> Transcript:
    """Prompt, check, repair and re-check until the answer is clean or rounds run out."""
    prompts = [first_prompt(task)]
    text = model(prompts[-1])
    source = "model"
    rounds: list[Round] = []
    answer = folder / "answer.lab"
    for number in range(1, max_rounds + 1):
        _write_atomic(answer, text)
        result = check(answer, roots)
        errors = [d for d in result["diagnostics"] if d["severity"] == "error"]
        codes = tuple(d["code"] for d in result["diagnostics"])
        if not errors:
            rounds.append(Round(number, source, codes))
            return Transcript(tuple(rounds), tuple(prompts), text, True)
        fixed_text, fixed = apply_fixes(text, errors)
        rounds.append(Round(number, source, codes, tuple(fixed)))
        if fixed:
            text, source = fixed_text, "fixes"
            continue
        prompts.append(repair_prompt(task, text, result["diagnostics"]))
        text, source = model(prompts[-1]), "model"
    return Transcript(tuple(rounds), tuple(prompts), text, False)


def replay(folder: Path) -> Model:
    """A model that answers with `answer_1.txt`, `answer_2.txt`, ... from `folder`."""
    answers = sorted(folder.glob("answer_*.txt"), key=lambda p: int(p.stem.split("_")[1]))
    remaining = list(answers)

    def model(prompt: str) -> str:
        del prompt  # a recorded answer does not depend on the prompt it is given
        if not remaining:
            raise RuntimeError(f"no recorded answer left in {folder}")
        return remaining.pop(0).read_text("utf-8")

    return model


def _write_atomic(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".answer-", suffix=".lab")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path)


def main() -> None:
    parser = argparse.ArgumentParser(description="Replay a recorded agent session.")
    parser.add_argument("--recorded", type=Path, default=HERE / "recorded")
    parser.add_argument("--task", type=Path, default=HERE / "task.md")
    parser.add_argument("--show-prompts", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        transcript = run(args.task.read_text("utf-8"), replay(args.recorded), Path(folder))
    for r in transcript.rounds:
        fixed = f"; fixes applied for {', '.join(r.fixed)}" if r.fixed else ""
        found = ", ".join(r.codes) or "clean"
        print(f"round {r.number}: answer from {r.source}: {found}{fixed}")
    if args.show_prompts:
        for index, prompt in enumerate(transcript.prompts, 1):
            print(f"\n--- prompt {index} ---\n{prompt}")
    print("result:", "clean" if transcript.ok else "still failing after the round budget")
    sys.exit(0 if transcript.ok else 1)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
