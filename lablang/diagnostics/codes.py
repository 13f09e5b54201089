"""The registry of diagnostic codes.

Codes live in TOML files under `registry/`, one file per area (core, molecular,
scoring, contracts, sim, protocols), so each backend owns its codes. Each entry
has a severity, a title, an explanation, and a failing (`bad`) and fixed (`good`)
example that `lablang explain` prints and the tests run.

Ranges: E00xx limits and internal, E01xx syntax, E02xx names and modules,
E03xx types and units, E04xx molecular, E05xx scoring, E06xx contracts, E07xx
simulation, E08xx protocols and rubrics. Warnings use W with the same ranges.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from importlib import resources

import attrs

from lablang.diagnostics import Severity


@attrs.frozen(slots=True)
class Code:
    code: str
    severity: Severity
    title: str
    explanation: str
    bad: str = ""
    good: str = ""
    area: str = "core"


class _Registry(Mapping[str, Code]):
    """Loads the TOML files the first time a code is looked up."""

    def __init__(self) -> None:
        self._codes: dict[str, Code] | None = None

    def _load(self) -> dict[str, Code]:
        if self._codes is None:
            codes: dict[str, Code] = {}
            folder = resources.files("lablang.diagnostics") / "registry"
            for entry in sorted(folder.iterdir(), key=lambda e: e.name):
                if not entry.name.endswith(".toml"):
                    continue
                area = entry.name.removesuffix(".toml")
                for code, data in tomllib.loads(entry.read_text("utf-8")).items():
                    if code in codes:
                        raise ValueError(f"diagnostic code {code} registered twice")
                    codes[code] = Code(
                        code=code,
                        severity=Severity(data["severity"]),
                        title=data["title"],
                        explanation=data["explanation"].strip(),
                        bad=data.get("bad", "").strip("\n"),
                        good=data.get("good", "").strip("\n"),
                        area=area,
                    )
            self._codes = codes
        return self._codes

    def __getitem__(self, key: str) -> Code:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._load()))

    def __len__(self) -> int:
        return len(self._load())


CODES: Mapping[str, Code] = _Registry()


def explain(code: str) -> str:
    """The text `lablang explain CODE` prints.

    >>> print(explain("E0203").splitlines()[0])
    E0203: name not declared
    """
    entry = CODES[code.upper()]
    parts = [f"{entry.code}: {entry.title}", "", entry.explanation]
    if entry.bad:
        parts += ["", "Failing example:", "", _indent(entry.bad)]
    if entry.good:
        parts += ["", "Fixed:", "", _indent(entry.good)]
    return "\n".join(parts) + "\n"


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.splitlines())
