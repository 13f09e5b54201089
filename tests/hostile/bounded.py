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
) -> Run:
    """`python -m lablang ARGS` with at most `cpu_seconds` of CPU and `memory_mb` of memory."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        memory = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    completed = subprocess.run(
        [sys.executable, "-m", "lablang", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd or ROOT,
        preexec_fn=limit,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return Run(
        completed.returncode,
        completed.stdout.decode("utf-8", "replace"),
        completed.stderr.decode("utf-8", "replace"),
    )
