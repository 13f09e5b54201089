"""A package's public names imported on first use (PEP 562), so that importing one stage
of a backend (what `lablang check` does) does not import all of them.

>>> __getattr__ = lazy_exports("pkg", {"sqrt": "math"})
>>> __getattr__("sqrt")(4.0)
2.0
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `where[name]` (a module) and returns its `name`."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
