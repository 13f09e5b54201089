"""lablang's records (`lablang.record`) against attrs classes of the same shapes, as ratios
measured in one run (never absolute targets). attrs is not a dependency of lablang any more;
it is installed with pygls (lsprotocol), which is what this benchmark imports it from.

Per class: declaring a frozen keyword-only class of four fields.
Per instance: construction, `==` of equal instances, `hash`, `evolve`, `repr`, for the
shapes the package declares most (AST nodes: keyword-only, frozen; small positional
frozen values; a frozen record with an `eq=False` field; a mutable record with a factory).

Before timing, the two versions of each shape are checked to agree (repr text, equality,
hash of equal instances, evolve); a disagreement fails the run.

Run: python benchmarks/records.py [--repeat N] [--smoke]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import timeit
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lablang import record

_COUNTER = itertools.count()


def _shapes(lib: str) -> dict[str, Any]:
    """Four classes of the package's common shapes, declared with attrs or with records."""
    if lib == "attrs":
        frozen, define, field, evolve = attrs.frozen, attrs.define, attrs.field, attrs.evolve
    else:
        frozen, define, field, evolve = record.frozen, record.define, record.field, record.evolve

    @frozen(kw_only=True)
    class Call:
        func: str
        args: tuple[Any, ...]
        span: tuple[int, int]

    @frozen(slots=True)
    class Span:
        start: int
        end: int

    @frozen(slots=True)
    class Strand:
        seq: str
        name: str
        phosphate_5p: bool = False
        circular: bool = False
        label: str | None = field(default=None, eq=False)
        note: str = ""

    @frozen
    class End:
        top: str = field(factory=str)
        bottom: str = field(factory=str)
        phosphate: bool = False

    @define
    class Loader:
        roots: list[str]
        cache: dict[str, int] = field(factory=dict)

    return {
        "Call (kw_only, 3 fields)": (Call, lambda: Call(func="f", args=(1, 2), span=(0, 4))),
        "Span (2 positional)": (Span, lambda: Span(3, 9)),
        "Strand (6 fields, eq=False one)": (Strand, lambda: Strand("ACGT", "s", True)),
        "End (frozen, 2 factories)": (End, lambda: End(bottom="AC")),
        "Loader (define, factory)": (Loader, lambda: Loader(["a"])),
        "evolve": evolve,
    }


def _declare(lib: str) -> None:
    """Declare one kw_only frozen class of 4 fields with fresh field names."""
    i = next(_COUNTER)
    namespace = {
        "__annotations__": {f"a{i}": "str", f"b{i}": "int", f"c{i}": "tuple", "span": "Span"},
        "__module__": __name__,
        "__qualname__": f"Node{i}",
    }
    cls = type(f"Node{i}", (), namespace)
    if lib == "attrs":
        attrs.frozen(kw_only=True)(cls)
    else:
        record.frozen(kw_only=True)(cls)


def _time(statement: Any, number: int, repeat: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=repeat)) / number


def _agree(shapes: dict[str, dict[str, Any]]) -> None:
    """attrs' and the record's version of every shape give the same results."""
    for name in shapes["attrs"]:
        if name == "evolve":
            continue
        seen = []
        for lib in ("attrs", "record"):
            cls, make = shapes[lib][name]
            x, y = make(), make()
            first = (record.fields(cls) if lib == "record" else attrs.fields(cls))[0].name
            again = shapes[lib]["evolve"](x, **{first: getattr(x, first)})
            hashable = cls.__hash__ is not None
            seen.append((repr(x), x == y, again == x, hashable and hash(x) == hash(y)))
        assert seen[0] == seen[1], f"{name}: attrs {seen[0]} but record {seen[1]}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--smoke", action="store_true", help="one tiny run of each row")
    options = parser.parse_args()
    repeat, number, classes = (1, 100, 5) if options.smoke else (options.repeat, 5_000, 50)
    shapes = {lib: _shapes(lib) for lib in ("attrs", "record")}
    _agree(shapes)

    print("per class: declaring a frozen kw_only class of 4 fields (record / attrs)")
    a = r = float("inf")
    for _ in range(repeat):  # alternated; the fastest run of each
        a = min(a, _time(lambda: _declare("attrs"), classes, 1))
        r = min(r, _time(lambda: _declare("record"), classes, 1))
    print(f"  attrs {a * 1e6:6.1f} us  record {r * 1e6:6.1f} us  ratio {r / a:.2f}")

    print("per instance (record / attrs; <= 1.10 is the target)")
    for name in shapes["attrs"]:
        if name == "evolve":
            continue
        rows = {}
        for operation in ("construct", "eq", "hash", "evolve", "repr"):
            best: dict[str, float] = {}
            for _ in range(repeat):
                times = {}
                for lib in ("attrs", "record"):
                    cls, make = shapes[lib][name]
                    evolve = shapes[lib]["evolve"]
                    x, y = make(), make()
                    field = record.fields(cls)[0].name if lib == "record" else None
                    field = field or attrs.fields(cls)[0].name
                    if operation == "hash" and cls.__hash__ is None:
                        break
                    statement = {
                        "construct": make,
                        "eq": lambda x=x, y=y: x == y,
                        "hash": lambda x=x: hash(x),
                        "evolve": lambda x=x, e=evolve, f=field: e(x, **{f: getattr(x, f)}),
                        "repr": lambda x=x: repr(x),
                    }[operation]
                    times[lib] = _time(statement, number, 1)
                for lib, seconds in times.items():
                    best[lib] = min(best.get(lib, seconds), seconds)
            if len(best) == 2:  # the fastest of the alternated runs: load spikes only slow
                rows[operation] = best["record"] / best["attrs"]
        shown = "  ".join(f"{op} {ratio:.2f}" for op, ratio in rows.items())
        print(f"  {name:32} {shown}")


if __name__ == "__main__":
    main()
