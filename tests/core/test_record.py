"""`lablang.record`: the package's record classes behave as the attrs classes they replace."""

from __future__ import annotations

import copy
import functools
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from lablang.record import (
    MAX_FACTORY_FIELDS,
    MAX_FIELDS,
    NOTHING,
    FrozenError,
    asdict,
    define,
    evolve,
    field,
    fields,
    frozen,
    has,
    template_source,
)

ROOT = Path(__file__).resolve().parents[2]


@frozen
class Point:
    x: int
    y: int = 0


@frozen(slots=True, kw_only=True)
class Node:
    name: str
    items: tuple[Any, ...] = ()
    note: str | None = field(default=None, eq=False)
    tags: list[str] = field(factory=list, eq=False, repr=False)


@define
class Cache:
    roots: list[str]
    entries: dict[str, int] = field(factory=dict)
    _available: list[str] | None = field(default=None, init=False, repr=False)


@frozen
class Checked:
    status: str = "failed"

    def __post_init__(self) -> None:
        if self.status not in ("succeeded", "failed"):
            raise ValueError(f"not a status: {self.status}")


@frozen
class Base:
    a: int


@frozen
class Derived(Base):
    b: str = "b"

    def describe(self) -> str:
        return f"{super().__repr__()} derived"

    @property
    def sized(self) -> int:
        return len(super().__repr__())


@frozen(slots=False)
class Unslotted:
    text: str


def test_construction_fills_defaults_and_calls_factories_once_per_instance() -> None:
    """Defaults are used when an argument is left out, factories are called per instance."""
    assert Point(1).y == 0
    first, second = Node(name="a"), Node(name="b")
    assert first.tags == [] and first.tags is not second.tags
    assert Node(name="a", tags=["t"]).tags == ["t"]


def test_kw_only_records_refuse_positional_arguments() -> None:
    """A `kw_only` record takes its fields by name only; a plain one positionally too."""
    with pytest.raises(TypeError):
        Node("a")  # type: ignore[misc]
    assert Point(1, 2) == Point(x=1, y=2)


def test_a_missing_argument_is_the_ordinary_type_error() -> None:
    """Leaving out a field without a default fails as a Python call does."""
    with pytest.raises(TypeError, match="name"):
        Node()  # type: ignore[call-arg]


def test_a_mandatory_field_after_a_defaulted_positional_one_is_refused() -> None:
    """Declaring a field without a default after one with a default (positionally) fails."""
    with pytest.raises(ValueError, match="follows"):

        @frozen
        class Wrong:
            a: int = 0
            b: int  # type: ignore[misc]


def test_assigning_or_deleting_a_field_of_a_frozen_record_raises_frozen_error() -> None:
    """Frozen records refuse assignment and deletion with an AttributeError subclass."""
    point = Point(1)
    with pytest.raises(FrozenError, match="frozen record"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.x  # type: ignore[misc]
    assert point.x == 1


def test_mutable_records_accept_assignment() -> None:
    """`define` records are mutable."""
    cache = Cache(["a"])
    cache.roots = ["b"]
    assert cache.roots == ["b"]


def test_equality_needs_the_same_class_and_skips_eq_false_fields() -> None:
    """Records are equal by their eq fields and only to records of the same class."""
    assert Node(name="a", note="x") == Node(name="a", note="y")
    assert Node(name="a") != Node(name="b")
    assert Base(1) != Derived(1)
    assert Point(1, 0) != (1, 0)


def test_frozen_records_hash_by_their_eq_fields() -> None:
    """Equal frozen records hash alike (eq=False fields do not count) and work as keys."""
    assert hash(Node(name="a", note="x")) == hash(Node(name="a", note="y"))
    assert {Point(1): "p"}[Point(1, 0)] == "p"


def test_mutable_records_with_eq_are_unhashable() -> None:
    """A `define` record compares by fields, so it has no hash (attrs' rule)."""
    with pytest.raises(TypeError):
        hash(Cache(["a"]))


def test_eq_false_records_compare_and_hash_by_identity() -> None:
    """`eq=False` leaves object identity as equality and hash."""

    @define(eq=False)
    class Handle:
        value: int

    one = Handle(1)
    assert one != Handle(1) and one == one and hash(one) == object.__hash__(one)


def test_repr_is_attrs_text_without_repr_false_fields() -> None:
    """repr is `Name(a=1, b='x')`; `repr=False` fields are left out."""
    assert repr(Point(1)) == "Point(x=1, y=0)"
    assert repr(Node(name="a", tags=["t"])) == "Node(name='a', items=(), note=None)"
    assert repr(Cache(["r"])) == "Cache(roots=['r'], entries={})"


def test_init_false_fields_are_set_to_their_default() -> None:
    """A field with `init=False` is no argument and starts at its default."""
    cache = Cache(["a"])
    assert cache._available is None
    with pytest.raises(TypeError):
        Cache(["a"], {}, ["x"])  # type: ignore[call-arg]


def test_the_post_init_hook_runs_after_the_fields_are_set() -> None:
    """`__post_init__` runs at construction (here refusing a value) and after evolve."""
    assert Checked().status == "failed"
    with pytest.raises(ValueError, match="not a status"):
        Checked("maybe")
    with pytest.raises(ValueError, match="not a status"):
        evolve(Checked(), status="maybe")


def test_evolve_copies_with_changes_through_init() -> None:
    """evolve replaces the named fields and keeps the others; unknown names fail."""
    node = Node(name="a", items=(1,), note="n")
    assert evolve(node, name="b") == Node(name="b", items=(1,), note="n")
    assert evolve(node, name="b").note == "n"
    with pytest.raises(TypeError):
        evolve(node, nonsense=1)
    with pytest.raises(TypeError):
        evolve(object())


def test_evolve_of_a_private_field_uses_the_name_without_underscore() -> None:
    """A field `_x` is the argument `x` (attrs' alias), also for evolve."""

    @frozen
    class Private:
        _x: int

    assert evolve(Private(1), x=2)._x == 2


def test_fields_lists_names_defaults_and_options_in_order() -> None:
    """fields() gives each field's name, default, eq, repr, init and metadata."""
    listed = fields(Node)
    assert [f.name for f in listed] == ["name", "items", "note", "tags"]
    assert listed[0].default is NOTHING and listed[1].default == ()
    assert not listed[2].eq and not listed[3].repr and listed[3].factory is list
    assert [f.name for f in fields(Derived)] == ["a", "b"]

    @frozen
    class Limited:
        size: int = field(default=3, metadata={"code": "E0001"})

    assert fields(Limited)[0].metadata["code"] == "E0001"
    with pytest.raises(TypeError):
        fields(int)


def test_has_recognises_record_classes_only() -> None:
    """has() is true for record classes (and their subclasses), false for anything else."""
    assert has(Point) and has(Cache) and has(Derived)
    assert not has(int) and not has(object) and not has(Point(1))


def test_asdict_recurses_into_records_and_collections() -> None:
    """asdict turns nested records into dicts and tuples/lists/sets into lists (attrs)."""
    node = Node(name="a", items=(Point(1), [Point(2)]))
    assert asdict(node) == {
        "name": "a",
        "items": [{"x": 1, "y": 0}, [{"x": 2, "y": 0}]],
        "note": None,
        "tags": [],
    }
    assert asdict(Cache(["r"], {"k": 1})) == {
        "roots": ["r"],
        "entries": {"k": 1},
        "_available": None,
    }
    assert asdict(node, recurse=False)["items"] == (Point(1), [Point(2)])


@pytest.mark.parametrize("value", [Point(1, 2), Node(name="a", tags=["t"]), Unslotted("u")])
def test_records_survive_pickle_copy_and_deepcopy(value: Any) -> None:
    """Frozen slotted (and unslotted) records pickle, copy and deepcopy to equal values."""
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.copy(value) == value
    assert copy.deepcopy(value) == value
    if isinstance(value, Node):
        assert copy.deepcopy(value).tags is not value.tags


def test_mutable_records_survive_pickle_with_their_init_false_fields() -> None:
    """A `define` record pickles with every field, init=False ones included."""
    cache = Cache(["r"])
    cache._available = ["x"]
    back = pickle.loads(pickle.dumps(cache))
    assert back == cache and back._available == ["x"]


def test_zero_argument_super_works_in_methods_of_slotted_records() -> None:
    """The slotted class is re-created; `super()` in its methods and properties still works."""
    assert Derived(1).describe() == "Derived(a=1) derived"  # Base's repr, called by super()
    assert Derived(1).sized == len("Derived(a=1)")


def test_slotted_records_have_no_instance_dict() -> None:
    """Slotted records keep fields in slots only (no `__dict__`, no stray attributes)."""
    with pytest.raises(AttributeError):
        Point(1).__dict__  # noqa: B018
    assert vars(Unslotted("u")) == {"text": "u"}


def test_match_statements_destructure_records_by_position_and_by_name() -> None:
    """`__match_args__` lists the positional fields, as attrs sets it."""
    match Point(1, 2):
        case Point(a, b):
            assert (a, b) == (1, 2)
    match Node(name="n"):
        case Node(name=name):
            assert name == "n"
    assert Node.__match_args__ == ()


def test_class_vars_are_not_fields() -> None:
    """An annotation `ClassVar[...]` is a class attribute, not a field."""

    @frozen
    class Counted:
        LIMIT: ClassVar[int] = 3
        n: int

    assert [f.name for f in fields(Counted)] == ["n"] and Counted.LIMIT == 3


def test_methods_defined_in_the_body_are_kept() -> None:
    """A record's own `__eq__`/`__hash__`/`__repr__` are not replaced (attrs' auto-detect)."""

    @frozen(eq=False)
    class Loose:
        v: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Loose) and abs(self.v - other.v) < 2

        def __hash__(self) -> int:
            return 0

        def __repr__(self) -> str:
            return "loose"

    assert Loose(1) == Loose(2) and hash(Loose(5)) == 0 and repr(Loose(1)) == "loose"


def test_mypy_accepts_records_and_rejects_misuse(tmp_path: Path) -> None:
    """mypy reads the decorators (dataclass_transform): typed fields, kw_only, frozen."""
    pytest.importorskip("mypy")  # a `test` extra, not in the core tests' `test-core`
    good = tmp_path / "good.py"
    good.write_text(
        "from lablang.record import define, evolve, field, frozen\n"
        "@frozen(kw_only=True)\n"
        "class K:\n    a: str\n    b: list[int] = field(factory=list)\n"
        "@define\n"
        "class M:\n    x: int\n"
        "k: K = evolve(K(a='x'), a='y')\n"
        "m = M(1)\nm.x = 2\n"
        "bad_positional = K('x')\n"
        "bad_type = K(a=1)\n"
        "K(a='x').a = 'z'\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "c"), str(good)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["12", "13", "14"], run.stdout


def test_unknown_options_of_a_field_or_a_decorator_are_refused() -> None:
    """A misspelt option fails at declaration instead of being ignored."""
    with pytest.raises(TypeError, match="eqq"):
        field(eqq=False)
    with pytest.raises(TypeError, match="frozen"):
        define(frozen=True)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="not both"):
        field(default=1, factory=list)


def test_the_generated_method_templates_are_current() -> None:
    """`lablang/record_code.py` is what `python -m lablang.record` prints today."""
    assert (ROOT / "lablang" / "record_code.py").read_text("utf-8") == template_source()


def test_a_record_with_more_fields_than_the_templates_hold_is_refused() -> None:
    """Past `MAX_FIELDS` fields a declaration fails naming the limit (no silent slow path)."""
    body = {"__annotations__": {f"f{i}": "int" for i in range(MAX_FIELDS + 1)}}
    with pytest.raises(TypeError, match=f"at most {MAX_FIELDS} fields"):
        frozen(type("Wide", (), body))


def test_records_with_many_factory_fields_still_call_each_factory() -> None:
    """Past `MAX_FACTORY_FIELDS` arguments the factories run in the setters, same result."""
    names = [f"f{i}" for i in range(MAX_FACTORY_FIELDS + 1)]
    body: dict[str, Any] = {"__annotations__": dict.fromkeys(names, "list")}
    body.update({name: field(factory=list) for name in names})
    for decorator in (frozen, define):
        wide = decorator(type("Wide", (), dict(body)))
        one, two = wide(), wide(f0=[1])
        assert one.f0 == [] and one.f0 is not wide().f0 and two.f0 == [1]


def test_a_check_of_the_10x_example_imports_neither_attrs_nor_cattrs() -> None:
    """`lablang check` runs on lablang's own records: attrs/cattrs are not imported."""
    probe = (
        "import sys\n"
        "from lablang.cli import run\n"
        "try:\n"
        "    run(['check', sys.argv[1]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('attr', 'attrs', 'cattrs')))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(ROOT / "examples" / "tenx_3p_v3.lab")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout + run.stderr


def test_the_contributing_guide_example_declares_working_records() -> None:
    """CONTRIBUTING.md's record example runs, and its records behave as its comments say."""
    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    section = text.split("## Declare a record", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    checks = (
        "assert Strand('A', label='x') == Strand('A') and hash(Strand('A')) == hash(Strand('A'))\n"
        "assert evolve(Strand('A'), name='n').name == 'n' and [f.name for f in fields(Node)]\n"
        "assert Node().notes == [] and repr(Node()) == 'Node(items=())'\n"
        "assert Cache().entries == {} and Cache()._seen == set()\n"
        "print('ok')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", example + checks], capture_output=True, text=True, cwd=ROOT
    )
    assert run.stdout == "ok\n", run.stderr


def test_a_cached_property_on_a_slotted_record_is_refused_at_declaration() -> None:
    """A slotted record has no `__dict__` to cache in: declaring one fails, naming the fix."""
    with pytest.raises(TypeError, match="slots=False"):

        @frozen
        class Cached:
            text: str

            @functools.cached_property
            def size(self) -> int:
                return len(self.text)
