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

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from lablang.diagnostics import Severity
from lablang.record import frozen


@frozen
class Code:
    code: str
    severity: Severity
    title: str
    explanation: str
    bad: str = ""
    good: str = ""
    area: str = "core"


# an entry starts at its table header, alone on its line: `[E0203]`
_HEADER = re.compile(r"^\[([EW]\d{4})\][ \t]*$", re.MULTILINE)


class _Registry(Mapping[str, Code]):
    """Reads the TOML files lazily: the first lookup splits them into one section per code
    (a plain scan for table headers), and each code's section is parsed by `tomllib` the
    first time that code is looked up. Parsing every file cost a check that reports one
    diagnostic ~20 ms of its start-up; a test pins that the sections, parsed alone, give
    exactly what parsing the whole files gives."""

    def __init__(self) -> None:
        self._sections: dict[str, tuple[str, str]] | None = None  # code -> (area, TOML)
        self._codes: dict[str, Code] = {}

    def _index(self) -> dict[str, tuple[str, str]]:
        if self._sections is None:
            sections: dict[str, tuple[str, str]] = {}
            for path in sorted(registry_folder().glob("*.toml")):
                text = path.read_text("utf-8")
                heads = list(_HEADER.finditer(text))
                ends = [h.start() for h in heads[1:]] + [len(text)]
                for head, end in zip(heads, ends, strict=True):
                    if head[1] in sections:
                        raise ValueError(f"diagnostic code {head[1]} registered twice")
                    sections[head[1]] = (path.stem, text[head.start() : end])
            self._sections = sections
        return self._sections

    def __getitem__(self, key: str) -> Code:
        found = self._codes.get(key)
        if found is None:
            import tomllib

            area, text = self._index()[key]
            data = tomllib.loads(text)[key]
            found = self._codes[key] = Code(
                code=key,
                severity=Severity(data["severity"]),
                title=data["title"],
                explanation=data["explanation"].strip(),
                bad=data.get("bad", "").strip("\n"),
                good=data.get("good", "").strip("\n"),
                area=area,
            )
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._index()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._index()))

    def __len__(self) -> int:
        return len(self._index())


def registry_folder() -> Path:
    """The folder of the registry's TOML files (package data, beside this module)."""
    return Path(__file__).with_name("registry")


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
