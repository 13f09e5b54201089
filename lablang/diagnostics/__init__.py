"""Diagnostics are data: every stage adds them to a `Report` instead of raising.

A diagnostic has a registered code (see `lablang.diagnostics.codes`), a severity,
a lowercase message without a final period, a primary span, optional secondary
labels and notes, a `help` line with the fix, and, where the fix is mechanical, a
machine-applicable `Fix` (text edits) that editors and agents can apply.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from attrs import define, field, frozen

from lablang.diagnostics.severity import Severity
from lablang.records import Compared
from lablang.source import NO_SPAN, Source, Span


@frozen(repr=False, eq=False)
class Label(Compared):
    span: Span
    message: str = ""


@frozen(repr=False, eq=False)
class Edit(Compared):
    span: Span
    replacement: str


@frozen(repr=False, eq=False)
class Fix(Compared):
    """A machine-applicable repair: replace each span by its text."""

    description: str
    edits: tuple[Edit, ...]


@frozen(repr=False, eq=False)
class Diagnostic(Compared):
    code: str
    severity: Severity
    message: str
    source: Source | None
    span: Span = NO_SPAN
    label: str = ""
    labels: tuple[Label, ...] = ()
    notes: tuple[str, ...] = ()
    help: str | None = None
    fix: Fix | None = None

    @property
    def file(self) -> str:
        return self.source.name if self.source else "<none>"

    @property
    def start(self) -> tuple[int, int]:
        return self.source.position(self.span.start) if self.source else (1, 1)

    @property
    def end(self) -> tuple[int, int]:
        return self.source.position(self.span.end) if self.source else (1, 1)


class InternalError(Exception):
    """A bug in lablang itself, never a problem with the user's input."""


@define
class Report:
    """Collects diagnostics from every stage of one run."""

    diagnostics: list[Diagnostic] = field(factory=list)
    # where a stage is working now (its current declaration): the location an internal
    # error is reported at
    working_at: tuple[Source, Span] | None = None
    # names of declarations the parser dropped after a syntax error: their uses are not
    # reported again as undeclared
    dropped: set[str] = field(factory=set)

    def add(
        self,
        code: str,
        message: str,
        source: Source | None,
        span: Span = NO_SPAN,
        *,
        label: str = "",
        labels: Sequence[Label] = (),
        notes: Sequence[str] = (),
        help: str | None = None,
        fix: Fix | None = None,
        severity: Severity | None = None,
    ) -> Diagnostic:
        """Record a diagnostic; its severity defaults to the registered one."""
        from lablang.diagnostics.codes import CODES

        if code not in CODES:
            raise InternalError(f"diagnostic code {code} is not registered")
        diagnostic = Diagnostic(
            code=code,
            severity=severity or CODES.severity(code),
            message=message,
            source=source,
            span=span,
            label=label,
            labels=tuple(labels),
            notes=tuple(notes),
            help=help,
            fix=fix,
        )
        self.diagnostics.append(diagnostic)
        return diagnostic

    def extend(self, other: Report) -> None:
        self.diagnostics.extend(other.diagnostics)
        self.dropped.update(other.dropped)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.file, d.span.start, d.code))

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)
