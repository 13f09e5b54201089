"""The one guarded reader of JSON, JSON lines and YAML data files (they come from agents).

Every command that reads data (import, score, legal --state, monitor, grade, replay) goes
through here, so one set of bounds holds everywhere: the file's size is checked before it
is read, nesting depth and integer digits are bounded, non-finite numbers are refused,
and YAML aliases (which expand a 2 KB file into gigabytes) are refused. Any failure is a
`DataFileError` whose message names the bound; the caller reports it under its own code.

>>> load_json('{"a": [1, 2]}', "x.json")
{'a': [1, 2]}
>>> load_json("[" * 500 + "]" * 500, "x.json")
Traceback (most recent call last):
...
lablang.datafile.DataFileError: `x.json` nests arrays and objects more than 100 deep (the limit is `max_data_depth`)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.output import remember_input


class DataFileError(ValueError):
    """A data file that is unreadable, malformed or past a bound; the message says which.

    `reason` is the guarded opener's (`lablang.guarded.REASONS`) when it refused the file,
    else `malformed`."""

    def __init__(self, message: str, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


def read_data_text(
    path: str | Path,
    limits: Limits = DEFAULT_LIMITS,
    roots: Sequence[str | Path] | None = None,
) -> str:
    """The UTF-8 text of a data file, opened by the guarded opener (`lablang.guarded`:
    inside `roots`, or the named file itself when `roots` is None; a regular file; its
    size checked before anything is read)."""
    from lablang.guarded import Refused, read_guarded

    path = Path(path)
    try:
        data = read_guarded(path, roots, max_bytes=limits.max_data_bytes, limit="max_data_bytes")
    except Refused as error:
        raise DataFileError(error.message, error.reason) from None
    remember_input(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataFileError(f"`{path.name}` is not UTF-8 (byte {error.start})") from None


def _too_big(name: str, size: int, limits: Limits) -> str:
    return (
        f"`{name}` is {size} bytes, more than the {limits.max_data_bytes} allowed "
        "(the limit is `max_data_bytes`)"
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"`{name}` is not a finite number")


def load_json(text: str, name: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Any:
    """One JSON document, bounded (see the module docstring); `name` starts the message."""
    if len(text) > limits.max_data_bytes:
        raise DataFileError(_too_big(name or "the document", len(text), limits))
    try:
        return _decode(text, limits)
    except _Refused as error:
        raise DataFileError(_named(name, error) if name else str(error)) from None


def load_json_lines(
    text: str, name: str = "<data>", limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a JSON lines file, each bounded."""
    if len(text) > limits.max_data_bytes:
        raise DataFileError(_too_big(name, len(text), limits))
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield number, _decode(line, limits)
            except _Refused as error:
                raise DataFileError(f"line {number}: {error}") from None


class _Refused(Exception):
    """Why a document is refused, without the file's name (the caller adds it)."""


def _named(name: str, reason: _Refused) -> str:
    text = str(reason)
    return f"`{name}` {'is ' if text.startswith(('not ', 'refused')) else ''}{text}"


def _decode(text: str, limits: Limits) -> Any:
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        where = f" at line {error.lineno} column {error.colno}" if "\n" in text.strip() else ""
        raise _Refused(f"not valid JSON ({error.msg}){where}") from None
    except RecursionError:
        raise _Refused(_too_deep(limits)) from None
    except ValueError as error:  # Python's own integer-digit limit, NaN, Infinity
        raise _Refused(f"refused: {_short(str(error))}") from None
    _check_tree(value, limits)
    return value


def load_yaml(
    text: str,
    name: str = "<data>",
    limits: Limits = DEFAULT_LIMITS,
    constructors: dict[str, Callable[[Any, Any], Any]] | None = None,
) -> Any:
    """One YAML document read with PyYAML's safe loader, aliases and depth bounded."""
    import yaml

    if len(text) > limits.max_yaml_bytes:  # PyYAML reads about 150 KB a second
        raise DataFileError(
            f"`{name}` is {len(text)} characters of YAML, more than the {limits.max_yaml_bytes} "
            "allowed (the limit is `max_yaml_bytes`)"
        )
    loader_class = _bounded_loader(yaml, limits, constructors or {})
    loader = None
    try:
        loader = loader_class(text)  # the reader refuses some characters here already
        value = loader.get_single_data()
        _check_tree(value, limits)
    except _Refused as error:
        raise DataFileError(_named(name, error)) from None
    except yaml.YAMLError as error:
        raise DataFileError(f"`{name}` is not valid YAML: {_short(str(error))}") from None
    except RecursionError:
        raise DataFileError(f"`{name}` {_too_deep(limits)}") from None
    except (ValueError, TypeError, OverflowError) as error:  # e.g. int() of 5,000 digits
        raise DataFileError(f"`{name}` is refused: {_short(str(error))}") from None
    finally:
        if loader is not None:
            loader.dispose()
    return value


def yaml_spans(
    text: str, name: str = "<data>", limits: Limits = DEFAULT_LIMITS
) -> dict[tuple[Any, ...], tuple[int, int]]:
    """Where each value of a YAML document is: its path (mapping keys and list indexes
    from the root) -> its start and end character offsets, for diagnostics that point at
    a node. Read with the same bounds as `load_yaml` (composed, never constructed).

    >>> yaml_spans("a:\\n- {b: 1}\\n")[("a", 0, "b")]
    (9, 10)
    """
    import yaml

    if len(text) > limits.max_yaml_bytes:
        raise DataFileError(f"`{name}` is more than {limits.max_yaml_bytes} characters of YAML")
    loader = _bounded_loader(yaml, limits, {})(text)
    try:
        root = loader.get_single_node()
    except _Refused as error:
        raise DataFileError(_named(name, error)) from None
    except yaml.YAMLError as error:
        raise DataFileError(f"`{name}` is not valid YAML: {_short(str(error))}") from None
    finally:
        loader.dispose()
    spans: dict[tuple[Any, ...], tuple[int, int]] = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), root)] if root is not None else []
    while stack:
        path, node = stack.pop()
        spans[path] = (node.start_mark.index, node.end_mark.index)
        if isinstance(node, yaml.MappingNode):
            stack.extend(((*path, key.value), value) for key, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(((*path, i), item) for i, item in enumerate(node.value))
    return spans


def _bounded_loader(yaml: Any, limits: Limits, constructors: dict[str, Any]) -> Any:
    class BoundedLoader(yaml.SafeLoader):
        # PyYAML's composer recurses per level and resolves aliases by sharing nodes,
        # so both are bounded here, where nodes are built, before anything is expanded.
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = 0
            self._aliases = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self._aliases += 1
                if self._aliases > limits.max_yaml_aliases:
                    mark = self.peek_event().start_mark
                    raise _Refused(
                        f"has a YAML alias at line {mark.line + 1}: more than "
                        f"{limits.max_yaml_aliases} allowed (the limit is `max_yaml_aliases`)"
                    )
            self._depth += 1
            if self._depth > limits.max_data_depth:
                mark = self.peek_event().start_mark
                raise _Refused(
                    f"nests more than {limits.max_data_depth} deep at line {mark.line + 1} "
                    "(the limit is `max_data_depth`)"
                )
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    for tag, constructor in constructors.items():
        BoundedLoader.add_constructor(tag, constructor)
    return BoundedLoader


def _check_tree(value: Any, limits: Limits) -> None:
    """Depth, integer size and finiteness over the whole parsed tree (iteratively)."""
    max_bits = int(limits.max_data_integer_digits * math.log2(10)) + 1
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth >= limits.max_data_depth:
                raise _Refused(_too_deep(limits))
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict):
                stack.extend((key, depth + 1) for key in item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if item.bit_length() > max_bits:
                raise _Refused(
                    f"has an integer of more than {limits.max_data_integer_digits} "
                    "digits (the limit is `max_data_integer_digits`)"
                )
        elif isinstance(item, float) and not math.isfinite(item):
            raise _Refused(f"has a number that is not finite (`{item}`)")


def _too_deep(limits: Limits) -> str:
    return (
        f"nests arrays and objects more than {limits.max_data_depth} deep "
        "(the limit is `max_data_depth`)"
    )


def _short(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
