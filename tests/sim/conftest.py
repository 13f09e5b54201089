"""Shared helpers: build tasks and runtimes from `.lab` text."""

from __future__ import annotations

import numpy as np
import pytest

from lablang.driver import check_text
from lablang.sim.front import tasks_of
from lablang.sim.model import Task


def _task_from(text: str, name: str | None = None) -> Task:
    result = check_text(text)
    assert not result.report.has_errors, [d.message for d in result.report]
    tasks = tasks_of(result.program, result.report)
    return tasks[name] if name else next(iter(tasks.values()))


@pytest.fixture
def task_from():
    """Check `.lab` text and return one of its tasks (the first when no name is given)."""
    return _task_from


@pytest.fixture
def make_runtime():
    """A reset runtime for the scene of a one-task `.lab` text."""
    from lablang.sim.build import compile_scene
    from lablang.sim.runtime import Runtime

    def build(text: str, seed: int = 0) -> Runtime:
        task = _task_from(text)
        rt = Runtime(compile_scene(task.scene, np.random.default_rng(seed)))
        contents: dict[str, list[tuple[str, float, str]]] = {}
        for entity in task.scene.entities:
            for item in entity.contents:
                contents.setdefault(entity.name, []).append(
                    (item.substance, item.amount, item.kind)
                )
        rt.reset(contents)
        return rt

    return build
