"""Unit functions for the executor tests (module-level, so workers can import them)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def square(payload: int) -> int:
    """A deterministic unit."""
    return payload * payload


def die_once(payload: dict[str, Any]) -> int:
    """Kill this worker process the first time the marked unit runs, then succeed."""
    marker = Path(payload["marker"])
    if payload["value"] == payload["victim"] and not marker.exists():
        marker.write_text("killed")
        os._exit(1)
    return int(payload["value"]) * 10


def always_die(payload: int) -> int:
    """Kill this worker process on every attempt."""
    os._exit(1)


def raise_for(payload: int) -> int:
    """The unit's own code fails (deterministically) for payload 2."""
    if payload == 2:
        raise ValueError("no result for 2")
    return payload
