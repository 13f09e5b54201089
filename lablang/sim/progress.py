"""Progress bars for long runs (certify, demos): shown on a terminal only.

>>> list(progress(range(3), total=3, desc="x", enabled=False))
[0, 1, 2]
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], total: int, desc: str, enabled: bool = True, unit: str = "episode"
) -> Iterator[T]:
    """`items`, with a tqdm bar on stderr when `enabled` and stderr is a terminal (a log
    file or a CI run gets no bar and no carriage returns)."""
    if not (enabled and sys.stderr.isatty()):
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, total=total, desc=desc, unit=unit, file=sys.stderr)
