"""Fuzz every command that reads `.lab` text or data files (outside CI).

For each command (check, fmt, export, diff, import, score, legal, monitor, grade, replay)
inputs are made from seed files with 1-3 random mutations: the agent-like edits of
`tests/core/mutations.py`, plus number mutators (huge exponents, thousands of digits,
NaN/Infinity, 1e400), nesting mutators (thousands of brackets, deep YAML, parenthesised
sums), size mutators (a part repeated thousands of times, long lines) and YAML alias
bombs. Each input runs in this process through the command line (click's test runner)
under an address-space limit and a per-input timer. Recorded per command: inputs,
tracebacks (any exception the command did not turn into a diagnostic, MemoryError
included), internal errors (E0000), hangs (past `--timeout` seconds) and the slowest
input. Failing and slowest inputs are saved under fuzz-failures/.

Run: python benchmarks/fuzz.py --count 300 [--seed 1] [--commands check,score] [--timeout 20]
[--seeds-from DIR] [--out DIR]. Times are CPU seconds of this process (the hang timer too),
with the slowest input's wall time beside it. `--smoke` is `--count 2`: every command on
two mutated inputs, in a few seconds (tests/core/test_benchmarks.py runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attrs import define, field  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from lablang.cli import main as cli  # noqa: E402
from tests.core.mutations import mutate  # noqa: E402


class Hang(BaseException):
    """The per-input timer fired.

    A BaseException, so the commands' own `except Exception` (which turns an internal
    error into E0000) cannot swallow it: a hang is counted as a hang.
    """


# ---------------------------------------------------------------------- mutators
def _digits(rng: random.Random) -> str:
    return rng.choice(["9" * rng.choice([50, 400, 5000]), "1e" + "9" * rng.randrange(3, 12)])


def number_mutator(text: str, rng: random.Random) -> str:
    """Replace a number (or insert one) with a huge, tiny, long or non-finite literal."""
    import re

    numbers = list(re.finditer(r"\d+(?:\.\d+)?", text))
    value = rng.choice(
        [
            _digits(rng),
            "1e400",
            "1e-400",
            "1e100000000",
            "NaN",
            "Infinity",
            "-0",
            "0." + "0" * 5000 + "1",
        ]
    )
    if numbers:
        match = rng.choice(numbers)
        return text[: match.start()] + value + text[match.end() :]
    at = rng.randrange(len(text) + 1)
    return text[:at] + value + text[at:]


def nesting_mutator(text: str, rng: random.Random) -> str:
    """Insert thousands of nested brackets or parentheses at a random place."""
    depth = rng.choice([150, 1000, 50_000])
    opening, closing = rng.choice([("[", "]"), ("{", "}"), ("(", ")"), ("(x+", "+x)")])
    at = rng.randrange(len(text) + 1)
    inner = opening * depth + "1" + closing * depth
    return text[:at] + inner + text[at:]


def size_mutator(text: str, rng: random.Random) -> str:
    """Repeat a slice of the text thousands of times (or make one line very long)."""
    if not text:
        return "x" * 100_000
    i = rng.randrange(len(text))
    j = min(len(text), i + rng.randrange(1, 200))
    times = rng.choice([1000, 20_000])
    piece = text[i:j]
    if rng.random() < 0.5:
        piece = piece.replace("\n", " ")
    return text[:i] + piece * times + text[j:]


def alias_mutator(text: str, rng: random.Random) -> str:
    """Prepend a YAML alias bomb or a recursive alias."""
    if rng.random() < 0.5:
        return "a: &a [*a]\n" + text
    bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9)
    )
    return bomb + text


LAB_MUTATORS = (mutate, mutate, number_mutator, nesting_mutator, size_mutator)
DATA_MUTATORS = (mutate, number_mutator, number_mutator, nesting_mutator, size_mutator)
YAML_MUTATORS = (*DATA_MUTATORS, alias_mutator)


# ---------------------------------------------------------------------- commands
@define
class Command:
    name: str
    seeds: list[str]
    mutators: tuple[Callable[[str, random.Random], str], ...]
    args: Callable[[Path], list[str]]  # arguments, given the file holding the input
    suffix: str
    stats: dict[str, Any] = field(factory=dict)


def _lab_seeds(source: Path) -> list[str]:
    paths = sorted((source / "tests" / "data").glob("*.lab")) + sorted(
        (source / "examples").rglob("*.lab")
    )
    return [p.read_text("utf-8") for p in paths]


def _exported(source: Path, target: str) -> list[str]:
    runner = CliRunner()
    texts = []
    for example in ("tenx_3p_v3.lab", "drop_seq.lab", "smart_seq3.lab"):
        result = runner.invoke(cli, ["export", str(source / "examples" / example), "--to", target])
        if result.exit_code == 0:
            texts.append(result.output)
    return texts


def _replay_seed(source: Path) -> str:
    header = {"record": "episode", "task": "t", "seed": 1, "score": 1.0}
    lines = [json.dumps(header)]
    for line in (
        (source / "examples" / "contracts" / "centrifuge_clean.jsonl").read_text().splitlines()
    ):
        if line.strip():
            lines.append(json.dumps({"record": "event", **json.loads(line)}))
    return "\n".join(lines) + "\n"


def commands(work: Path, source: Path = ROOT) -> list[Command]:
    """The fuzzed commands, their seed inputs read from the checkout `source`."""
    labs = _lab_seeds(source)
    contract = str(source / "stdlib" / "contracts" / "centrifuge.lab")
    rubric = str(source / "examples" / "protocols" / "gc_rich_rubric.lab")
    published = str(source / "examples" / "protocols" / "pcr_published.lab")
    truth = source / "tests" / "scoring" / "data" / "truth_10x"
    truth_docs = [p.read_text("utf-8") for p in sorted(truth.glob("*.json"))]
    protocols = [
        p.read_text("utf-8") for p in sorted((source / "examples" / "protocols").rglob("*.lab"))
    ]
    return [
        Command("check", labs, LAB_MUTATORS, lambda f: ["check", str(f)], ".lab"),
        Command("fmt", labs, LAB_MUTATORS, lambda f: ["fmt", "--check", str(f)], ".lab"),
        Command("export", labs, LAB_MUTATORS, lambda f: ["export", str(f)], ".lab"),
        Command("diff", protocols, LAB_MUTATORS, lambda f: ["diff", published, str(f)], ".lab"),
        Command("import", truth_docs, DATA_MUTATORS, lambda f: ["import", str(f), "-o", str(work / "o.lab")], ".json"),
        Command("import-seqspec", _exported(source, "seqspec"), YAML_MUTATORS,
                lambda f: ["import", str(f), "-o", str(work / "o.lab")], ".yaml"),
        Command("score", truth_docs, DATA_MUTATORS, lambda f: ["score", str(f), "--truth", str(truth)], ".json"),
        Command("legal", ['{"a": 2, "aim_a": 2, "conf_a": true}'], DATA_MUTATORS,
                lambda f: ["legal", contract, "--state", str(f)], ".json"),
        Command("monitor", [(source / "examples" / "contracts" / n).read_text() for n in
                            ("centrifuge_clean.jsonl", "centrifuge_wrong_choice.jsonl")],
                DATA_MUTATORS, lambda f: ["monitor", contract, str(f)], ".jsonl"),
        Command("grade", [(source / "examples" / "protocols" / "judgments.jsonl").read_text()],
                DATA_MUTATORS, lambda f: ["grade", rubric, "--judgments", str(f)], ".jsonl"),
        Command("replay", [_replay_seed(source)], DATA_MUTATORS, lambda f: ["replay", str(f)], ".jsonl"),
    ]  # fmt: skip


# ---------------------------------------------------------------------- running
def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def run_one(command: Command, text: str, path: Path, timeout: float) -> tuple[str, float, float]:
    """'ok', 'traceback', 'internal' or 'hang', and the CPU and wall seconds it took.

    The timer counts this process's CPU time (ITIMER_PROF), so a hang means the same on a
    loaded machine as on an idle one.
    """
    path.write_text(text, "utf-8", errors="replace")
    runner = CliRunner()
    start, cpu = time.perf_counter(), time.process_time()
    signal.setitimer(signal.ITIMER_PROF, timeout)
    outcome = "ok"
    try:
        result = runner.invoke(cli, command.args(path), catch_exceptions=True)
    except Hang:
        outcome = "hang"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    seconds, wall = time.process_time() - cpu, time.perf_counter() - start
    if outcome == "hang" or isinstance(result.exception, Hang):
        return "hang", seconds, wall
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "traceback", seconds, wall
    if "E0000" in result.output:
        return "internal", seconds, wall
    return "ok", seconds, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="inputs per command")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commands", default="", help="comma-separated subset")
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="CPU seconds before an input is a hang"
    )
    parser.add_argument(
        "--seeds-from",
        type=Path,
        default=ROOT,
        help="checkout whose examples, tests/data and stdlib give the seed inputs (to replay "
        "an older run's inputs against this code: `git archive REV examples stdlib tests`)",
    )
    parser.add_argument(
        "--memory-mb", type=int, default=3000, help="address-space limit of this process"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "fuzz-failures",
        help="folder for the failing and slowest inputs",
    )
    parser.add_argument("--smoke", action="store_true", help="--count 2")
    args = parser.parse_args()
    if args.smoke:
        args.count = 2
    memory = args.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGPROF, _alarm)
    work = Path(tempfile.mkdtemp(prefix="lablang-fuzz-"))
    os.environ.setdefault("LABLANG_CACHE", str(work / "cache"))
    out = args.out
    wanted = {c for c in args.commands.split(",") if c}
    failed = 0
    try:
        for command in commands(work, args.seeds_from):
            if (wanted and command.name not in wanted) or not command.seeds:
                continue
            rng = random.Random(f"{args.seed}-{command.name}")
            counts = dict.fromkeys(("inputs", "traceback", "internal", "hang"), 0)
            slowest = (0.0, 0.0, "")
            started = time.perf_counter()
            for index in range(args.count):
                text = rng.choice(command.seeds)
                for _ in range(rng.randrange(1, 4)):
                    text = rng.choice(command.mutators)(text, rng)
                outcome, seconds, wall = run_one(
                    command, text, work / f"input{command.suffix}", args.timeout
                )
                counts["inputs"] += 1
                name = f"{command.name}-{args.seed}-{index}{command.suffix}"
                if outcome != "ok":
                    counts[outcome] += 1
                    out.mkdir(exist_ok=True)
                    (out / f"{outcome}-{name}").write_text(text, "utf-8", errors="replace")
                if seconds > slowest[0]:
                    slowest = (seconds, wall, name)
                    out.mkdir(exist_ok=True)
                    (out / f"slowest-{command.name}{command.suffix}").write_text(
                        text, "utf-8", errors="replace"
                    )
            failed += counts["traceback"] + counts["internal"] + counts["hang"]
            print(
                f"{command.name:15} inputs {counts['inputs']:6}  tracebacks {counts['traceback']:4}  "
                f"E0000 {counts['internal']:4}  hangs {counts['hang']:4}  "
                f"slowest {slowest[0]:6.2f} s cpu {slowest[1]:6.2f} s wall ({slowest[2]})  "
                f"total {time.perf_counter() - started:6.0f} s",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
