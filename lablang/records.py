"""What the project's frozen records share: one `__repr__`, written once here.

attrs compiles a `__repr__` from source for every class it declares, about a third of what
declaring a class costs (0.3 of 0.85 ms on this machine), and a check declares over a
hundred record classes before it reads a file. A record class declared
`@frozen(repr=False)` that derives from `Record` prints the text attrs would have
generated instead: `Name(field=value, ...)` with the fields whose `repr` is true, a field's
own `repr` callable where it has one (tests/core/test_records.py compares the two).

Only frozen records use it: their fields are set once, so a record cannot contain itself
and attrs' guard against printing a cycle (`...`) has nothing to catch.
"""

from __future__ import annotations

from typing import Any

from attrs import NOTHING, fields


class Record:
    """The base of a `@frozen(repr=False)` record: attrs' repr text, computed at call time."""

    __slots__ = ()

    def __repr__(self) -> str:
        kind: Any = type(self)  # every subclass is an attrs class
        shown = []
        for field in fields(kind):
            if field.repr is False:
                continue
            value = getattr(self, field.name, NOTHING)
            text = repr(value) if field.repr is True else field.repr(value)
            shown.append(f"{field.name}={text}")
        return f"{kind.__qualname__.rsplit('>.', 1)[-1]}({', '.join(shown)})"
