"""How bad a diagnostic is. Its own module so that the code registry (`codes`), which
the package's `Report.add` reads, imports it without importing the package back."""

from __future__ import annotations

import enum


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
