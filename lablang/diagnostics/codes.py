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

from attrs import frozen

from lablang.diagnostics.severity import Severity
from lablang.records import Compared


@frozen(repr=False, eq=False)
class Code(Compared):
    code: str
    severity: Severity
    title: str
    explanation: str
    bad: str = ""
    good: str = ""
    area: str = "core"


# an entry starts at its table header, alone on its line: `[E0203]`
_HEADER = re.compile(r"^\[([EW]\d{4})\][ \t]*$", re.MULTILINE)
# the one key reporting needs, as the registry files write it
_SEVERITY = re.compile(r'^severity = "(error|warning|note)"$', re.MULTILINE)


# The file of each code range (the third character of the code: E0804 -> "8"), as the
# ranges above assign them; a test pins that every code lives in its range's file.
_RANGE_FILES = {
    "0": "core", "1": "core", "2": "core", "3": "core", "4": "molecular", "5": "scoring",
    "6": "contracts", "7": "sim", "8": "protocols",
}  # fmt: skip


def _split(path: Path) -> Iterator[tuple[str, str]]:
    """Each (code, TOML section) of one registry file, in order."""
    text = path.read_text("utf-8")
    heads = list(_HEADER.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    for head, end in zip(heads, ends, strict=True):
        yield head[1], text[head.start() : end]


class _Registry(Mapping[str, Code]):
    """Reads the TOML files lazily: looking up one code reads the file of its range and
    splits it into one section per code (a plain scan for table headers); each code's
    section is parsed by `tomllib` the first time that code is looked up, and listing
    the codes splits every file. Parsing every file cost a check that reports one
    diagnostic ~20 ms of its start-up; a test pins that the sections, parsed alone, give
    exactly what parsing the whole files gives."""

    def __init__(self) -> None:
        self._sections: dict[str, tuple[str, str]] | None = None  # code -> (area, TOML)
        self._areas: dict[str, dict[str, str]] = {}  # area -> code -> TOML, files read
        self._codes: dict[str, Code] = {}

    def _index(self) -> dict[str, tuple[str, str]]:
        if self._sections is None:
            sections: dict[str, tuple[str, str]] = {}
            for path in sorted(registry_folder().glob("*.toml")):
                for code, text in _split(path):
                    if code in sections:
                        raise ValueError(f"diagnostic code {code} registered twice")
                    sections[code] = (path.stem, text)
            self._sections = sections
        return self._sections

    def _section(self, key: str) -> tuple[str, str] | None:
        """`key`'s (area, TOML section), from its range's file alone while no lookup
        needed the whole registry; None for a code not registered."""
        area = _RANGE_FILES.get(key[2:3]) if len(key) == 5 and key[:2] in ("E0", "W0") else None
        if self._sections is not None or area is None:
            return self._index().get(key)
        if area not in self._areas:
            path = registry_folder() / f"{area}.toml"
            self._areas[area] = dict(_split(path)) if path.is_file() else {}
        text = self._areas[area].get(key)
        return None if text is None else (area, text)

    def __getitem__(self, key: str) -> Code:
        found = self._codes.get(key)
        if found is None:
            import tomllib

            section = self._section(key)
            if section is None:
                raise KeyError(key)
            area, text = section
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

    def severity(self, key: str) -> Severity:
        """A code's severity, all that reporting it needs: read from its section's
        `severity = "..."` line (before any multi-line string) without loading `tomllib`;
        a section that spells it otherwise is parsed (a test pins both agree)."""
        found = self._codes.get(key)
        if found is not None:
            return found.severity
        section = self._section(key)
        if section is None:
            raise KeyError(key)
        line = _SEVERITY.search(section[1].partition('"""')[0])
        return Severity(line[1]) if line is not None else self[key].severity

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._section(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._index()))

    def __len__(self) -> int:
        return len(self._index())


def registry_folder() -> Path:
    """The folder of the registry's TOML files (package data, beside this module)."""
    return Path(__file__).with_name("registry")


CODES = _Registry()  # a Mapping[str, Code], and `CODES.severity(code)`


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
