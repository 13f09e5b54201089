"""Run one `lablang` command in a child process under CPU-time and address-space limits.

The limits are resource limits of the child (RLIMIT_CPU, RLIMIT_AS), not wall-clock
measurements, so a busy shared machine cannot fail a test; a command that exceeds them is
killed by the kernel and the test sees it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

ROOT = Path(__file__).resolve().parents[2]


@frozen
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def assert_clean(self) -> None:
        """No traceback, no internal error, not killed by a limit."""
        assert self.returncode >= 0, f"killed by signal {-self.returncode}: {self.output[-2000:]}"
        assert "Traceback" not in self.output, self.output[-4000:]
        assert "E0000" not in self.output, self.output[-4000:]
        assert "MemoryError" not in self.output, self.output[-4000:]


def run_bounded(
    args: Sequence[str],
    *,
    cpu_seconds: int = 30,
    memory_mb: int = 1024,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    hang_seconds: float | None = None,
) -> Run:
    """`python -m lablang ARGS` with at most `cpu_seconds` of CPU and `memory_mb` of memory.

    `hang_seconds` is for a command that could block without using CPU (a FIFO): past it
    (a generous wall-clock bound, never a measurement) the child is killed and the run
    ends with -9, which `assert_clean` reports."""
    return _run([sys.executable, "-m", "lablang", *args], cpu_seconds, memory_mb, cwd, stdin,
                env, hang_seconds)  # fmt: skip


def run_code_bounded(
    code: str,
    *,
    cpu_seconds: int = 30,
    memory_mb: int = 1024,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    hang_seconds: float | None = None,
) -> Run:
    """`python -c CODE` under the same limits, for a library function no verb exposes."""
    return _run([sys.executable, "-c", code], cpu_seconds, memory_mb, cwd, None, env,
                hang_seconds)  # fmt: skip


def _run(
    argv: list[str],
    cpu_seconds: int,
    memory_mb: int,
    cwd: Path | None,
    stdin: bytes | None,
    env: dict[str, str] | None,
    hang_seconds: float | None,
) -> Run:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        memory = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        completed = subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            cwd=cwd or ROOT,
            preexec_fn=limit,
            env={**os.environ, **(env or {})},
            timeout=hang_seconds,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:  # subprocess.run killed it
        return Run(-9, _text(expired.stdout), _text(expired.stderr) + "\n[hung: killed]")
    return Run(completed.returncode, _text(completed.stdout), _text(completed.stderr))


def _text(data: bytes | str | None) -> str:
    if isinstance(data, str):
        return data
    return (data or b"").decode("utf-8", "replace")
