"""The vocabulary every executor shares: a unit of work, its failure, where units run,
and the entry point a worker calls. The executors (`local`, `ray_executor`) import it,
not the package, which dispatches to them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from attrs import frozen

EXECUTORS = ("local", "ray")


class ExecutorError(Exception):
    """The executor cannot run (Ray missing, a cluster unreachable): the message says why."""


@frozen
class Unit:
    """One unit of work: `function(payload)`, named by `key`, seeded by `seed`."""

    key: str
    seed: int
    payload: Any


@frozen
class UnitFailure:
    """A unit that did not produce a result after its retries."""

    key: str
    seed: int
    attempts: int
    error: str

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.key, "seed": self.seed, "attempts": self.attempts, "error": self.error}


@frozen
class Executor:
    """Where units run: `local` with `jobs` processes (1: in this process) or `ray`.

    For Ray, `address` is an existing cluster (`auto`, `ray://host:port`); without one a
    local Ray instance with `jobs` CPUs is started for the run and stopped after it.
    """

    kind: str = "local"
    jobs: int = 1
    address: str | None = None
    retries: int = 2

    def __attrs_post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ExecutorError(
                f"unknown executor `{self.kind}`: use one of {', '.join(EXECUTORS)}"
            )
        if self.address is not None and self.kind != "ray":
            raise ExecutorError("--address names a Ray cluster: use it with --executor ray")


def function_path(function: Callable[..., Any]) -> str:
    """`module:qualname` of a module-level function (what workers import)."""
    path = f"{function.__module__}:{function.__qualname__}"
    if "<" in function.__qualname__ or function.__module__ == "__main__":
        raise ExecutorError(f"`{path}` is not importable by workers: use a module-level function")
    return path


def resolve(path: str) -> Callable[[Any], Any]:
    """The function named by `function_path` (imported in the worker)."""
    module, _, name = path.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target


def call_unit(path: str, payload: Any) -> Any:
    """Run one unit in a worker (the entry point every executor calls)."""
    return resolve(path)(payload)
